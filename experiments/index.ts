/**
 * Public API of the experiments layer: config schema, matrix expansion, runner, results store,
 * reports and comparisons.
 */
export * from "./types.ts";
export * from "./config.ts";
export * from "./cells.ts";
export * from "../results/results-file.ts";
export * from "./runner.ts";
export * from "./wiring.ts";
export * from "./metrics-stage.ts";
export * from "./retrieval-eval-stage.ts";
export { writeReport, buildSections, primaryColumn, retrievalTable, rweWeightedTable, type RetrievalEvalRow, type ReportSettings, type ReportFiles } from "./report/build.ts";
export * from "./report/tables.ts";
export * from "./report/charts.ts";
export * from "./report/render.ts";
export * from "./report/compare.ts";
export { medmetaAnalysisSection, judgeAgreementTable, feasibilityCorrelationTable } from "./report/medmeta-analysis-section.ts";
export { sjrSection, journalInfoOf, type SjrSectionOptions } from "./report/sjr-section.ts";
export { recordValues, columnsOf, sortByConfig, variantLabel, matchesFilter, pairKey, type ConfigOrder } from "./report/columns.ts";
export * from "./panel-summary.ts";
export * from "./report/published/index.ts";
export { publishedConsistencyChecks, type ConsistencyCheck } from "./report/published/consistency.ts";
export {
  comparePapers,
  paperSection,
  paperTables,
  paperSectionForConfig,
  sectionPapers,
  type PaperVsRun,
  type PaperComparison,
  type PaperUncovered,
  type PaperModelEntry,
} from "./report/paper-section.ts";
export type { ClaimResult, RunStat, Verdict } from "./report/paper-vs-run/common.ts";
