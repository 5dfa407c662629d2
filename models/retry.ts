/**
 * Our own retry loop for endpoint calls: exponential backoff with jitter, honouring Retry-After
 * (seconds, HTTP-date or `retry-after-ms`) on 429, 5xx (also when the body is not JSON), our
 * per-attempt timeouts ({@link AttemptTimeoutError}) and network errors. An abort by the caller's
 * own signal is never retried. The LangChain clients run with `maxRetries: 0`, so this is the only
 * place that retries; models/attempt.ts runs the single attempts.
 */

/** Retry settings (all in milliseconds except `maxRetries`). */
export interface RetryPolicy {
  /** Retries after the first attempt (total attempts = maxRetries + 1). */
  maxRetries: number;
  /** First backoff delay; doubled each retry. */
  baseMs: number;
  /** Cap of one backoff delay. */
  maxMs: number;
  /** A Retry-After longer than this ends the retries. */
  maxRetryAfterMs: number;
}

/** How one failed attempt is classified. */
export interface ErrorClass {
  /** `malformed`: a reply that is not JSON / not an OpenAI-shaped body, with a non-retryable status (e.g. an HTML 200). */
  kind: "rate-limit" | "server" | "timeout" | "network" | "client" | "malformed" | "aborted" | "other";
  retryable: boolean;
  status?: number;
  /** Wait the server asked for, in ms (from Retry-After / retry-after-ms). */
  retryAfterMs?: number;
}

/** Error thrown by an attempt that ran past its own timeout (retryable, unlike an abort by the caller). */
export class AttemptTimeoutError extends Error {
  /**
   * @param ms the per-attempt timeout that ran out, in milliseconds.
   */
  constructor(readonly ms: number) {
    super(`request timed out after ${ms} ms`);
    this.name = "AttemptTimeoutError";
  }
}

/**
 * Error for an endpoint reply that is not usable JSON: a non-JSON body (an HTML error page from a
 * proxy, plain text), invalid JSON, an empty 2xx body, or JSON without the fields an
 * OpenAI-compatible reply has. Carries the HTTP status and headers, so {@link classifyError}
 * treats a malformed 429/5xx like any other 429/5xx (retryable, Retry-After honoured) and the rest
 * as not retryable (kind `malformed`). The message holds the status, the content type and at most
 * the first 100 characters of the body (whitespace collapsed); callers redact the API key from it
 * like from every error text.
 */
export class MalformedResponseError extends Error {
  /** HTTP status of the reply, when known. */
  readonly status: number | undefined;
  /** Headers of the reply (read for Retry-After). */
  readonly headers: unknown;
  /**
   * @param info `status`: HTTP status; `contentType`: the reply's content-type header;
   *   `body`: the body text (only its first 100 characters are kept); `problem`: what is wrong
   *   (default "non-JSON response"); `headers`: the reply's headers (Retry-After).
   */
  constructor(info: { status?: number; contentType?: string | null; body?: string; problem?: string; headers?: unknown }) {
    const where = [info.status !== undefined ? `HTTP ${info.status}` : "", info.contentType ? `content-type ${info.contentType}` : ""].filter(Boolean).join(", ");
    const text = (info.body ?? "").replace(/\s+/g, " ").trim();
    const snippet = text.length > 100 ? `${text.slice(0, 100)}…` : text;
    super(`endpoint returned a ${info.problem ?? "non-JSON response"}${where ? ` (${where})` : ""}${snippet ? `: ${snippet}` : " (empty body)"}`);
    this.name = "MalformedResponseError";
    this.status = info.status;
    this.headers = info.headers;
  }
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") {
    const v = (headers as { get(n: string): string | null }).get(name);
    return v ?? undefined;
  }
  if (typeof headers === "object") {
    for (const [k, v] of Object.entries(headers as Record<string, unknown>)) if (k.toLowerCase() === name) return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return undefined;
}

/**
 * Parse a Retry-After header value.
 * @param value delta-seconds (`"2"`, `"1.5"`) or an HTTP-date.
 * @param now current time in ms since the epoch.
 * @returns the wait in ms (≥ 0), or undefined when absent/unparseable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}

/**
 * Classify an error thrown by an OpenAI/LangChain call.
 * 429 and 5xx (and 408/409) are retryable, whether or not their body was JSON
 * ({@link MalformedResponseError}), as are our attempt timeouts ({@link AttemptTimeoutError}) and
 * connection errors; other 4xx, other malformed replies, aborts and unknown errors are not.
 */
