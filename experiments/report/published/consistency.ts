/**
 * Internal consistency of the published numbers, where the papers allow a check: each check
 * recomputes a printed number from others (within the printed rounding) and says whether it agrees.
 * A failed check is an inconsistency in the paper itself (the transcription is checked separately
 * against the paper's text), listed in the docs and by the test.
 *
 * Checks: MedMeta Table 4 Cohen's d = t/√N, p from t (two-sided, N − 1 df), "Sig." = p < 0.05, the
 * LLM rows' mean differences against Table 2, Table 3's LoA midpoint = mean bias, and two sentences
 * of the text against Table 2; MedConclusion Table 4's and Table 5's mode-A / GPT-5.4-mini rows
 * against Table 2 and §4.2's differences against Table 4; RWESummary Figure 2 (bounds, normalised
 * outcomes, scores) recomputed from Table 1 with judges/rwe-weighted-score.ts, and the Results
 * paragraph's ranges.
 */
import { studentTTwoSided } from "../../../judges/stats/index.ts";
import { computeRweWeightedScore } from "../../../judges/rwe-weighted-score.ts";
import { MEDMETA_PUBLISHED } from "./medmeta.ts";
import { MEDCONCLUSION_PUBLISHED } from "./medconclusion.ts";
import { RWESUMMARY_METRIC_IDS, RWESUMMARY_OUTCOMES, RWESUMMARY_PUBLISHED, RWESUMMARY_TABLE1 } from "./rwesummary.ts";
import type { PaperId, PublishedValue } from "./schema.ts";

/** One consistency check and its outcome. */
export interface ConsistencyCheck {
  paper: PaperId;
  /** What is checked, naming the table and row. */
  check: string;
  ok: boolean;
  /** The numbers compared. */
  detail: string;
}

/** Half a unit of the last printed decimal of a cell ("0.517" → 0.0005, "20" → 0.5). */
export function printedHalfUnit(printed: string): number {
  const m = /\.(\d+)/.exec(printed);
  return 0.5 * 10 ** -(m ? m[1].length : 0);
}

const num = (v: PublishedValue | undefined): number => {
  if (!v || typeof v.value !== "number") throw new Error(`consistency: expected a numeric published value, got ${JSON.stringify(v)}`);
  return v.value;
};
const overlaps = (a: [number, number], b: [number, number]) => a[0] <= b[1] + 1e-12 && b[0] <= a[1] + 1e-12;

function find(values: readonly PublishedValue[], table: string, row: Record<string, string>, column: string): PublishedValue | undefined {
  return values.find((v) => v.table === table && v.column === column && Object.entries(row).every(([k, x]) => v.row[k] === x));
}

/** MedMeta Table 4: d = t/√N, p from t, Sig. = p < .05, and (LLM rows) mean differences against Table 2. */
function medmetaTable4Checks(): ConsistencyCheck[] {
  const out: ConsistencyCheck[] = [];
  const rows = MEDMETA_PUBLISHED.filter((v) => v.table === "Table 4" && v.column === "N");
  const T2_COL: Record<string, string> = { "Golden-RAG": "G-RAG", "Parametric-CoT": "P-CoT" };
  for (const nv of rows) {
    const cell = (c: string) => find(MEDMETA_PUBLISHED, "Table 4", nv.row, c)!;
    const n = num(nv);
    const t = cell("t-stat");
    const d = cell("Cohen's d");
    const p = cell("p-value");
    const label = `${nv.row.hypothesis.slice(0, 2)} ${nv.row.comparison} (${nv.row.judge})`;
    const ht = printedHalfUnit(t.printed);
    const dRange: [number, number] = [(num(t) - ht) / Math.sqrt(n), (num(t) + ht) / Math.sqrt(n)];
    const hd = printedHalfUnit(d.printed);
    out.push({
      paper: "medmeta",
      check: `Table 4 ${label}: Cohen's d = t/√N`,
      ok: overlaps(dRange, [num(d) - hd, num(d) + hd]),
      detail: `t/√N = ${num(t)}/√${n} = ${(num(t) / Math.sqrt(n)).toFixed(4)}; printed d ${d.printed}`,
    });
    const pRange: [number, number] = [studentTTwoSided(num(t) + ht, n - 1), studentTTwoSided(num(t) - ht, n - 1)];
    const hp = printedHalfUnit(p.printed);
    out.push({
      paper: "medmeta",
      check: `Table 4 ${label}: p-value from t with N − 1 df (two-sided)`,
      ok: overlaps(pRange, [num(p) - hp, num(p) + hp]),
      detail: `t = ${num(t)}, df = ${n - 1} gives p = ${studentTTwoSided(num(t), n - 1).toPrecision(3)}; printed ${p.printed}`,
    });
    const sig = cell("Sig.");
    out.push({ paper: "medmeta", check: `Table 4 ${label}: "Sig." = (p < 0.05)`, ok: (sig.value === "Yes") === num(p) < 0.05, detail: `p ${p.printed}, Sig. ${sig.printed}` });
    if (nv.row.judge !== "LLM") continue;
    // LLM rows pair the 81 items of Table 2: the mean difference is a difference of Table 2 means.
    const [a, b, col] = nv.row.hypothesis.startsWith("H2")
      ? [{ model: nv.row.comparison }, { model: nv.row.comparison }, ["G-RAG", "P-CoT"]]
      : [{ model: "MedGemma 27B" }, { model: "Gemma 27B" }, [T2_COL[nv.row.comparison], T2_COL[nv.row.comparison]]];
    const diff = num(find(MEDMETA_PUBLISHED, "Table 2", a, col[0])) - num(find(MEDMETA_PUBLISHED, "Table 2", b, col[1]));
    const md = cell("Mean Diff.");
    out.push({
      paper: "medmeta",
      check: `Table 4 ${label}: mean difference = difference of Table 2 means`,
      ok: Math.abs(diff - num(md)) <= 0.01 + printedHalfUnit(md.printed) + 1e-9,
      detail: `Table 2: ${diff.toFixed(2)} (±0.01 rounding); printed ${md.printed}`,
    });
  }
  return out;
}

