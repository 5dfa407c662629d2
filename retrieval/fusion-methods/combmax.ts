/**
 * CombMAX: fused score = the largest of the document's normalised scores over the lists.
 * @see Fox E.A., Shaw J.A. (1994) Combination of multiple searches, TREC-2.
 */
import { z } from "zod";
import { combine, normalizeScores, NormalizationSchema, type FusionMethod } from "./core.ts";

/** Registry id. */
export const COMBMAX_ID = "combmax";
/** Config: the per-list normalisation (default min–max). */
export const CombMaxConfigSchema = z.object({ normalization: NormalizationSchema.default("min-max") }).strict();
/** CombMAX config as a caller writes it. */
export type CombMaxConfig = z.input<typeof CombMaxConfigSchema>;

/** Build CombMAX. @throws ZodError on a bad config. */
export function createCombMax(config: CombMaxConfig = {}): FusionMethod {
  const c = CombMaxConfigSchema.parse(config);
  return { id: COMBMAX_ID, fuse: (lists, names) => combine(lists, names, (list) => normalizeScores(list, c.normalization), "max") };
}
