/**
 * Borda count: with c candidates (the union of all lists), a document at rank r of a list gets
 * c − r + 1 points from it; the c − n documents a list of n did not rank share its remaining
 * points equally, (c − n + 1)/2 each (the mean of c − n, …, 1). Fused score = Σ points. Equal
 * scores next to each other in a list share the place of the first of them (`DedupedList.place`).
 * @see Aslam J.A., Montague M. (2001) Models for metasearch, SIGIR (Borda-fuse); ranx `bordafuse`.
 */
import { z } from "zod";
import { combine, type FusionMethod } from "./core.ts";

/** Registry id. */
export const BORDA_ID = "borda";
/** Borda has no settings. */
export const BordaConfigSchema = z.object({}).strict();
/** Borda config (empty). */
export type BordaConfig = z.input<typeof BordaConfigSchema>;

/** Build Borda. @throws ZodError on an unknown key. */
export function createBorda(config: BordaConfig = {}): FusionMethod {
  BordaConfigSchema.parse(config);
  return {
    id: BORDA_ID,
    fuse(lists, names) {
      const union = new Set(lists.flatMap((l) => l.map((x) => String(x.id)))).size;
      return combine(
        lists,
        names,
        (list) => list.map((e) => union - e.place + 1),
        "sum",
        (_li, list, c) => (c - list.length + 1) / 2,
      );
    },
  };
}
