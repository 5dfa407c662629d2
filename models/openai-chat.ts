/**
 * `openai:<model>`: a {@link ChatModel} for any OpenAI-compatible chat-completions endpoint, through
 * @langchain/openai's ChatOpenAI (client retries off: `maxRetries: 0`), wrapped in medsynth's call
 * layer: disk cache (keyed by endpoint base URL, model, params, messages, prompt id/version, repeat
 * and `cacheNamespace`), shared in-flight calls, per-endpoint concurrency/RPM limits, our retries
 * with Retry-After, per-attempt timeouts (retried; an abort by the caller's signal is not),
 * non-JSON replies reported as such (models/attempt.ts), token usage from the response (never
 * counted locally), and failures returned as data with the API key redacted.
 */
import { ChatOpenAI } from "@langchain/openai";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { cacheDir as defaultCacheDir } from "../corpus/paths.ts";
import { guardedFetch, replyBodyOf, runAttempt } from "./attempt.ts";
import { CallCache, callCacheKey, endpointCacheId, stableStringify, type CacheKeyParts } from "./call-cache.ts";
import { readApiKey, redactSecret, resolveEndpointConfig, type EndpointConfig, type EndpointConfigInput } from "./endpoint-config.ts";
import { endpointLimiter, type RateLimiter } from "./rate-limit.ts";
import { withRetry, type ErrorClass, type RetryPolicy } from "./retry.ts";
import { correctionMessage, jsonInstruction, parseStructuredAnswer, schemaHash, toEndpointJsonSchema } from "./structured.ts";
import { withBatchCall, type BatchCollector } from "./batch-collector.ts";
import type { CallFailureReason, CallInfo, CallOptions, ChatMessage, ChatModel, ChatParams, ChatResult, StructuredResult, TokenUsage } from "./types.ts";

/** Id prefix of OpenAI-compatible models. */
export const OPENAI_PREFIX = "openai:";

/** Options every model factory accepts besides its config. */
export interface ModelFactoryOptions {
  /** Cache root (entries under `<cacheDir>/calls`); default `cacheDir()` from corpus/paths.ts. */
  cacheDir?: string;
  /** Environment to read defaults and the API key from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Jitter source for backoff (tests). */
  random?: () => number;
  /**
   * The run's batch session: chat calls of this model go through the Batch API when the session
   * batches every endpoint (`run --batch`) or the endpoint says `batch: true`.
   */
  batch?: BatchCollector;
}

/** Per-attempt timeout of a batched request: the batch's whole completion window (24 h) and a margin. */
const BATCH_ATTEMPT_TIMEOUT_MS = 25 * 3600 * 1000;

/** What one HTTP exchange (after retries) produced. */
type RequestOutcome =
  | { ok: true; message: AIMessage; attempts: number; usage: TokenUsage | null; finishReason?: string }
  | { ok: false; error: string; attempts: number; reason: CallFailureReason; status?: number };

/**
 * Whether a failed request was the endpoint refusing `reasoning_effort` (a 400/422 naming it):
 * models without reasoning (and some servers) reject the parameter instead of ignoring it.
 */
export function isReasoningEffortRejection(status: number | undefined, message: string): boolean {
  return (status === 400 || status === 422) && /reasoning[_ ]?effort|reasoning/i.test(message);
}

/** Value stored in the cache for a chat call. */
interface StoredChat {
  ok: true;
  text: string;
  usage: TokenUsage | null;
  latencyMs: number;
  attempts: number;
  finishReason?: string;
  /** An answer came back without token usage (the server sent none): its tokens are unknown. */
  usageUnknown?: boolean;
  /** Cut off at the output limit and kept (`onTruncated: keep-marked`); never cached. */
  truncated?: true;
}
type ComputedChat =
  | StoredChat
  | { ok: false; error: string; raw?: string; usage: TokenUsage | null; latencyMs: number; attempts: number; finishReason?: string; usageUnknown?: boolean; reason: CallFailureReason };

