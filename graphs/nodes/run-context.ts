/**
 * Per-run bookkeeping shared by every workflow: the run context handed to graph nodes through
 * `config.configurable.ctx`, the error type a node throws when a model step fails, and
 * {@link runGraph}, which invokes a compiled graph and turns its end state (or failure) into a
 * {@link WorkflowRunResult}. Failures and skips are data, never exceptions, for the runner.
 */
import { randomUUID } from "node:crypto";
import { GraphRecursionError } from "@langchain/langgraph";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { CallInfo } from "../../models/types.ts";
import type { WorkflowRunResult } from "../types.ts";

/** What the nodes of one run share: repeat index, abort signal, the calls made so far. */
export interface RunContext {
  repeat: number;
  signal?: AbortSignal;
  /** Every model call's bookkeeping, in completion order. */
  calls: CallInfo[];
  /** A fresh id per run (also used as LangGraph `thread_id`). */
  runId: string;
  /**
   * State of the steps (and parallel branches) that finished, kept for a failed record's
   * `intermediate` (e.g. the plan, the queries, the branches whose retrieval succeeded).
   */
  partial: Record<string, unknown>;
}

/**
 * Record a finished step's state in the run context, for a failed run's intermediate state.
 * With `append`, the value is added to a list under `key` (parallel branches).
 */
export function keepPartial(ctx: RunContext, key: string, value: unknown, append = false): void {
  if (append) ctx.partial[key] = [...((ctx.partial[key] as unknown[] | undefined) ?? []), value];
  else ctx.partial[key] = value;
}

/**
 * A model step failed (endpoint down after retries, unparseable structured answer). Nodes throw
 * it; {@link runGraph} turns it into `{status:"failed", error, raw}`.
 */
export class StepFailure extends Error {
  /**
   * @param step node name, e.g. "plan"
   * @param message the model layer's error message (never secrets)
   * @param raw raw model text when a structured answer could not be parsed
   * @param reason why the call failed (models/types.ts CallFailureReason), when known
   * @param branch the parallel branch that failed (a `Send` task), e.g. `{queryIndex: 2, query: "…"}`
   */
  constructor(
    readonly step: string,
    message: string,
    readonly raw?: string,
    readonly reason?: string,
    readonly branch?: Record<string, unknown>,
  ) {
    super(`${step}: ${message}`);
    this.name = "StepFailure";
  }
}

/**
 * Read the run context from a node's config.
 * @throws Error when the graph was invoked without one (use {@link runGraph})
 */
export function getRunContext(config: LangGraphRunnableConfig | undefined): RunContext {
  const ctx = (config?.configurable as { ctx?: RunContext } | undefined)?.ctx;
  if (!ctx) throw new Error("workflow node called without a run context: invoke the graph through runGraph()");
  return ctx;
}

/** A compiled graph, as far as {@link runGraph} needs it. */
export interface InvokableGraph<I, O> {
  invoke(input: I, config: LangGraphRunnableConfig): Promise<O>;
}

/**
 * Build a skipped result (no model call was made).
 * @param reason why the item cannot run, e.g. "no golden abstracts"
 */
export function skippedResult(reason: string, intermediate: Record<string, unknown> = {}): WorkflowRunResult {
  return { status: "skipped", output: null, error: reason, intermediate: { skipReason: reason, ...intermediate }, calls: [], latencyMs: 0 };
}

/**
 * Invoke a compiled graph for one item and convert the outcome.
 *
 * A {@link StepFailure}, an abort or a `GraphRecursionError` becomes `{status:"failed"}` with the
 * calls made so far; any other exception is a programming error and is re-thrown.
 * @param graph the compiled LangGraph graph
 * @param input initial state
 * @param opts repeat index, abort signal and recursion limit (supersteps; derive it from the loop bound)
 * @param finish maps the end state to `{output, intermediate}`
 * @returns the run result with `calls` and wall-clock `latencyMs`
 */
export async function runGraph<I, O>(
  graph: InvokableGraph<I, O>,
  input: I,
  opts: { repeat: number; signal?: AbortSignal; recursionLimit: number },
  finish: (state: O) => { output: string; intermediate: Record<string, unknown> },
): Promise<WorkflowRunResult> {
  const started = performance.now();
  const ctx: RunContext = { repeat: opts.repeat, signal: opts.signal, calls: [], runId: randomUUID(), partial: {} };
  try {
    const state = await graph.invoke(input, { configurable: { ctx, thread_id: ctx.runId }, recursionLimit: opts.recursionLimit, signal: opts.signal });
    const { output, intermediate } = finish(state);
    return { status: "ok", output, intermediate, calls: ctx.calls, latencyMs: performance.now() - started };
  } catch (err) {
    const base = { status: "failed" as const, output: null, intermediate: { ...ctx.partial }, calls: ctx.calls, latencyMs: performance.now() - started };
    if (err instanceof StepFailure)
      return {
        ...base,
        error: err.message,
        ...(err.raw !== undefined ? { raw: err.raw } : {}),
        ...(err.reason ? { failureReason: err.reason } : {}),
        intermediate: { failedStep: err.step, ...(err.branch ? { failedBranch: err.branch } : {}), ...ctx.partial },
      };
    if (err instanceof GraphRecursionError) return { ...base, error: `recursion limit ${opts.recursionLimit} reached: ${err.message}` };
    if (opts.signal?.aborted || (err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError")))
      return { ...base, error: `aborted: ${err instanceof Error ? err.message : String(err)}` };
    throw err;
  }
}
