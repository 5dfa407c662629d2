/**
 * Inverse square rank (ISR): fused score = (number of lists containing d) · Σ_i 1/rank_i(d)²
 * (equal scores next to each other in a list share a rank, `DedupedList.rank`).
 * @see Mourão, Martins & Magalhães (2014) Multimodal medical information retrieval with
 *   unsupervised rank fusion, Computerized Medical Imaging and Graphics; ranx `isr`.
 */
import { z } from "zod";
import { combine, type FusionMethod } from "./core.ts";

/** Registry id. */
export const ISR_ID = "isr";
/** ISR has no settings. */
export const IsrConfigSchema = z.object({}).strict();
/** ISR config (empty). */
export type IsrConfig = z.input<typeof IsrConfigSchema>;

/** Build ISR. @throws ZodError on an unknown key. */
export function createIsr(config: IsrConfig = {}): FusionMethod {
  IsrConfigSchema.parse(config);
  return { id: ISR_ID, fuse: (lists, names) => combine(lists, names, (list) => list.map((e) => 1 / (e.rank * e.rank)), "mnz") };
}
