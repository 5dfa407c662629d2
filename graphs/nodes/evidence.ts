/**
 * Evidence handling shared by the evidence-based workflows (Standard-, Golden-, Negated-RAG,
 * feasibility): corpus documents → passages, passages → the text block a prompt shows, and the
 * synthesis step that either prompts an LLM or runs an extractive baseline.
 */
import { retractionTag, type CorpusDoc } from "../../corpus/types.ts";
import type { ChatParams, EvidencePassage, GeneratorModel } from "../../models/types.ts";
import { chatStep, isExtractiveModel } from "./model-call.ts";
import type { WorkflowPrompt } from "./prompts.ts";
import type { RunContext } from "./run-context.ts";

/** A corpus document as an evidence passage (id = PMID); its retraction flag, when it has one, is kept. */
export function docToPassage(doc: CorpusDoc): EvidencePassage {
  return { id: doc.id, title: doc.title, text: doc.text, ...(doc.retraction ? { retraction: doc.retraction } : {}) };
}

/**
 * Render passages for a prompt: one block per passage, `[n] PMID <id>: <title>` then its text,
 * blocks separated by a blank line; a retracted paper or retraction notice carries its
 * {@link retractionTag} before the title (`[2] PMID 123: [RETRACTED] Title`).
 * @returns the block text; "(no abstracts)" never occurs because callers skip empty evidence
 */
export function formatEvidence(passages: EvidencePassage[]): string {
  return passages.map((p, i) => `[${i + 1}] PMID ${p.id}: ${retractionTag(p.retraction)}${p.title}\n${p.text}`).join("\n\n");
}

/** Result of the synthesis step. `sentences` is set for extractive baselines (provenance). */
export interface SynthesisOutput {
  text: string;
  sentences?: { docId: string; text: string }[];
}

/**
 * Synthesize an answer from evidence: an extractive model's `synthesize()` (offline, no prompt),
 * or the given template filled with `{topic, abstracts}` for an LLM.
 * @param targetWords optional length target passed to extractive models
 * @throws StepFailure when the LLM call fails; Error on empty evidence (callers must skip first)
 */
export async function synthesizeFromEvidence(
  ctx: RunContext,
  model: GeneratorModel,
  prompt: WorkflowPrompt,
  input: { topic: string; evidence: EvidencePassage[]; targetWords?: number; params?: ChatParams },
): Promise<SynthesisOutput> {
  if (input.evidence.length === 0) throw new Error("synthesizeFromEvidence called with no evidence: the workflow must skip such items");
  if (isExtractiveModel(model)) {
    const r = model.synthesize({ question: input.topic, evidence: input.evidence, ...(input.targetWords ? { targetWords: input.targetWords } : {}) });
    return { text: r.text, sentences: r.sentences };
  }
  const text = await chatStep(ctx, model, "synthesize", prompt, { topic: input.topic, abstracts: formatEvidence(input.evidence) }, input.params);
  return { text };
}
