/**
 * Registry of the judging units: built-in rubric ids (→ rubric files), aggregation policies, and
 * answer-classifier ids (→ factories). Unknown ids throw with the list of valid ids.
 */
import type { ChatModel } from "../models/types.ts";
import {
  LEXICAL_DIRECTION_ID,
  LLM_ANSWER_CLASSIFIER_ID,
  createLexicalDirectionClassifier,
  createLlmAnswerClassifier,
  type AnswerClassifier,
  type LexicalDirectionConfig,
  type LlmAnswerClassifierConfig,
} from "./answer-classifier.ts";
import { AGGREGATIONS } from "./panel.ts";
import { BUILTIN_RUBRIC_IDS, resolveRubric, type Rubric } from "./rubric.ts";

/** Built-in rubric ids: MedMeta (0–5), MedConclusion (five 0–100 dimensions), RWESummary (three binary). */
export const RUBRIC_IDS = BUILTIN_RUBRIC_IDS;

/** The RWESummary jury metrics, each its own rubric (and call). */
export const RWE_RUBRIC_IDS = ["rwe-direction-of-effect", "rwe-numbers-accurate", "rwe-completeness"] as const;

/** Panel aggregation policies. */
export const AGGREGATION_IDS = AGGREGATIONS;

/**
 * Get a rubric by built-in id or file path.
 * @throws Error listing the built-in ids for an unknown id
 */
export function getRubric(idOrPath: string, baseDir?: string): Rubric {
  return resolveRubric(idOrPath, baseDir);
}

/** Dependencies of answer-classifier factories (the LLM one needs a chat model). */
export interface AnswerClassifierDeps {
  model?: ChatModel;
}

/** Answer-classifier factories by id. */
export const ANSWER_CLASSIFIER_FACTORIES: Readonly<Record<string, (config: Record<string, unknown>, deps: AnswerClassifierDeps) => AnswerClassifier>> = Object.freeze({
  [LEXICAL_DIRECTION_ID]: (c: Record<string, unknown>) => createLexicalDirectionClassifier(c as LexicalDirectionConfig),
  [LLM_ANSWER_CLASSIFIER_ID]: (c: Record<string, unknown>, d: AnswerClassifierDeps) => {
    if (!d.model) throw new Error(`answer classifier "${LLM_ANSWER_CLASSIFIER_ID}" needs a chat model (deps.model)`);
    return createLlmAnswerClassifier(c as LlmAnswerClassifierConfig, { model: d.model });
  },
});

/** Ids of the answer classifiers. */
export function answerClassifierIds(): string[] {
  return Object.keys(ANSWER_CLASSIFIER_FACTORIES);
}

/**
 * Build an answer classifier by id.
 * @throws Error naming the valid ids on an unknown id; Error on a bad config
 */
export function createAnswerClassifier(id: string, config: Record<string, unknown> = {}, deps: AnswerClassifierDeps = {}): AnswerClassifier {
  const f = Object.prototype.hasOwnProperty.call(ANSWER_CLASSIFIER_FACTORIES, id) ? ANSWER_CLASSIFIER_FACTORIES[id] : undefined;
  if (!f) throw new Error(`unknown answer classifier "${id}"; valid ids: ${answerClassifierIds().join(", ")}`);
  return f(config, deps);
}
