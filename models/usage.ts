/**
 * Totals over call records (token usage, latency, cache hits), for reports and the CLI.
 */
import type { CallInfo } from "./types.ts";

/** Sum of a list of {@link CallInfo}. */
export interface UsageSummary {
  /** Logical calls. */
  calls: number;
  /** Calls answered from the cache (no request). */
  cached: number;
  /** HTTP attempts made (retries included). */
  attempts: number;
  /** Input tokens of all calls as the endpoint reported them when the answer was produced (cache hits included). */
  inputTokens: number;
  outputTokens: number;
  /** Tokens of calls that actually went to the endpoint in this run (cache hits excluded). */
  freshInputTokens: number;
  freshOutputTokens: number;
  /** Calls whose endpoint reported no usage. */
  missingUsage: number;
  /** Wall-clock ms spent in this run (sum of `latencyMs`). */
  latencyMs: number;
  /** Generation time when the answers were produced: sum of `originalLatencyMs ?? latencyMs` (RWESummary's inference time). */
  originalLatencyMs: number;
}

/**
 * Sum call records.
 * @param calls records from `ChatResult.call` / `StructuredResult.call` (undefined entries are skipped).
 */
export function summarizeUsage(calls: ReadonlyArray<CallInfo | undefined | null>): UsageSummary {
  const s: UsageSummary = { calls: 0, cached: 0, attempts: 0, inputTokens: 0, outputTokens: 0, freshInputTokens: 0, freshOutputTokens: 0, missingUsage: 0, latencyMs: 0, originalLatencyMs: 0 };
  for (const c of calls) {
    if (!c) continue;
    s.calls++;
    if (c.cached) s.cached++;
    s.attempts += c.attempts;
    s.latencyMs += c.latencyMs;
    s.originalLatencyMs += c.originalLatencyMs ?? c.latencyMs;
    if (!c.usage) {
      s.missingUsage++;
      continue;
    }
    s.inputTokens += c.usage.inputTokens;
    s.outputTokens += c.usage.outputTokens;
    if (!c.cached) {
      s.freshInputTokens += c.usage.inputTokens;
      s.freshOutputTokens += c.usage.outputTokens;
    }
  }
  return s;
}
