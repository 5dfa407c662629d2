/**
 * Why cells failed, in a few named classes, for the run's failure summary, its exit code and the
 * report. A record carries `failureReason` when the call layer knew it (models/types.ts
 * CallFailureReason); older records are classified from their error text.
 */
import type { RunRecord } from "./types.ts";

/**
 * Failure classes: `truncated` (answer hit maxTokens), `empty` (no text), `http` (4xx/5xx after
 * retries), `timeout`, `network`, `malformed` (reply not usable JSON), `invalid` (structured answer
 * failed validation), `retrieval` (no documents, retriever errors), `aborted`, `other`.
 */
export const FAILURE_REASONS = ["truncated", "empty", "http", "timeout", "network", "malformed", "invalid", "retrieval", "aborted", "other"] as const;

/** Classify an error text (for records written before reasons were recorded). */
export function classifyErrorText(error: string): string {
  const e = error.toLowerCase();
  if (/truncated|finish_reason "length"|finish_reason: length/.test(e)) return "truncated";
  if (/empty answer/.test(e)) return "empty";
  if (/aborted/.test(e)) return "aborted";
  if (/timed? ?out|timeout/.test(e)) return "timeout";
  if (/non-json|malformed/.test(e)) return "malformed";
  if (/failed validation|does not match the schema|no json object/.test(e)) return "invalid";
  if (/network|econnrefused|econnreset|fetch failed|connection error/.test(e)) return "network";
  if (/status code|\b[45]\d\d\b|rate-limit|server error|client error/.test(e)) return "http";
  if (/retriev|no documents/.test(e)) return "retrieval";
  return "other";
}

/** The failure class of a failed record. */
export function failureReasonOf(r: Pick<RunRecord, "failureReason" | "error">): string {
  return r.failureReason ?? classifyErrorText(r.error ?? "");
}

/**
 * An error text shortened for a summary line or table cell: the middle is cut (marked "…"), never
 * the end, where the errors put their advice (e.g. a truncation's limit and what to change).
 */
export function shortenError(text: string, max = 400): string {
  if (text.length <= max) return text;
  const head = Math.min(80, Math.floor(max / 4));
  return `${text.slice(0, head)}…${text.slice(text.length - (max - head - 1))}`;
}

/**
 * Count failed records by reason, with the first error of each reason as an example.
 * @returns reason → `{count, example}`, largest count first.
 */
export function failureSummary(records: readonly RunRecord[]): { reason: string; count: number; example: string }[] {
  const by = new Map<string, { count: number; example: string }>();
  for (const r of records) {
    if (r.status !== "failed") continue;
    const k = failureReasonOf(r);
    const e = by.get(k) ?? { count: 0, example: r.error ?? "" };
    e.count++;
    by.set(k, e);
  }
  return [...by].map(([reason, v]) => ({ reason, ...v })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}
