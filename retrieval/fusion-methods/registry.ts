/**
 * Registry of fusion methods (issue 18): id → factory of a {@link FusionMethod} from its config.
 * Ids: rrf, combsum, combmnz, combmax, weighted-sum, isr, borda. Each unit is one file with its
 * zod config schema; an unknown id throws with the list of valid ids.
 */
import { createBorda, BORDA_ID, type BordaConfig } from "./borda.ts";
import { createCombMax, COMBMAX_ID } from "./combmax.ts";
import { createCombMnz, COMBMNZ_ID } from "./combmnz.ts";
import { createCombSum, COMBSUM_ID } from "./combsum.ts";
import type { FusionMethod } from "./core.ts";
import { createIsr, ISR_ID, type IsrConfig } from "./isr.ts";
import { createRrf, RRF_ID } from "./rrf.ts";
import { createWeightedSum, WEIGHTED_SUM_ID } from "./weighted-sum.ts";

export { NORMALIZATIONS, normalizeScores, type FusionMethod, type Normalization } from "./core.ts";

/** Factories by id; each validates its own config (zod, strict). */
export const FUSION_FACTORIES: Readonly<Record<string, (config: Record<string, unknown>) => FusionMethod>> = Object.freeze({
  [RRF_ID]: (c) => createRrf(c),
  [COMBSUM_ID]: (c) => createCombSum(c),
  [COMBMNZ_ID]: (c) => createCombMnz(c),
  [COMBMAX_ID]: (c) => createCombMax(c),
  [WEIGHTED_SUM_ID]: (c) => createWeightedSum(c),
  [ISR_ID]: (c) => createIsr(c as IsrConfig),
  [BORDA_ID]: (c) => createBorda(c as BordaConfig),
});

/** Registered fusion method ids. */
export const FUSION_METHOD_IDS = Object.keys(FUSION_FACTORIES);

/**
 * Build a fusion method by id.
 * @throws Error naming the valid ids on an unknown id; ZodError on a bad config.
 */
export function createFusionMethod(id: string, config: Record<string, unknown> = {}): FusionMethod {
  const f = Object.prototype.hasOwnProperty.call(FUSION_FACTORIES, id) ? FUSION_FACTORIES[id] : undefined;
  if (!f) throw new Error(`unknown fusion method "${id}"; valid ids: ${FUSION_METHOD_IDS.join(", ")}`);
  return f(config);
}
