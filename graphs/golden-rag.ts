/**
 * Golden-RAG, oracle retrieval (MedMeta §3.2, Appendix C.4/E): the question plus the item's golden
 * (included-study) abstracts → synthesize. Graph: START → synthesize → END. Items without golden
 * abstracts are skipped before any model call. With an extractive model the synthesize node calls
 * `model.synthesize()` instead of a prompt, so the workflow runs offline.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { docToPassage, synthesizeFromEvidence, type SynthesisOutput } from "./nodes/evidence.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph, skippedResult } from "./nodes/run-context.ts";
import { NO_CALLS, SKIPPED_CELL, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const GOLDEN_RAG_ID = "golden-rag";

/** Golden-RAG options. */
export const GoldenRagConfigSchema = z
  .object({
    /** Length target (words) handed to extractive baselines; LLM prompts ignore it. */
    targetWords: z.number().int().positive().optional(),
  })
  .strict();
/** {@link GoldenRagConfigSchema} after parsing (defaults applied). */
export type GoldenRagConfig = z.infer<typeof GoldenRagConfigSchema>;

const GoldenState = Annotation.Root({ topic: Annotation<string>, evidence: Annotation<EvidencePassage[]>, synthesis: Annotation<SynthesisOutput> });

function create(deps: WorkflowDeps, rawConfig: z.input<typeof GoldenRagConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = GoldenRagConfigSchema.parse(rawConfig ?? {});
  const prompt = loadWorkflowPrompt("rag-synthesize", deps.promptDir);
  const graph = new StateGraph(GoldenState)
    .addNode("synthesize", async (s, c) => ({
      synthesis: await synthesizeFromEvidence(getRunContext(c), deps.model, prompt, { topic: s.topic, evidence: s.evidence, targetWords: config.targetWords }),
    }))
    .addEdge(START, "synthesize")
    .addEdge("synthesize", END)
    .compile();
  return {
    id: GOLDEN_RAG_ID,
    async run(task: SynthesisTask, opts) {
      if (task.goldenDocs.length === 0) return skippedResult(`no golden abstracts for item '${task.id}' (${task.goldenPmids.length} golden PMIDs known without abstracts)`);
      const evidence = task.goldenDocs.map(docToPassage);
      return runGraph(graph, { topic: task.question, evidence }, { ...opts, recursionLimit: 5 }, (s) => ({
        output: s.synthesis.text,
        intermediate: { evidenceIds: evidence.map((e) => e.id), ...(s.synthesis.sentences ? { extractedSentences: s.synthesis.sentences } : {}) },
      }));
    },
  };
}

/** Golden-RAG definition (task kind "synthesis"). */
export const goldenRagWorkflow: WorkflowDefinition<"synthesis", typeof GoldenRagConfigSchema> = {
  id: GOLDEN_RAG_ID,
  taskKind: "synthesis",
  description: "Golden-RAG (MedMeta): question + the item's golden abstracts → synthesize",
  configSchema: GoldenRagConfigSchema,
  create,
  // one synthesis call; items without golden abstracts are skipped before it
  llmCalls: (_c, i) => (i.passages === 0 ? SKIPPED_CELL : i.llm ? { min: 1, max: 1, structured: 0 } : NO_CALLS),
};