export function classifyError(err: unknown): ErrorClass {
  const e = err as { status?: unknown; name?: unknown; headers?: unknown; code?: unknown; message?: unknown; cause?: unknown } | null;
  if (err instanceof AttemptTimeoutError) return { kind: "timeout", retryable: true };
  const status = typeof e?.status === "number" ? e.status : undefined;
  if (err instanceof MalformedResponseError && (status === undefined || (status < 500 && status !== 429 && status !== 408 && status !== 409))) {
    return status === undefined ? { kind: "malformed", retryable: false } : { kind: "malformed", retryable: false, status };
  }
  const ms = headerValue(e?.headers, "retry-after-ms");
  const retryAfterMs = ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim()) ? Math.round(Number(ms)) : parseRetryAfter(headerValue(e?.headers, "retry-after"));
  if (status !== undefined) {
    if (status === 429) return { kind: "rate-limit", retryable: true, status, retryAfterMs };
    if (status >= 500 || status === 408 || status === 409) return { kind: "server", retryable: true, status, retryAfterMs };
    return { kind: "client", retryable: false, status };
  }
  const name = String(e?.name ?? "");
  if (/Timeout/i.test(name)) return { kind: "timeout", retryable: true };
  if (name === "AbortError" || name === "APIUserAbortError") return { kind: "aborted", retryable: false };
  const text = `${name} ${String(e?.message ?? "")} ${String((e?.cause as { code?: unknown })?.code ?? e?.code ?? "")}`;
  if (/APIConnectionError|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|Connection error/i.test(text)) return { kind: "network", retryable: true };
  return { kind: "other", retryable: false };
}

/**
 * Backoff before retry number `retry` (0-based): `min(maxMs, baseMs·2^retry)` scaled by a jitter
 * factor in [0.5, 1).
 * @returns milliseconds.
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, "baseMs" | "maxMs">, random: () => number = Math.random): number {
  const d = Math.min(policy.maxMs, policy.baseMs * 2 ** retry);
  return Math.round(d * (0.5 + random() * 0.5));
}

/** Sleep `ms`, rejecting early with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Outcome of {@link withRetry}: never throws for attempt errors. */
export type RetryOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; error: unknown; errorClass: ErrorClass; attempts: number; gaveUp: string };

function reasonText(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (r instanceof Error) return ` (${r.name}: ${r.message})`;
  return r === undefined ? "" : ` (${String(r)})`;
}

/**
 * Run `fn` until it succeeds, a non-retryable error occurs, or the retries are spent.
 * The wait before a retry is `max(backoff, Retry-After)`; a Retry-After above
 * `policy.maxRetryAfterMs` stops retrying. When `opts.signal` (the caller's) has aborted, the
 * loop stops at once (`gaveUp` starts with "aborted by the caller's signal", with its reason, e.g.
 * a caller's own `AbortSignal.timeout`), whatever the error was.
 * @param fn one attempt; receives the 1-based attempt number.
 * @returns success with the value, or failure with the last error and the attempt count.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  opts: { signal?: AbortSignal; classify?: (err: unknown) => ErrorClass; random?: () => number; onRetry?: (info: { attempt: number; waitMs: number; errorClass: ErrorClass }) => void } = {},
): Promise<RetryOutcome<T>> {
  const classify = opts.classify ?? classifyError;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await fn(attempt), attempts: attempt };
    } catch (error) {
      if (opts.signal?.aborted) return { ok: false, error, errorClass: { kind: "aborted", retryable: false }, attempts: attempt, gaveUp: `aborted by the caller's signal${reasonText(opts.signal)}` };
      const ec = classify(error);
      if (!ec.retryable) return { ok: false, error, errorClass: ec, attempts: attempt, gaveUp: `${ec.kind} error (not retried)` };
      if (attempt > policy.maxRetries) return { ok: false, error, errorClass: ec, attempts: attempt, gaveUp: `${ec.kind} error after ${attempt} attempts` };
      if (ec.retryAfterMs !== undefined && ec.retryAfterMs > policy.maxRetryAfterMs) {
        return { ok: false, error, errorClass: ec, attempts: attempt, gaveUp: `server asked to retry after ${ec.retryAfterMs} ms (> maxRetryAfterMs ${policy.maxRetryAfterMs})` };
      }
      const waitMs = Math.max(backoffDelay(attempt - 1, policy, opts.random), ec.retryAfterMs ?? 0);
      opts.onRetry?.({ attempt, waitMs, errorClass: ec });
      try {
        await sleep(waitMs, opts.signal);
      } catch {
        return { ok: false, error, errorClass: { kind: "aborted", retryable: false }, attempts: attempt, gaveUp: `aborted by the caller's signal${opts.signal ? reasonText(opts.signal) : ""}` };
      }
    }
  }
}
