/**
 * Cross-encoder reranker on `@xenova/transformers` (in-process ONNX): the query and each doc
 * (title + text) are encoded together as a text pair by a sequence-classification model
 * (`Xenova/ms-marco-MiniLM-L-6-v2` = cross-encoder/ms-marco-MiniLM-L-6-v2, `Xenova/bge-reranker-base`
 * — the ONNX export of BAAI/bge-reranker-base; MedMeta used BGE-m3's reranker — …) whose relevance logit is the score. Offline by default: the model must be in the local model
 * folder (see retrieval/embedders/transformers.ts); a missing model fails fast naming the path.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { effectiveMaxLength, encodePair, padBatch } from "../../models/transformers-encode.ts";
import { configureTransformersEnv, defaultModelDir, localModelPath } from "../embedders/transformers.ts";
import type { Reranker, SearchHit } from "../types.ts";

/** Reranker id prefix: `cross-encoder:<model id>`. */
export const CROSS_ENCODER_PREFIX = "cross-encoder";

/** Well-known cross-encoder model ids (ONNX exports). */
export const KNOWN_CROSS_ENCODERS = ["Xenova/ms-marco-MiniLM-L-6-v2", "Xenova/bge-reranker-base", "Xenova/bge-reranker-large"] as const;

/** Config of the cross-encoder reranker. */
export const CrossEncoderConfigSchema = z
  .object({
    model: z.string().min(1).default("Xenova/ms-marco-MiniLM-L-6-v2"),
    /** Pairs per forward pass. */
    batchSize: z.number().int().positive().default(16),
    /** Use 8-bit quantized weights. */
    quantized: z.boolean().default(true),
    /** Max tokens of a (query, doc) pair, special tokens included; longer pairs are truncated (counted). */
    maxLength: z.number().int().positive().default(512),
    modelDir: z.string().optional(),
    allowRemote: z.boolean().default(false),
  })
  .strict();
/** What a caller may pass for {@link CrossEncoderConfigSchema} (keys with defaults are optional). */
export type CrossEncoderConfig = z.input<typeof CrossEncoderConfigSchema>;

/** True when `model` is present in the local model folder (tests skip otherwise). */
export function isCrossEncoderCached(model: string = "Xenova/ms-marco-MiniLM-L-6-v2", modelDir: string = defaultModelDir()): boolean {
  return existsSync(join(localModelPath(model, modelDir), "config.json"));
}

/**
 * Build the cross-encoder reranker (loads tokenizer and model).
 * `rerank` scores every doc, sorts by score (ties: input order) and keeps `topN`;
 * `scores.cross_encoder` holds the logit (one-logit heads) or the last-minus-first logit (two-label
 * heads). Each (query, doc) pair is encoded as `[CLS] query [SEP] doc [SEP]` with segment ids and
 * HF's `longest_first` truncation to `maxLength` (models/transformers-encode.ts); `stats.truncated`
 * counts the pairs cut. Empty/blank query or topN ≤ 0 → [].
 * @throws Error naming the folder looked in when the model is missing offline.
 */
export async function createCrossEncoderReranker(config: CrossEncoderConfig = {}): Promise<Reranker & { readonly stats: { truncated: number } }> {
  const cfg = CrossEncoderConfigSchema.parse(config);
  const modelDir = cfg.modelDir ?? defaultModelDir();
  const local = localModelPath(cfg.model, modelDir);
  if (!cfg.allowRemote && !existsSync(join(local, "config.json"))) {
    throw new Error(`cross-encoder reranker: model ${cfg.model} not found locally (looked in ${local}); put the ONNX export there or set allowRemote: true while online`);
  }
  const tf = await configureTransformersEnv(modelDir, cfg.allowRemote);
  let tokenizer: any;
  let model: any;
  try {
    tokenizer = await tf.AutoTokenizer.from_pretrained(cfg.model);
    model = await tf.AutoModelForSequenceClassification.from_pretrained(cfg.model, { quantized: cfg.quantized });
  } catch (err) {
    throw new Error(`cross-encoder reranker: could not load ${cfg.model} (looked in ${local}): ${err instanceof Error ? err.message : String(err)}`);
  }
  const stats = { truncated: 0 };
  const maxLength = effectiveMaxLength(tokenizer, model, cfg.maxLength);
  return {
    id: `${CROSS_ENCODER_PREFIX}:${cfg.model}`,
    stats,
    async rerank(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(opts.topN > 0) || docs.length === 0) return [];
      const scores: number[] = [];
      for (let s = 0; s < docs.length; s += cfg.batchSize) {
        const rows = docs.slice(s, s + cfg.batchSize).map((d) => encodePair(tokenizer, query, d.title ? `${d.title}. ${d.text}` : d.text, maxLength));
        const batch = padBatch(tf, tokenizer, rows);
        stats.truncated += batch.truncated;
        const { logits } = await model(batch.inputs);
        const [n, labels] = logits.dims as number[];
        const data = logits.data as Float32Array;
        for (let i = 0; i < n; i++) scores.push(labels === 1 ? data[i] : data[i * labels + labels - 1] - data[i * labels]);
      }
      const order = docs.map((d, i) => ({ d, i, s: scores[i] })).sort((a, b) => b.s - a.s || a.i - b.i);
      return order.slice(0, Math.floor(opts.topN)).map((o, r) => ({ id: o.d.id, score: o.s, rank: r + 1, doc: o.d, scores: { cross_encoder: o.s } }));
    },
  };
}
