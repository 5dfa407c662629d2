/**
 * Contracts of the model layer: every chat, structured and embedding call in medsynth goes
 * through a {@link ChatModel} / {@link EmbeddingClient} built by the model registry.
 * Implementations live in models/ (call layer with cache, retries, rate limits).
 */
import type { z } from "zod";

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Sampling parameters sent to the endpoint; part of the cache key. */
export interface ChatParams {
  temperature?: number;
  /** Maximum output tokens. */
  maxTokens?: number;
  seed?: number;
  reasoningEffort?: "low" | "medium" | "high";
}

/** Identifies the prompt behind a call; `promptId@promptVersion` and `repeat` enter the cache key. */
export interface CallMeta {
  promptId: string;
  promptVersion: string;
  /** Repeat index (0-based) so repeated samples are cached separately. */
  repeat?: number;
}

/** Token counts reported by the endpoint (null when it did not report them). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Bookkeeping of one logical call (after retries). */
export interface CallInfo {
  modelId: string;
  cached: boolean;
  /** Wall-clock latency in milliseconds (0 for cache hits is not assumed: the stored latency is kept in `originalLatencyMs`). */
  latencyMs: number;
  originalLatencyMs?: number;
  usage: TokenUsage | null;
  /** HTTP attempts made (0 for a cache hit). */
  attempts: number;
  /**
   * `finish_reason` of the last answer the endpoint sent (`stop`, `length`, `tool_calls` …);
   * absent when no answer came back (HTTP failure) or the server sent none.
   */
  finishReason?: string;
  /** How a structured answer was requested (endpoint `structuredMethod`); absent for free-text calls. */
  structuredMethod?: string;
  /**
   * True when at least one answer behind this record came back without token usage (the server
   * sent none): `usage` is then missing or incomplete, and totals show these tokens as unknown,
   * never as 0.
   */
  usageUnknown?: boolean;
  /** Logical calls merged into this record (e.g. a judge's whole-call retries); absent = 1. */
  merged?: number;
  /** The request went through a Batch API (`run --batch`), billed at the batch rate. */
  batch?: true;
}

/** Result of a free-text chat call. Failures are data, never thrown at run time. */
export type ChatResult =
  | { ok: true; text: string; call: CallInfo /** The answer hit the output limit and was kept because the endpoint sets `onTruncated: keep-marked`. */; truncated?: true }
  | { ok: false; error: string; raw?: string; call: CallInfo; reason?: CallFailureReason };

/**
 * Why a call failed, for failure summaries: `truncated` (finish_reason "length": the answer hit
 * maxTokens), `empty` (no text), `http` (4xx/5xx after retries), `timeout`, `network`,
 * `malformed` (reply not usable JSON), `invalid` (structured answer failed validation),
 * `aborted`, `other`.
 */
export type CallFailureReason = "truncated" | "empty" | "http" | "timeout" | "network" | "malformed" | "invalid" | "aborted" | "other";

/** Result of a structured (zod-validated) call; `raw` keeps the last unparseable answer. */
export type StructuredResult<T> =
  | { ok: true; value: T; text: string; call: CallInfo; validationAttempts: number }
  | { ok: false; error: string; raw: string | null; call: CallInfo; validationAttempts: number; reason?: CallFailureReason };

/** Options of one call. */
export interface CallOptions {
  meta: CallMeta;
  params?: ChatParams;
  /**
   * The caller's abort signal: when it aborts, the call stops at once and is NOT retried (use it
   * for cancellation or an overall deadline, not as a per-request timeout).
   */
  signal?: AbortSignal;
  /**
   * Per-attempt timeout in ms for this call, overriding the endpoint's `timeoutMs`; an attempt
   * that runs past it is retried like a 5xx (up to the endpoint's `maxRetries`). Not in the cache key.
   */
  timeoutMs?: number;
}

/** An LLM behind an OpenAI-compatible endpoint (id `openai:<model>`), or a scripted/test model. */
export interface ChatModel {
  readonly id: string;
  readonly kind: "llm";
  chat(messages: ChatMessage[], opts: CallOptions): Promise<ChatResult>;
  structured<S extends z.ZodType>(messages: ChatMessage[], schema: S, opts: CallOptions & { schemaName: string }): Promise<StructuredResult<z.infer<S>>>;
}

/** A passage of evidence handed to a synthesizer. */
export interface EvidencePassage {
  id: string;
  title: string;
  text: string;
  /**
   * Retraction status of the source record (`CorpusDoc.retraction`): a retracted paper or a
   * retraction notice; absent otherwise. Prompts show it as a mark before the title.
   */
  retraction?: "retracted" | "notice";
}

/**
 * An offline extractive baseline (id `extractive:<method>`): builds an answer only from the
 * evidence it is given. Workflows that provide no evidence (P-ZS, P-CoT) must refuse it.
 */
export interface ExtractiveModel {
  readonly id: string;
  readonly kind: "extractive";
  synthesize(input: { question: string; evidence: EvidencePassage[]; targetWords?: number; targetSentences?: number }): { text: string; sentences: { docId: string; text: string }[] };
}

/** What the model registry returns for an id. */
export type GeneratorModel = ChatModel | ExtractiveModel;

/** Embedding client (OpenAI-compatible /v1/embeddings through the call layer). */
export interface EmbeddingClient {
  readonly id: string;
  embed(texts: string[], opts?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}