/** Value stored for a structured call (the raw answer; re-validated on every hit). */
interface StoredStructured {
  ok: true;
  text: string;
  usage: TokenUsage | null;
  latencyMs: number;
  attempts: number;
  validationAttempts: number;
  finishReason?: string;
  /** At least one answer came back without token usage: `usage` is not the whole count. */
  usageUnknown?: boolean;
}
type ComputedStructured =
  | StoredStructured
  | {
      ok: false;
      error: string;
      raw: string | null;
      usage: TokenUsage | null;
      latencyMs: number;
      attempts: number;
      validationAttempts: number;
      finishReason?: string;
      usageUnknown?: boolean;
      reason: CallFailureReason;
    };

function addUsage(a: TokenUsage | null, b: TokenUsage | null): TokenUsage | null {
  if (!a) return b;
  if (!b) return a;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

function usageOf(msg: AIMessage): TokenUsage | null {
  const u = msg.usage_metadata;
  if (!u || (u.input_tokens === undefined && u.output_tokens === undefined)) return null;
  return { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 };
}

/** `finish_reason` of an answer (`stop`, `length`, `tool_calls` …), when the server sent one. */
function finishReasonOf(msg: AIMessage): string | undefined {
  const f = (msg.response_metadata as { finish_reason?: unknown } | undefined)?.finish_reason;
  return typeof f === "string" && f ? f : undefined;
}

/**
 * The answer of a 2xx reply cut off at the output limit (`finish_reason: "length"`), rebuilt from
 * the raw body when the client threw on it instead of returning it (the OpenAI SDK's structured
 * parse does), so its text and usage are kept.
 * @returns an AIMessage with content, tool calls, finish reason and usage; undefined otherwise.
 */
function cutOffReply(body: unknown): AIMessage | undefined {
  const b = body as
    | { choices?: { finish_reason?: string; message?: { content?: string | null; tool_calls?: unknown[] } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } }
    | undefined;
  const choice = b?.choices?.[0];
  if (choice?.finish_reason !== "length") return undefined;
  const u = b?.usage;
  return new AIMessage({
    content: choice.message?.content ?? "",
    additional_kwargs: choice.message?.tool_calls ? { tool_calls: choice.message.tool_calls as never } : {},
    response_metadata: { finish_reason: "length" },
    ...(u && (u.prompt_tokens !== undefined || u.completion_tokens !== undefined)
      ? { usage_metadata: { input_tokens: u.prompt_tokens ?? 0, output_tokens: u.completion_tokens ?? 0, total_tokens: (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0) } }
      : {}),
  });
}

/** Failure reason of an HTTP outcome from its error class. */
function reasonOfClass(ec: ErrorClass): CallFailureReason {
  switch (ec.kind) {
    case "rate-limit":
    case "server":
    case "client":
      return "http";
    case "timeout":
    case "network":
    case "malformed":
    case "aborted":
      return ec.kind;
    default:
      return "other";
  }
}

/**
 * Hint added to a 400 answer to a structured-output request: many servers (vLLM, llama.cpp,
 * Ollama versions) accept only some ways of asking for JSON.
 */
export function structuredMethodHint(method: string): string {
  const others = ["jsonSchema", "functionCalling", "jsonMode", "promptOnly"].filter((m) => m !== method);
  return `the endpoint refused a structured-output request sent with structuredMethod "${method}"; if it does not support that, set structuredMethod to one of ${others.join(", ")} (endpoint setting \`structuredMethod\`, or env MEDSYNTH_OPENAI_STRUCTURED_METHOD)`;
}

function textOf(msg: AIMessage): string {
  const c = msg.content;
  if (typeof c === "string") return c;
  return c.map((p) => (typeof p === "string" ? p : p.type === "text" ? String((p as { text?: unknown }).text ?? "") : "")).join("");
}

function toLangChain(messages: ChatMessage[]): BaseMessage[] {
  return messages.map((m, i) => {
    if (m.role === "system") return new SystemMessage(m.content);
    if (m.role === "user") return new HumanMessage(m.content);
    if (m.role === "assistant") return new AIMessage(m.content);
    throw new Error(`message ${i}: unknown role "${(m as { role: unknown }).role}" (expected system, user or assistant)`);
  });
}

function checkCall(id: string, messages: ChatMessage[], opts: CallOptions | undefined): void {
  if (!Array.isArray(messages) || messages.length === 0) throw new Error(`${id}: chat called with no messages`);
  if (!opts?.meta || typeof opts.meta.promptId !== "string" || typeof opts.meta.promptVersion !== "string") {
    throw new Error(`${id}: CallOptions.meta {promptId, promptVersion} is required (it enters the cache key); use promptMeta(template)`);
  }
  if (opts.timeoutMs !== undefined && !(Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0))
    throw new Error(`${id}: CallOptions.timeoutMs must be a positive number of milliseconds, got ${String(opts.timeoutMs)}`);
}

/** The tool/response-format name OpenAI accepts (`[A-Za-z0-9_-]{1,64}`). */
function wireName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "answer";
}

