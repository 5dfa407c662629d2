/**
 * The research-plan step shared by P-CoT and Standard-RAG (MedMeta §3.2, Appendix C.1):
 * background, N key questions and a search strategy, as a zod-validated structured answer.
 */
import { z } from "zod";
import type { ChatModel } from "../../models/types.ts";
import { structuredStep } from "./model-call.ts";
import type { WorkflowPrompt } from "./prompts.ts";
import type { RunContext } from "./run-context.ts";

/** Structured answer of the plan step. */
export const ResearchPlanSchema = z.object({
  background: z.string().min(1),
  keyQuestions: z.array(z.string().min(1)).min(1),
  searchStrategy: z.string(),
});
/** {@link ResearchPlanSchema} after parsing (defaults applied). */
export type ResearchPlan = z.infer<typeof ResearchPlanSchema>;

/**
 * Ask for a plan with `numQuestions` key questions; extra questions beyond that are dropped.
 * @throws StepFailure when the answer cannot be validated
 */
export async function makePlan(ctx: RunContext, model: ChatModel, prompt: WorkflowPrompt, topic: string, numQuestions: number): Promise<ResearchPlan> {
  const plan = await structuredStep(ctx, model, "plan", prompt, { topic, num_questions: numQuestions }, ResearchPlanSchema, "research_plan");
  return { ...plan, keyQuestions: plan.keyQuestions.slice(0, numQuestions) };
}

/** Render a plan as text for later prompts. */
export function formatPlan(plan: ResearchPlan): string {
  return [`Background: ${plan.background}`, "Key questions:", ...plan.keyQuestions.map((q, i) => `${i + 1}. ${q}`), `Search strategy: ${plan.searchStrategy}`].join("\n");
}

/** Numbered list of questions. */
export function formatQuestions(questions: string[]): string {
  return questions.map((q, i) => `${i + 1}. ${q}`).join("\n");
}
