/**
 * The report's tables, computed from run records: plain data (title, header, rows of strings and
 * the numbers behind them) rendered to Markdown or HTML elsewhere.
 *
 * - Mean ± 95 % CI per model × workflow variant (MedMeta Table 2; MedConclusion Tables 2–4).
 * - Judge vs judge: each judge's mean per criterion and its offset from the panel mean
 *   (MedConclusion Table 5).
 * - RWESummary Table 1 (direction, numbers, completeness, inference time) and the weighted
 *   min–max score table.
 * - Paired comparisons (paired t, Wilcoxon, Cohen's d_z, Holm-adjusted p).
 * - Subgroups by an item field, top and bottom groups (MedConclusion §5).
 */
import { describe as describeSample, mean, pairedTTest, cohenDz, wilcoxonSignedRank, holm, isBinary, wilsonInterval } from "../../judges/stats/index.ts";
import type { RunRecord } from "../types.ts";
import { formatTokenCount } from "../../models/usage.ts";
import { columnsOf, differencesVary, groupBy, matchesFilter, pairKey, recordValues, variantLabel } from "./columns.ts";

/** One table of the report. `values` keeps the numbers behind the cells for tests and JSON. */
export interface ReportTable {
  id: string;
  title: string;
  caption?: string;
  header: string[];
  rows: string[][];
  values?: Record<string, unknown>[];
}

/** Mean and 95 % CI of a sample (CI null when n < 2 for the t interval). */
export interface MeanCi {
  n: number;
  mean: number;
  ciLow: number | null;
  ciHigh: number | null;
  /** `wilson` for binary (0/1) values, else `t`. Absent on older values = `t`. */
  method?: "t" | "wilson";
}

/**
 * Mean with a 95 % CI; n = 0 → null. Binary values (all 0 or 1: answer accuracy, jury verdicts)
 * get the Wilson score interval, which stays inside [0, 1] (a t interval of 1 of 3 was
 * 0.333 ± 1.434); other values the t-based interval mean ± t·SD/√n.
 */
export function meanCi(values: number[]): MeanCi | null {
  if (values.length === 0) return null;
  if (isBinary(values)) {
    const w = wilsonInterval(values.filter((v) => v === 1).length, values.length);
    return { n: w.n, mean: w.estimate, ciLow: w.lower, ciHigh: w.upper, method: "wilson" };
  }
  if (values.length === 1) return { n: 1, mean: values[0], ciLow: null, ciHigh: null };
  const d = describeSample(values);
  const degenerate = d.sd === 0;
  return { n: d.n, mean: d.mean, ciLow: degenerate ? d.mean : d.ci[0], ciHigh: degenerate ? d.mean : d.ci[1] };
}

/** Format a number with `digits` decimals ("–" for null/NaN). */
export function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits);
}

/** "mean ± half-width" (half-width of the 95 % CI), "mean [low, high]" for a Wilson interval, or the mean alone when n < 2. */
export function fmtMeanCi(m: MeanCi | null, digits = 3): string {
  if (!m) return "–";
  if (m.method === "wilson" && m.ciLow !== null && m.ciHigh !== null) return `${fmt(m.mean, digits)} [${fmt(m.ciLow, digits)}, ${fmt(m.ciHigh, digits)}]`;
  if (m.ciLow === null || m.ciHigh === null) return `${fmt(m.mean, digits)} (n=1)`;
  return `${fmt(m.mean, digits)} ± ${fmt((m.ciHigh - m.ciLow) / 2, digits)}`;
}

/**
 * Status counts per model × variant. When some ok outputs were kept although truncated (endpoint
 * `onTruncated: keep-marked`), a column "ok, truncated" counts them (they are part of "ok") and a
 * caption says so; otherwise the table has no such column.
 */
