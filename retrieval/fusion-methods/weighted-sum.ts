/**
 * Weighted sum: fused score = Σ_i w_i · normalised score in list i (0 where absent). With min–max
 * normalisation and weights 1/n this is MedMeta's equal-weight BM25 + dense ensemble.
 * @see ranx `wsum`; MedMeta (seed 001) §Standard-RAG.
 */
import { z } from "zod";
import { checkWeights, combine, normalizeScores, NormalizationSchema, type FusionMethod } from "./core.ts";

/** Registry id. */
export const WEIGHTED_SUM_ID = "weighted-sum";
/** Config: per-list weights (default 1 each; one per list) and the normalisation (default min–max). */
export const WeightedSumConfigSchema = z.object({ weights: z.array(z.number().min(0)).optional(), normalization: NormalizationSchema.default("min-max") }).strict();
/** Weighted-sum config as a caller writes it. */
export type WeightedSumConfig = z.input<typeof WeightedSumConfigSchema>;

/** Build the weighted sum. @throws ZodError on a bad config; Error at fuse time when weights ≠ lists. */
export function createWeightedSum(config: WeightedSumConfig = {}): FusionMethod {
  const c = WeightedSumConfigSchema.parse(config);
  return {
    id: WEIGHTED_SUM_ID,
    fuse(lists, names) {
      const w = checkWeights(c.weights, lists.length, WEIGHTED_SUM_ID);
      return combine(lists, names, (list, li) => normalizeScores(list, c.normalization).map((v) => w[li] * v), "sum");
    },
  };
}
