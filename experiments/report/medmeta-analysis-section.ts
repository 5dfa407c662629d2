/**
 * MedMeta's own analyses (the authors' analysis script, beyond the paper's main tables):
 * judge-vs-judge agreement on binned 0–5 scores (pairwise Cohen's κ, unweighted and quadratic-
 * weighted as the authors computed it, and Fleiss' κ across the panel), the correlation of the
 * feasibility score with each workflow's score, mean judge score per workflow by topic and by
 * publication year, and BERTScore F1 next to the judges (paper Table 5).
 *
 * Inputs are run records of task kind "synthesis". Where each value comes from:
 * - judge scores: the per-judge columns `judge:<rubric>.<dim>@<judge>` of the panel column
 *   analysed (the report's primary judge column);
 * - feasibility: the item's mean `feasibility_score` over records of the `feasibility`
 *   workflow in the same run (all models and repeats), else an item field named in
 *   {@link FEASIBILITY_FIELDS};
 * - topic: the first item field of {@link TOPIC_FIELDS} that is set; year: `year`, else the first
 *   four digits of `date` / `pubDate`;
 * - BERTScore: the `bertscore_f1` metric (metric spec `bertscore` in the config's `metrics`);
 *   when it never produced a number, the reason the records give is shown instead.
 *
 * @see ../../../shared/seeds/001_* (MedMeta §3.1 feasibility filter, §6 Table 5, Appendix G);
 *   hahuyhoang411/MedMeta `src/analyze/llm_results_analyzer.py` (kappa, suitability correlation,
 *   topic and year analyses).
 */
import { binScore, fleissKappa, pearson, spearman, standardError, weightedCohenKappa } from "../../judges/stats/index.ts";
import type { RunRecord } from "../types.ts";
import { groupBy, recordValues, variantLabel } from "./columns.ts";
import { fmt, judgesOf, meanCi, type ReportTable } from "./tables.ts";
import type { ReportSection } from "./render.ts";

/** Item fields read as the topic (specialty), first one set wins. */
export const TOPIC_FIELDS = ["topic", "specialty", "medical_specialty", "Topic"] as const;
/** Item fields read as a precomputed feasibility (suitability) score when no feasibility records exist. */
export const FEASIBILITY_FIELDS = ["feasibility", "feasibilityScore", "suitabilityScore", "Suitability Score"] as const;
/** The workflow whose records carry the feasibility score (graphs/feasibility.ts). */
const FEASIBILITY_WORKFLOW = "feasibility";

const itemKey = (r: RunRecord) => `${r.dataset}\u0000${r.itemId}`;
const groupLabel = (r: RunRecord) => `${r.model} · ${variantLabel(r)}`;

/** Topic of a record's item, or null. */
export function topicOf(r: RunRecord): string | null {
  for (const f of TOPIC_FIELDS) {
    const v = r.itemMeta[f];
    if (v !== undefined && v !== null && String(v).trim()) return String(v).trim();
  }
  return null;
}

