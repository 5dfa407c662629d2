/**
 * CombSUM: fused score = Σ over lists of the document's normalised score (0 where absent).
 * @see Fox E.A., Shaw J.A. (1994) Combination of multiple searches, TREC-2.
 */
import { z } from "zod";
import { combine, normalizeScores, NormalizationSchema, type FusionMethod } from "./core.ts";

/** Registry id. */
export const COMBSUM_ID = "combsum";
/** Config: the per-list normalisation (default min–max). */
export const CombSumConfigSchema = z.object({ normalization: NormalizationSchema.default("min-max") }).strict();
/** CombSUM config as a caller writes it. */
export type CombSumConfig = z.input<typeof CombSumConfigSchema>;

/** Build CombSUM. @throws ZodError on a bad config. */
export function createCombSum(config: CombSumConfig = {}): FusionMethod {
  const c = CombSumConfigSchema.parse(config);
  return { id: COMBSUM_ID, fuse: (lists, names) => combine(lists, names, (list) => normalizeScores(list, c.normalization), "sum") };
}