/** What every client of one OpenAI-compatible endpoint sets up the same way. */
export interface EndpointResources {
  /** Model name sent to the endpoint (config `model`, else the id after `openai:`). */
  modelName: string;
  apiKey: string;
  cache: CallCache;
  /** Concurrency + requests-per-minute limiter shared by every client of the base URL. */
  limiter: RateLimiter;
  retryPolicy: RetryPolicy;
}

/**
 * Model name, API key (read from the env var the config names), call cache, shared rate limiter
 * and retry policy of an `openai:<model>` client (chat or embeddings).
 * @throws Error when the API key is required (api.openai.com) and its variable is unset.
 */
export function endpointResources(id: string, config: EndpointConfig, options: ModelFactoryOptions = {}): EndpointResources {
  return {
    modelName: config.model ?? id.slice(OPENAI_PREFIX.length),
    apiKey: readApiKey(config, options.env ?? process.env),
    cache: new CallCache(options.cacheDir ?? defaultCacheDir(), config.cache),
    limiter: endpointLimiter(config.baseURL, { concurrency: config.concurrency, requestsPerMinute: config.requestsPerMinute }),
    retryPolicy: { maxRetries: config.maxRetries, baseMs: config.retryBaseMs, maxMs: config.retryMaxMs, maxRetryAfterMs: config.maxRetryAfterMs },
  };
}

/** A chat model on an OpenAI-compatible endpoint. Build it with {@link createOpenAIChatModel}. */

/**
 * What a cut-off answer (finish_reason "length") means and what to change: the output limit that
 * was asked (`maxTokens`) against the output tokens the server produced. At the limit: raise
 * maxTokens. Well below it: the server's own limit (its max output or context length, the prompt
 * counting against it) cut the answer — raising maxTokens will not help. Without maxTokens: the
 * server's default limit cut it.
 * @param what "the answer" or `structured answer "<schema>"`
 */
export function truncationAdvice(what: string, maxTokens: number | undefined, outputTokens: number | undefined): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const got = outputTokens === undefined ? "" : ` after ${n(outputTokens)} output tokens`;
  if (maxTokens === undefined)
    return `${what} was cut off (finish_reason "length")${got} by the server's default output limit; no maxTokens was asked: set maxTokens on the endpoint (or the server's output limit)`;
  if (outputTokens !== undefined && outputTokens < maxTokens * 0.9)
    return `${what} was cut off (finish_reason "length") at ${n(outputTokens)} of the ${n(maxTokens)} output tokens asked (maxTokens): the server's own limit (max output or context length, the prompt included) stopped it; raising maxTokens will not help: raise the server's limit or shorten the prompt`;
  return `${what} hit the output limit (finish_reason "length") at maxTokens ${n(maxTokens)}${got}: raise maxTokens above ${n(maxTokens)}`;
}

export class OpenAIChatModel implements ChatModel {
  readonly kind = "llm" as const;
  /** Model name sent to the endpoint. */
  readonly modelName: string;
  readonly cache: CallCache;
  readonly limiter: RateLimiter;
  private readonly apiKey: string;
  private readonly clients = new Map<string, ChatOpenAI>();
  private readonly retryPolicy: RetryPolicy;
  /**
   * Set once the endpoint refused `reasoning_effort` (a 400/422 naming it, see `isReasoningEffortRejection`): later
   * calls are sent without it. Said once on stderr; read it to record the fact (env.json).
   */
  reasoningEffortRejected = false;