/** Publication year of a record's item (`year`, else the leading year of `date`/`pubDate`), or null. */
export function yearOfRecord(r: RunRecord): number | null {
  const y = r.itemMeta.year;
  if (typeof y === "number" && Number.isInteger(y)) return y;
  for (const f of ["year", "date", "pubDate"]) {
    const v = r.itemMeta[f];
    const m = typeof v === "string" ? /^(\d{4})/.exec(v.trim()) : null;
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * Feasibility score per item (key dataset + item id): the mean `feasibility_score` of the run's
 * feasibility records, else the item's own feasibility field.
 */
export function feasibilityByItem(records: RunRecord[]): Map<string, number> {
  const sums = new Map<string, number[]>();
  for (const r of records) {
    if (r.workflow !== FEASIBILITY_WORKFLOW) continue;
    const v = recordValues(r).feasibility_score;
    if (v !== undefined) sums.set(itemKey(r), [...(sums.get(itemKey(r)) ?? []), v]);
  }
  const out = new Map<string, number>();
  for (const [k, vs] of sums) out.set(k, vs.reduce((a, b) => a + b, 0) / vs.length);
  for (const r of records) {
    if (out.has(itemKey(r))) continue;
    for (const f of FEASIBILITY_FIELDS) {
      const v = r.itemMeta[f];
      const x = typeof v === "number" ? v : typeof v === "string" && v.trim() ? Number(v) : NaN;
      if (Number.isFinite(x)) {
        out.set(itemKey(r), x);
        break;
      }
    }
  }
  return out;
}

/**
 * Judge agreement table: per workflow variant (models pooled, as the authors did per approach)
 * and over all records, each judge pair's exact agreement, Cohen's κ and quadratic-weighted κ
 * on scores binned with {@link binScore}, then Fleiss' κ over all judges (records every judge scored).
 * Null with fewer than two judges.
 */
export function judgeAgreementTable(records: RunRecord[], column: string, max = 5): ReportTable | null {
  const judges = judgesOf(records, column);
  if (judges.length < 2) return null;
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  const groups: [string, RunRecord[]][] = [...groupBy(records, variantLabel), ["all workflows", records]];
  for (const [group, rs] of groups) {
    const bins = judges.map((j) => rs.map((r) => binScore(recordValues(r)[`${column}@${j}`], max)));
    for (let a = 0; a < judges.length; a++)
      for (let b = a + 1; b < judges.length; b++) {
        const k = weightedCohenKappa(bins[a], bins[b], { max, weights: "quadratic" });
        rows.push([group, `${judges[a]} vs ${judges[b]}`, String(k.n), fmt(k.observedAgreement), fmt(k.kappa), fmt(k.weightedKappa)]);
        values.push({ group, raters: [judges[a], judges[b]], kind: "cohen", ...k });
      }
    if (judges.length > 2) {
      const f = fleissKappa(bins);
      rows.push([group, `Fleiss, all ${judges.length} judges`, String(f.n), fmt(f.observed), fmt(f.kappa), "–"]);
      values.push({ group, kind: "fleiss", ...f, raters: judges });
    }
  }
  return {
    id: `medmeta-kappa-${column}`,
    title: `Judge agreement on ${column} (binned 0–${max})`,
    caption: `Scores binned to integers 0–${max} by truncation (the MedMeta authors' \`astype(int)\` before sklearn's cohen_kappa_score); Cohen's κ unweighted and with quadratic weights (the authors' choice) on the fixed ${max + 1}-category scale; Fleiss' κ (nominal) over records scored by every judge, its "agreement" column being the mean per-record agreement P̄. n = records with both (all) judges' scores.`,
    header: ["workflow", "judges", "n", "agreement", "κ (Cohen / Fleiss)", "quadratic-weighted κ"],
    rows,
    values,
  };
}

/** Mean of `column` per item within records (repeats averaged). */
function itemMeans(records: RunRecord[], column: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, rs] of groupBy(records, itemKey)) {
    const xs = rs.map((r) => recordValues(r)[column]).filter((x): x is number => x !== undefined);
    if (xs.length) out.set(k, xs.reduce((a, b) => a + b, 0) / xs.length);
  }
  return out;
}

/** The P-ZS workflow id: the authors' baseline ("direct") for improvements. */
const BASELINE_WORKFLOW = "pzs";

/**
 * Feasibility vs performance: per model × workflow, Spearman ρ (and Pearson r, the authors'
 * `DataFrame.corr()` default) between each item's feasibility score and its mean `column`
 * score; and, as the authors computed it, Pearson r between feasibility and the item's
 * improvement over the same model's P-ZS score (when the run has P-ZS records). Null when no
 * item has a feasibility score.
 */
