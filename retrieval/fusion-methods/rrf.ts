/**
 * Reciprocal rank fusion as a registry unit: fused score = Σ_i w_i / (k + rank_i(d)).
 * Same definition, conventions and tie rule as `rrfFuse` in `retrieval/fusion.ts`.
 * @see Cormack, Clarke & Büttcher (2009) Reciprocal rank fusion outperforms Condorcet and individual rank learning methods.
 */
import { z } from "zod";
import { RRF_K } from "../fusion.ts";
import { checkWeights, combine, type FusionMethod } from "./core.ts";

/** Registry id. */
export const RRF_ID = "rrf";
/** Config: the constant k (default 60) and optional per-list weights (default 1 each). */
export const RrfConfigSchema = z.object({ k: z.number().min(0).default(RRF_K), weights: z.array(z.number().min(0)).optional() }).strict();
/** RRF config as a caller writes it. */
export type RrfConfig = z.input<typeof RrfConfigSchema>;

/** Build RRF. @throws ZodError on a bad config. */
export function createRrf(config: RrfConfig = {}): FusionMethod {
  const c = RrfConfigSchema.parse(config);
  return {
    id: RRF_ID,
    fuse(lists, names) {
      const w = checkWeights(c.weights, lists.length, RRF_ID);
      return combine(lists, names, (list, li) => list.map((e) => w[li] / (c.k + e.rank)), "sum");
    },
  };
}
