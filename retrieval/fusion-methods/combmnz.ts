/**
 * CombMNZ: CombSUM × the number of lists that retrieved the document (rewards agreement).
 * @see Fox E.A., Shaw J.A. (1994) Combination of multiple searches, TREC-2.
 */
import { z } from "zod";
import { combine, normalizeScores, NormalizationSchema, type FusionMethod } from "./core.ts";

/** Registry id. */
export const COMBMNZ_ID = "combmnz";
/** Config: the per-list normalisation (default min–max). */
export const CombMnzConfigSchema = z.object({ normalization: NormalizationSchema.default("min-max") }).strict();
/** CombMNZ config as a caller writes it. */
export type CombMnzConfig = z.input<typeof CombMnzConfigSchema>;

/** Build CombMNZ. @throws ZodError on a bad config. */
export function createCombMnz(config: CombMnzConfig = {}): FusionMethod {
  const c = CombMnzConfigSchema.parse(config);
  return { id: COMBMNZ_ID, fuse: (lists, names) => combine(lists, names, (list) => normalizeScores(list, c.normalization), "mnz") };
}