export function feasibilityCorrelationTable(records: RunRecord[], column: string): ReportTable | null {
  const feas = feasibilityByItem(records);
  if (!feas.size) return null;
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  const scored = records.filter((r) => r.workflow !== FEASIBILITY_WORKFLOW);
  const baselineByModel = new Map(
    [
      ...groupBy(
        scored.filter((r) => r.workflow === BASELINE_WORKFLOW),
        (r) => r.model,
      ),
    ].map(([m, rs]) => [m, itemMeans(rs, column)]),
  );
  for (const [group, rs] of groupBy(scored, groupLabel)) {
    const means = itemMeans(rs, column);
    const pairs = [...means].filter(([k]) => feas.has(k)).map(([k, y]) => [feas.get(k)!, y] as const);
    const x = pairs.map((p) => p[0]);
    const y = pairs.map((p) => p[1]);
    // Improvement over the same model's P-ZS score (the authors' `<approach>_improvement`).
    const base = rs[0].workflow === BASELINE_WORKFLOW ? undefined : baselineByModel.get(rs[0].model);
    const imp = base ? [...means].filter(([k]) => feas.has(k) && base.has(k)).map(([k, v]) => [feas.get(k)!, v - base.get(k)!] as const) : [];
    const pi =
      imp.length >= 3
        ? pearson(
            imp.map((p) => p[0]),
            imp.map((p) => p[1]),
          )
        : null;
    const impCells = pi ? [fmt(pi.estimate), String(imp.length)] : ["–", String(imp.length)];
    if (pairs.length < 3) {
      rows.push([group, String(pairs.length), "–", "–", "–", "–", ...impCells]);
      values.push({ group, n: pairs.length, status: "too-few", improvementPearson: pi, improvementN: imp.length });
      continue;
    }
    const s = spearman(x, y);
    const p = pearson(x, y);
    rows.push([group, String(pairs.length), fmt(s.estimate), fmt(s.p, 4), fmt(p.estimate), fmt(p.p, 4), ...impCells]);
    values.push({ group, n: pairs.length, spearman: s, pearson: p, improvementPearson: pi, improvementN: imp.length });
  }
  if (!rows.length) return null;
  return {
    id: `medmeta-feasibility-${column}`,
    title: `Feasibility score vs ${column}, per model and workflow`,
    caption: `Items paired: their feasibility score (mean of the feasibility workflow's runs in this run, else the item's own feasibility field) and their mean ${column} (repeats averaged). Spearman ρ with the t-approximation p (scipy's default), Pearson r beside it; n = items; "–" when n < 3 or a series is constant. Last two columns: Pearson r of feasibility with the item's improvement over the same model's P-ZS score (the MedMeta authors' suitability analysis) and its n.`,
    header: ["model · workflow", "n items", "Spearman ρ", "p", "Pearson r", "p (r)", "r vs improvement over P-ZS", "n (improvement)"],
    rows,
    values,
  };
}

/**
 * Mean `column` per workflow (columns: model · workflow) for each value of an item attribute
 * (rows), cells "mean (n)". Null when no record has the attribute.
 */
export function meanByAttributeTable(records: RunRecord[], column: string, attribute: string, attributeOf: (r: RunRecord) => string | number | null, order: "n" | "value" = "n"): ReportTable | null {
  const rs = records.filter((r) => r.workflow !== FEASIBILITY_WORKFLOW && attributeOf(r) !== null && recordValues(r)[column] !== undefined);
  if (!rs.length) return null;
  const groups = [...new Set(rs.map(groupLabel))];
  const byValue = [...groupBy(rs, (r) => String(attributeOf(r)))];
  const itemsOf = (xs: RunRecord[]) => new Set(xs.map(itemKey)).size;
  byValue.sort(order === "value" ? (a, b) => a[0].localeCompare(b[0], undefined, { numeric: true }) : (a, b) => itemsOf(b[1]) - itemsOf(a[1]) || a[0].localeCompare(b[0]));
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [value, vs] of byValue) {
    const row = [value, String(itemsOf(vs))];
    for (const g of groups) {
      const xs = vs.filter((r) => groupLabel(r) === g).map((r) => recordValues(r)[column]!);
      const m = meanCi(xs);
      row.push(m ? `${fmt(m.mean, 2)} (${m.n})` : "–");
      values.push({ [attribute]: value, group: g, n: xs.length, mean: m?.mean ?? null });
    }
    rows.push(row);
  }
  return {
    id: `medmeta-${attribute}-${column}`,
    title: `Mean ${column} by ${attribute}, per model and workflow`,
    caption: `Cells: mean (n records); "items" = distinct items with that ${attribute}.`,
    header: [attribute, "items", ...groups],
    rows,
    values,
  };
}

