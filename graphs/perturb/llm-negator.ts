/**
 * LLM negator for Negated-RAG (MedMeta Appendix D): the model rewrites one abstract with its
 * findings reversed, through the `negate-abstract` prompt template. Calls go through the model
 * layer, so they are cached (key includes the template version and the run's repeat index).
 */
import type { ChatModel } from "../../models/types.ts";
import type { EvidencePassage } from "../../models/types.ts";
import { chatStep } from "../nodes/model-call.ts";
import { loadWorkflowPrompt, type WorkflowPrompt } from "../nodes/prompts.ts";
import type { RunContext } from "../nodes/run-context.ts";
import { splitSentences } from "../nodes/text-stats.ts";
import type { NegationResult } from "./rule-negator.ts";

/** Id of the LLM negator (config value `negator: "llm"`). */
export const LLM_NEGATOR_ID = "llm";

/** An LLM negator bound to a model and a template. */
export interface LlmNegator {
  id: string;
  prompt: WorkflowPrompt;
  /**
   * Negate one passage.
   * @returns the rewritten text; `changed` lists the sentences of the rewrite that do not occur in
   *   the original (index = position in the rewrite, `original` = "" because an LLM rewrite has
   *   no sentence alignment)
   * @throws StepFailure when the call fails
   */
  negate(ctx: RunContext, passage: EvidencePassage): Promise<NegationResult>;
}

/**
 * Build the LLM negator.
 * @param model an LLM (the workflow checks it is not extractive)
 * @param promptDir optional override folder for `negate-abstract.md`
 */
export function createLlmNegator(model: ChatModel, promptDir?: string): LlmNegator {
  const prompt = loadWorkflowPrompt("negate-abstract", promptDir);
  return {
    id: LLM_NEGATOR_ID,
    prompt,
    async negate(ctx, passage) {
      const text = await chatStep(ctx, model, "negate", prompt, { title: passage.title, abstract: passage.text });
      const before = new Set(splitSentences(passage.text));
      const changed = splitSentences(text)
        .map((s, index) => ({ index, original: "", negated: s, mode: "direction" as const }))
        .filter((x) => !before.has(x.negated));
      return { text, changed };
    },
  };
}
