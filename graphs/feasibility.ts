/**
 * Feasibility check (MedMeta §3.1 "Feasibility Filtering", Appendix F): the reference conclusion
 * + the golden abstracts → is the conclusion reachable from the abstracts alone, 0–5; `runs`
 * independent runs (paper: 3 at temperature 0.5) averaged. Output is the mean as text ("4.33");
 * the scores and evaluations are in the intermediate state. Needs an LLM; items without a
 * reference conclusion or golden abstracts are skipped.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { docToPassage, formatEvidence } from "./nodes/evidence.ts";
import { requireChatModel, structuredStep } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph, skippedResult } from "./nodes/run-context.ts";
import { SKIPPED_CELL, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const FEASIBILITY_ID = "feasibility";

/** Feasibility options. */
export const FeasibilityConfigSchema = z
  .object({
    /** Independent runs averaged (paper: 3). Run i uses repeat index repeat·runs + i, so each is cached separately. */
    runs: z.number().int().min(1).max(20).default(3),
    /** Sampling temperature of the runs (paper: 0.5). */
    temperature: z.number().min(0).max(2).default(0.5),
    /** Items whose mean is above this pass the filter (paper: 4); recorded as `passed`. */
    passAbove: z.number().min(0).max(5).default(4),
  })
  .strict();
/** {@link FeasibilityConfigSchema} after parsing (defaults applied). */
export type FeasibilityConfig = z.infer<typeof FeasibilityConfigSchema>;

/** Structured answer of one feasibility run. */
export const FeasibilityAnswerSchema = z.object({ evaluation: z.string(), score: z.number().min(0).max(5) });
/** {@link FeasibilityAnswerSchema} after parsing (defaults applied). */
export type FeasibilityAnswer = z.infer<typeof FeasibilityAnswerSchema>;

const FeasibilityState = Annotation.Root({ topic: Annotation<string>, conclusion: Annotation<string>, evidence: Annotation<EvidencePassage[]>, answers: Annotation<FeasibilityAnswer[]> });

function create(deps: WorkflowDeps, rawConfig: z.input<typeof FeasibilityConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = FeasibilityConfigSchema.parse(rawConfig ?? {});
  const model = requireChatModel(deps.model, FEASIBILITY_ID, "the sufficiency rating needs an LLM's judgement");
  const prompt = loadWorkflowPrompt("feasibility-check", deps.promptDir);
  const graph = new StateGraph(FeasibilityState)
    .addNode("assess", async (s, c) => {
      const ctx = getRunContext(c);
      const vars = { topic: s.topic, conclusion: s.conclusion, abstracts: formatEvidence(s.evidence) };
      const base = ctx.repeat * config.runs;
      const answers = await Promise.all(
        Array.from({ length: config.runs }, (_, i) => structuredStep(ctx, model, "assess", prompt, vars, FeasibilityAnswerSchema, "feasibility", { temperature: config.temperature }, base + i)),
      );
      return { answers };
    })
    .addEdge(START, "assess")
    .addEdge("assess", END)
    .compile();
  return {
    id: FEASIBILITY_ID,
    outputKind: "score",
    async run(task: SynthesisTask, opts) {
      if (!task.referenceConclusion) return skippedResult(`item '${task.id}' has no reference conclusion to check`);
      if (task.goldenDocs.length === 0) return skippedResult(`no golden abstracts for item '${task.id}'`);
      return runGraph(graph, { topic: task.question, conclusion: task.referenceConclusion, evidence: task.goldenDocs.map(docToPassage) }, { ...opts, recursionLimit: 4 }, (s) => {
        const scores = s.answers.map((a) => a.score);
        const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
        return { output: mean.toFixed(2), intermediate: { scores, mean, passed: mean > config.passAbove, evaluations: s.answers.map((a) => a.evaluation) } };
      });
    },
  };
}

/** Feasibility definition (task kind "synthesis"). */
export const feasibilityWorkflow: WorkflowDefinition<"synthesis", typeof FeasibilityConfigSchema> = {
  id: FEASIBILITY_ID,
  taskKind: "synthesis",
  description: "Feasibility check (MedMeta): reference conclusion + abstracts → 0–5 sufficiency, N runs averaged",
  configSchema: FeasibilityConfigSchema,
  create,
  // `runs` structured ratings (items without a reference or golden abstracts are skipped; min 0)
  llmCalls: (c, i) => (i.llm && i.passages > 0 ? { min: 0, max: c.runs, structured: c.runs, textOutput: false } : SKIPPED_CELL),
};
