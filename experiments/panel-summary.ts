/**
 * The panel aggregate stored on a run record (`RunRecord.panel`), built from a panel's
 * {@link PanelAggregate} and merged with what the record already holds for other rubrics.
 */
import type { PanelAggregate } from "../judges/panel.ts";
import type { RunRecord } from "./types.ts";

/**
 * Record-level panel summary: rubric → dimension → {value, nPresent, nJudges, tie?}. Rubrics the
 * new aggregate does not cover keep their previous entries (e.g. a second panel judged another
 * rubric); covered rubrics are replaced, so re-asked missing verdicts update the value.
 */
export function mergePanelSummary(previous: RunRecord["panel"] | undefined, aggregate: PanelAggregate, aggregation: string): NonNullable<RunRecord["panel"]> {
  const scores: NonNullable<RunRecord["panel"]>["scores"] = { ...(previous?.scores ?? {}) };
  for (const [rubric, dims] of Object.entries(aggregate)) {
    scores[rubric] = Object.fromEntries(Object.entries(dims).map(([d, a]) => [d, { value: a.value, nPresent: a.nPresent, nJudges: a.nJudges, ...(a.tie ? { tie: true } : {}) }]));
  }
  return { aggregation, scores };
}