/** MedMeta Table 3: the midpoint of the 95 % LoA is the mean bias (LoA = bias ± 1.96·SD). */
function medmetaTable3Checks(): ConsistencyCheck[] {
  return MEDMETA_PUBLISHED.filter((v) => v.table === "Table 3" && v.interval).map((v) => {
    const mid = (v.interval![0] + v.interval![1]) / 2;
    return {
      paper: "medmeta",
      check: `Table 3 ${v.row.model} (${v.row.workflow}): LoA midpoint = mean bias`,
      ok: Math.abs(mid - num(v)) <= 0.005 + printedHalfUnit(v.printed) + 1e-9,
      detail: `midpoint of [${v.interval!.join(", ")}] = ${mid.toFixed(3)}; printed bias ${v.printed}`,
    };
  });
}

/** MedMeta text against Table 2: "P-CoT … outperforms the P-ZS baseline (~30-33%)" and the abstract's oracle 3.17. */
function medmetaTextChecks(): ConsistencyCheck[] {
  const t2 = MEDMETA_PUBLISHED.filter((v) => v.table === "Table 2");
  const models = [...new Set(t2.map((v) => v.row.model))];
  const gains = models.map((m) => ({ m, g: num(find(t2, "Table 2", { model: m }, "P-CoT")) / num(find(t2, "Table 2", { model: m }, "P-ZS")) - 1 }));
  const off = gains.filter((x) => x.g < 0.295 || x.g > 0.335);
  const oracleMax = Math.max(...t2.filter((v) => v.column === "G-RAG").map(num));
  return [
    { paper: "medmeta", check: "§4 text: P-CoT outperforms P-ZS by ~30–33 % for every model", ok: off.length === 0, detail: gains.map((x) => `${x.m} ${(100 * x.g).toFixed(1)} %`).join(", ") },
    {
      paper: "medmeta",
      check: "Abstract: top model scores 3.17 under oracle retrieval (G-RAG)",
      ok: Math.abs(oracleMax - 3.17) < 1e-9,
      detail: `highest G-RAG mean in Table 2 is ${oracleMax.toFixed(2)}; 3.17 is Gemini Flash 2.5's K10-RAG (Standard-RAG) score`,
    },
  ];
}

