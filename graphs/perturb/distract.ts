/**
 * `distract` perturbation: adds abstracts that are not evidence for the item — near-topic ones
 * (the best hits of a search for the question, e.g. BM25, minus the golden and present ones) or
 * random ones from the pool — `round(strength · n)` of them for n passages (strength is a ratio:
 * 1 = as many distractors as passages). Seeded; inserted after the evidence.
 * @see RGB (Chen et al. 2024) noise robustness; RAGAS/promptfoo "noise sensitivity".
 */
import { z } from "zod";
import { seededShuffle } from "./select.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { PerturbationOperator, PerturbedPassage } from "./types.ts";

/** Operator id. */
export const DISTRACT_OP = "distract";

/** Config of `distract`. */
export const DistractOpSchema = z
  .object({
    op: z.literal(DISTRACT_OP),
    /** Distractors per passage (a ratio ≥ 0; 0.5 = one distractor per two passages). */
    strength: z.number().min(0).max(10).default(1),
    source: z.enum(["near", "random"]).default("near"),
  })
  .strict();

/** Build the operator. @throws ZodError on a bad config. */
export function createDistractOp(config: z.input<typeof DistractOpSchema>): PerturbationOperator {
  const cfg = DistractOpSchema.parse(config);
  return {
    id: DISTRACT_OP,
    async apply(evidence, ctx) {
      const want = Math.round(cfg.strength * evidence.length);
      const none = (reason: string) => ({ evidence: [...evidence], step: { op: DISTRACT_OP, applied: false, reason, changes: [], inserted: [] } });
      if (want === 0) return none(`strength ${cfg.strength} × ${evidence.length} passages rounds to 0 distractors`);
      const present = new Set(evidence.map((e) => e.id));
      const eligible = (id: string) => !present.has(id) && !ctx.goldenIds.has(id);
      let ids: string[];
      const found = new Map<string, CorpusDoc>((ctx.pool ?? []).map((d) => [d.id, d]));
      if (cfg.source === "near") {
        if (!ctx.search) return none('source "near" needs a search over a corpus (the workflow has no retriever)');
        const hits = await ctx.search(ctx.question, want + evidence.length + ctx.goldenIds.size + 10);
        for (const h of hits) if (h.doc) found.set(h.id, h.doc);
        ids = hits
          .map((h) => h.id)
          .filter(eligible)
          .slice(0, want);
      } else {
        // A loaded pool, else the store's ids (same order, so the same seeded draw); documents fetched for the picks only.
        const poolIds = ctx.pool?.length ? ctx.pool.map((d) => d.id) : (ctx.poolSource?.ids ?? []);
        if (poolIds.length === 0) return none("no document pool to draw random distractors from (the workflow has no retrieval corpus)");
        const candidates = seededShuffle(poolIds.filter(eligible), `${ctx.seed}:${DISTRACT_OP}:${ctx.itemId}`);
        ids = candidates.slice(0, want);
        if (!ctx.pool?.length && ctx.poolSource) for (const [id, d] of await ctx.poolSource.getDocs(ids)) found.set(id, d);
      }
      const added: PerturbedPassage[] = ids
        .map((id) => found.get(id))
        .filter((d): d is CorpusDoc => d !== undefined)
        .map((d) => ({ id: d.id, title: d.title, text: d.text, origin: "inserted" }));
      if (added.length === 0) return none(`no eligible ${cfg.source} distractor found`);
      const reason = added.length < want ? `only ${added.length} of ${want} distractors available` : undefined;
      return {
        evidence: [...evidence, ...added],
        step: {
          op: DISTRACT_OP,
          applied: true,
          ...(reason ? { reason } : {}),
          changes: added.map((a) => ({ op: DISTRACT_OP, docId: a.id, kind: cfg.source, before: "", after: a.title })),
          inserted: added.map((a) => a.id),
        },
      };
    },
  };
}