  constructor(
    readonly id: string,
    readonly config: EndpointConfig,
    private readonly options: ModelFactoryOptions = {},
  ) {
    ({ modelName: this.modelName, apiKey: this.apiKey, cache: this.cache, limiter: this.limiter, retryPolicy: this.retryPolicy } = endpointResources(id, config, options));
  }

  /** Config params overlaid with per-call params (what is sent and what enters the cache key). */
  effectiveParams(params?: ChatParams): ChatParams {
    const p: ChatParams = {
      temperature: params?.temperature ?? this.config.temperature,
      maxTokens: params?.maxTokens ?? this.config.maxTokens,
      seed: params?.seed ?? this.config.seed,
      reasoningEffort: this.reasoningEffortRejected ? undefined : (params?.reasoningEffort ?? this.config.reasoningEffort),
    };
    return JSON.parse(JSON.stringify(p)) as ChatParams;
  }

  /** True when this model's chat calls go through the run's batch session. */
  get batching(): boolean {
    return this.options.batch !== undefined && (this.options.batch.all || this.config.batch);
  }

  private client(p: ChatParams): ChatOpenAI {
    const k = stableStringify({ temperature: p.temperature, maxTokens: p.maxTokens, reasoningEffort: p.reasoningEffort });
    let c = this.clients.get(k);
    if (!c) {
      c = new ChatOpenAI({
        model: this.modelName,
        apiKey: this.apiKey,
        configuration: { baseURL: this.config.baseURL, fetch: guardedFetch(this.batching ? this.options.batch!.fetchFor(this.config.baseURL, this.apiKey) : undefined) },
        maxRetries: 0,
        streaming: false,
        ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
        ...(p.maxTokens !== undefined ? { maxTokens: p.maxTokens } : {}),
        ...(p.reasoningEffort !== undefined ? { modelKwargs: { reasoning_effort: p.reasoningEffort } } : {}),
      });
      this.clients.set(k, c);
    }
    return c;
  }

  private redact(text: string): string {
    return redactSecret(text, this.apiKey);
  }

  /**
   * One logical request: limiter + retries + per-attempt timeout ({@link runAttempt}: a timeout is
   * retried, the caller's abort is not). Never throws.
   */
  private async request(messages: ChatMessage[], params: ChatParams, extra: Record<string, unknown>, opts: Pick<CallOptions, "signal" | "timeoutMs">): Promise<RequestOutcome> {
    const client = this.client(params);
    const lc = toLangChain(messages);
    const { signal } = opts;
    // A batched request waits for its batch (hours), and the Batch API, not this process, limits the rate.
    const timeoutMs = this.batching ? BATCH_ATTEMPT_TIMEOUT_MS : (opts.timeoutMs ?? this.config.timeoutMs);
    const attempt = () =>
      runAttempt({ timeoutMs, signal }, async (sig) => (await client.invoke(lc, { signal: sig, ...(params.seed !== undefined ? { seed: params.seed } : {}), ...extra })) as AIMessage);
    const out = await withRetry(() => (this.batching ? attempt() : this.limiter.run(attempt)), this.retryPolicy, { signal, random: this.options.random });
    if (out.ok) {
      const finishReason = finishReasonOf(out.value);
      return { ok: true, message: out.value, attempts: out.attempts, usage: usageOf(out.value), ...(finishReason ? { finishReason } : {}) };
    }
    const cut = cutOffReply(replyBodyOf(out.error));
    if (cut) return { ok: true, message: cut, attempts: out.attempts, usage: usageOf(cut), finishReason: "length" };
    const msg = out.error instanceof Error ? out.error.message : String(out.error);
    const status = out.errorClass.status;
    if (params.reasoningEffort !== undefined && isReasoningEffortRejection(status, msg)) {
      // Reasoning where the endpoint supports it: this one refused the parameter, so go on without it.
      if (!this.reasoningEffortRejected) console.error(`note: ${this.id} at ${this.config.baseURL} does not accept reasoning_effort; its calls go on without it`);
      this.reasoningEffortRejected = true;
      const again = await this.request(messages, { ...params, reasoningEffort: undefined }, extra, opts);
      return again.ok ? { ...again, attempts: again.attempts + out.attempts } : again;
    }
    const structured = "response_format" in extra || "tools" in extra;
    const hint = structured && status === 400 ? `; ${structuredMethodHint(this.config.structuredMethod)}` : "";
    return {
      ok: false,
      attempts: out.attempts,
      reason: reasonOfClass(out.errorClass),
      ...(status !== undefined ? { status } : {}),
      error: this.redact(`${this.id} at ${this.config.baseURL}: ${out.gaveUp}: ${msg.split("\n\nTroubleshooting URL")[0].replace(/\n\nTroubleshooting URL.*$/s, "")}${hint}`),
    };
  }

