/**
 * Contracts of the workflow layer: every workflow (P-ZS, P-CoT, Standard-/Golden-/Negated-RAG,
 * feasibility, conclusion modes A–D, RWE summary) is a {@link WorkflowDefinition} in its own file,
 * registered by id in graphs/registry.ts, and built into a compiled LangGraph graph.
 */
import type { z } from "zod";
import type { CallInfo, GeneratorModel } from "../models/types.ts";
import type { Retriever, Reranker } from "../retrieval/types.ts";
import type { ConclusionTask, CorpusDoc, RweStudy, SynthesisTask } from "../corpus/types.ts";

/** Which task type a workflow consumes. */
export type WorkflowTaskKind = "synthesis" | "conclusion" | "rwe";

/** Task passed to a workflow, by kind. */
export type WorkflowTask<K extends WorkflowTaskKind> = K extends "synthesis" ? SynthesisTask : K extends "conclusion" ? ConclusionTask : RweStudy;

/**
 * A document pool streamed from a corpus store (`lance:<uri>`): every id held in memory in the
 * store's canonical order (the order a loaded pool has; ≈ 40–60 B per id in the JS heap, ≈ 0.3 GiB
 * at 5.7 M documents), documents fetched by id only for what an operator picks.
 */
export interface PoolSource {
  /** Every document id, in the store's canonical order. */
  readonly ids: readonly string[];
  /** Documents by id; ids not present are absent from the map. */
  getDocs(ids: readonly string[]): Promise<Map<string, CorpusDoc>>;
  /** The pool's retracted documents in canonical order (one streamed pass over the store on first call, then cached). */
  retracted(): Promise<readonly CorpusDoc[]>;
}

/** What a workflow needs from outside; given as arguments, never globals. */
export interface WorkflowDeps {
  /** The generator: an LLM, or an extractive baseline (refused by workflows without evidence). */
  model: GeneratorModel;
  /** Retriever used by Standard-RAG (hybrid BM25 + dense by default). */
  retriever?: Retriever;
  /** Optional reranker applied after retrieval (Standard-RAG). */
  reranker?: Reranker;
  /** Folder with user prompt templates overriding the bundled ones (same file names). */
  promptDir?: string;
  /**
   * Looks up a corpus document by id, for retriever hits that come without `doc` (Standard-RAG).
   * Hits whose document cannot be found are dropped and counted in the intermediate state.
   */
  getDoc?: (id: string) => CorpusDoc | undefined;
  /** Documents to draw random distractors / retracted studies from (Perturbed-RAG), when loaded. */
  corpus?: readonly CorpusDoc[];
  /** The same pool streamed from a corpus store (ids in memory, documents by id), used when `corpus` is absent. */
  corpusSource?: PoolSource;
}

/** Outcome of one workflow run on one item. Failures and skips are data, not exceptions. */
export interface WorkflowRunResult {
  status: "ok" | "failed" | "skipped";
  /** Final text (conclusion/summary), null unless status is "ok". */
  output: string | null;
  /** Why it failed (error message, no secrets) or was skipped (e.g. "no golden abstracts"). */
  error?: string;
  /** Raw model text kept when a structured answer could not be parsed or was cut off. */
  raw?: string;
  /** Why the run failed, when the call layer knew (`truncated`, `http`, `timeout` …; models/types.ts CallFailureReason). */
  failureReason?: string;
  /** Intermediate state: plan, queries, retrieved PMIDs per query, drafts, self-scores, negated ids … */
  intermediate: Record<string, unknown>;
  /** Every model call made (tokens, latency, cached flag). */
  calls: CallInfo[];
  /** Wall-clock time of the whole run in milliseconds. */
  latencyMs: number;
}

/** A workflow ready to run on items. */
export interface RunnableWorkflow<K extends WorkflowTaskKind = WorkflowTaskKind> {
  readonly id: string;
  /**
   * What `output` holds: `text` (a conclusion or summary; the default — scored by reference
   * metrics and judges) or `score` (a number as text, e.g. the feasibility check's mean 0–5
   * sufficiency; reported as a metric, never judged as prose).
   */
  readonly outputKind?: "text" | "score";
  run(task: WorkflowTask<K>, opts: { repeat: number; signal?: AbortSignal }): Promise<WorkflowRunResult>;
}

/**
 * Model calls of one cell as a workflow, perturbation or metric declares them: `min` (loops end
 * at once, a step may be left out), `max` (every loop at its bound, every answer usable) and
 * `structured`, how many of the `max` calls ask for a structured answer — each of those may be
 * re-asked up to the endpoint's `structuredRetries` times, which the estimate adds for its worst
 * case. Cached answers are not subtracted (an upper bound).
 */
export interface CallBounds {
  min: number;
  max: number;
  structured: number;
  /**
   * Whole structured calls made again only when an answer is unusable (e.g. the LLM grounding
   * judge's second attempt); counted in the worst case only.
   */
  retryCalls?: number;
  /**
   * False when the cell gives no text to score or judge: the item is skipped (no golden
   * abstracts) or the output is a score (feasibility). Absent: a text output.
   */
  textOutput?: boolean;
}

/** No model call and no text output (an item the workflow skips). */
export const SKIPPED_CELL: CallBounds = Object.freeze({ min: 0, max: 0, structured: 0, textOutput: false });

/**
 * Requests of calls in the worst case: every structured answer re-asked `structuredRetries` times
 * and every retry call made (HTTP retries of failed requests are not counted).
 */
export function worstCaseRequests(c: CallBounds, structuredRetries: number): number {
  const retry = c.retryCalls ?? 0;
  return c.max + retry + (c.structured + retry) * structuredRetries;
}

/** What a cell's call count depends on besides the workflow's own config. */
export interface CallCountInput {
  /** The generator is an LLM (an extractive baseline makes no model call). */
  llm: boolean;
  /** Golden abstracts of the item (0: the evidence-based workflows skip it without a call). */
  passages: number;
  /** The cell's `reranker` parameter (Standard-RAG), null when none. */
  reranker: string | null;
}

/** `{min, max, structured}` sum of call bounds. */
export function addCalls(...parts: CallBounds[]): CallBounds {
  const sum = parts.reduce((a, b) => ({ min: a.min + b.min, max: a.max + b.max, structured: a.structured + b.structured, retryCalls: (a.retryCalls ?? 0) + (b.retryCalls ?? 0) }), {
    min: 0,
    max: 0,
    structured: 0,
    retryCalls: 0,
  });
  const { retryCalls, ...rest } = sum;
  return retryCalls ? sum : rest;
}

/** No model call. */
export const NO_CALLS: CallBounds = Object.freeze({ min: 0, max: 0, structured: 0 });

/** A workflow: id, zod config schema (`.strict()`, with defaults) and factory. */
export interface WorkflowDefinition<K extends WorkflowTaskKind = WorkflowTaskKind, S extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly taskKind: K;
  readonly description: string;
  readonly configSchema: S;
  /** @throws Error when deps lack what the workflow needs (e.g. an extractive model for P-ZS, no retriever for Standard-RAG). */
  create(deps: WorkflowDeps, config: z.input<S>): RunnableWorkflow<K>;
  /**
   * The model calls one cell makes (the run estimate's source; tests/experiments/call-estimate.test.ts
   * checks it against a server's request count for every workflow).
   * @param config the cell's parameters parsed by `configSchema` (defaults applied)
   */
  llmCalls(config: z.output<S>, input: CallCountInput): CallBounds;
}
