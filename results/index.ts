/**
 * Public API of the results room: the run-record schema and streaming readers/writers of results
 * files (`results.jsonl`). It sits below experiments/ and viewer/, which both read records through
 * it; it imports only from models/.
 */
export * from "./run-record.ts";
export * from "./results-file.ts";
