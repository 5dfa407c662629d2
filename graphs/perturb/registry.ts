/**
 * Registry of evidence perturbations: op id → config schema + factory, and the composition that
 * applies a list of them in order, recording every step and a hash of the final evidence.
 *
 * | op | what it does |
 * |---|---|
 * | `negate` | negate findings (rule or LLM; finding or sentence level) |
 * | `numeric` | flip ratio estimates and CIs across 1, move p-values across 0.05, reverse percentages |
 * | `conflict` | add a negated copy next to the original |
 * | `distract` | add near-topic (BM25) or random non-golden abstracts at a ratio |
 * | `retracted` | mark passages retracted, or insert retracted studies from the corpus |
 * | `swap` | replace the intervention, comparator or outcome with another study's (rule or LLM PICO extraction) |
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { ChatModel } from "../../models/types.ts";
import { ConflictOpSchema, createConflictOp } from "./conflict.ts";
import { createDistractOp, DistractOpSchema } from "./distract.ts";
import { createNegateOp, NegateOpSchema } from "./negate.ts";
import { createNumericOp, NumericOpSchema } from "./numeric.ts";
import { createRetractedOp, RetractedOpSchema } from "./retracted.ts";
import { createSwapOp, SwapOpSchema } from "./swap.ts";
import type { PerturbationContext, PerturbationOperator, PerturbationStep, PerturbedPassage } from "./types.ts";
import { addCalls, NO_CALLS, type CallBounds } from "../types.ts";

/** One perturbation in a config: `{op: <id>, strength, …op options}`. */
export const PerturbationSpecSchema = z.discriminatedUnion("op", [NegateOpSchema, NumericOpSchema, ConflictOpSchema, DistractOpSchema, RetractedOpSchema, SwapOpSchema]);
/** What a config may give for one perturbation. */
export type PerturbationSpec = z.input<typeof PerturbationSpecSchema>;

/** Registered operator ids. */
export const PERTURBATION_IDS = ["negate", "numeric", "conflict", "distract", "retracted", "swap"] as const;

/** Dependencies an operator may need. */
export interface PerturbationDeps {
  model?: ChatModel;
  promptDir?: string;
}

/**
 * Build one operator from its spec.
 * @throws ZodError naming the field on a bad spec (unknown op lists the valid ids).
 */
export function createPerturbation(spec: PerturbationSpec, deps: PerturbationDeps = {}): PerturbationOperator {
  const s = PerturbationSpecSchema.parse(spec);
  switch (s.op) {
    case "negate":
      return createNegateOp(s, deps);
    case "numeric":
      return createNumericOp(s);
    case "conflict":
      return createConflictOp(s);
    case "distract":
      return createDistractOp(s);
    case "retracted":
      return createRetractedOp(s);
    case "swap":
      return createSwapOp(s, deps);
  }
}

/**
 * The model calls one operator makes on `passages` passages, and how many passages it hands on
 * (the next operator's input). Only the LLM variants call: `negate` with `negator: "llm"` rewrites
 * round(strength · n) abstracts (one call each); `swap` with `extractor: "llm"` extracts the
 * element of each of its round(strength · n) passages and of up to `maxDonors` pool documents per
 * passage (structured calls; fewer when a donor fits early or the passage has no such element).
 * `conflict` adds round(strength · n) copies, `distract` and `retracted` (`mode: insert`)
 * round(strength · n) documents.
 * @param llm whether the workflow's generator is an LLM (the LLM variants refuse to run otherwise).
 */
export function perturbationCalls(spec: PerturbationSpec, passages: number, llm: boolean): { calls: CallBounds; passagesAfter: number } {
  const s = PerturbationSpecSchema.parse(spec);
  const share = (strength: number) => Math.round(Math.min(1, strength) * passages);
  switch (s.op) {
    case "negate": {
      const n = llm && s.negator === "llm" ? share(s.strength) : 0;
      return { calls: { min: n, max: n, structured: 0 }, passagesAfter: passages };
    }
    case "numeric":
      return { calls: NO_CALLS, passagesAfter: passages };
    case "conflict":
      return { calls: NO_CALLS, passagesAfter: passages + share(s.strength) };
    case "distract":
      return { calls: NO_CALLS, passagesAfter: passages + Math.round(s.strength * passages) };
    case "retracted":
      return { calls: NO_CALLS, passagesAfter: s.mode === "insert" ? passages + Math.round(s.strength * passages) : passages };
    case "swap": {
      if (!llm || s.extractor !== "llm") return { calls: NO_CALLS, passagesAfter: passages };
      const chosen = share(s.strength);
      const max = chosen * (1 + (s.maxDonors ?? 5));
      return { calls: { min: 0, max, structured: max }, passagesAfter: passages };
    }
  }
}

/** Calls of a list of operators applied in order to `passages` golden passages. */
export function perturbationListCalls(specs: readonly PerturbationSpec[], passages: number, llm: boolean): CallBounds {
  let n = passages;
  const parts: CallBounds[] = [];
  for (const spec of specs) {
    const r = perturbationCalls(spec, n, llm);
    parts.push(r.calls);
    n = r.passagesAfter;
  }
  return addCalls(...parts);
}

/** sha256 (first 16 hex) of the evidence a workflow finally sees (ids, titles, texts, flags). */
export function evidenceHash(evidence: readonly PerturbedPassage[]): string {
  const h = createHash("sha256");
  for (const p of evidence) h.update(JSON.stringify([p.id, p.title, p.text, p.retracted === true])).update("\n");
  return h.digest("hex").slice(0, 16);
}

/**
 * Apply operators in order (each sees the previous one's output).
 * @returns the final evidence, one step record per operator, and the evidence hash
 */
export async function applyPerturbations(
  ops: readonly PerturbationOperator[],
  evidence: readonly PerturbedPassage[],
  ctx: PerturbationContext,
): Promise<{ evidence: PerturbedPassage[]; steps: PerturbationStep[]; hash: string }> {
  let current = [...evidence];
  const steps: PerturbationStep[] = [];
  for (const op of ops) {
    const r = await op.apply(current, ctx);
    current = r.evidence;
    steps.push(r.step);
  }
  return { evidence: current, steps, hash: evidenceHash(current) };
}
