/**
 * One HTTP attempt of the call layer: a per-attempt timeout that is told apart from an abort by
 * the caller, and a fetch wrapper that turns replies which are not usable JSON (an HTML error page
 * from a proxy, plain text, an empty 2xx body) into a {@link MalformedResponseError} with the
 * HTTP status and the start of the body, instead of the TypeError LangChain would raise when it
 * reads the missing fields.
 *
 * Why our own timer: a per-call `AbortSignal.timeout` reaches LangChain as an AbortError that
 * looks exactly like the caller's abort, and the OpenAI SDK's constructor `timeout` cannot be
 * told apart from other connection errors reliably. {@link runAttempt} gives every attempt its own
 * AbortController, links the caller's signal to it, aborts it from its own timer, and maps the
 * outcome to {@link AttemptTimeoutError} (retryable) only when that timer fired and the caller's
 * signal did not.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AttemptTimeoutError, MalformedResponseError } from "./retry.ts";

/** What the fetch wrapper learns about the attempt it runs in. */
interface AttemptContext {
  /** Aborted when the attempt times out or the caller aborts. */
  signal: AbortSignal;
  /** Set when the reply was not usable JSON. */
  malformed?: MalformedResponseError;
  /** Body of an HTTP error reply (4xx/5xx), whitespace collapsed, at most 1,000 characters. */
  errorBody?: string;
  /** Parsed body of the last 2xx reply (the OpenAI SDK may throw after reading it, e.g. on finish_reason "length"). */
  okJson?: unknown;
}

/**
 * The 2xx reply body behind an error the client threw after the server answered (the OpenAI
 * SDK's structured parse throws `LengthFinishReasonError` on a cut-off answer and drops the text).
 * @returns the parsed body, or undefined when the error came before any 2xx reply.
 */
export function replyBodyOf(err: unknown): unknown {
  return err && typeof err === "object" ? (err as { replyBody?: unknown }).replyBody : undefined;
}

/**
 * Keep the server's own words in the error: the OpenAI SDK only reads a body shaped
 * `{error: {message}}`, so vLLM's `{"object":"error","message":…}` or a plain-text 400 used to
 * become "400 status code (no body)". The body is appended to the message (unless it is already
 * there) and kept on the error as `responseBody`.
 */
function withErrorBody(err: unknown, body: string | undefined): unknown {
  if (!body || !(err instanceof Error)) return err;
  (err as Error & { responseBody?: string }).responseBody = body;
  if (!err.message.includes(body)) {
    const msg = err.message.replace(/\s*\(no body\)\s*$/, "");
    try {
      err.message = `${msg} — server said: ${body}`;
    } catch {
      /* read-only message: the body stays on responseBody */
    }
  }
  return err;
}

const attemptContext = new AsyncLocalStorage<AttemptContext>();

/**
 * Run one attempt with its own timeout.
 * @param opts `timeoutMs`: per-attempt limit in ms; `signal`: the caller's signal (an abort stops
 *   the attempt at once and is rethrown as is, never turned into a timeout).
 * @param fn the attempt; receives the attempt's signal (pass it to the client). Requests made
 *   through {@link guardedFetch} inside it are aborted with it even when the client takes no signal.
 * @returns what `fn` returns.
 * @throws AttemptTimeoutError when `timeoutMs` passed first; MalformedResponseError when the
 *   endpoint's reply was not usable JSON; the caller's abort reason when it aborted; else `fn`'s error.
 */