  private keyParts(kind: string, messages: ChatMessage[], opts: CallOptions, params: ChatParams, schema?: CacheKeyParts["schema"]): CacheKeyParts {
    return {
      kind,
      provider: "openai",
      endpoint: endpointCacheId(this.config.baseURL),
      model: this.modelName,
      params,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      promptId: opts.meta.promptId,
      promptVersion: opts.meta.promptVersion,
      repeat: opts.meta.repeat ?? 0,
      schema,
      extra: this.config.cacheNamespace ? { namespace: this.config.cacheNamespace } : undefined,
    };
  }

  private callInfo(
    source: "hit" | "shared" | "miss",
    v: { usage: TokenUsage | null; latencyMs: number; attempts: number; ok: boolean; finishReason?: string; usageUnknown?: boolean },
    started: number,
    structuredMethod?: string,
  ): CallInfo {
    const extra = {
      ...(v.finishReason ? { finishReason: v.finishReason } : {}),
      ...(structuredMethod ? { structuredMethod } : {}),
      ...(v.usageUnknown && source !== "shared" ? { usageUnknown: true } : {}),
      ...(this.batching && source === "miss" ? { batch: true as const } : {}),
    };
    // A failure shared with a concurrent identical call: that call made (and counts) the requests.
    if (source === "miss" || !v.ok)
      return {
        modelId: this.id,
        cached: false,
        latencyMs: source === "miss" ? v.latencyMs : Date.now() - started,
        usage: source === "miss" ? v.usage : null,
        attempts: source === "miss" ? v.attempts : 0,
        ...extra,
      };
    return { modelId: this.id, cached: true, latencyMs: Date.now() - started, originalLatencyMs: v.latencyMs, usage: v.usage, attempts: 0, ...extra };
  }

