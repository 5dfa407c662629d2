/**
 * Reranker registry: maps a reranker id to its factory.
 *
 * | id | reranker |
 * |---|---|
 * | `none` | keep the retriever's order (cut to topN) |
 * | `cross-encoder` (= `cross-encoder:Xenova/ms-marco-MiniLM-L-6-v2`), `cross-encoder:<model id>` | transformers.js cross-encoder, local model folder |
 * | `llm-pointwise` | 0–10 relevance per doc from `opts.chatModel` |
 */
import type { ChatModel } from "../../models/types.ts";
import type { Reranker } from "../types.ts";
import { createCrossEncoderReranker, CROSS_ENCODER_PREFIX } from "./cross-encoder.ts";
import { createLlmPointwiseReranker, LLM_POINTWISE_PREFIX, type LlmPointwiseConfig } from "./llm-pointwise.ts";
import { createNoneReranker, NONE_RERANKER_ID } from "./none.ts";

/** Options passed to reranker factories (each uses what it needs). */
export interface RerankerOptions {
  /** Chat model for `llm-pointwise` (required there). */
  chatModel?: ChatModel;
  /** Settings of the LLM pointwise reranker (prompt file, concurrency, …). */
  llm?: LlmPointwiseConfig;
  /** transformers.js: local model folder, downloads allowed, quantized weights, batch size. */
  modelDir?: string;
  allowRemote?: boolean;
  quantized?: boolean;
  batchSize?: number;
}

/** Valid reranker ids / id patterns. */
export const RERANKER_IDS: readonly string[] = [NONE_RERANKER_ID, CROSS_ENCODER_PREFIX, `${CROSS_ENCODER_PREFIX}:<model id>`, LLM_POINTWISE_PREFIX];

/**
 * Build a reranker by id.
 * @param id one of {@link RERANKER_IDS}.
 * @throws Error listing the valid ids on an unknown id; `llm-pointwise` without `opts.chatModel`;
 *   a cross-encoder model missing from the local model folder (message names the path).
 */
export async function createReranker(id: string, opts: RerankerOptions = {}): Promise<Reranker> {
  if (id === NONE_RERANKER_ID) return createNoneReranker();
  if (id === CROSS_ENCODER_PREFIX || id.startsWith(`${CROSS_ENCODER_PREFIX}:`)) {
    const model = id.slice(CROSS_ENCODER_PREFIX.length + 1) || undefined;
    return createCrossEncoderReranker({ model, modelDir: opts.modelDir, allowRemote: opts.allowRemote, quantized: opts.quantized, batchSize: opts.batchSize });
  }
  if (id === LLM_POINTWISE_PREFIX) {
    if (!opts.chatModel) throw new Error(`reranker ${LLM_POINTWISE_PREFIX} needs a chat model (opts.chatModel, e.g. from the models/ registry)`);
    return createLlmPointwiseReranker(opts.chatModel, opts.llm);
  }
  throw new Error(`unknown reranker id ${JSON.stringify(id)}; valid ids: ${RERANKER_IDS.join(", ")}`);
}
