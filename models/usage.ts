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

/**
 * One record for several logical calls of one step (e.g. a judge's whole-call retries): usage
 * summed (null only when no call reported any), attempts and latencies summed, `cached` only when
 * every call was a hit, `usageUnknown` when any answer came without usage, the last call's finish
 * reason and structured method, and `merged` = how many calls it stands for.
 * @param calls at least one call record.
 */
export function mergeCalls(calls: readonly CallInfo[]): CallInfo {
  if (calls.length === 1) return calls[0];
  const last = calls[calls.length - 1];
  const reported = calls.filter((c) => c.usage !== null);
  const usage: CallInfo["usage"] = reported.length
    ? { inputTokens: reported.reduce((a, c) => a + c.usage!.inputTokens, 0), outputTokens: reported.reduce((a, c) => a + c.usage!.outputTokens, 0) }
    : null;
  const original = calls.some((c) => c.originalLatencyMs !== undefined) ? calls.reduce((a, c) => a + (c.originalLatencyMs ?? c.latencyMs), 0) : undefined;
  return {
    modelId: last.modelId,
    cached: calls.every((c) => c.cached),
    latencyMs: calls.reduce((a, c) => a + c.latencyMs, 0),
    ...(original !== undefined ? { originalLatencyMs: original } : {}),
    usage,
    attempts: calls.reduce((a, c) => a + c.attempts, 0),
    ...(last.finishReason ? { finishReason: last.finishReason } : {}),
    ...(last.structuredMethod ? { structuredMethod: last.structuredMethod } : {}),
    ...(calls.some((c) => c.usageUnknown) ? { usageUnknown: true } : {}),
    merged: calls.reduce((a, c) => a + (c.merged ?? 1), 0),
  };
}

/**
 * Token bookkeeping of a set of calls, as a run records and reports it. Tokens the run SPENT
 * (requests made now, every attempt included) are kept apart from tokens of cache hits (answers
 * reused from the disk cache: nothing was sent), and calls whose answer came without usage are
 * counted, so a total is never silently low.
 */
export interface UsageTotals {
  /** Logical calls (a judge verdict's whole-call retries count once each). */
  calls: number;
  /** HTTP requests made (retries included; 0 for cache hits). */
  requests: number;
  /** Calls answered from the cache. */
  cachedCalls: number;
  /** Input tokens of requests made (spent). */
  inputTokens: number;
  /** Output tokens of requests made (spent). */
  outputTokens: number;
  /** Input tokens of answers taken from the cache (not spent in this run). */
  cachedInputTokens: number;
  /** Output tokens of answers taken from the cache (not spent in this run). */
  cachedOutputTokens: number;
  /** Calls with at least one answer that came without usage: their tokens are unknown. */
  unknownUsageCalls: number;
  /** Calls sent through a Batch API (`run --batch`), billed at the batch rate. */
  batchCalls: number;
  /** Of `inputTokens`: tokens spent through batches. */
  batchInputTokens: number;
  /** Of `outputTokens`: tokens spent through batches. */
  batchOutputTokens: number;
}

/** All-zero {@link UsageTotals}. */
export function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    requests: 0,
    cachedCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cachedOutputTokens: 0,
    unknownUsageCalls: 0,
    batchCalls: 0,
    batchInputTokens: 0,
    batchOutputTokens: 0,
  };
}

/**
 * Totals of call records: a record standing for several calls ({@link mergeCalls}) counts `merged`
 * calls; a cache hit's usage goes to the `cached*` fields.
 */
export function totalsOfCalls(calls: ReadonlyArray<CallInfo | undefined | null>): UsageTotals {
  const t = emptyTotals();
  for (const c of calls) {
    if (!c) continue;
    t.calls += c.merged ?? 1;
    t.requests += c.attempts;
    if (c.cached) t.cachedCalls += c.merged ?? 1;
    if (c.usageUnknown) t.unknownUsageCalls++;
    if (c.batch) t.batchCalls += c.merged ?? 1;
    if (!c.usage) continue;
    if (c.batch && !c.cached) {
      t.batchInputTokens += c.usage.inputTokens;
      t.batchOutputTokens += c.usage.outputTokens;
    }
    if (c.cached) {
      t.cachedInputTokens += c.usage.inputTokens;
      t.cachedOutputTokens += c.usage.outputTokens;
    } else {
      t.inputTokens += c.usage.inputTokens;
      t.outputTokens += c.usage.outputTokens;
    }
  }
  return t;
}