export async function runAttempt<T>(opts: { timeoutMs: number; signal?: AbortSignal }, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { timeoutMs, signal: caller } = opts;
  caller?.throwIfAborted();
  const ac = new AbortController();
  const ctx: AttemptContext = { signal: ac.signal };
  let timedOut = false;
  const onCallerAbort = () => ac.abort(caller?.reason);
  caller?.addEventListener("abort", onCallerAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new AttemptTimeoutError(timeoutMs));
  }, timeoutMs);
  let onAbort = (): void => undefined;
  // Settles as soon as the attempt is aborted, even when the client ignores the signal.
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(ac.signal.reason);
    ac.signal.addEventListener("abort", onAbort, { once: true });
  });
  const work = attemptContext.run(ctx, () => Promise.resolve().then(() => fn(ac.signal)));
  work.catch(() => undefined); // a late failure after a timeout must not surface as unhandled
  aborted.catch(() => undefined);
  try {
    return await Promise.race([work, aborted]);
  } catch (err) {
    if (caller?.aborted) throw err;
    if (ctx.malformed) throw ctx.malformed;
    if (timedOut) throw new AttemptTimeoutError(timeoutMs);
    if (ctx.okJson !== undefined && err && typeof err === "object") (err as { replyBody?: unknown }).replyBody = ctx.okJson;
    throw withErrorBody(err, ctx.errorBody);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCallerAbort);
    ac.signal.removeEventListener("abort", onAbort);
    if (!ac.signal.aborted) ac.abort(new Error("attempt finished")); // release a request still running
  }
}

function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

function isJsonMediaType(mt: string): boolean {
  return mt.includes("application/json") || mt.endsWith("+json");
}

/** The array an OpenAI-compatible 2xx reply must have, by request path; undefined when unchecked. */
function requiredArray(url: string): string | undefined {
  const path = url.split("?")[0];
  if (path.endsWith("/chat/completions")) return "choices";
  if (path.endsWith("/embeddings")) return "data";
  return undefined;
}

/**
 * Check a reply before the OpenAI SDK parses it.
 * @returns the reply itself; or a copy labelled `application/json` when a JSON body came with
 *   another content type (some servers send `text/plain`).
 * @throws MalformedResponseError for a body that is not JSON (any status), an empty 2xx body, or
 *   a 2xx chat/embeddings reply without its `choices`/`data` array. 204 and event streams pass.
 */
export async function checkResponse(res: Response, url: string): Promise<Response> {
  if (res.status === 204) return res;
  const contentType = res.headers.get("content-type");
  const mt = mediaTypeOf(contentType);
  if (mt === "text/event-stream") return res;
  const text = await res.clone().text();
  const info = { status: res.status, contentType, body: text, headers: res.headers };
  if (text.trim() === "") {
    if (res.ok) throw new MalformedResponseError({ ...info, problem: "empty response" });
    return res; // the SDK reports "<status> status code (no body)"
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedResponseError({ ...info, problem: isJsonMediaType(mt) ? "malformed JSON response" : "non-JSON response" });
  }
  if (res.ok) {
    const field = requiredArray(url);
    if (field && !Array.isArray((parsed as Record<string, unknown> | null)?.[field])) {
      throw new MalformedResponseError({ ...info, problem: `malformed response (no "${field}" array)` });
    }
  }
  if (isJsonMediaType(mt)) return res;
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: res.status, statusText: res.statusText, headers });
}

/**
 * A `fetch` for the OpenAI SDK's `configuration.fetch`: inside {@link runAttempt} it also aborts
 * with the attempt (timeout or caller) and records a malformed reply for the attempt to report;
 * every reply goes through {@link checkResponse}.
 * @param base the underlying fetch (default the global one).
 */
export function guardedFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const ctx = attemptContext.getStore();
    const signal = ctx ? (init?.signal ? AbortSignal.any([init.signal, ctx.signal]) : ctx.signal) : init?.signal;
    const res = await base(input, { ...init, signal });
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    try {
      const checked = await checkResponse(res, url);
      if (checked.ok && ctx && url.split("?")[0].endsWith("/chat/completions")) {
        try {
          ctx.okJson = JSON.parse(await checked.clone().text());
        } catch {
          /* checked above; an event stream is not kept */
        }
      }
      if (!checked.ok && ctx && checked.status !== 204) {
        const body = (await checked.clone().text()).replace(/\s+/g, " ").trim();
        if (body) ctx.errorBody = body.length > 1000 ? `${body.slice(0, 1000)}…` : body;
      }
      return checked;
    } catch (err) {
      if (err instanceof MalformedResponseError && ctx) ctx.malformed = err;
      throw err;
    }
  };
}
