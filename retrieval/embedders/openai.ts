/**
 * Embedder on any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, TEI, vLLM, Ollama,
 * llama.cpp): either through an injected {@link EmbeddingClient} from the models/ call layer
 * (cache, retries, rate limits), or directly through `@langchain/openai`'s `OpenAIEmbeddings`
 * with `encodingFormat: "float"` (servers that ignore base64 otherwise yield garbage vectors,
 * STACK.md) and `maxRetries: 0`.
 *
 * Vectors are L2-normalised here (cosine search), whatever the server returns.
 */
import { OpenAIEmbeddings } from "@langchain/openai";
import { z } from "zod";
import { readApiKey, redactSecret, resolveEndpointConfig } from "../../models/endpoint-config.ts";
import type { EmbeddingClient } from "../../models/types.ts";
import type { Embedder } from "../types.ts";

/** Embedder id prefix: `openai:<model>` (+ `@<dims>` when `dimensions` is requested). */
export const OPENAI_EMBEDDER_PREFIX = "openai";

/** Config of the OpenAI-compatible embedder. */
export const OpenAIEmbedderConfigSchema = z
  .object({
    /** Model name sent to the endpoint, e.g. `text-embedding-3-small`, `BAAI/bge-m3`. */
    model: z.string().min(1),
    /** Base URL ending in `/v1` (default `$MEDSYNTH_OPENAI_BASE_URL` or api.openai.com). */
    baseURL: z.string().url().optional(),
    /** NAME of the env var holding the key (never the key itself). */
    apiKeyEnv: z.string().optional(),
    /** Requested output dimensions (models that support it). */
    dimensions: z.number().int().positive().optional(),
    /** Texts per request. */
    batchSize: z.number().int().min(1).max(2048).default(128),
    /** Per-request timeout, ms. */
    timeoutMs: z.number().int().positive().default(120_000),
  })
  .strict();
/** What a caller may pass for {@link OpenAIEmbedderConfigSchema} (keys with defaults are optional). */
export type OpenAIEmbedderConfig = z.input<typeof OpenAIEmbedderConfigSchema>;

function normalise(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v as ArrayLike<number>);
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i] * out[i];
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}

/**
 * Build the embedder; its `dims` come from `dimensions` or one probe request.
 * @param config {@link OpenAIEmbedderConfigSchema}.
 * @param opts `client`: use this models/ call-layer client instead of a direct LangChain client.
 * @throws on invalid config, a missing API key for api.openai.com, or a failed probe (message
 *   redacts the key); `embed` throws on an endpoint failure or a vector of unexpected length.
 */
export async function createOpenAIEmbedder(config: OpenAIEmbedderConfig, opts: { client?: EmbeddingClient } = {}): Promise<Embedder> {
  const cfg = OpenAIEmbedderConfigSchema.parse(config);
  const id = `${OPENAI_EMBEDDER_PREFIX}:${cfg.model}${cfg.dimensions ? `@${cfg.dimensions}` : ""}`;
  let raw: (texts: string[]) => Promise<ArrayLike<number>[]>;
  if (opts.client) {
    const client = opts.client;
    raw = (texts) => client.embed(texts);
  } else {
    const ep = resolveEndpointConfig({ baseURL: cfg.baseURL, apiKeyEnv: cfg.apiKeyEnv }, `embedder ${id}`);
    const key = readApiKey(ep);
    const lc = new OpenAIEmbeddings({
      model: cfg.model,
      apiKey: key,
      configuration: { baseURL: ep.baseURL },
      encodingFormat: "float",
      dimensions: cfg.dimensions,
      batchSize: cfg.batchSize,
      maxRetries: 0,
      timeout: cfg.timeoutMs,
      stripNewLines: false,
    });
    raw = async (texts) => {
      try {
        return await lc.embedDocuments(texts);
      } catch (err) {
        throw new Error(`embedder ${id} at ${ep.baseURL}: ${redactSecret(err instanceof Error ? err.message : String(err), key)}`);
      }
    };
  }
  let dims = cfg.dimensions ?? 0;
  if (!dims) {
    const [probe] = await raw(["probe"]);
    dims = probe?.length ?? 0;
    if (!dims) throw new Error(`embedder ${id}: the endpoint returned no vector for a probe text`);
  }
  const d = dims;
  return {
    id,
    dims: d,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const vecs = await raw(texts.map((t) => (t.trim() === "" ? " " : t)));
      if (vecs.length !== texts.length) throw new Error(`embedder ${id}: ${vecs.length} vectors for ${texts.length} texts`);
      return vecs.map((v, i) => {
        if (v.length !== d) throw new Error(`embedder ${id}: vector ${i} has ${v.length} dims, expected ${d}`);
        return normalise(v);
      });
    },
  };
}
