/**
 * Settings of one OpenAI-compatible endpoint (chat or embeddings), checked once at the edge.
 *
 * Defaults come from the environment when a key is not given explicitly:
 * | key | env var | fallback |
 * |---|---|---|
 * | baseURL | `MEDSYNTH_OPENAI_BASE_URL` | `https://api.openai.com/v1` |
 * | apiKeyEnv | `MEDSYNTH_OPENAI_API_KEY_ENV` | `OPENAI_API_KEY` |
 * | timeoutMs | `MEDSYNTH_OPENAI_TIMEOUT_MS` | 120000 |
 * | maxRetries | `MEDSYNTH_OPENAI_MAX_RETRIES` | 4 |
 * | concurrency | `MEDSYNTH_OPENAI_CONCURRENCY` | 4 |
 * | requestsPerMinute | `MEDSYNTH_OPENAI_RPM` | 0 (no limit) |
 * | structuredMethod | `MEDSYNTH_OPENAI_STRUCTURED_METHOD` | `jsonSchema` |
 *
 * The API key itself is never part of the config: only the NAME of the env var holding it.
 */
import { z } from "zod";

/** OpenAI's own API: the default base URL, and the one endpoint where a missing API key is an error. */
export const OPENAI_API_BASE_URL = "https://api.openai.com/v1";

/** How structured answers are requested from an endpoint (servers differ in what they support). */
export const StructuredMethodSchema = z.enum(["jsonSchema", "functionCalling", "jsonMode", "promptOnly"]);
/** `jsonSchema`: response_format json_schema; `functionCalling`: forced tool call; `jsonMode`: response_format json_object + schema in the prompt; `promptOnly`: schema in the prompt only. */
export type StructuredMethod = z.infer<typeof StructuredMethodSchema>;

/** zod schema of {@link EndpointConfig}; `.strict()`: unknown keys are errors. */
export const EndpointConfigSchema = z
  .object({
    /** Base URL ending in `/v1` (OpenAI, vLLM, llama.cpp, Ollama, …). */
    baseURL: z.string().url(),
    /** NAME of the env var that holds the API key (never the key). */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name, not a key"),
    /** Model name sent to the endpoint; default: the part of the id after `openai:`. */
    model: z.string().min(1).optional(),
    /** Sampling temperature; unset = the endpoint's default. */
    temperature: z.number().min(0).max(2).optional(),
    /** Maximum output tokens. */
    maxTokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
    /** Per-attempt timeout in milliseconds. */
    timeoutMs: z.number().int().positive(),
    /** Sent as `reasoning_effort` when set (any endpoint). */
    reasoningEffort: z.enum(["low", "medium", "high"]).optional(),
    structuredMethod: StructuredMethodSchema,
    /** Re-asks after an answer that fails schema validation (total answers = structuredRetries + 1). */
    structuredRetries: z.number().int().min(0).max(10).default(2),
    /** HTTP retries on 429/5xx/timeouts/network errors (total attempts = maxRetries + 1). */
    maxRetries: z.number().int().min(0).max(20),
    /** First backoff delay in ms (doubles per retry, with jitter). */
    retryBaseMs: z.number().int().min(0).default(500),
    /** Cap of one backoff delay in ms (a longer Retry-After is still honoured up to maxRetryAfterMs). */
    retryMaxMs: z.number().int().min(0).default(30_000),
    /** A Retry-After longer than this ends the retries (failure) instead of sleeping. */
    maxRetryAfterMs: z.number().int().min(0).default(120_000),
    /** Requests in flight at once per endpoint. */
    concurrency: z.number().int().min(1),
    /** Request starts per minute per endpoint (token bucket); 0 = unlimited. */
    requestsPerMinute: z.number().min(0),
    /** Embeddings only: texts per request. */
    batchSize: z.number().int().min(1).max(2048).default(128),
    /** Embeddings only: requested output dimensions (models that support it). */
    dimensions: z.number().int().positive().optional(),
    /** Use the disk call cache (reads and writes). */
    cache: z.boolean().default(true),
    /**
     * Extra string mixed into cache keys. The endpoint's base URL (normalised, without credentials)
     * is already part of every key, so two servers serving the same model name never share
     * answers; use this to separate runs against one server (e.g. after swapping the weights
     * behind a model name).
     */
    cacheNamespace: z.string().default(""),
    /**
     * What a chat answer cut off at the output limit (`finish_reason: "length"`) becomes:
     * `fail` (default): a failure with reason `truncated` and the partial text kept as `raw`;
     * `keep-marked`: an output marked `truncated: true` on the call result and on the run record,
     * shown as truncated in the report and viewer. Either way it is never cached, so the next run
     * asks again. Structured answers cut off mid-JSON always fail (there is nothing to keep).
     */
    onTruncated: z.enum(["fail", "keep-marked"]).default("fail"),
    /**
     * `medsynth run` sends this endpoint's chat calls through its Batch API (Files + Batches) in
     * waves, as `run --batch` does for every endpoint (see models/batch-collector.ts). Other
     * commands call it online.
     */
    batch: z.boolean().default(false),
  })
  .strict();

