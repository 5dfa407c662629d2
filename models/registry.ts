/**
 * Model registry: maps ids to factories.
 * - `openai:<model>` → chat model on an OpenAI-compatible endpoint ({@link createOpenAIChatModel}).
 * - `extractive:mmr`, `extractive:lead` → offline extractive baselines ({@link createExtractiveModel}).
 * - embeddings: `openai:<model>` → {@link createOpenAIEmbeddingClient}.
 */
import type { z } from "zod";
import type { EndpointConfigInput } from "./endpoint-config.ts";
import { createExtractiveModel, EXTRACTIVE_IDS, EXTRACTIVE_PREFIX, type ExtractiveConfigSchema } from "./extractive.ts";
import { createOpenAIChatModel, OPENAI_PREFIX, type ModelFactoryOptions } from "./openai-chat.ts";
import { createOpenAIEmbeddingClient } from "./openai-embeddings.ts";
import type { ChatModel, EmbeddingClient, GeneratorModel } from "./types.ts";

/** Id patterns the generator registry accepts. */
export const GENERATOR_MODEL_IDS = ["openai:<model>", ...EXTRACTIVE_IDS] as const;
/** Id patterns the embedding registry accepts. */
export const EMBEDDING_MODEL_IDS = ["openai:<model>"] as const;

/** Config accepted by {@link createGeneratorModel}: endpoint settings for `openai:*`, extractive settings for `extractive:*`. */
export type GeneratorConfigInput = EndpointConfigInput | Partial<z.input<typeof ExtractiveConfigSchema>>;

/**
 * Build a generator (LLM or extractive baseline) by id.
 * @param id `openai:<model>` | `extractive:mmr` | `extractive:lead`.
 * @param config endpoint config (openai) or extractive config.
 * @param options cache root etc. (ignored by extractive models).
 * @throws Error listing valid ids for an unknown id; Error naming the field for invalid config.
 */
export function createGeneratorModel(id: string, config: GeneratorConfigInput = {}, options: ModelFactoryOptions = {}): GeneratorModel {
  if (id.startsWith(OPENAI_PREFIX)) return createOpenAIChatModel(id, config as EndpointConfigInput, options);
  if (id.startsWith(EXTRACTIVE_PREFIX)) return createExtractiveModel(id, config as Partial<z.input<typeof ExtractiveConfigSchema>>);
  throw new Error(`Unknown model id "${id}"; valid ids: ${GENERATOR_MODEL_IDS.join(", ")}`);
}

/**
 * Build an LLM chat model by id (for judges, planners, negators — anything that needs free text or structured output).
 * @throws Error for `extractive:*` ids (they cannot chat) and unknown ids (listing valid ones).
 */
export function createChatModel(id: string, config: EndpointConfigInput = {}, options: ModelFactoryOptions = {}): ChatModel {
  if (id.startsWith(EXTRACTIVE_PREFIX)) throw new Error(`"${id}" is an extractive baseline, not a chat model: it can only select sentences from given evidence; use an "openai:<model>" id here`);
  if (id.startsWith(OPENAI_PREFIX)) return createOpenAIChatModel(id, config, options);
  throw new Error(`Unknown chat model id "${id}"; valid ids: openai:<model>`);
}

/**
 * Build an embedding client by id.
 * @throws Error listing valid ids for an unknown id.
 */
export function createEmbeddingClient(id: string, config: EndpointConfigInput = {}, options: ModelFactoryOptions = {}): EmbeddingClient {
  if (id.startsWith(OPENAI_PREFIX)) return createOpenAIEmbeddingClient(id, config, options);
  throw new Error(`Unknown embedding model id "${id}"; valid ids: ${EMBEDDING_MODEL_IDS.join(", ")}`);
}

/** True for an LLM (has `chat`/`structured`). */
export function isChatModel(m: GeneratorModel): m is ChatModel {
  return m.kind === "llm";
}