/** MedConclusion: Table 4 mode A and Table 5 GPT-5.4-mini rows repeat Table 2; §4.2's differences. */
function medconclusionChecks(): ConsistencyCheck[] {
  const out: ConsistencyCheck[] = [];
  const pv = MEDCONCLUSION_PUBLISHED;
  const repeats = [
    ...pv.filter((v) => v.table === "Table 4" && v.row.mode === "A").map((v) => ({ v, where: "Table 4 mode A" })),
    ...pv.filter((v) => v.table === "Table 5" && v.row.judge === "GPT-5.4-mini").map((v) => ({ v, where: "Table 5 judge GPT-5.4-mini" })),
  ];
  for (const { v, where } of repeats) {
    const t2 = find(pv, "Table 2", { model: v.row.model }, v.column)!;
    out.push({ paper: "medconclusion", check: `${where} ${v.row.model} ${v.column} = Table 2`, ok: t2.printed === v.printed, detail: `Table 2 ${t2.printed}; ${where} ${v.printed}` });
  }
  const t4 = (mode: string, model: string, col: string) => num(find(pv, "Table 4", { mode, model }, col));
  const stated: [string, string, number][] = [
    ["GPT-5.4", "Semantic Sim.", 1.11],
    ["Gemini 3 Flash", "Semantic Sim.", 0.29],
    ["GPT-5.4", "Numeric Consistency", 22.0],
    ["Gemini 3 Flash", "Numeric Consistency", 28.36],
  ];
  for (const [model, col, claimed] of stated) {
    const diff = t4("A", model, col) - t4("B", model, col);
    out.push({ paper: "medconclusion", check: `§4.2 text: ${model} ${col} A − B = ${claimed.toFixed(2)}`, ok: Math.abs(diff - claimed) < 0.006, detail: `Table 4: ${diff.toFixed(2)}` });
  }
  return out;
}

/** RWESummary Figure 2 recomputed from Table 1 (judges/rwe-weighted-score.ts, weights 20/6/5/3) and the Results ranges. */
function rwesummaryChecks(): ConsistencyCheck[] {
  const out: ConsistencyCheck[] = [];
  const res = computeRweWeightedScore(RWESUMMARY_TABLE1.map(([model, ...c]) => ({ model, values: Object.fromEntries(RWESUMMARY_OUTCOMES.map((o, i) => [RWESUMMARY_METRIC_IDS[o], Number(c[i])])) })));
  const fig = RWESUMMARY_PUBLISHED.filter((v) => v.table === "Figure 2");
  for (const o of RWESUMMARY_OUTCOMES) {
    const id = RWESUMMARY_METRIC_IDS[o];
    for (const [rubric, key] of [
      ["Normalizing Min", "min"],
      ["Normalizing Max", "max"],
    ] as const) {
      const v = find(fig, "Figure 2", { rubric }, o)!;
      out.push({
        paper: "rwesummary",
        check: `Figure 2 ${rubric} ${o} = Table 1 ${key}`,
        ok: Math.abs(num(v) - res.bounds[id][key]) < 1e-9,
        detail: `Table 1 ${key} ${res.bounds[id][key]}; Figure 2 ${v.printed}`,
      });
    }
  }
  for (const m of res.models) {
    const bad: string[] = [];
    for (const o of RWESUMMARY_OUTCOMES) {
      const v = find(fig, "Figure 2", { model: m.model }, o)!;
      if (Math.round(100 * m.normalized[RWESUMMARY_METRIC_IDS[o]]) !== num(v)) bad.push(`${o}: ${(100 * m.normalized[RWESUMMARY_METRIC_IDS[o]]).toFixed(1)} vs ${v.printed}`);
    }
    const s = find(fig, "Figure 2", { model: m.model }, "Score")!;
    if (Math.round(m.score) !== num(s)) bad.push(`Score: ${m.score.toFixed(1)} vs ${s.printed}`);
    out.push({
      paper: "rwesummary",
      check: `Figure 2 ${m.model}: normalised outcomes and score from Table 1`,
      ok: bad.length === 0,
      detail: bad.length ? bad.join("; ") : `score ${m.score.toFixed(1)} %`,
    });
  }
  const range = (o: (typeof RWESUMMARY_OUTCOMES)[number]) => [res.bounds[RWESUMMARY_METRIC_IDS[o]].min, res.bounds[RWESUMMARY_METRIC_IDS[o]].max];
  const stated: [(typeof RWESUMMARY_OUTCOMES)[number], number, number, number][] = [
    ["Completeness", 0.82, 1.0, 2],
    ["Direction of Effect", 0.72, 0.95, 2],
    ["Numbers Accurate", 0.77, 0.97, 2],
    ["Inference Time", 2.2, 22.8, 1],
  ];
  for (const [o, lo, hi, digits] of stated) {
    const [a, b] = range(o);
    out.push({
      paper: "rwesummary",
      check: `Results text: ${o} range ${lo} to ${hi}`,
      ok: Number(a.toFixed(digits)) === lo && Number(b.toFixed(digits)) === hi,
      detail: `Table 1 range ${a} to ${b} (rounded: ${a.toFixed(digits)} to ${b.toFixed(digits)})`,
    });
  }
  return out;
}

/** Every consistency check of the three papers, MedMeta first. */
export function publishedConsistencyChecks(): ConsistencyCheck[] {
  return [...medmetaTable3Checks(), ...medmetaTable4Checks(), ...medmetaTextChecks(), ...medconclusionChecks(), ...rwesummaryChecks()];
}