/** Field-wise sum of two {@link UsageTotals} (missing fields of old records and unknown (null) tokens count as 0; `unknownUsageCalls` says how many calls are unknown). */
export function addTotals(a: Partial<Record<keyof UsageTotals, number | null>>, b: Partial<Record<keyof UsageTotals, number | null>>): UsageTotals {
  const out = emptyTotals();
  for (const k of Object.keys(out) as (keyof UsageTotals)[]) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}

/** Price of a model in USD per 1M tokens; `batchInput`/`batchOutput` for Batch API calls (default: half the online price, as OpenAI bills batches). */
export interface TokenPrice {
  input: number;
  output: number;
  batchInput?: number;
  batchOutput?: number;
}

/**
 * Whether the tokens of a set of calls are unknown as a whole: some answer came without usage
 * and no call reported any token (spent or cached). Records then carry `null` tokens, never 0.
 */
export function tokensUnknown(
  t: Pick<UsageTotals, "unknownUsageCalls"> & { inputTokens: number | null; outputTokens: number | null; cachedInputTokens?: number; cachedOutputTokens?: number },
): boolean {
  if (t.inputTokens === null || t.outputTokens === null) return true;
  return t.unknownUsageCalls > 0 && t.inputTokens + t.outputTokens + (t.cachedInputTokens ?? 0) + (t.cachedOutputTokens ?? 0) === 0;
}

/**
 * A token count as tables, progress lines and summaries show it: `"1,234"` when every call
 * reported usage, `"≥ 1,234 (2 calls unknown)"` when some did not (the count is a lower bound),
 * `"–"` when none did (`tokens` null, or 0 with unknown calls) — never a 0 standing for unknown.
 * @param unknownCalls calls whose answer came without usage.
 */
export function formatTokenCount(tokens: number | null, unknownCalls: number): string {
  const n = (x: number) => x.toLocaleString("en-US");
  if (tokens === null || (unknownCalls > 0 && tokens === 0)) return unknownCalls > 0 ? `– (${n(unknownCalls)} call${unknownCalls === 1 ? "" : "s"} unknown)` : "–";
  if (unknownCalls > 0) return `≥ ${n(tokens)} (${n(unknownCalls)} call${unknownCalls === 1 ? "" : "s"} unknown)`;
  return n(tokens);
}

/**
 * A cost as shown: `"$0.0123"`, `"≥ $0.0123"` when some calls' usage is unknown, `"–"` when all
 * of it is, `"not priced"` without a price.
 */
export function formatCostUsd(cost: number | null, unknownCalls: number, allUnknown: boolean): string {
  if (allUnknown) return "–";
  if (cost === null) return "not priced";
  return `${unknownCalls > 0 ? "≥ " : ""}$${cost.toFixed(4)}`;
}

/**
 * Cost in USD of the tokens spent (cache hits are free), at a price per million tokens; tokens
 * spent through batches at the batch rate.
 * @param price {@link TokenPrice}; undefined = not priced.
 * @returns the cost, or null when there is no price.
 */
export function costOf(t: Pick<UsageTotals, "inputTokens" | "outputTokens"> & Partial<Pick<UsageTotals, "batchInputTokens" | "batchOutputTokens">>, price: TokenPrice | undefined): number | null {
  if (!price) return null;
  const bi = t.batchInputTokens ?? 0;
  const bo = t.batchOutputTokens ?? 0;
  const online = (t.inputTokens - bi) * price.input + (t.outputTokens - bo) * price.output;
  const batch = bi * (price.batchInput ?? price.input / 2) + bo * (price.batchOutput ?? price.output / 2);
  return (online + batch) / 1e6;
}
