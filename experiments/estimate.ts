/**
 * `medsynth run --dry-run`: what a run will cost before it starts — the cells, the model calls per
 * cell (generation with loop upper bounds, judges), and an estimated token count and cost from the
 * config's `prices`. Token counts are estimates (about 4 characters per token of the texts each
 * call carries, plus the prompt template; the output at `maxTokens` when set); the upper bound
 * assumes every loop runs to its limit and no answer is cached. Call counts come from the
 * declarations of the workflows (`llmCalls`), their perturbations and the metrics
 * (`metricLlmCalls`); tests/experiments/call-estimate.test.ts checks them against a server's log.
 */
import type { ExperimentConfig } from "./config.ts";
import type { Cell } from "./cells.ts";
import type { RunnerItem } from "./runner.ts";
import { getWorkflow } from "../graphs/registry.ts";
import { NO_CALLS, worstCaseRequests, type CallBounds } from "../graphs/types.ts";
import { metricLlmCalls } from "./metrics-stage.ts";

/** Characters per token assumed by the estimate. */
export const CHARS_PER_TOKEN = 4;
/** Tokens of a prompt template's own text (instructions, format), per call. */
const TEMPLATE_TOKENS = 350;
/** Output tokens assumed per call when no maxTokens is configured. */
const DEFAULT_OUTPUT_TOKENS = 400;
/** Output tokens of one judge verdict (rationale + scores). */
const JUDGE_OUTPUT_TOKENS = 150;

/** Model calls of one cell (see graphs/types.ts). */
export type { CallBounds } from "../graphs/types.ts";

/**
 * Generator calls of one cell, as its workflow declares them ({@link WorkflowDefinition.llmCalls}).
 * @param p the cell's parameters (runner parameters `reranker`, `rerankTopN`, `retrieval` included;
 *   the workflow's schema defaults are applied).
 * @param passages golden abstracts of the item (0 when it has none: evidence workflows skip it).
 */
export function generatorCalls(workflowId: string, p: Record<string, unknown>, llm: boolean, passages = 0): CallBounds {
  const def = getWorkflow(workflowId);
  const { reranker, rerankTopN: _t, retrieval: _r, ...raw } = p;
  const parsed = def.configSchema.safeParse(raw);
  if (!parsed.success) return NO_CALLS;
  return def.llmCalls(parsed.data, { llm, passages, reranker: typeof reranker === "string" && reranker !== "none" ? reranker : null });
}

/** Characters of the texts a cell's calls carry (question, evidence, sections, study). */
function itemChars(item: RunnerItem): number {
  let s = 0;
  const add = (v: unknown) => {
    if (typeof v === "string") s += v.length;
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === "object") Object.values(v).forEach(add);
  };
  for (const k of ["question", "title", "goldenDocs", "sections", "population", "intervention", "comparator", "outcome", "design", "results", "cohorts"]) add(item[k]);
  return s;
}

/** Calls of a run: fewest, most with usable answers, and worst case in requests. */
export interface CallRange {
  min: number;
  max: number;
  worst: number;
}

/** The estimate. */
export interface RunEstimate {
  cells: number;
  /** Cells already finished in the output folder (not run again). */
  finished: number;
  pending: number;
  /**
   * Generator calls: `min` (loops end at once), `max` (every loop at its bound, every answer
   * usable) and `worst` (requests with every structured answer re-asked `structuredRetries` times).
   */
  generatorCalls: CallRange;
  /** Judge-panel calls: one per judge × rubric × repeat (`min` = `max`); `worst`: every attempt and re-ask used. */
  judgeCalls: CallRange;
  /** Calls of metrics that ask an LLM (`grounding:llm`), one per scored cell at most. */
  metricCalls: CallRange;
  /** Estimated tokens (upper bound: every loop at its limit, every call made). */
  inputTokens: number;
  outputTokens: number;
  /** USD from `prices`; null when no model is priced. */
  costUsd: number | null;
  /** Per workflow: cells and calls per cell. */
  perWorkflow: { workflow: string; params: string; cells: number; callsPerCell: { min: number; max: number } }[];
  unpriced: string[];
  /**
   * The share that goes through provider Batch APIs (`run --batch`, or endpoints with `batch: true`);
   * absent when the run uses no Batch API, `calls` 0 when it does but none of its calls is batched. `calls` (upper bound, as `calls: at most`) of `totalCalls`;
   * `costUsd`: the whole run's cost with those calls at the batch rate (`prices.batchInput` /
   * `batchOutput`, default half the online price), null when unpriced.
   */
  batch?: { calls: number; totalCalls: number; share: number; costUsd: number | null };
}

