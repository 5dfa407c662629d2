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
}

/** Outcome of one workflow run on one item. Failures and skips are data, not exceptions. */
export interface WorkflowRunResult {
  status: "ok" | "failed" | "skipped";
  /** Final text (conclusion/summary), null unless status is "ok". */
  output: string | null;
  /** Why it failed (error message, no secrets) or was skipped (e.g. "no golden abstracts"). */
  error?: string;
  /** Raw model text kept when a structured answer could not be parsed. */
  raw?: string;
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

/** A workflow: id, zod config schema (`.strict()`, with defaults) and factory. */
export interface WorkflowDefinition<K extends WorkflowTaskKind = WorkflowTaskKind, S extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly taskKind: K;
  readonly description: string;
  readonly configSchema: S;
  /** @throws Error when deps lack what the workflow needs (e.g. an extractive model for P-ZS, no retriever for Standard-RAG). */
  create(deps: WorkflowDeps, config: z.input<S>): RunnableWorkflow<K>;
}
