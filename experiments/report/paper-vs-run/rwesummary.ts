/**
 * RWESummary (seed 002) against this run. Table 1's outcomes are the jury columns
 * `judge:rwe-direction-of-effect.direction_of_effect`, `judge:rwe-numbers-accurate.numbers_accurate`,
 * `judge:rwe-completeness.completeness` (the jury's mean verdict per summary) and `latencySeconds`
 * (generation time), averaged over the run's RWE studies per model — the paper's 13 studies are
 * proprietary, so the sample is never the paper's.
 *
 * Figure 2 min–max normalises across the paper's nine models: its normalised outcomes, scores
 * and bounds are compared only when the run covers all nine; its weights are the ones the report
 * uses (judges/rwe-weighted-score.ts). The claim: the weighted-score ranking, Kendall τ-b between
 * this run's scores and the paper's scores recomputed from Table 1 over the same covered models
 * (the same normalisation set; over all nine it is Figure 2 itself).
 *
 * @see ../../../../shared/seeds/002_* (Table 1, Figure 2, "Weighted scoring rubric").
 */
import { computeRweWeightedScore, RWE_DEFAULT_METRICS } from "../../../judges/rwe-weighted-score.ts";
import { mean } from "../../../judges/stats/index.ts";
import type { RunRecord } from "../../types.ts";
import { RWESUMMARY_METRIC_IDS, RWESUMMARY_MODELS, RWESUMMARY_OUTCOMES, RWESUMMARY_TABLE1 } from "../published/rwesummary.ts";
import type { PublishedValue } from "../published/schema.ts";
import { columnValues, f3, meanCoverage, noModelReason, tau, type ClaimResult, type Coverage, type PaperRun } from "./common.ts";

/** Run column of each Table 1 outcome. */
export const RWESUMMARY_COLUMNS: Readonly<Record<(typeof RWESUMMARY_OUTCOMES)[number], string>> = {
  "Direction of Effect": "judge:rwe-direction-of-effect.direction_of_effect",
  "Numbers Accurate": "judge:rwe-numbers-accurate.numbers_accurate",
  Completeness: "judge:rwe-completeness.completeness",
  "Inference Time": "latencySeconds",
};

const rweRecords = (run: PaperRun, model: string): RunRecord[] => (run.byPaperModel.get(model) ?? []).filter((r) => r.taskKind === "rwe");

/** Which studies the comparison used (never the paper's 13, which are proprietary). */
export function rwesummarySampleNote(run: PaperRun): string {
  const rs = run.records.filter((r) => r.taskKind === "rwe");
  const ds = [...new Set(rs.map((r) => r.dataset))];
  return `RWESummary: ${new Set(rs.map((r) => `${r.dataset}\u0000${r.itemId}`)).size} studies from ${ds.join(", ") || "no dataset"} (the paper's 13 studies are proprietary: a different sample)`;
}

/** Per covered paper model, its mean of each rubric metric (models missing a metric are left out). */
function runMeans(run: PaperRun): { model: string; values: Record<string, number> }[] {
  const out: { model: string; values: Record<string, number> }[] = [];
  for (const model of RWESUMMARY_MODELS) {
    const values: Record<string, number> = {};
    for (const o of RWESUMMARY_OUTCOMES) {
      const xs = columnValues(rweRecords(run, model), RWESUMMARY_COLUMNS[o]);
      if (xs.length) values[RWESUMMARY_METRIC_IDS[o]] = mean(xs);
    }
    if (Object.keys(values).length === RWESUMMARY_OUTCOMES.length) out.push({ model, values });
  }
  return out;
}

/** The paper's Table 1 rows as rubric values. */
function paperRows(models: readonly string[]): { model: string; values: Record<string, number> }[] {
  return RWESUMMARY_TABLE1.filter((r) => models.includes(r[0])).map(([model, ...c]) => ({
    model,
    values: Object.fromEntries(RWESUMMARY_OUTCOMES.map((o, i) => [RWESUMMARY_METRIC_IDS[o], Number(c[i])])),
  }));
}