  /**
   * Free-text chat call.
   * @returns `{ok:true, text, call}` or `{ok:false, error, call}` after bounded retries (never throws for endpoint errors).
   * @throws Error only for programmer errors (no messages, missing `meta`).
   */
  async chat(messages: ChatMessage[], opts: CallOptions): Promise<ChatResult> {
    checkCall(this.id, messages, opts);
    const started = Date.now();
    const params = this.effectiveParams(opts.params);
    const parts = this.keyParts("chat", messages, opts, params);
    const key = callCacheKey(parts);
    const { value, source } = await this.cache.getOrCompute<ComputedChat>(
      key,
      async () => {
        const t0 = Date.now();
        const r = await withBatchCall(key, () => this.request(messages, params, {}, opts));
        if (!r.ok) return { ok: false, error: r.error, reason: r.reason, usage: null, latencyMs: Date.now() - t0, attempts: r.attempts };
        const text = textOf(r.message);
        const finish = r.finishReason;
        const fin = { ...(finish ? { finishReason: finish } : {}), ...(r.usage === null ? { usageUnknown: true } : {}) };
        const where = `${this.id} at ${this.config.baseURL} (prompt ${opts.meta.promptId}@${opts.meta.promptVersion})`;
        if (!text.trim()) {
          // An empty answer (e.g. a reasoning model that spent maxTokens thinking) is a failure:
          // never cached, never passed downstream as if it were text.
          return {
            ok: false,
            error: `${where}: the endpoint returned an empty answer${finish ? ` (finish_reason: ${finish})` : ""}`,
            reason: finish === "length" ? "truncated" : "empty",
            usage: r.usage,
            latencyMs: Date.now() - t0,
            attempts: r.attempts,
            ...fin,
          };
        }
        if (finish === "length" && this.config.onTruncated === "keep-marked") {
          // Kept on request, marked, and (see the cache predicate below) never cached.
          return { ok: true, text, truncated: true, usage: r.usage, latencyMs: Date.now() - t0, attempts: r.attempts, ...fin };
        }
        if (finish === "length") {
          // Cut off at maxTokens: the partial text is kept as `raw`, but it is not an answer
          // (never cached, never judged) unless the endpoint config accepts truncated answers.
          return {
            ok: false,
            error: `${where}: truncated: ${truncationAdvice("the answer", params.maxTokens, r.usage?.outputTokens)}`,
            reason: "truncated",
            raw: text,
            usage: r.usage,
            latencyMs: Date.now() - t0,
            attempts: r.attempts,
            ...fin,
          };
        }
        return { ok: true, text, usage: r.usage, latencyMs: Date.now() - t0, attempts: r.attempts, ...fin };
      },
      (v) => v.ok && !v.truncated,
      parts,
    );
    const call = this.callInfo(source, value, started);
    return value.ok
      ? { ok: true, text: value.text, call, ...(value.truncated ? { truncated: true as const } : {}) }
      : { ok: false, error: value.error, reason: value.reason, ...(value.raw !== undefined ? { raw: value.raw } : {}), call };
  }

