/**
 * Public API of the viewer: the local results explorer (run index, cell queries, item pages,
 * compare mode, the web server) and human rating studies (creation, ratings store, rater service,
 * human–LLM alignment). Nothing below this layer imports from it.
 */
export { buildRunIndex, indexRun, loadRun, recordsOf, paramsLabel, type CellRow, type IndexedRun, type LoadedRun, type RunIndex, type Prices } from "./run-index.ts";
export { parseCellQuery, queryCells, filterAndSort, exportColumns, exportRecord, CellQuerySchema, type CellQuery, type CellPage } from "./cell-query.ts";
export { buildItemView, type ItemView, type CellView, type EvidenceView, type JudgeView } from "./item-view.ts";
export { compareRuns, ensureComparison, wordDifference, type ComparePage, type ComparePair, type CompareOptions } from "./compare.ts";
export { startViewerServer, toCsv, type ViewerServer, type ViewerServerOptions } from "./server.ts";
export {
  createStudy,
  readStudy,
  checkStudyRun,
  studyDimensions,
  STUDY_RUBRICS,
  CreateStudyOptionsSchema,
  type Study,
  type StudyTask,
  type StudyRater,
  type CreateStudyOptions,
} from "./study/study.ts";
export { RatingStore, type Rating, type SubmitResult } from "./study/store.ts";
export { raterTasks, ratingForm, submitRating, exportRatings, raterByToken, type BlindTask, type RatingForm } from "./study/rater-service.ts";
export { humanAlignment, humanAlignmentMarkdown, type HumanAlignmentReport } from "./study/human-alignment.ts";
export { requiredInputs, cellInputs, missingCellInputs, type StudyInput } from "./study/study.ts";
export { resolveRemote, allowedHosts, hostRefusal, redactPath, SaveLimiter, isLoopback, type RemoteOptions, type RemoteSetup } from "./study/remote.ts";
export { naturalCompare } from "./natural-order.ts";
