/**
 * Negated-RAG (MedMeta §3.2, Appendix D): the item's golden abstracts with their findings negated
 * → synthesize. Graph: START → negate → synthesize → END.
 *
 * `fraction` (0–1) of the golden abstracts is negated, for dose–response curves: round(fraction·n)
 * abstracts chosen by a seeded shuffle (seed string `<seed>:<item id>`, so the choice is the same
 * across models and repeats). Negation by the deterministic rule negator (default, offline) or by
 * the LLM negator (needs an LLM). The intermediate state records which documents were negated and
 * which sentences changed. Items without golden abstracts are skipped before any model call.
 */
import { z } from "zod";
import seedrandom from "seedrandom";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { createLlmNegator } from "./perturb/llm-negator.ts";
import { negateAbstract, type NegatedSentence } from "./perturb/rule-negator.ts";
import { docToPassage, synthesizeFromEvidence, type SynthesisOutput } from "./nodes/evidence.ts";
import { requireChatModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph, skippedResult } from "./nodes/run-context.ts";
import { NO_CALLS, SKIPPED_CELL, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const NEGATED_RAG_ID = "negated-rag";

/** Negated-RAG options. */
export const NegatedRagConfigSchema = z
  .object({
    /** "rule": deterministic documented rules (offline); "llm": the generator rewrites each abstract. */
    negator: z.enum(["rule", "llm"]).default("rule"),
    /** Share of golden abstracts to negate, 0–1 (paper: 1). */
    fraction: z.number().min(0).max(1).default(1),
    /** Seed of the choice of negated abstracts. */
    seed: z.number().int().default(0),
    /** Length target (words) handed to extractive baselines; LLM prompts ignore it. */
    targetWords: z.number().int().positive().optional(),
  })
  .strict();
/** {@link NegatedRagConfigSchema} after parsing (defaults applied). */
export type NegatedRagConfig = z.infer<typeof NegatedRagConfigSchema>;

/** What happened to one golden abstract. */
export interface NegationRecord {
  id: string;
  selected: boolean;
  /** Changed sentences (empty when not selected, or when no rule applied). */
  changed: NegatedSentence[];
}

/**
 * Choose which passages to negate: round(fraction·n) of them by a Fisher–Yates shuffle seeded
 * with `<seed>:<itemId>`.
 * @returns the chosen ids, in evidence order
 */
export function chooseNegated(ids: string[], fraction: number, seed: number, itemId: string): Set<string> {
  const n = Math.round(fraction * ids.length);
  const rng = seedrandom(`${seed}:${itemId}`);
  const order = [...ids];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return new Set(order.slice(0, n));
}

const NegatedState = Annotation.Root({
  topic: Annotation<string>,
  itemId: Annotation<string>,
  evidence: Annotation<EvidencePassage[]>,
  negatedEvidence: Annotation<EvidencePassage[]>,
  negation: Annotation<NegationRecord[]>,
  synthesis: Annotation<SynthesisOutput>,
});

function create(deps: WorkflowDeps, rawConfig: z.input<typeof NegatedRagConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = NegatedRagConfigSchema.parse(rawConfig ?? {});
  const prompt = loadWorkflowPrompt("rag-synthesize", deps.promptDir);
  const llmNegator = config.negator === "llm" ? createLlmNegator(requireChatModel(deps.model, NEGATED_RAG_ID, 'the LLM negator needs an LLM (use negator: "rule" offline)'), deps.promptDir) : null;
  const graph = new StateGraph(NegatedState)
    .addNode("negate", async (s, c) => {
      const ctx = getRunContext(c);
      const chosen = chooseNegated(
        s.evidence.map((e) => e.id),
        config.fraction,
        config.seed,
        s.itemId,
      );
      const results = await Promise.all(
        s.evidence.map(async (p) => {
          if (!chosen.has(p.id)) return { passage: p, record: { id: p.id, selected: false, changed: [] } };
          const r = llmNegator ? await llmNegator.negate(ctx, p) : negateAbstract(p.text);
          return { passage: { ...p, text: r.text }, record: { id: p.id, selected: true, changed: r.changed } };
        }),
      );
      return { negatedEvidence: results.map((r) => r.passage), negation: results.map((r) => r.record) };
    })
    .addNode("synthesize", async (s, c) => ({
      synthesis: await synthesizeFromEvidence(getRunContext(c), deps.model, prompt, { topic: s.topic, evidence: s.negatedEvidence, targetWords: config.targetWords }),
    }))
    .addEdge(START, "negate")
    .addEdge("negate", "synthesize")
    .addEdge("synthesize", END)
    .compile();
  return {
    id: NEGATED_RAG_ID,
    async run(task: SynthesisTask, opts) {
      if (task.goldenDocs.length === 0) return skippedResult(`no golden abstracts for item '${task.id}' to negate`);
      const evidence = task.goldenDocs.map(docToPassage);
      return runGraph(graph, { topic: task.question, itemId: task.id, evidence }, { ...opts, recursionLimit: 6 }, (s) => ({
        output: s.synthesis.text,
        intermediate: {
          negator: config.negator,
          fraction: config.fraction,
          negatedIds: s.negation.filter((r) => r.selected).map((r) => r.id),
          unchangedSelectedIds: s.negation.filter((r) => r.selected && r.changed.length === 0).map((r) => r.id),
          negation: s.negation,
          ...(s.synthesis.sentences ? { extractedSentences: s.synthesis.sentences } : {}),
        },
      }));
    },
  };
}

/** Negated-RAG definition (task kind "synthesis"). */
export const negatedRagWorkflow: WorkflowDefinition<"synthesis", typeof NegatedRagConfigSchema> = {
  id: NEGATED_RAG_ID,
  taskKind: "synthesis",
  description: "Negated-RAG (MedMeta): golden abstracts with findings negated (rule or LLM negator, fraction 0–1) → synthesize",
  configSchema: NegatedRagConfigSchema,
  create,
  // the LLM negator rewrites round(fraction · n) abstracts, one call each; then one synthesis call
  llmCalls: (c, i) => {
    if (i.passages === 0) return SKIPPED_CELL;
    if (!i.llm) return NO_CALLS;
    const n = 1 + (c.negator === "llm" ? Math.round(c.fraction * i.passages) : 0);
    return { min: n, max: n, structured: 0 };
  },
};
