/**
 * Perturbed-RAG (robustness suite, issue 15): the item's golden abstracts → one or more evidence
 * perturbations (graphs/perturb/: negate, numeric, conflict, distract, retracted, swap) → synthesize.
 * Graph: START → perturb → synthesize → END.
 *
 * Params are scalars so a config sweeps them like Negated-RAG's `fraction`: `op` and `strength`
 * (0 = clean evidence, the dose–response baseline), the op's own options, and `also` to compose
 * further operators (`"conflict:1,distract:0.5"`, applied after `op`). The record keeps every
 * step (applied or not, with the reason), every changed span before/after, the inserted ids and a
 * hash of the evidence the model saw. Items without golden abstracts are skipped before any call.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import { docToPassage, synthesizeFromEvidence, type SynthesisOutput } from "./nodes/evidence.ts";
import { isExtractiveModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph, skippedResult } from "./nodes/run-context.ts";
import { applyPerturbations, createPerturbation, PERTURBATION_IDS, perturbationListCalls, type PerturbationSpec } from "./perturb/registry.ts";
import type { PerturbationContext, PerturbationStep, PerturbedPassage } from "./perturb/types.ts";
import { addCalls, NO_CALLS, SKIPPED_CELL, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const PERTURBED_RAG_ID = "perturbed-rag";

/** Perturbed-RAG options (scalars, sweepable). */
export const PerturbedRagConfigSchema = z
  .object({
    op: z.enum(PERTURBATION_IDS),
    /** Strength of `op`: share of passages (negate, numeric, conflict, retracted mark) or distractors per passage (distract, retracted insert). */
    strength: z.number().min(0).max(10).default(1),
    /** negate: "rule" | "llm". */
    negator: z.enum(["rule", "llm"]).optional(),
    /** negate: "finding" | "sentence". */
    level: z.enum(["finding", "sentence"]).optional(),
    /** numeric: comma-separated subset of ratio,p,percent. */
    targets: z.string().optional(),
    /** distract: "near" (BM25 hits for the question) | "random". */
    source: z.enum(["near", "random"]).optional(),
    /** retracted: "mark" | "insert". */
    mode: z.enum(["mark", "insert"]).optional(),
    /** swap: "intervention" | "comparator" | "outcome". */
    element: z.enum(["intervention", "comparator", "outcome"]).optional(),
    /** swap: how PICO elements are found, "rule" | "llm". */
    extractor: z.enum(["rule", "llm"]).optional(),
    /** Further operators applied after `op`: "conflict:1,distract:0.5". */
    also: z.string().optional(),
    seed: z.number().int().default(0),
    targetWords: z.number().int().positive().optional(),
  })
  .strict();
/** {@link PerturbedRagConfigSchema} after parsing. */
export type PerturbedRagConfig = z.infer<typeof PerturbedRagConfigSchema>;

/**
 * The operator specs a config stands for, in application order.
 * @throws Error naming the bad part of `also`.
 */
export function perturbationSpecs(cfg: PerturbedRagConfig): PerturbationSpec[] {
  const first: Record<string, unknown> = { op: cfg.op, strength: cfg.strength };
  if (cfg.negator !== undefined) first.negator = cfg.negator;
  if (cfg.level !== undefined) first.level = cfg.level;
  if (cfg.targets !== undefined) first.targets = cfg.targets.split(",").map((t) => t.trim());
  if (cfg.source !== undefined) first.source = cfg.source;
  if (cfg.mode !== undefined) first.mode = cfg.mode;
  if (cfg.element !== undefined) first.element = cfg.element;
  if (cfg.extractor !== undefined) first.extractor = cfg.extractor;
  const specs = [first as PerturbationSpec];
  for (const part of (cfg.also ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+)(?::(\d+(?:\.\d+)?))?$/.exec(part);
    if (!m || !(PERTURBATION_IDS as readonly string[]).includes(m[1])) throw new Error(`perturbed-rag: also: "${part}" is not <op>[:<strength>] with op one of ${PERTURBATION_IDS.join(", ")}`);
    specs.push({ op: m[1], ...(m[2] !== undefined ? { strength: Number(m[2]) } : {}) } as PerturbationSpec);
  }
  return specs;
}

