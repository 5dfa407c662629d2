/**
 * The run record types of results.jsonl. They are defined in the results room
 * (results/run-record.ts), below both experiments/ and viewer/, so that both read records through
 * one schema and no layer imports upward.
 */
export type { JudgeScoreEntry, RunRecord } from "../results/run-record.ts";
