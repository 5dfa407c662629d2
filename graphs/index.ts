/** Public API of the workflow layer. */
export type { PoolSource, RunnableWorkflow, WorkflowDefinition, WorkflowDeps, WorkflowRunResult, WorkflowTask, WorkflowTaskKind } from "./types.ts";
export { getWorkflow, listWorkflowIds, WORKFLOWS } from "./registry.ts";
export { PzsConfigSchema, PZS_ID, pzsWorkflow } from "./pzs.ts";
export { PcotConfigSchema, PCOT_ID, pcotWorkflow, pcotRecursionLimit } from "./pcot.ts";
export { StandardRagConfigSchema, STANDARD_RAG_ID, standardRagWorkflow, mergeQueryResults } from "./standard-rag.ts";
export { GoldenRagConfigSchema, GOLDEN_RAG_ID, goldenRagWorkflow } from "./golden-rag.ts";
export { NegatedRagConfigSchema, NEGATED_RAG_ID, negatedRagWorkflow, chooseNegated } from "./negated-rag.ts";
export { FeasibilityConfigSchema, FEASIBILITY_ID, feasibilityWorkflow } from "./feasibility.ts";
export {
  ConclusionModeConfigSchema,
  CONCLUSION_MODES,
  conclusionTargets,
  conclusionAWorkflow,
  conclusionBWorkflow,
  conclusionCWorkflow,
  conclusionDWorkflow,
  conclusionSentencesWorkflow,
  conclusionUnrestrictedWorkflow,
  summaryUnrestrictedWorkflow,
} from "./conclusion-modes.ts";
export { RweSummaryConfigSchema, RWE_SUMMARY_ID, rweSummaryWorkflow, formatOutcome, formatStudyRaw } from "./rwe-summary.ts";
export { negateAbstract, negateSentence, createRuleNegator, RULE_NEGATOR_ID, RuleNegatorConfigSchema, type NegationResult, type NegatedSentence } from "./perturb/rule-negator.ts";
export { createLlmNegator } from "./perturb/llm-negator.ts";
export { loadWorkflowPrompt, renderWorkflowPrompt, BUNDLED_PROMPT_DIR } from "./nodes/prompts.ts";
export { splitSentences, countWords, countSentences } from "./nodes/text-stats.ts";