export function statusTable(records: RunRecord[]): ReportTable {
  const groups = groupBy(records, (r) => `${r.model}\u0000${variantLabel(r)}`);
  const anyTruncated = records.some((r) => r.truncated === true);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [k, rs] of groups) {
    const [model, variant] = k.split("\u0000");
    const c = { ok: 0, failed: 0, skipped: 0 };
    for (const r of rs) c[r.status]++;
    const truncated = rs.filter((r) => r.status === "ok" && r.truncated === true).length;
    // Unknown usage (null tokens, or calls without usage) is shown as unknown, never as 0.
    const known = rs.reduce((a, r) => a + (r.generator.inputTokens ?? 0) + (r.generator.outputTokens ?? 0), 0);
    const unknownCalls = rs.reduce((a, r) => a + (r.generator.unknownUsageCalls ?? (r.generator.inputTokens === null && r.generator.calls ? r.generator.calls : 0)), 0);
    const tokens = unknownCalls > 0 && known === 0 ? null : known;
    rows.push([model, variant, String(c.ok), ...(anyTruncated ? [String(truncated)] : []), String(c.failed), String(c.skipped), formatTokenCount(tokens, unknownCalls)]);
    values.push({ model, variant, ...c, ...(anyTruncated ? { truncated } : {}), tokens, ...(unknownCalls ? { unknownUsageCalls: unknownCalls } : {}) });
  }
  const header = ["model", "workflow", "ok", ...(anyTruncated ? ["ok, truncated"] : []), "failed", "skipped", "generator tokens"];
  const caption = anyTruncated
    ? '"ok, truncated": outputs cut off at the output limit (finish_reason "length") and kept because the endpoint sets onTruncated: keep-marked; they are counted in "ok", scored and judged like the others, and marked in results.jsonl (truncated: true) and the viewer.'
    : undefined;
  return { id: "status", title: "Cells by status", header, rows, values, ...(caption ? { caption } : {}) };
}

/**
 * Mean ± 95 % CI of one column per model (rows) × workflow variant (columns) — MedMeta Table 2 shape.
 */
export function modelByVariantTable(records: RunRecord[], column: string, id = `main-${column}`): ReportTable {
  const variants = [...new Set(records.map((r) => variantLabel(r)))];
  const models = [...new Set(records.map((r) => r.model))];
  // One pass: the column's values per model × variant, in record order.
  const cells = new Map<string, number[]>();
  for (const r of records) {
    const x = recordValues(r)[column];
    const k = `${r.model}\u0000${variantLabel(r)}`;
    const list = cells.get(k) ?? [];
    if (x !== undefined) list.push(x);
    cells.set(k, list);
  }
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const model of models) {
    const row = [model];
    for (const v of variants) {
      const xs = cells.get(`${model}\u0000${v}`) ?? [];
      const m = meanCi(xs);
      row.push(fmtMeanCi(m));
      values.push({ model, variant: v, column, ...(m ?? { n: 0 }) });
    }
    rows.push(row);
  }
  return {
    id,
    title: `${column}: mean ± 95 % CI by model and workflow`,
    caption: "t-based 95 % CI over items (and repeats); binary metrics (0/1) show the Wilson interval [low, high]; cells without a value are failed, skipped or unscored records.",
    header: ["model", ...variants],
    rows,
    values,
  };
}

/**
 * Judges of a panel column in panel order (the order each judge first appears in the records'
 * judge scores): the first is the primary judge, the second the secondary (MedConclusion §4).
 */
export function judgesOf(records: RunRecord[], panelColumn: string): string[] {
  const [rubric, dim] = panelColumn.replace(/^judge:/, "").split(".");
  const out: string[] = [];
  for (const r of records) for (const e of r.judgeScores ?? []) if (e.rubricId === rubric && dim in e.scores && !out.includes(e.judgeId)) out.push(e.judgeId);
  return out;
}

/**
 * One panel criterion judge by judge (MedConclusion Tables 2 and 5 report the primary and the
 * secondary judge separately): rows model × workflow, one column per judge (mean ± 95 % CI over
 * the records that judge scored; first = primary, second = secondary), then the panel's own
 * aggregate as an extra column.
 */
