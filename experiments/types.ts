/**
 * The run record types of results.jsonl. They are defined next to the judges (judges/run-record.ts),
 * which read and enrich records, so that imports flow one way (experiments → judges) and the
 * judges layer never imports from experiments.
 */
export type { JudgeScoreEntry, RunRecord } from "../judges/run-record.ts";