/** This run's statistic for one RWESummary published value, or why it has none. */
export function rwesummaryCoverage(run: PaperRun, v: PublishedValue): Coverage {
  const o = v.column as (typeof RWESUMMARY_OUTCOMES)[number];
  if (v.table === "Table 1") {
    if (!run.byPaperModel.has(v.row.model)) return { uncovered: noModelReason(run, v.row.model) };
    return meanCoverage(rweRecords(run, v.row.model), RWESUMMARY_COLUMNS[o], `${v.row.model} RWE summaries`);
  }
  if (v.row.rubric === "Outcome weight") {
    if (!run.records.some((r) => r.taskKind === "rwe")) return { uncovered: "this run has no RWE summaries" };
    const m = RWE_DEFAULT_METRICS.find((x) => x.id === RWESUMMARY_METRIC_IDS[o])!;
    return { stat: { value: m.weight, ciLow: null, ciHigh: null, n: 1 } };
  }
  const covered = runMeans(run);
  if (covered.length < RWESUMMARY_MODELS.length) return { uncovered: `min–max normalised across the paper's nine models; this run has all four outcomes for ${covered.length} of them` };
  const res = computeRweWeightedScore(covered);
  const n = run.records.filter((r) => r.taskKind === "rwe").length;
  if (v.row.rubric) {
    const b = res.bounds[RWESUMMARY_METRIC_IDS[o]];
    return { stat: { value: v.row.rubric === "Normalizing Min" ? b.min : b.max, ciLow: null, ciHigh: null, n } };
  }
  const m = res.models.find((x) => x.model === v.row.model)!;
  return { stat: { value: v.column === "Score" ? m.score : 100 * m.normalized[RWESUMMARY_METRIC_IDS[o]], ciLow: null, ciHigh: null, n: rweRecords(run, m.model).length } };
}

/** Figure 2's ranking: τ-b between this run's weighted scores and the paper's (recomputed over the same models); reproduced at τ-b ≥ 0.5. */
export function rwesummaryClaims(run: PaperRun): ClaimResult[] {
  const covered = runMeans(run);
  const base = {
    paper: "rwesummary" as const,
    claim: "Figure 2: the weighted-score ranking of the models",
    test: "weighted min–max score (20/6/5/3) over the covered models, Kendall τ-b against the paper's scores recomputed from Table 1 over the same models; reproduced at τ-b ≥ 0.5",
  };
  if (covered.length < 3) {
    return [
      {
        ...base,
        published: "Gemini 2.5 Pro 100 %, Gemini 2.5 Flash 99 %, Gemini 2.0 Flash 94 % ahead of the other six",
        thisRun: "–",
        verdict: "not covered",
        detail: `needs at least 3 of the paper's nine models with all four outcomes (this run: ${covered.length}${covered.length ? `: ${covered.map((c) => c.model).join(", ")}` : ""})`,
      },
    ];
  }
  const mine = computeRweWeightedScore(covered).models;
  const theirs = computeRweWeightedScore(paperRows(covered.map((c) => c.model))).models;
  const t = tau(
    theirs.map((m) => m.score),
    mine.map((m) => m.score),
  );
  return [
    {
      ...base,
      published: theirs.map((m) => `${m.model} ${m.score.toFixed(0)} %`).join(", "),
      thisRun: `τ-b ${f3(t)}: ${mine.map((m) => `${m.model} ${m.score.toFixed(0)} %`).join(", ")}`,
      verdict: !Number.isFinite(t) ? "not covered" : t >= 0.5 ? "reproduced" : "not reproduced",
      detail: covered.length < RWESUMMARY_MODELS.length ? `${covered.length} of the nine models; scores renormalised over them` : "",
    },
  ];
}