export function perJudgeTable(records: RunRecord[], panelColumn: string, id = `per-judge-${panelColumn}`): ReportTable | null {
  const judges = judgesOf(records, panelColumn);
  if (judges.length < 2) return null;
  const role = (i: number) => (i === 0 ? "primary" : i === 1 ? "secondary" : `judge ${i + 1}`);
  const groups = groupBy(records, (r) => `${r.model}\u0000${variantLabel(r)}`);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [k, rs] of groups) {
    const [model, variant] = k.split("\u0000");
    const row = [model, variant];
    for (const [i, c] of [...judges.map((j) => `${panelColumn}@${j}`), panelColumn].entries()) {
      const m = meanCi(rs.map((r) => recordValues(r)[c]).filter((x): x is number => x !== undefined));
      row.push(fmtMeanCi(m));
      values.push({ model, variant, column: c, judge: i < judges.length ? judges[i] : "panel", role: i < judges.length ? role(i) : "panel", ...(m ?? { n: 0 }) });
    }
    rows.push(row);
  }
  return {
    id,
    title: `${panelColumn}: each judge separately (${judges.map((j, i) => `${role(i)}: ${j}`).join(", ")}), panel aggregate last`,
    caption:
      "Mean ± t-based 95 % CI over the records each judge scored (MedConclusion reports its primary and secondary judge separately); the last column is the panel's aggregate, shown for reference.",
    header: ["model", "workflow", ...judges.map((j, i) => `${j} (${role(i)})`), "panel"],
    rows,
    values,
  };
}

/** Every column's mean ± CI per model × variant (long format), for MedConclusion Tables 2–4. */
export function allColumnsTable(records: RunRecord[], columns: string[] = columnsOf(records).filter((c) => !c.includes("@"))): ReportTable {
  const groups = groupBy(records, (r) => `${r.model}\u0000${variantLabel(r)}`);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [k, rs] of groups) {
    const [model, variant] = k.split("\u0000");
    const row = [model, variant];
    for (const c of columns) {
      const m = meanCi(rs.map((r) => recordValues(r)[c]).filter((x): x is number => x !== undefined));
      row.push(m ? `${fmtMeanCi(m).replace(" (n=1)", "")} (${m.n})` : "–");
      values.push({ model, variant, column: c, ...(m ?? { n: 0 }) });
    }
    rows.push(row);
  }
  return {
    id: "all-columns",
    title: "All scores: mean ± 95 % CI (n)",
    caption: "n in parentheses: records with a value (reference-based metrics need a reference text; answer accuracy needs a gold answer).",
    header: ["model", "workflow", ...columns],
    rows,
    values,
  };
}

/**
 * Judge vs judge (MedConclusion Table 5): per panel column, each judge's mean and its offset from
 * the mean of all judges' means (calibration shift), over records every listed judge scored.
 */
export function judgeVsJudgeTable(records: RunRecord[]): ReportTable | null {
  const cols = columnsOf(records).filter((c) => c.includes("@"));
  if (!cols.length) return null;
  const byPanelCol = groupBy(cols, (c) => c.split("@")[0]);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [panelCol, judgeCols] of byPanelCol) {
    const vals = records.map(recordValues);
    const complete = vals.filter((v) => judgeCols.every((c) => v[c] !== undefined));
    if (!complete.length) continue;
    const means = judgeCols.map((c) => mean(complete.map((v) => v[c])));
    const grand = mean(means);
    judgeCols.forEach((c, i) => {
      const judge = c.split("@")[1];
      rows.push([panelCol.replace(/^judge:/, ""), judge, String(complete.length), fmt(means[i]), fmt(means[i] - grand)]);
      values.push({ column: panelCol, judge, n: complete.length, mean: means[i], offset: means[i] - grand });
    });
  }
  return {
    id: "judge-vs-judge",
    title: "Judge vs judge: mean score and offset from the panel mean",
    caption: "Over records scored by every judge; offset = judge mean − mean of judge means (calibration shift).",
    header: ["criterion", "judge", "n", "mean", "offset"],
    rows,
    values,
  };
}

/** A paired comparison's result. */
export interface ComparisonResult {
  label: string;
  metric: string;
  n: number;
  meanA: number;
  meanB: number;
  meanDiff: number;
  t: number;
  p: number;
  pHolm: number;
  dz: number;
  wilcoxonP: number | null;
}

/**
 * Paired comparisons: records of group A and B (selected by filters) matched by dataset, item and
 * repeat; paired t-test, Wilcoxon signed-rank, Cohen's d_z (= mean(d)/sd(d), d = A − B), and
 * Holm-adjusted p over all comparisons of the report.
 * Comparisons with fewer than 2 pairs are reported with n and no test.
 */