/** Options of {@link estimateRun}. */
export interface EstimateOptions {
  /** Whether calls of a model id go through a Batch API (default: none). */
  isBatched?: (modelId: string) => boolean;
  /**
   * Whether the run uses Batch APIs at all (`run --batch`, `batch export`, an endpoint with
   * `batch: true`): the estimate then carries `batch` even when none of its calls is batched.
   */
  batching?: boolean;
}

/**
 * Estimate a run.
 * @param pending cells that would run; `finished` how many are already done.
 * @param items item lookup by `dataset\0id`.
 * @param judges judge calls per judged cell: `calls` (judges × rubrics × repeats), `maxAttempts`
 *   (whole-call attempts × structured re-asks), and the judge model ids.
 */
export function estimateRun(
  config: ExperimentConfig,
  pending: Cell[],
  finished: number,
  items: Map<string, RunnerItem>,
  judges: { calls: number; referenceCalls?: number; maxAttempts: number; models: string[] } | null,
  opts: EstimateOptions = {},
): RunEstimate {
  const isLlm = new Map(config.models.map((m) => [m.label ?? m.id, m.id.startsWith("openai:")]));
  const idOf = new Map(config.models.map((m) => [m.label ?? m.id, m.id]));
  const endpointOf = new Map(config.models.map((m) => [m.label ?? m.id, (m.endpoint ?? {}) as { maxTokens?: number; structuredRetries?: number }]));
  // the endpoint schema's default (models/endpoint-config.ts) when a model does not set it
  const defaultRetries = 2;
  const gen = { min: 0, max: 0, worst: 0 };
  const jud = { min: 0, max: 0, worst: 0 };
  const met = { min: 0, max: 0, worst: 0 };
  const metricPerCell = metricLlmCalls(config.metrics);
  let inTok = 0;
  let outTok = 0;
  let cost = 0;
  let priced = false;
  /** Cost with batched calls at the batch rate, and the batched calls (upper bound). */
  let batchCost = 0;
  let batchCalls = 0;
  const isBatched = opts.isBatched ?? (() => false);
  const unpriced = new Set<string>();
  const per = new Map<string, { workflow: string; params: string; cells: number; callsPerCell: { min: number; max: number } }>();
  for (const c of pending) {
    const modelKey = [...idOf.keys()].find((k) => c.model === k || c.model.startsWith(`${idOf.get(k)}#`)) ?? c.model;
    const id = idOf.get(modelKey) ?? c.model.split("#")[0];
    const llm = isLlm.get(modelKey) ?? id.startsWith("openai:");
    const item = items.get(`${c.dataset}\u0000${c.itemId}`);
    const passages = Array.isArray(item?.goldenDocs) ? (item.goldenDocs as unknown[]).length : 0;
    const calls = generatorCalls(c.workflow, c.params, llm, passages);
    const retries = endpointOf.get(modelKey)?.structuredRetries ?? defaultRetries;
    const ctxTokens = Math.ceil((item ? itemChars(item) : 0) / CHARS_PER_TOKEN) + TEMPLATE_TOKENS;
    const outPer = endpointOf.get(modelKey)?.maxTokens ?? DEFAULT_OUTPUT_TOKENS;
    gen.min += calls.min;
    gen.max += calls.max;
    gen.worst += worstCaseRequests(calls, retries);
    const charge = (inT: number, outT: number, modelId: string, isLlmModel: boolean, nCalls: number) => {
      inTok += inT;
      outTok += outT;
      const batched = isLlmModel && isBatched(modelId);
      if (batched) batchCalls += nCalls;
      const p = config.prices[modelId];
      if (p) {
        priced = true;
        cost += (inT * p.input + outT * p.output) / 1e6;
        batchCost += batched ? (inT * (p.batchInput ?? p.input / 2) + outT * (p.batchOutput ?? p.output / 2)) / 1e6 : (inT * p.input + outT * p.output) / 1e6;
      } else if (isLlmModel) unpriced.add(modelId);
    };
    charge(calls.max * ctxTokens, calls.max * outPer, id, llm, calls.max);
    const k = `${c.workflow}\u0000${JSON.stringify(c.params)}`;
    const e = per.get(k) ?? { workflow: c.workflow, params: JSON.stringify(c.params), cells: 0, callsPerCell: { min: calls.min, max: calls.max } };
    e.cells++;
    e.callsPerCell = { min: Math.min(e.callsPerCell.min, calls.min), max: Math.max(e.callsPerCell.max, calls.max) };
    per.set(k, e);
    // Metrics and judges score cells that produce text (a workflow without calls still may); a
    // skipped item or a score output (feasibility) is neither scored nor judged.
    if (calls.textOutput === false) continue;
    if (metricPerCell.max) {
      met.max += metricPerCell.max;
      met.worst += worstCaseRequests(metricPerCell, retries);
      const judgeModel = config.metrics.find((m) => m.startsWith("grounding:llm@"))?.split("@")[1] ?? id;
      charge(metricPerCell.max * (ctxTokens + outPer + TEMPLATE_TOKENS), metricPerCell.max * JUDGE_OUTPUT_TOKENS, judgeModel, judgeModel.startsWith("openai:"), metricPerCell.max);
    }
    // rubrics that compare with the reference make no call for an item without one
    const hasReference = typeof item?.referenceConclusion === "string" && item.referenceConclusion.trim() !== "" && item.kind !== "rwe";
    const judgeCalls = judges ? judges.calls - (hasReference ? 0 : (judges.referenceCalls ?? 0)) : 0;
    if (judges && judgeCalls > 0) {
      jud.min += judgeCalls;
      jud.max += judgeCalls;
      jud.worst += judgeCalls * judges.maxAttempts;
      const ji = judgeCalls * judges.maxAttempts * (ctxTokens + outPer + TEMPLATE_TOKENS);
      const jo = judgeCalls * judges.maxAttempts * JUDGE_OUTPUT_TOKENS;
      // judges are spread evenly over their models
      for (const m of judges.models) charge(ji / judges.models.length, jo / judges.models.length, m, true, judgeCalls / judges.models.length);
    }
  }
  return {
    cells: pending.length + finished,
    finished,
    pending: pending.length,
    generatorCalls: gen,
    judgeCalls: jud,
    metricCalls: met,
    inputTokens: Math.round(inTok),
    outputTokens: Math.round(outTok),
    costUsd: priced ? cost : null,
    perWorkflow: [...per.values()],
    unpriced: [...unpriced].sort(),
    ...(batchCalls > 0 || opts.batching ? { batch: batchShare(Math.round(batchCalls), gen.max + jud.max + met.max, priced ? batchCost : null) } : {}),
  };
}