/** Parsed endpoint settings. */
export type EndpointConfig = z.infer<typeof EndpointConfigSchema>;
/** What a caller may pass (every key optional; env and schema defaults fill the rest). */
export type EndpointConfigInput = Partial<z.input<typeof EndpointConfigSchema>>;

function envInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`Environment variable ${name}="${v}" is not a number`);
  return n;
}

/**
 * Fill an endpoint config from explicit values, then env defaults, then schema defaults, and
 * validate it.
 * @param input explicit settings (win over env).
 * @param source label used in error messages (e.g. the experiment file).
 * @param env environment to read defaults from (default `process.env`).
 * @returns the parsed {@link EndpointConfig}.
 * @throws Error naming `source` and each invalid field.
 */
export function resolveEndpointConfig(input: EndpointConfigInput = {}, source = "endpoint config", env: NodeJS.ProcessEnv = process.env): EndpointConfig {
  const defaults: Record<string, unknown> = {
    baseURL: env.MEDSYNTH_OPENAI_BASE_URL || OPENAI_API_BASE_URL,
    apiKeyEnv: env.MEDSYNTH_OPENAI_API_KEY_ENV || "OPENAI_API_KEY",
    timeoutMs: envInt(env, "MEDSYNTH_OPENAI_TIMEOUT_MS") ?? 120_000,
    maxRetries: envInt(env, "MEDSYNTH_OPENAI_MAX_RETRIES") ?? 4,
    concurrency: envInt(env, "MEDSYNTH_OPENAI_CONCURRENCY") ?? 4,
    requestsPerMinute: envInt(env, "MEDSYNTH_OPENAI_RPM") ?? 0,
    structuredMethod: env.MEDSYNTH_OPENAI_STRUCTURED_METHOD || "jsonSchema",
  };
  const merged: Record<string, unknown> = { ...defaults };
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) merged[k] = v;
  const r = EndpointConfigSchema.safeParse(merged);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  - ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`Invalid ${source}:\n${lines.join("\n")}`);
  }
  return r.data;
}

/**
 * Read the API key named by `cfg.apiKeyEnv`.
 * @returns the key; for endpoints other than api.openai.com a missing key yields the placeholder
 *   `"no-key"` (local servers need none).
 * @throws Error naming the env var when the official OpenAI endpoint is used without a key.
 */
export function readApiKey(cfg: Pick<EndpointConfig, "apiKeyEnv" | "baseURL">, env: NodeJS.ProcessEnv = process.env): string {
  const key = env[cfg.apiKeyEnv];
  if (key && key.trim()) return key.trim();
  if (/(^|\.)openai\.com$/i.test(new URL(cfg.baseURL).hostname)) {
    throw new Error(`No API key: environment variable ${cfg.apiKeyEnv} is not set (needed for ${cfg.baseURL}); set it or change apiKeyEnv`);
  }
  return "no-key";
}

/**
 * Remove every occurrence of `secret` from `text` (used on all error texts that leave the call layer).
 * @returns `text` with the secret replaced by `[REDACTED]`; unchanged when the secret is short (< 6 chars, e.g. placeholders).
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 6 || secret === "no-key") return text;
  return text.split(secret).join("[REDACTED]");
}
