/**
 * Reference metrics (pure functions + registry): ROUGE, BLEU, count ratios, embedding cosine,
 * BERTScore and perplexity.
 */
export * from "./types.ts";
export * from "./porter-nltk.ts";
export * from "./rouge.ts";
export * from "./bleu.ts";
export * from "./counts.ts";
export * from "./embedding-cosine.ts";
export * from "./bertscore.ts";
export * from "./perplexity.ts";
export * from "./registry.ts";
