/**
 * Cosine similarity between candidate and reference embeddings, with any embedder passed in
 * (structural type: retrieval's embedders fit it; all-mpnet-base-v2 in MedConclusion).
 *
 * @see MedConclusion (seed 000): semantic similarity as embedding cosine.
 */
import { z } from "zod";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const EMBEDDING_COSINE_METRIC_ID = "embedding-cosine";

/** Anything that turns texts into vectors (one Float32Array per text, same dimension). */
export interface TextEmbedder {
  /** Model/embedder id, reported in the metric output name's note. */
  id: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Config of the embedding-cosine metric. */
export const EmbeddingCosineConfigSchema = z
  .object({
    /** Texts per embed() call. */
    batchSize: z.number().int().min(1).default(32),
  })
  .strict();
/** Parsed config. */
export type EmbeddingCosineConfig = z.infer<typeof EmbeddingCosineConfigSchema>;

/**
 * Cosine of two vectors; null when either has zero norm (e.g. only unknown words).
 * @throws RangeError when dimensions differ.
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  if (a.length !== b.length) throw new RangeError(`cosineSimilarity: dimensions differ (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) return null;
  return dot / (Math.sqrt(na) * Math.sqrt(nb));
}

/**
 * Registry factory: reports `embedding_cosine`. An embedder failure makes every value of that
 * batch null with the error in `note`; a zero vector gives null with a note.
 * @param deps.embedder the embedder (required).
 * @throws Error when no embedder is given; ZodError on a bad config.
 */
export function createEmbeddingCosineMetric(config: Partial<EmbeddingCosineConfig> = {}, deps: { embedder?: TextEmbedder } = {}): Metric {
  const c = EmbeddingCosineConfigSchema.parse(config);
  const embedder = deps.embedder;
  if (!embedder) throw new Error(`metric "${EMBEDDING_COSINE_METRIC_ID}" needs an embedder (deps.embedder)`);
  return {
    id: EMBEDDING_COSINE_METRIC_ID,
    outputs: ["embedding_cosine"],
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      const out: MetricScores[] = [];
      for (let i = 0; i < pairs.length; i += c.batchSize) {
        const batch = pairs.slice(i, i + c.batchSize);
        try {
          const vecs = await embedder.embed(batch.flatMap((p) => [p.reference, p.candidate]));
          if (vecs.length !== batch.length * 2) throw new Error(`embedder ${embedder.id} returned ${vecs.length} vectors for ${batch.length * 2} texts`);
          batch.forEach((_, k) => {
            const v = cosineSimilarity(vecs[2 * k], vecs[2 * k + 1]);
            out.push({ embedding_cosine: v === null ? { value: null, note: `zero embedding vector (${embedder.id})` } : { value: v } });
          });
        } catch (e) {
          const note = `embedder ${embedder.id} failed: ${(e as Error).message}`;
          batch.forEach(() => out.push({ embedding_cosine: { value: null, note } }));
        }
      }
      return out;
    },
  };
}
