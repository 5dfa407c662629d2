/**
 * `retracted` perturbation: a seeded share (`strength`) of the passages is marked retracted the
 * way PubMed shows it (title prefixed "RETRACTED: ", `retracted: true`) — `mode: "mark"` — or
 * retracted studies from the pool (documents whose record carries a retraction flag) are inserted
 * — `mode: "insert"`, round(strength · n) of them. A synthesis should not rest on them.
 */
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { chooseFraction, seededShuffle } from "./select.ts";
import type { PerturbationChange, PerturbationOperator, PerturbedPassage } from "./types.ts";

/** Operator id. */
export const RETRACTED_OP = "retracted";

/** Title prefix PubMed gives retracted publications. */
export const RETRACTED_PREFIX = "RETRACTED: ";

/** Config of `retracted`. */
export const RetractedOpSchema = z
  .object({
    op: z.literal(RETRACTED_OP),
    strength: z.number().min(0).max(10).default(0.5),
    mode: z.enum(["mark", "insert"]).default("mark"),
  })
  .strict();

/**
 * Whether a corpus document is flagged retracted: `retraction: "retracted"` (set by
 * `recordToCorpusDoc` from the PubMed record), a `retracted` flag, or PubMed's publication type.
 */
export function isRetractedDoc(doc: CorpusDoc): boolean {
  if (doc.retraction === "retracted") return true;
  const d = doc as CorpusDoc & { retracted?: unknown; publicationTypes?: unknown };
  if (d.retracted === true || (d as { retraction?: { retracted?: unknown } }).retraction?.retracted === true) return true;
  return Array.isArray(d.publicationTypes) && d.publicationTypes.some((t) => /retracted publication/i.test(String(t)));
}

/** Build the operator. @throws ZodError on a bad config. */
export function createRetractedOp(config: z.input<typeof RetractedOpSchema>): PerturbationOperator {
  const cfg = RetractedOpSchema.parse(config);
  return {
    id: RETRACTED_OP,
    async apply(evidence, ctx) {
      if (cfg.mode === "mark") {
        const chosen = chooseFraction(
          evidence.map((e) => e.id),
          Math.min(1, cfg.strength),
          ctx.seed,
          ctx.itemId,
          RETRACTED_OP,
        );
        const changes: PerturbationChange[] = [];
        const out = evidence.map((p): PerturbedPassage => {
          if (!chosen.has(p.id)) return p;
          const title = p.title.startsWith(RETRACTED_PREFIX) ? p.title : RETRACTED_PREFIX + p.title;
          changes.push({ op: RETRACTED_OP, docId: p.id, kind: "mark", before: p.title, after: title });
          return { ...p, title, retracted: true };
        });
        const reason = chosen.size === 0 ? `strength ${cfg.strength} selects no passage of ${evidence.length}` : undefined;
        return { evidence: out, step: { op: RETRACTED_OP, applied: changes.length > 0, ...(reason ? { reason } : {}), changes, inserted: [] } };
      }
      const want = Math.round(cfg.strength * evidence.length);
      const present = new Set(evidence.map((e) => e.id));
      const docs = ctx.pool?.length ? ctx.pool : ctx.poolSource && want > 0 ? await ctx.poolSource.retracted() : [];
      const pool = seededShuffle(
        docs.filter((d) => isRetractedDoc(d) && !present.has(d.id)),
        `${ctx.seed}:${RETRACTED_OP}:${ctx.itemId}`,
      );
      const added: PerturbedPassage[] = pool
        .slice(0, want)
        .map((d) => ({ id: d.id, title: d.title.startsWith(RETRACTED_PREFIX) ? d.title : RETRACTED_PREFIX + d.title, text: d.text, retracted: true, origin: "inserted" }));
      const reason =
        want === 0 ? `strength ${cfg.strength} × ${evidence.length} passages rounds to 0` : added.length < want ? `only ${added.length} of ${want} retracted studies in the pool` : undefined;
      return {
        evidence: [...evidence, ...added],
        step: {
          op: RETRACTED_OP,
          applied: added.length > 0,
          ...(reason ? { reason } : {}),
          changes: added.map((a) => ({ op: RETRACTED_OP, docId: a.id, kind: "insert", before: "", after: a.title })),
          inserted: added.map((a) => a.id),
        },
      };
    },
  };
}
