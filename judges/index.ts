/**
 * Public API of the judges layer: rubrics, judges, panels and their diagnostics, answer-level
 * classifiers, reference metrics, statistics, the RWESummary weighted score and human–judge
 * alignment.
 */
export * from "./rubric.ts";
export * from "./judge.ts";
export * from "./panel.ts";
export * from "./diagnostics.ts";
export {
  LLM_ANSWER_CLASSIFIER_ID,
  LEXICAL_DIRECTION_ID,
  LexicalDirectionConfigSchema,
  LlmAnswerClassifierConfigSchema,
  AnswerClassSchema,
  classifyDirectionLexically,
  createLexicalDirectionClassifier,
  createLlmAnswerClassifier,
  answerAccuracy,
  classifyRecords,
  coarseDirectionOfAnswer,
  coarseDirectionOfExpert,
  directionAgreement,
  type AnswerClassification,
  type AnswerClassifier,
  type AnswerRow,
  type AnswerAccuracy,
  type AccuracyCell,
  type DirectionAgreement,
  type CoarseDirection,
} from "./answer-classifier.ts";
export * from "./registry.ts";
export * from "./metrics/index.ts";
export * from "./stats/index.ts";
export * from "./rwe-weighted-score.ts";
export * from "./alignment.ts";
export * from "../results/run-record.ts";