/** The workflow's retriever as a perturbation search (hits with their documents), when it has one. */
export function retrieverSearch(deps: WorkflowDeps): PerturbationContext["search"] {
  const r = deps.retriever;
  return r ? async (q, k) => (await r.search(q, k)).map((h) => ({ id: h.id, doc: h.doc ?? deps.getDoc?.(h.id) })) : undefined;
}

const PerturbedState = Annotation.Root({
  topic: Annotation<string>,
  itemId: Annotation<string>,
  evidence: Annotation<PerturbedPassage[]>,
  perturbed: Annotation<PerturbedPassage[]>,
  steps: Annotation<PerturbationStep[]>,
  evidenceHash: Annotation<string>,
  synthesis: Annotation<SynthesisOutput>,
});

function create(deps: WorkflowDeps, rawConfig: z.input<typeof PerturbedRagConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = PerturbedRagConfigSchema.parse(rawConfig);
  const prompt = loadWorkflowPrompt("rag-synthesize", deps.promptDir);
  const llm = isExtractiveModel(deps.model) ? undefined : deps.model;
  const ops = perturbationSpecs(config).map((spec) => createPerturbation(spec, { model: llm, promptDir: deps.promptDir }));
  const search = retrieverSearch(deps);
  const graph = new StateGraph(PerturbedState)
    .addNode("perturb", async (s, c) => {
      const golden = new Set(s.evidence.map((e) => e.id));
      const r = await applyPerturbations(ops, s.evidence, {
        itemId: s.itemId,
        question: s.topic,
        seed: config.seed,
        goldenIds: golden,
        pool: deps.corpus,
        poolSource: deps.corpusSource,
        search,
        run: getRunContext(c),
      });
      return { perturbed: r.evidence, steps: r.steps, evidenceHash: r.hash };
    })
    .addNode("synthesize", async (s, c) => ({
      synthesis: await synthesizeFromEvidence(getRunContext(c), deps.model, prompt, { topic: s.topic, evidence: s.perturbed, targetWords: config.targetWords }),
    }))
    .addEdge(START, "perturb")
    .addEdge("perturb", "synthesize")
    .addEdge("synthesize", END)
    .compile();
  return {
    id: PERTURBED_RAG_ID,
    async run(task: SynthesisTask, opts) {
      if (task.goldenDocs.length === 0) return skippedResult(`no golden abstracts for item '${task.id}' to perturb`);
      return runGraph(graph, { topic: task.question, itemId: task.id, evidence: task.goldenDocs.map(docToPassage) }, { ...opts, recursionLimit: 6 }, (s) => ({
        output: s.synthesis.text,
        intermediate: {
          perturbation: {
            op: config.op,
            strength: config.strength,
            also: config.also ?? null,
            steps: s.steps,
            evidenceHash: s.evidenceHash,
            evidence: s.perturbed.map(({ id, title, text, retracted }) => ({ id, title, text, ...(retracted ? { retracted } : {}) })),
          },
          evidenceIds: s.perturbed.map((p) => p.id),
          retractedIds: s.perturbed.filter((p) => p.retracted).map((p) => p.id),
          ...(s.synthesis.sentences ? { extractedSentences: s.synthesis.sentences } : {}),
        },
      }));
    },
  };
}

/** Perturbed-RAG definition (task kind "synthesis"). */
export const perturbedRagWorkflow: WorkflowDefinition<"synthesis", typeof PerturbedRagConfigSchema> = {
  id: PERTURBED_RAG_ID,
  taskKind: "synthesis",
  description: "Perturbed-RAG (robustness): golden abstracts → evidence perturbations (negate, numeric, conflict, distract, retracted, swap; seeded, recorded) → synthesize",
  configSchema: PerturbedRagConfigSchema,
  create,
  // the operators' calls (LLM negator / PICO extractor) on the golden passages, then one synthesis call
  llmCalls: (c, i) => (i.passages === 0 ? SKIPPED_CELL : i.llm ? addCalls(perturbationListCalls(perturbationSpecs(c), i.passages, true), { min: 1, max: 1, structured: 0 }) : NO_CALLS),
};
