/**
 * `negate` perturbation (MedMeta's Negated-RAG): the findings of a seeded share (`strength`) of
 * the passages are negated — by the documented rule negator (offline) or by the generator through
 * the call layer (`negator: "llm"`, cached). `level: "finding"` (default, as in the paper) negates
 * every finding sentence of a chosen abstract; `level: "sentence"` only its first finding sentence
 * the rules change (a minimal edit).
 */
import { z } from "zod";
import type { ChatModel } from "../../models/types.ts";
import { createLlmNegator } from "./llm-negator.ts";
import { negateAbstract, negateSentence } from "./rule-negator.ts";
import { chooseFraction } from "./select.ts";
import type { PerturbationChange, PerturbationOperator } from "./types.ts";

/** Operator id. */
export const NEGATE_OP = "negate";

/** Config of `negate`. */
export const NegateOpSchema = z
  .object({
    op: z.literal(NEGATE_OP),
    /** Share of passages negated, 0–1. */
    strength: z.number().min(0).max(1).default(1),
    negator: z.enum(["rule", "llm"]).default("rule"),
    level: z.enum(["finding", "sentence"]).default("finding"),
  })
  .strict();

/** Negate only the first sentence that the rules change (for `level: "sentence"`). */
function negateFirstFinding(text: string): { text: string; changed: { original: string; negated: string }[] } {
  const full = negateAbstract(text);
  const first = full.changed[0];
  if (!first) return { text, changed: [] };
  const once = negateSentence(first.original).text;
  return { text: text.replace(first.original, once), changed: [{ original: first.original, negated: once }] };
}

/**
 * Build the operator. @param model the generator, needed only by `negator: "llm"`.
 * @throws Error when `negator: "llm"` is asked for without an LLM.
 */
export function createNegateOp(config: z.input<typeof NegateOpSchema>, deps: { model?: ChatModel; promptDir?: string } = {}): PerturbationOperator {
  const cfg = NegateOpSchema.parse(config);
  if (cfg.negator === "llm" && !deps.model) throw new Error('perturbation negate: negator "llm" needs an LLM generator (use negator: "rule" offline)');
  const llm = cfg.negator === "llm" && deps.model ? createLlmNegator(deps.model, deps.promptDir) : null;
  return {
    id: NEGATE_OP,
    async apply(evidence, ctx) {
      const chosen = chooseFraction(
        evidence.map((e) => e.id),
        cfg.strength,
        ctx.seed,
        ctx.itemId,
      );
      const changes: PerturbationChange[] = [];
      const out = [];
      for (const p of evidence) {
        if (!chosen.has(p.id)) {
          out.push(p);
          continue;
        }
        let r: { text: string; changed: { original: string; negated: string }[] };
        if (llm) {
          if (!ctx.run) throw new Error("perturbation negate: the LLM negator needs a run context");
          r = await llm.negate(ctx.run, p);
        } else r = cfg.level === "sentence" ? negateFirstFinding(p.text) : negateAbstract(p.text);
        for (const c of r.changed) changes.push({ op: NEGATE_OP, docId: p.id, kind: cfg.level, before: c.original, after: c.negated });
        out.push({ ...p, text: r.text });
      }
      const applied = changes.length > 0;
      const reason = chosen.size === 0 ? `strength ${cfg.strength} selects no passage of ${evidence.length}` : !applied ? "no finding sentence the rules could negate" : undefined;
      return { evidence: out, step: { op: NEGATE_OP, applied, ...(reason ? { reason } : {}), changes, inserted: [] } };
    },
  };
}
