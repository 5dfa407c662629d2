/**
 * P-ZS, the zero-shot parametric baseline (MedMeta §3.2, Appendix B): the model receives only the
 * meta-analysis title (or clinical question) and writes a conclusion. Graph: START → conclude → END.
 * An extractive baseline is refused (it has no evidence to extract from).
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import { chatStep, requireChatModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph } from "./nodes/run-context.ts";
import { NO_CALLS, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const PZS_ID = "pzs";

/** P-ZS has no options. */
export const PzsConfigSchema = z.object({}).strict();
/** {@link PzsConfigSchema} after parsing (defaults applied). */
export type PzsConfig = z.infer<typeof PzsConfigSchema>;

const PzsState = Annotation.Root({ topic: Annotation<string>, output: Annotation<string> });

/**
 * Build P-ZS.
 * @throws Error for an extractive model or an unknown config key
 */
function create(deps: WorkflowDeps, config: z.input<typeof PzsConfigSchema>): RunnableWorkflow<"synthesis"> {
  PzsConfigSchema.parse(config ?? {});
  const model = requireChatModel(deps.model, PZS_ID);
  const prompt = loadWorkflowPrompt("pzs-conclusion", deps.promptDir);
  const graph = new StateGraph(PzsState)
    .addNode("conclude", async (s, config) => ({ output: await chatStep(getRunContext(config), model, "conclude", prompt, { topic: s.topic }) }))
    .addEdge(START, "conclude")
    .addEdge("conclude", END)
    .compile();
  return {
    id: PZS_ID,
    run: (task: SynthesisTask, opts) =>
      runGraph(graph, { topic: task.question }, { ...opts, recursionLimit: 5 }, (s) => ({ output: s.output, intermediate: { prompt: { id: prompt.id, version: prompt.version } } })),
  };
}

/** P-ZS definition (task kind "synthesis"). */
export const pzsWorkflow: WorkflowDefinition<"synthesis", typeof PzsConfigSchema> = {
  id: PZS_ID,
  taskKind: "synthesis",
  description: "P-ZS (MedMeta): conclusion from the title alone, parametric knowledge only",
  configSchema: PzsConfigSchema,
  create,
  // one free-text call
  llmCalls: (_c, i) => (i.llm ? { min: 1, max: 1, structured: 0 } : NO_CALLS),
};
