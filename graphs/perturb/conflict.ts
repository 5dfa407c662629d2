/**
 * `conflict` perturbation: next to each of a seeded share (`strength`) of the passages, a copy
 * whose findings are negated by the rule negator (id `<id>~conflict`), so the evidence disagrees
 * with itself. Passages whose findings the rules cannot negate get no copy (recorded).
 * @see ClashEval / RECALL (knowledge conflicts in RAG); MedMeta Negated-RAG.
 */
import { z } from "zod";
import { negateAbstract } from "./rule-negator.ts";
import { chooseFraction } from "./select.ts";
import type { PerturbationChange, PerturbationOperator, PerturbedPassage } from "./types.ts";

/** Operator id. */
export const CONFLICT_OP = "conflict";

/** Config of `conflict`. */
export const ConflictOpSchema = z
  .object({
    op: z.literal(CONFLICT_OP),
    /** Share of passages that get a contradicting copy, 0–1. */
    strength: z.number().min(0).max(1).default(1),
  })
  .strict();

/** Build the operator. @throws ZodError on a bad config. */
export function createConflictOp(config: z.input<typeof ConflictOpSchema>): PerturbationOperator {
  const cfg = ConflictOpSchema.parse(config);
  return {
    id: CONFLICT_OP,
    async apply(evidence, ctx) {
      const chosen = chooseFraction(
        evidence.map((e) => e.id),
        cfg.strength,
        ctx.seed,
        ctx.itemId,
        CONFLICT_OP,
      );
      const out: PerturbedPassage[] = [];
      const changes: PerturbationChange[] = [];
      const inserted: string[] = [];
      const unchanged: string[] = [];
      for (const p of evidence) {
        out.push(p);
        if (!chosen.has(p.id)) continue;
        const r = negateAbstract(p.text);
        if (r.changed.length === 0) {
          unchanged.push(p.id);
          continue;
        }
        const id = `${p.id}~conflict`;
        out.push({ ...p, id, text: r.text, origin: p.id });
        inserted.push(id);
        for (const c of r.changed) changes.push({ op: CONFLICT_OP, docId: id, kind: "negated-copy", before: c.original, after: c.negated });
      }
      const applied = inserted.length > 0;
      const reason = chosen.size === 0 ? `strength ${cfg.strength} selects no passage of ${evidence.length}` : unchanged.length ? `no negatable finding in ${unchanged.join(", ")}` : undefined;
      return { evidence: out, step: { op: CONFLICT_OP, applied, ...(reason ? { reason } : {}), changes, inserted } };
    },
  };
}