export function comparisonsTable(records: RunRecord[], specs: { metric: string; a: Record<string, unknown>; b: Record<string, unknown>; label?: string }[]): ReportTable | null {
  if (!specs.length) return null;
  const results: (ComparisonResult | { label: string; metric: string; n: number; meanA?: number; meanB?: number; meanDiff?: number })[] = [];
  for (const s of specs) {
    const label = s.label ?? `${JSON.stringify(s.a)} vs ${JSON.stringify(s.b)}`;
    const pick = (f: Record<string, unknown>) =>
      new Map(
        records
          .filter((r) => matchesFilter(r, f))
          .map((r) => [pairKey(r), recordValues(r)[s.metric]] as const)
          .filter(([, v]) => v !== undefined) as [string, number][],
      );
    const A = pick(s.a);
    const B = pick(s.b);
    const keys = [...A.keys()].filter((k) => B.has(k));
    const xa = keys.map((k) => A.get(k)!);
    const xb = keys.map((k) => B.get(k)!);
    const diffs = xa.map((v, i) => v - xb[i]);
    if (!differencesVary(diffs)) {
      // No test (fewer than 2 pairs, or every difference equal), but the means and the gap are real.
      results.push({ label, metric: s.metric, n: keys.length, ...(keys.length ? { meanA: mean(xa), meanB: mean(xb), meanDiff: mean(diffs) } : {}) });
      continue;
    }
    const t = pairedTTest(xa, xb);
    let w: number | null = null;
    try {
      w = wilcoxonSignedRank(xa, xb).p;
    } catch {
      w = null;
    }
    results.push({ label, metric: s.metric, n: keys.length, meanA: mean(xa), meanB: mean(xb), meanDiff: t.meanDiff, t: t.t, p: t.p, pHolm: NaN, dz: cohenDz(xa, xb), wilcoxonP: w });
  }
  const tested = results.filter((r): r is ComparisonResult => "p" in r);
  const adj = holm(tested.map((r) => r.p));
  tested.forEach((r, i) => (r.pHolm = adj[i]));
  const rows = results.map((r) =>
    "p" in r
      ? [r.label, r.metric, String(r.n), fmt(r.meanA), fmt(r.meanB), fmt(r.meanDiff), fmt(r.t, 2), fmt(r.p, 4), fmt(r.pHolm, 4), fmt(r.dz, 2), fmt(r.wilcoxonP, 4)]
      : [r.label, r.metric, String(r.n), fmt(r.meanA), fmt(r.meanB), fmt(r.meanDiff), "–", "–", "–", "–", "–"],
  );
  return {
    id: "comparisons",
    title: "Paired comparisons",
    caption:
      "Pairs matched by item and repeat; d = A − B; paired t-test (two-sided), Cohen's d_z = mean(d)/SD(d), Holm-adjusted p across this table, Wilcoxon signed-rank p (scipy defaults). '–' in the test columns = fewer than 2 pairs or constant differences (t undefined); the means and the difference are shown regardless.",
    header: ["comparison", "metric", "n pairs", "mean A", "mean B", "mean diff", "t", "p", "p (Holm)", "d_z", "Wilcoxon p"],
    rows,
    values: results as unknown as Record<string, unknown>[],
  };
}

/**
 * Subgroup table for an item field (e.g. medical specialty, year): n and mean of `column` per
 * value, sorted by mean; the top and bottom `show` groups with at least `minN` records.
 */
export function subgroupTable(records: RunRecord[], field: string, column: string, show = 5, minN = 2): ReportTable | null {
  const withValue = records.filter((r) => r.itemMeta[field] !== undefined && r.itemMeta[field] !== null && recordValues(r)[column] !== undefined);
  if (!withValue.length) return null;
  const groups = [...groupBy(withValue, (r) => String(r.itemMeta[field]))]
    .map(([value, rs]) => ({ value, ...meanCi(rs.map((r) => recordValues(r)[column]))! }))
    .filter((g) => g.n >= minN)
    .sort((a, b) => b.mean - a.mean || a.value.localeCompare(b.value));
  if (!groups.length) return null;
  const chosen = groups.length <= 2 * show ? groups : [...groups.slice(0, show), ...groups.slice(-show)];
  const rows = chosen.map((g, i) => [groups.length <= 2 * show ? "" : i < show ? "top" : "bottom", g.value, String(g.n), fmtMeanCi(g)]);
  return {
    id: `subgroup-${field}-${column}`,
    title: `${column} by ${field}`,
    caption: `${groups.length} groups with ≥ ${minN} records; all models and workflows pooled.`,
    header: ["", field, "n", `${column} mean ± 95 % CI`],
    rows,
    values: groups,
  };
}

