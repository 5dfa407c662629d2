/**
 * The one way workflow nodes call a model: render a template, call the {@link ChatModel}, record
 * the call in the run context and throw a {@link StepFailure} when the call failed.
 */
import type { z } from "zod";
import type { ChatModel, ChatParams, ExtractiveModel, GeneratorModel } from "../../models/types.ts";
import { promptMeta, renderWorkflowPrompt, type WorkflowPrompt } from "./prompts.ts";
import { StepFailure, type RunContext } from "./run-context.ts";

/** Is this generator an LLM (as opposed to an extractive baseline)? */
export function isChatModel(model: GeneratorModel): model is ChatModel {
  return model.kind === "llm";
}

/** Is this generator an extractive baseline? */
export function isExtractiveModel(model: GeneratorModel): model is ExtractiveModel {
  return model.kind === "extractive";
}

/**
 * Require an LLM for a workflow that gives the model no evidence (P-ZS, P-CoT) or needs judgement
 * (feasibility, LLM negator).
 * @throws Error explaining that extractive baselines need evidence
 */
export function requireChatModel(model: GeneratorModel, workflowId: string, why = "it gives the model no evidence to extract from"): ChatModel {
  if (isChatModel(model)) return model;
  throw new Error(
    `workflow '${workflowId}' cannot run with the extractive baseline '${model.id}': ${why}. Use an LLM (openai:<model>) or an evidence-based workflow (golden-rag, standard-rag, negated-rag).`,
  );
}

/**
 * One free-text step.
 * @param step node name for errors
 * @returns the answer text, trimmed
 * @throws StepFailure when the call failed after the model layer's retries
 */
export async function chatStep(ctx: RunContext, model: ChatModel, step: string, prompt: WorkflowPrompt, vars: Record<string, string | number>, params?: ChatParams, repeatOffset = 0): Promise<string> {
  const r = await model.chat(renderWorkflowPrompt(prompt, vars), { meta: promptMeta(prompt, ctx.repeat + repeatOffset), params, signal: ctx.signal });
  ctx.calls.push(r.call);
  if (!r.ok) throw new StepFailure(step, r.error, r.raw, r.reason);
  return r.text.trim();
}

/**
 * One structured (zod-validated) step.
 * @param repeatOffset added to the run's repeat index for calls that must be cached separately
 *   within one run (e.g. the N feasibility runs)
 * @returns the validated value
 * @throws StepFailure carrying the raw text when validation failed after bounded retries
 */
export async function structuredStep<S extends z.ZodType>(
  ctx: RunContext,
  model: ChatModel,
  step: string,
  prompt: WorkflowPrompt,
  vars: Record<string, string | number>,
  schema: S,
  schemaName: string,
  params?: ChatParams,
  repeatOffset = 0,
): Promise<z.infer<S>> {
  const r = await model.structured(renderWorkflowPrompt(prompt, vars), schema, { meta: promptMeta(prompt, ctx.repeat + repeatOffset), params, signal: ctx.signal, schemaName });
  ctx.calls.push(r.call);
  if (!r.ok) throw new StepFailure(step, r.error, r.raw ?? undefined, r.reason);
  return r.value;
}