  /**
   * Structured call validated by `schema`, requested with the endpoint's `structuredMethod`.
   * An answer that fails validation is re-asked (with a correction message) up to
   * `structuredRetries` times; then `{ok:false, raw, error}` — never a default value.
   * @returns {@link StructuredResult}; `validationAttempts` = answers checked; `call.attempts` = HTTP attempts.
   */
  async structured<S extends z.ZodType>(messages: ChatMessage[], schema: S, opts: CallOptions & { schemaName: string }): Promise<StructuredResult<z.infer<S>>> {
    checkCall(this.id, messages, opts);
    if (!opts.schemaName) throw new Error(`${this.id}: structured() needs opts.schemaName`);
    const started = Date.now();
    const params = this.effectiveParams(opts.params);
    const method = this.config.structuredMethod;
    const { schema: jsonSchema, strictCompatible } = toEndpointJsonSchema(schema, opts.schemaName);
    const name = wireName(opts.schemaName);
    const parts = this.keyParts("structured", messages, opts, params, { name: opts.schemaName, hash: schemaHash(schema), method });
    let extra: Record<string, unknown> = {};
    let base = messages;
    if (method === "jsonSchema") {
      // `$parseRaw` (a function, so never serialized into the request) stops the OpenAI SDK's
      // chat.completions.parse() from throwing on non-JSON content: we validate the raw text ourselves.
      const $parseRaw = (content: string): unknown => {
        try {
          return JSON.parse(content);
        } catch {
          return null;
        }
      };
      extra = { response_format: { type: "json_schema", json_schema: { name, schema: jsonSchema, strict: strictCompatible }, $parseRaw } };
    } else if (method === "functionCalling")
      extra = {
        tools: [{ type: "function", function: { name, description: String(jsonSchema.description ?? `Return the ${opts.schemaName}`), parameters: jsonSchema } }],
        tool_choice: { type: "function", function: { name } },
      };
    else {
      base = [...messages, jsonInstruction(jsonSchema)];
      if (method === "jsonMode") extra = { response_format: { type: "json_object" } };
    }
    const rawOf = (m: AIMessage): string => {
      if (method === "functionCalling") {
        const tc = (m.additional_kwargs?.tool_calls as { function?: { arguments?: string } }[] | undefined)?.[0]?.function?.arguments;
        if (typeof tc === "string") return tc;
        if (m.tool_calls?.[0]) return JSON.stringify(m.tool_calls[0].args);
        const bad = m.invalid_tool_calls?.[0]?.args;
        if (typeof bad === "string") return bad;
      }
      return textOf(m);
    };
    const key = callCacheKey(parts);
    const { value, source } = await this.cache.getOrCompute<ComputedStructured>(
      key,
      () =>
        withBatchCall(key, async (): Promise<ComputedStructured> => {
          const t0 = Date.now();
          let usage: TokenUsage | null = null;
          let attempts = 0;
          let raw: string | null = null;
          let lastError = "";
          let finishReason: string | undefined;
          let usageUnknown = false;
          let convo = base;
          const n = this.config.structuredRetries + 1;
          for (let v = 1; v <= n; v++) {
            const r = await this.request(convo, params, extra, opts);
            attempts += r.attempts;
            if (!r.ok)
              return {
                ok: false,
                error: r.error,
                reason: r.reason,
                raw,
                usage,
                latencyMs: Date.now() - t0,
                attempts,
                validationAttempts: v - 1,
                ...(finishReason ? { finishReason } : {}),
                ...(usageUnknown ? { usageUnknown } : {}),
              };
            usage = addUsage(usage, r.usage);
            if (r.usage === null) usageUnknown = true;
            finishReason = r.finishReason;
            raw = rawOf(r.message);
            if (r.finishReason === "length") {
              // A cut-off answer is not re-asked (the same limit would cut it again): it fails with
              // its raw text kept, and is never cached.
              return {
                ok: false,
                error: this.redact(`${this.id}: truncated: ${truncationAdvice(`structured answer "${opts.schemaName}"`, params.maxTokens, r.usage?.outputTokens)}`),
                reason: "truncated",
                raw,
                usage,
                latencyMs: Date.now() - t0,
                attempts,
                validationAttempts: v,
                finishReason: "length",
                ...(usageUnknown ? { usageUnknown } : {}),
              };
            }
            const p = parseStructuredAnswer(raw, schema);
            if (p.ok)
              return { ok: true, text: raw, usage, latencyMs: Date.now() - t0, attempts, validationAttempts: v, ...(finishReason ? { finishReason } : {}), ...(usageUnknown ? { usageUnknown } : {}) };
            lastError = p.error;
            convo = [...base, { role: "assistant", content: raw }, correctionMessage(p.error)];
          }
          return {
            ok: false,
            error: this.redact(`${this.id}: structured answer "${opts.schemaName}" failed validation ${n} times; last: ${lastError}`),
            reason: "invalid",
            raw,
            usage,
            latencyMs: Date.now() - t0,
            attempts,
            validationAttempts: n,
            ...(finishReason ? { finishReason } : {}),
            ...(usageUnknown ? { usageUnknown } : {}),
          };
        }),
      (v) => v.ok,
      parts,
      (v) => v.ok && parseStructuredAnswer(v.text, schema).ok,
    );
    const call = this.callInfo(source, value, started, method);
    if (!value.ok) return { ok: false, error: value.error, reason: value.reason, raw: value.raw, call, validationAttempts: value.validationAttempts };
    const p = parseStructuredAnswer(value.text, schema);
    if (!p.ok) return { ok: false, error: p.error, reason: "invalid", raw: value.text, call, validationAttempts: value.validationAttempts };
    return { ok: true, value: p.value, text: value.text, call, validationAttempts: value.validationAttempts };
  }
}

/**
 * Build an `openai:<model>` chat model.
 * @param id `openai:<model name>` (the name may be overridden by `config.model`).
 * @param config endpoint settings ({@link EndpointConfigInput}); env defaults fill the rest.
 * @param options cache root, env, jitter source.
 * @throws Error for a malformed id, invalid config, or a missing key for api.openai.com.
 */
export function createOpenAIChatModel(id: string, config: EndpointConfigInput = {}, options: ModelFactoryOptions = {}): OpenAIChatModel {
  if (!id.startsWith(OPENAI_PREFIX) || id.length === OPENAI_PREFIX.length) throw new Error(`Invalid model id "${id}": expected "openai:<model name>"`);
  const cfg = resolveEndpointConfig(config, `config of model ${id}`, options.env ?? process.env);
  return new OpenAIChatModel(id, cfg, options);
}