/**
 * BERTScore F1 beside the judges (paper Table 5: mean ± standard error): per model × workflow,
 * the judge column's mean ± SE and `bertscore_f1` mean ± SE. When no record has a BERTScore,
 * the table says why (the metric's note, or that `bertscore` is not among the run's metrics).
 */
export function bertscoreBesideJudgesTable(records: RunRecord[], column: string | null): ReportTable {
  const meanSe = (xs: number[]) => (xs.length === 0 ? "–" : xs.length === 1 ? `${fmt(xs[0])} (n=1)` : `${fmt(xs.reduce((a, b) => a + b, 0) / xs.length)} ± ${fmt(standardError(xs))}`);
  const rs = records.filter((r) => r.workflow !== FEASIBILITY_WORKFLOW && r.outputKind !== "score");
  const have = rs.some((r) => recordValues(r).bertscore_f1 !== undefined);
  const note = rs.map((r) => r.metricNotes?.bertscore_f1 ?? r.metricNotes?.bertscore).find((x) => !!x);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [group, gs] of groupBy(rs, groupLabel)) {
    const judge = column ? gs.map((r) => recordValues(r)[column]).filter((x): x is number => x !== undefined) : [];
    const bs = gs.map((r) => recordValues(r).bertscore_f1).filter((x): x is number => x !== undefined);
    rows.push([group, column ? meanSe(judge) : "–", have ? meanSe(bs) : "not available", String(bs.length)]);
    values.push({
      group,
      judgeN: judge.length,
      judgeMean: judge.length ? judge.reduce((a, b) => a + b, 0) / judge.length : null,
      bertscoreN: bs.length,
      bertscoreMean: bs.length ? bs.reduce((a, b) => a + b, 0) / bs.length : null,
    });
  }
  const why = have
    ? ""
    : note
      ? ` BERTScore not available in this run: ${note}.`
      : " BERTScore not available in this run: add `bertscore` to the config's `metrics` (it needs its model in the local model cache).";
  return {
    id: "medmeta-bertscore",
    title: `BERTScore F1 beside the judges${column ? ` (${column})` : ""}`,
    caption: `Mean ± standard error over records, as MedMeta Table 5.${why}`,
    header: ["model · workflow", column ? `${column} mean ± SE` : "judge", "BERTScore F1 mean ± SE", "n (BERTScore)"],
    rows,
    values,
  };
}

/**
 * The MedMeta analyses section for the synthesis records of a run, or null when there are none.
 * @param column - the judge (panel) column analysed, usually the report's primary column; null
 *   when the run has no judge score (only the BERTScore table then).
 */
export function medmetaAnalysisSection(records: RunRecord[], column: string | null): ReportSection | null {
  const rs = records.filter((r) => r.taskKind === "synthesis");
  if (!rs.length) return null;
  const tables: ReportTable[] = [];
  const scored = rs.filter((r) => r.workflow !== FEASIBILITY_WORKFLOW);
  if (column) {
    const k = judgeAgreementTable(scored, column);
    if (k) tables.push(k);
    const f = feasibilityCorrelationTable(rs, column);
    if (f) tables.push(f);
    const t = meanByAttributeTable(scored, column, "topic", topicOf);
    if (t) tables.push(t);
    const y = meanByAttributeTable(scored, column, "year", yearOfRecord, "value");
    if (y) tables.push(y);
  }
  tables.push(bertscoreBesideJudgesTable(scored, column));
  const missing = [
    column && !tables.some((t) => t.id.startsWith("medmeta-kappa")) ? "judge agreement (needs at least two judges)" : null,
    column && !tables.some((t) => t.id.startsWith("medmeta-feasibility")) ? "feasibility correlation (add the `feasibility` workflow, or give items a feasibility field)" : null,
    column && !tables.some((t) => t.id.startsWith("medmeta-topic")) ? `per-topic table (items need one of the fields ${TOPIC_FIELDS.join(", ")})` : null,
  ].filter((x): x is string => !!x);
  return {
    heading: "MedMeta analyses: judge agreement, feasibility, topic, year, BERTScore",
    text: `The analyses the MedMeta authors ran beside the main table${column ? `, on ${column}` : ""}.${missing.length ? ` Not shown: ${missing.join("; ")}.` : ""}`,
    tables,
    charts: [],
  };
}