function batchShare(calls: number, totalCalls: number, costUsd: number | null): NonNullable<RunEstimate["batch"]> {
  return { calls, totalCalls, share: totalCalls > 0 ? calls / totalCalls : 0, costUsd };
}

/** Lines printed for an estimate. */
export function formatEstimate(e: RunEstimate): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const lines = [`estimate: ${n(e.cells)} cells (${n(e.pending)} to run, ${n(e.finished)} already finished)`];
  for (const w of e.perWorkflow)
    lines.push(
      `  ${w.workflow} ${w.params === "{}" ? "" : `${w.params} `}× ${n(w.cells)} cells: ${w.callsPerCell.min === w.callsPerCell.max ? w.callsPerCell.max : `${w.callsPerCell.min}–${w.callsPerCell.max}`} generator calls per cell`,
    );
  const r = (c: CallRange) => `${c.min === c.max ? n(c.max) : `${n(c.min)}–${n(c.max)}`} (≤ ${n(c.worst)} requests with every re-ask)`;
  lines.push(`  generator calls: ${r(e.generatorCalls)}; judge calls: ${r(e.judgeCalls)}${e.metricCalls.max ? `; metric judge calls: ${r(e.metricCalls)}` : ""}`);
  lines.push(
    `  calls: at most ${n(e.generatorCalls.max + e.judgeCalls.max + e.metricCalls.max)} when every answer is usable (every loop at its limit, nothing cached); HTTP retries of failed requests come on top`,
  );
  lines.push(
    `  tokens (upper bound, ~${CHARS_PER_TOKEN} characters per token): ${n(e.inputTokens)} in / ${n(e.outputTokens)} out; cost ${e.costUsd === null ? "not priced" : `≤ $${e.costUsd.toFixed(2)}`}${e.batch?.calls ? " at the online price" : ""}${e.unpriced.length ? ` (not priced: ${e.unpriced.join(", ")})` : ""}`,
  );
  if (e.batch?.calls === 0) {
    // batching is on, but nothing goes through it: say so rather than print nothing
    const total = e.batch.totalCalls;
    lines.push(`  batch: 0 of ${n(total)} calls go through Batch APIs (${total ? "none of these calls is to a model whose calls are batched" : "no model call to make"})`);
  } else if (e.batch) {
    const b = e.batch;
    lines.push(
      `  batch: ${n(b.calls)} of ${n(b.totalCalls)} calls (${(b.share * 100).toFixed(0)} %) go through Batch APIs in waves (one wave per workflow step); cost with them at the batch rate (prices.batchInput/batchOutput, default half): ${b.costUsd === null ? "not priced" : `≤ $${b.costUsd.toFixed(2)}`}`,
    );
  }
  return lines;
}
