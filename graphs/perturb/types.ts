/**
 * Shared shapes of evidence perturbations (issue 15): an operator takes the evidence a workflow
 * would receive and returns the perturbed evidence plus an exact account of what it changed.
 * Operators are seeded (the same seed, item and config give the same result), composable (the
 * output of one is the input of the next) and never skip silently: an operator that cannot apply
 * says so with a reason.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import type { EvidencePassage } from "../../models/types.ts";
import type { RunContext } from "../nodes/run-context.ts";
import type { PoolSource } from "../types.ts";

export type { PoolSource };

/** A passage as perturbations see it: evidence plus flags a perturbation may set. */
export interface PerturbedPassage extends EvidencePassage {
  /** Marked as retracted (by the `retracted` operator or taken from the corpus record). */
  retracted?: boolean;
  /** Id of the passage this one was derived from (`conflict` copies), or "inserted" (`distract`). */
  origin?: string;
}

/** One exact change: a span of a passage before and after (empty `before` = inserted text). */
export interface PerturbationChange {
  op: string;
  docId: string;
  kind: string;
  before: string;
  after: string;
  /** `swap`: the term replaced, its replacement and the pool document it came from. */
  term?: { before: string; after: string; donor: string };
}

/** What one operator did on one evidence set. */
export interface PerturbationStep {
  op: string;
  applied: boolean;
  /** Why nothing (or less than asked) was changed, when that happened. */
  reason?: string;
  changes: PerturbationChange[];
  /** Ids of passages added (distractors, conflicting copies). */
  inserted: string[];
}

/** Inputs every operator may use besides the evidence. */
export interface PerturbationContext {
  itemId: string;
  question: string;
  /** Seed shared by the workflow's operators; each operator mixes in its own id. */
  seed: number;
  /** Ids of the golden passages (never used as distractors). */
  goldenIds: ReadonlySet<string>;
  /** Candidate documents for `distract`/`swap` (the retrieval corpus), when the workflow has one. */
  pool?: readonly CorpusDoc[];
  /**
   * The same pool read from a corpus store without loading it (used when `pool` is absent): ids in
   * memory, documents fetched by id. Operators draw from it exactly what they would draw from the
   * loaded pool (same ids in the same order, same seeded shuffles).
   */
  poolSource?: PoolSource;
  /** Near-topic search over `pool` (e.g. BM25), when available. */
  search?: (query: string, k: number) => Promise<{ id: string; doc?: CorpusDoc }[]>;
  /** Run context of the graph node (LLM-based operators call the model through it). */
  run?: RunContext;
}

/** A ready operator. */
export interface PerturbationOperator {
  readonly id: string;
  apply(evidence: readonly PerturbedPassage[], ctx: PerturbationContext): Promise<{ evidence: PerturbedPassage[]; step: PerturbationStep }>;
}
