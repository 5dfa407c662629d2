/**
 * `medsynth run --dry-run`: what a run will cost before it starts — the cells, the model calls per
 * cell (generation with loop upper bounds, judges), and an estimated token count and cost from the
 * config's `prices`. Token counts are estimates (about 4 characters per token of the texts each
 * call carries, plus the prompt template; the output at `maxTokens` when set); the upper bound
 * assumes every loop runs to its limit and no answer is cached.
 */
import type { ExperimentConfig } from "./config.ts";
import type { Cell } from "./cells.ts";
import type { RunnerItem } from "./runner.ts";
import { getWorkflow } from "../graphs/registry.ts";

/** Characters per token assumed by the estimate. */
export const CHARS_PER_TOKEN = 4;
/** Tokens of a prompt template's own text (instructions, format), per call. */
const TEMPLATE_TOKENS = 350;
/** Output tokens assumed per call when no maxTokens is configured. */
const DEFAULT_OUTPUT_TOKENS = 400;
/** Output tokens of one judge verdict (rationale + scores). */
const JUDGE_OUTPUT_TOKENS = 150;

/** Model calls of one cell: at least (`min`) and at most (`max`, loops at their bound). */
export interface CallBounds {
  min: number;
  max: number;
}

/**
 * Generator calls of one cell of a workflow with its parameters.
 * @param p the cell's workflow parameters (defaults from the workflow's schema are applied).
 */