/**
 * RWESummary Table 1: per model, the panel mean of each binary jury metric (fraction judged yes)
 * and the mean inference time in seconds. Columns are found by rubric id prefix `rwe-`.
 */
export function rweTable(records: RunRecord[]): { table: ReportTable; perModel: Record<string, Record<string, number>> } | null {
  const rwe = records.filter((r) => r.taskKind === "rwe");
  if (!rwe.length) return null;
  const cols = columnsOf(rwe).filter((c) => c.startsWith("judge:rwe-") && !c.includes("@"));
  const perModel: Record<string, Record<string, number>> = {};
  const rows: string[][] = [];
  for (const [model, rs] of groupBy(rwe, (r) => r.model)) {
    const vals = rs.map(recordValues);
    const entry: Record<string, number> = {};
    for (const c of cols) {
      const xs = vals.map((v) => v[c]).filter((x): x is number => x !== undefined);
      if (xs.length) entry[c] = mean(xs);
    }
    const lat = rs.filter((r) => r.status === "ok").map((r) => (r.generator.modelLatencyMs ?? r.generator.latencyMs) / 1000);
    if (lat.length) entry.latencySeconds = mean(lat);
    perModel[model] = entry;
    rows.push([model, String(rs.length), ...cols.map((c) => fmt(entry[c])), fmt(entry.latencySeconds, 2)]);
  }
  return {
    table: {
      id: "rwe-table1",
      title: "RWESummary: jury metrics and inference time by model",
      caption: "Mean of the panel's binary verdicts (1 = yes) and mean generator time in seconds.",
      header: ["model", "n", ...cols.map((c) => c.replace(/^judge:/, "")), "inference time (s)"],
      rows,
      values: Object.entries(perModel).map(([model, v]) => ({ model, ...v })),
    },
    perModel,
  };
}

/**
 * Answer-level accuracy (MedEvidence): for each answer-correctness column (`answer_correct_*`),
 * accuracy per model × workflow variant overall and per GRADE certainty of the item
 * (`itemMeta.evidenceCertainty`; items without one are counted under "not rated").
 */
export function answerAccuracyTables(records: RunRecord[]): ReportTable[] {
  const cols = columnsOf(records).filter((c) => c.startsWith("answer_correct_"));
  const out: ReportTable[] = [];
  for (const col of cols) {
    const scored = records.filter((r) => recordValues(r)[col] !== undefined);
    const levels = [...new Set(scored.map((r) => String(r.itemMeta.evidenceCertainty ?? "not rated")))].sort();
    const rows: string[][] = [];
    const values: Record<string, unknown>[] = [];
    for (const [k, rs] of groupBy(scored, (r) => `${r.model}\u0000${variantLabel(r)}`)) {
      const [model, variant] = k.split("\u0000");
      const acc = (xs: RunRecord[]) => (xs.length ? xs.reduce((a, r) => a + recordValues(r)[col], 0) / xs.length : null);
      const row = [model, variant, `${fmt(acc(rs))} (${rs.length})`];
      const v: Record<string, unknown> = { model, variant, column: col, overall: acc(rs), n: rs.length };
      for (const level of levels) {
        const sub = rs.filter((r) => String(r.itemMeta.evidenceCertainty ?? "not rated") === level);
        row.push(sub.length ? `${fmt(acc(sub))} (${sub.length})` : "–");
        v[level] = acc(sub);
      }
      rows.push(row);
      values.push(v);
    }
    out.push({
      id: `answer-accuracy-${col}`,
      title: `Answer accuracy (${col.replace("answer_correct_", "")} classifier) overall and by evidence certainty`,
      caption: "Share of outputs whose classified answer (higher / lower / no difference / uncertain effect / insufficient data) equals the gold answer; n in parentheses.",
      header: ["model", "workflow", "overall", ...levels],
      rows,
      values,
    });
  }
  return out;
}
