/**
 * The record the experiment runner appends to `results.jsonl`, one JSON line per finished cell
 * (item × model × workflow × parameters × repeat). `medsynth judge` and `medsynth metrics` read and
 * enrich these records.
 */
import type { CallInfo } from "../models/types.ts";
import type { UsageTotals } from "../models/usage.ts";

/** One judge's verdict on one record for one rubric. `missing` answers keep their raw text. */
export interface JudgeScoreEntry {
  judgeId: string;
  rubricId: string;
  /** Criterion/dimension → score (rubric scale, e.g. 0–5, 0–100, 0/1); null when missing. */
  scores: Record<string, number | null>;
  status: "ok" | "missing";
  raw?: string;
  error?: string;
  call?: CallInfo;
}

/** One finished cell. */
export interface RunRecord {
  /** Stable key of the cell: hash of (item id, model, workflow, params, repeat). */
  key: string;
  itemId: string;
  dataset: string;
  taskKind: "synthesis" | "conclusion" | "rwe";
  model: string;
  workflow: string;
  /** Workflow parameters of this cell (K, reranker, negation fraction, mode …). */
  params: Record<string, unknown>;
  repeat: number;
  status: "ok" | "failed" | "skipped";
  output: string | null;
  /**
   * The output was kept although a generator call hit the output limit (`finish_reason:
   * "length"`; the endpoint sets `onTruncated: keep-marked`). Absent otherwise.
   */
  truncated?: true;
  /** Set to "score" when the output is a number (e.g. feasibility), not prose; absent for text. */
  outputKind?: "score";
  error?: string;
  /** Why a failed cell failed (`truncated`, `http`, `timeout`, … experiments/failures.ts). */
  failureReason?: string;
  raw?: string;
  /** Reference text (conclusion/summary) when the item has one, for metrics. */
  reference: string | null;
  /** Extra fields of the item used by subgroup analysis (specialty, year, certainty …). */
  itemMeta: Record<string, string | number | null>;
  intermediate: Record<string, unknown>;
  /**
   * Generator bookkeeping (since issue 13: `inputTokens`/`outputTokens` are the tokens SPENT by
   * requests made for this record, every attempt included; tokens of cache hits are in
   * `cachedInputTokens`/`cachedOutputTokens`; `requests` counts HTTP requests and
   * `unknownUsageCalls` the answers that came without usage). `latencyMs` is the wall-clock time of this run of the cell;
   * `modelLatencyMs` sums the model calls' generation times, using the original time for cache
   * hits (the inference time RWESummary compares; absent when the cell made no model call).
   * `inputTokens` / `outputTokens` are null when calls were made and none reported usage
   * (unknown, never 0); with some unknown they are a lower bound.
   */
  generator: { calls: number; inputTokens: number | null; outputTokens: number | null; latencyMs: number; cached: boolean; modelLatencyMs?: number } & Partial<
    Omit<UsageTotals, "inputTokens" | "outputTokens">
  >;
  /**
   * Judge bookkeeping (every attempt's tokens; `inputTokens`/`outputTokens` are spent tokens,
   * cache hits in `cachedInputTokens`/`cachedOutputTokens`; null when no judge call reported usage),
   * split by judge model in `byModel`.
   */
  judge?: { calls: number; inputTokens: number | null; outputTokens: number | null; latencyMs: number; byModel?: Record<string, UsageTotals> } & Partial<
    Omit<UsageTotals, "inputTokens" | "outputTokens">
  >;
  judgeScores?: JudgeScoreEntry[];
  /**
   * The panel's aggregate per rubric and dimension under its policy (mean, median or majority):
   * rubric id → dimension → value (null when no judge gave a usable score) and how many judges did.
   */
  panel?: { aggregation: string; scores: Record<string, Record<string, { value: number | null; nPresent: number; nJudges: number; tie?: boolean }>> };
  /** Metric id → value; null with a reason in `metricNotes` when a metric could not be computed. */
  metrics?: Record<string, number | null>;
  metricNotes?: Record<string, string>;
  /** Categorical outputs of classifiers, e.g. `{answer_label_lexical: "higher"}`. */
  labels?: Record<string, string>;
  startedAt: string;
  finishedAt: string;
}

/**
 * Where a slim, read-only copy of a record (the report's projection, experiments/report/read-records.ts)
 * keeps the word count of its output after dropping the output text: readers that need only the
 * length (the report's `outputWords`, the panel's length bias) use {@link outputWordCount}.
 */
export const OUTPUT_WORDS: unique symbol = Symbol.for("medsynth.outputWords");

/** Number of whitespace-separated words of a text (0 for null or undefined). */
export function whitespaceWordCount(text: string | null | undefined): number {
  return text ? text.trim().split(/\s+/).filter(Boolean).length : 0;
}

/**
 * Words of a record's output: the count kept by a slim projection ({@link OUTPUT_WORDS}), else
 * counted from `output` (whitespace-separated words, 0 for null).
 */
export function outputWordCount(r: Pick<RunRecord, "output">): number {
  const kept = (r as { [OUTPUT_WORDS]?: number })[OUTPUT_WORDS];
  return kept ?? whitespaceWordCount(r.output);
}
