/**
 * Public API of the model layer: contracts, registry, call layer pieces, structured-output
 * helpers, prompt templates, usage totals.
 */
export type {
  CallInfo,
  CallMeta,
  CallOptions,
  ChatMessage,
  ChatModel,
  ChatParams,
  ChatResult,
  EmbeddingClient,
  EvidencePassage,
  ExtractiveModel,
  GeneratorModel,
  StructuredResult,
  TokenUsage,
} from "./types.ts";
export { createChatModel, createEmbeddingClient, createGeneratorModel, isChatModel, GENERATOR_MODEL_IDS, EMBEDDING_MODEL_IDS, type GeneratorConfigInput } from "./registry.ts";
export { EndpointConfigSchema, StructuredMethodSchema, resolveEndpointConfig, redactSecret, type EndpointConfig, type EndpointConfigInput, type StructuredMethod } from "./endpoint-config.ts";
export { OpenAIChatModel, createOpenAIChatModel, OPENAI_PREFIX, type ModelFactoryOptions } from "./openai-chat.ts";
export { OpenAIEmbeddingClient, createOpenAIEmbeddingClient, EmbeddingError, type EmbedInfo } from "./openai-embeddings.ts";
export {
  ExtractiveConfigSchema,
  createExtractiveModel,
  mmrSynthesize,
  leadSynthesize,
  splitSentences,
  passageSentences,
  EXTRACTIVE_IDS,
  EXTRACTIVE_PREFIX,
  type ExtractiveConfig,
  type EvidenceSentence,
} from "./extractive.ts";
export { CallCache, callCacheKey, endpointCacheId, stableStringify, sha256Of, type CacheKeyParts } from "./call-cache.ts";
export { withRetry, classifyError, parseRetryAfter, backoffDelay, AttemptTimeoutError, MalformedResponseError, type RetryPolicy, type ErrorClass } from "./retry.ts";
export { runAttempt, guardedFetch, checkResponse } from "./attempt.ts";
export { createRateLimiter, endpointLimiter, TokenBucket, type RateLimiter, type RateLimitConfig } from "./rate-limit.ts";
export { parseStructuredAnswer, extractJsonText, stripReasoning, toEndpointJsonSchema, schemaHash } from "./structured.ts";
export {
  PromptFrontMatterSchema,
  parsePromptTemplate,
  loadPromptTemplate,
  resolvePromptTemplate,
  renderPrompt,
  promptMeta,
  type PromptTemplate,
  type PromptVars,
  type PromptDirs,
} from "./prompt-template.ts";
export { summarizeUsage, type UsageSummary } from "./usage.ts";
export * from "./env-interpolation.ts";
export { endpointResources, type EndpointResources } from "./openai-chat.ts";
