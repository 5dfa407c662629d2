/**
 * `openai:<model>` embeddings: an {@link EmbeddingClient} for OpenAI-compatible `/v1/embeddings`
 * through @langchain/openai's OpenAIEmbeddings (`encodingFormat: "float"`, client retries off),
 * inside the call layer: one cache entry per (endpoint base URL, model, dimensions, namespace, text),
 * batching of the uncached texts, per-endpoint limits, our retries with Retry-After, per-attempt
 * timeout (retried; an abort by the caller's signal is not), non-JSON replies reported as such.
 */
import { OpenAIEmbeddings } from "@langchain/openai";
import { guardedFetch, runAttempt } from "./attempt.ts";
import { type CallCache, callCacheKey, endpointCacheId, type CacheKeyParts } from "./call-cache.ts";
import { redactSecret, resolveEndpointConfig, type EndpointConfig, type EndpointConfigInput } from "./endpoint-config.ts";
import { endpointResources, OPENAI_PREFIX, type ModelFactoryOptions } from "./openai-chat.ts";
import type { RateLimiter } from "./rate-limit.ts";
import { withRetry, type RetryPolicy } from "./retry.ts";
import type { CallInfo, EmbeddingClient } from "./types.ts";

/** Error thrown by {@link OpenAIEmbeddingClient.embed} when the endpoint fails after retries (API key redacted). */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = "EmbeddingError";
  }
}

/** Bookkeeping of one `embed` call. */
export interface EmbedInfo extends Omit<CallInfo, "usage"> {
  /** Texts served from the cache. */
  cachedTexts: number;
  /** Requests (batches) sent. */
  requests: number;
  /** Input tokens of the fresh texts: null (OpenAIEmbeddings does not expose the endpoint's usage). */
  inputTokens: number | null;
}

/** Embedding client on an OpenAI-compatible endpoint; build with {@link createEmbeddingClient}. */
export class OpenAIEmbeddingClient implements EmbeddingClient {
  readonly modelName: string;
  readonly cache: CallCache;
  readonly limiter: RateLimiter;
  /** Info of the most recent `embed` call. */
  lastInfo: EmbedInfo | null = null;
  private readonly apiKey: string;
  private readonly client: OpenAIEmbeddings;
  private readonly retryPolicy: RetryPolicy;

  constructor(
    readonly id: string,
    readonly config: EndpointConfig,
    private readonly options: ModelFactoryOptions = {},
  ) {
    let retryPolicy: RetryPolicy;
    ({ modelName: this.modelName, apiKey: this.apiKey, cache: this.cache, limiter: this.limiter, retryPolicy } = endpointResources(id, config, options));
    this.retryPolicy = retryPolicy;
    this.client = new OpenAIEmbeddings({
      model: this.modelName,
      apiKey: this.apiKey,
      // guardedFetch aborts the request with our per-attempt timeout / the caller's signal (the
      // client takes no signal); the SDK's own timeout is only a backstop.
      configuration: { baseURL: config.baseURL, fetch: guardedFetch() },
      encodingFormat: "float",
      stripNewLines: false,
      batchSize: config.batchSize,
      maxRetries: 0,
      // our limiter bounds concurrency; an unbounded client queue keeps each request in its attempt's context
      maxConcurrency: Infinity,
      timeout: config.timeoutMs + 1000,
      ...(config.dimensions ? { dimensions: config.dimensions } : {}),
    });
  }

  private parts(text: string): CacheKeyParts {
    return {
      kind: "embedding",
      provider: "openai",
      endpoint: endpointCacheId(this.config.baseURL),
      model: this.modelName,
      params: { dimensions: this.config.dimensions },
      extra: { text, namespace: this.config.cacheNamespace || undefined },
    };
  }

  /**
   * Embed texts (order kept). Cached texts are read from disk; the rest go out in batches of
   * `batchSize`.
   * @returns one Float32Array per text.
   * @throws EmbeddingError after bounded retries (message names the endpoint, never the key);
   *   Error when aborted by `opts.signal`.
   */
  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    return (await this.embedDetailed(texts, opts)).vectors;
  }

  /** As {@link embed}, also returning cache/latency/attempt info. */
  async embedDetailed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<{ vectors: Float32Array[]; info: EmbedInfo }> {
    const t0 = Date.now();
    const out: (Float32Array | undefined)[] = new Array(texts.length);
    const keys = texts.map((t) => callCacheKey(this.parts(t)));
    const missing = new Map<string, number[]>();
    await Promise.all(
      texts.map(async (t, i) => {
        const hit = await this.cache.get<number[]>(keys[i]);
        if (hit) out[i] = Float32Array.from(hit);
        else missing.set(t, [...(missing.get(t) ?? []), i]);
      }),
    );
    const todo = [...missing.keys()];
    let attempts = 0;
    let requests = 0;
    const bs = this.config.batchSize;
    const batches: string[][] = [];
    for (let i = 0; i < todo.length; i += bs) batches.push(todo.slice(i, i + bs));
    await Promise.all(
      batches.map(async (batch) => {
        const r = await withRetry(() => this.limiter.run(() => runAttempt({ timeoutMs: this.config.timeoutMs, signal: opts.signal }, () => this.client.embedDocuments(batch))), this.retryPolicy, {
          signal: opts.signal,
          random: this.options.random,
        });
        attempts += r.attempts;
        requests++;
        if (!r.ok) {
          if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
          const msg = r.error instanceof Error ? r.error.message : String(r.error);
          throw new EmbeddingError(redactSecret(`${this.id} at ${this.config.baseURL}: ${r.gaveUp}: ${msg.split("\n\nTroubleshooting URL")[0]}`, this.apiKey), r.attempts);
        }
        if (r.value.length !== batch.length) throw new EmbeddingError(`${this.id}: endpoint returned ${r.value.length} vectors for ${batch.length} texts`, r.attempts);
        await Promise.all(
          batch.map(async (text, j) => {
            const vec = r.value[j];
            const idxs = missing.get(text)!;
            for (const i of idxs) out[i] = Float32Array.from(vec);
            await this.cache.put(keys[idxs[0]], vec, this.parts(text));
          }),
        );
      }),
    );
    const info: EmbedInfo = {
      modelId: this.id,
      cached: todo.length === 0,
      latencyMs: Date.now() - t0,
      attempts,
      cachedTexts: texts.length - [...missing.values()].reduce((a, b) => a + b.length, 0),
      requests,
      inputTokens: null,
    };
    this.lastInfo = info;
    return { vectors: out as Float32Array[], info };
  }
}

/**
 * Build an `openai:<model>` embedding client.
 * @param config endpoint settings (batchSize, dimensions, limits, retries…).
 * @throws Error for a malformed id, invalid config, or a missing key for api.openai.com.
 */
export function createOpenAIEmbeddingClient(id: string, config: EndpointConfigInput = {}, options: ModelFactoryOptions = {}): OpenAIEmbeddingClient {
  if (!id.startsWith(OPENAI_PREFIX) || id.length === OPENAI_PREFIX.length) throw new Error(`Invalid embedding model id "${id}": expected "openai:<model name>"`);
  return new OpenAIEmbeddingClient(id, resolveEndpointConfig(config, `config of embedding model ${id}`, options.env ?? process.env), options);
}