export function generatorCalls(workflowId: string, p: Record<string, unknown>, llm: boolean): CallBounds {
  const def = getWorkflow(workflowId);
  const { reranker, rerankTopN: _t, retrieval: _r, ...raw } = p;
  const c = def.configSchema.safeParse(raw).data as Record<string, number | string | undefined> | undefined;
  const n = (k: string, d: number) => (typeof c?.[k] === "number" ? (c[k] as number) : d);
  if (!llm) return { min: 0, max: 0 };
  switch (workflowId) {
    case "pcot": {
      const first = 1 + n("numQuestions", 5) + 2;
      const round = 1 + n("numNewQuestions", 5) + 2;
      return { min: first, max: first + n("maxIterations", 2) * round };
    }
    case "standard-rag": {
      const base = 3;
      const llmRerank = typeof reranker === "string" && reranker.startsWith("llm") ? n("numQueries", 5) * n("candidatesPerQuery", 20) : 0;
      return { min: base + llmRerank, max: base + llmRerank };
    }
    case "negated-rag":
      return c?.negator === "llm" ? { min: 1, max: 1 + 20 } : { min: 1, max: 1 };
    case "feasibility":
      return { min: n("runs", 3), max: n("runs", 3) };
    default:
      return { min: 1, max: 1 };
  }
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

/** The estimate. */
export interface RunEstimate {
  cells: number;
  /** Cells already finished in the output folder (not run again). */
  finished: number;
  pending: number;
  generatorCalls: CallBounds;
  judgeCalls: CallBounds;
  /** Estimated tokens (upper bound: every loop at its limit, every call made). */
  inputTokens: number;
  outputTokens: number;
  /** USD from `prices`; null when no model is priced. */
  costUsd: number | null;
  /** Per workflow: cells and calls per cell. */
  perWorkflow: { workflow: string; params: string; cells: number; callsPerCell: CallBounds }[];
  unpriced: string[];
}

/**
 * Estimate a run.
 * @param pending cells that would run; `finished` how many are already done.
 * @param items item lookup by `dataset\0id`.
 * @param judges judge calls per judged cell: `calls` (judges × rubrics × repeats), `maxAttempts`
 *   (whole-call attempts × structured re-asks), and the judge model ids.
 */
export function estimateRun(config: ExperimentConfig, pending: Cell[], finished: number, items: Map<string, RunnerItem>, judges: { calls: number; maxAttempts: number; models: string[] } | null): RunEstimate {
  const isLlm = new Map(config.models.map((m) => [m.label ?? m.id, m.id.startsWith("openai:")]));
  const idOf = new Map(config.models.map((m) => [m.label ?? m.id, m.id]));
  const maxTokensOf = new Map(config.models.map((m) => [m.label ?? m.id, (m.endpoint as { maxTokens?: number } | undefined)?.maxTokens]));
  let gMin = 0;
  let gMax = 0;
  let jMin = 0;
  let jMax = 0;
  let inTok = 0;
  let outTok = 0;
  let cost = 0;
  let priced = false;
  const unpriced = new Set<string>();
  const per = new Map<string, { workflow: string; params: string; cells: number; callsPerCell: CallBounds }>();
  for (const c of pending) {
    const modelKey = [...idOf.keys()].find((k) => c.model === k || c.model.startsWith(`${idOf.get(k)}#`)) ?? c.model;
    const id = idOf.get(modelKey) ?? c.model.split("#")[0];
    const llm = isLlm.get(modelKey) ?? id.startsWith("openai:");
    const calls = generatorCalls(c.workflow, c.params, llm);
    const item = items.get(`${c.dataset}\u0000${c.itemId}`);
    const ctxTokens = Math.ceil((item ? itemChars(item) : 0) / CHARS_PER_TOKEN) + TEMPLATE_TOKENS;
    const outPer = maxTokensOf.get(modelKey) ?? DEFAULT_OUTPUT_TOKENS;
    gMin += calls.min;
    gMax += calls.max;
    const gi = calls.max * ctxTokens;
    const go = calls.max * outPer;
    inTok += gi;
    outTok += go;
    const price = config.prices[id];
    if (price) {
      priced = true;
      cost += (gi * price.input + go * price.output) / 1e6;
    } else if (llm) unpriced.add(id);
    const k = `${c.workflow}\u0000${JSON.stringify(c.params)}`;
    const e = per.get(k) ?? { workflow: c.workflow, params: JSON.stringify(c.params), cells: 0, callsPerCell: calls };
    e.cells++;
    per.set(k, e);
    if (judges && judges.calls) {
      jMin += judges.calls;
      jMax += judges.calls * judges.maxAttempts;
      const ji = judges.calls * judges.maxAttempts * (ctxTokens + Math.ceil(outPer / 1) + TEMPLATE_TOKENS);
      const jo = judges.calls * judges.maxAttempts * JUDGE_OUTPUT_TOKENS;
      inTok += ji;
      outTok += jo;
      // judges are spread evenly over their models
      for (const m of judges.models) {
        const p = config.prices[m];
        if (p) {
          priced = true;
          cost += ((ji * p.input + jo * p.output) / judges.models.length) / 1e6;
        } else unpriced.add(m);
      }
    }
  }
  return {
    cells: pending.length + finished,
    finished,
    pending: pending.length,
    generatorCalls: { min: gMin, max: gMax },
    judgeCalls: { min: jMin, max: jMax },
    inputTokens: inTok,
    outputTokens: outTok,
    costUsd: priced ? cost : null,
    perWorkflow: [...per.values()],
    unpriced: [...unpriced].sort(),
  };
}

/** Lines printed for an estimate. */
export function formatEstimate(e: RunEstimate): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  const lines = [`estimate: ${n(e.cells)} cells (${n(e.pending)} to run, ${n(e.finished)} already finished)`];
  for (const w of e.perWorkflow) lines.push(`  ${w.workflow} ${w.params === "{}" ? "" : `${w.params} `}× ${n(w.cells)} cells: ${w.callsPerCell.min === w.callsPerCell.max ? w.callsPerCell.max : `${w.callsPerCell.min}–${w.callsPerCell.max}`} generator calls per cell`);
  lines.push(`  generator calls: ${n(e.generatorCalls.min)}–${n(e.generatorCalls.max)}; judge calls: ${n(e.judgeCalls.min)}–${n(e.judgeCalls.max)} (upper bounds: every loop at its limit, every retry used, nothing cached)`);
  lines.push(`  tokens (upper bound, ~${CHARS_PER_TOKEN} characters per token): ${n(e.inputTokens)} in / ${n(e.outputTokens)} out; cost ${e.costUsd === null ? "not priced" : `≤ $${e.costUsd.toFixed(2)}`}${e.unpriced.length ? ` (not priced: ${e.unpriced.join(", ")})` : ""}`);
  return lines;
}
