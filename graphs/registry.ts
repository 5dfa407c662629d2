/**
 * Registry of workflows: id → {@link WorkflowDefinition}. Explicit imports, no discovery by side
 * effect. Ids: pzs, pcot, standard-rag, golden-rag, negated-rag, perturbed-rag, critic-rag, feasibility, conclusion-a…d,
 * conclusion-sentences, conclusion-unrestricted, summary-unrestricted, rwe-summary.
 */
import { criticRagWorkflow } from "./critic-rag.ts";
import {
  conclusionAWorkflow,
  conclusionBWorkflow,
  conclusionCWorkflow,
  conclusionDWorkflow,
  conclusionSentencesWorkflow,
  conclusionUnrestrictedWorkflow,
  summaryUnrestrictedWorkflow,
} from "./conclusion-modes.ts";
import { feasibilityWorkflow } from "./feasibility.ts";
import { goldenRagWorkflow } from "./golden-rag.ts";
import { negatedRagWorkflow } from "./negated-rag.ts";
import { pcotWorkflow } from "./pcot.ts";
import { perturbedRagWorkflow } from "./perturbed-rag.ts";
import { pzsWorkflow } from "./pzs.ts";
import { rweSummaryWorkflow } from "./rwe-summary.ts";
import { standardRagWorkflow } from "./standard-rag.ts";
import type { WorkflowDefinition } from "./types.ts";

/** Every registered workflow, in presentation order. */
export const WORKFLOWS: readonly WorkflowDefinition[] = [
  pzsWorkflow,
  pcotWorkflow,
  standardRagWorkflow,
  goldenRagWorkflow,
  negatedRagWorkflow,
  perturbedRagWorkflow,
  criticRagWorkflow,
  feasibilityWorkflow,
  conclusionAWorkflow,
  conclusionBWorkflow,
  conclusionCWorkflow,
  conclusionDWorkflow,
  conclusionSentencesWorkflow,
  conclusionUnrestrictedWorkflow,
  summaryUnrestrictedWorkflow,
  rweSummaryWorkflow,
] as unknown as WorkflowDefinition[];

const BY_ID = new Map<string, WorkflowDefinition>();
for (const w of WORKFLOWS) {
  if (BY_ID.has(w.id)) throw new Error(`duplicate workflow id '${w.id}' in graphs/registry.ts`);
  BY_ID.set(w.id, w);
}

/** Ids of all registered workflows. */
export function listWorkflowIds(): string[] {
  return [...BY_ID.keys()];
}

/**
 * Look up a workflow.
 * @throws Error listing the valid ids when `id` is unknown
 */
export function getWorkflow(id: string): WorkflowDefinition {
  const w = BY_ID.get(id);
  if (!w) throw new Error(`unknown workflow '${id}'; valid ids: ${listWorkflowIds().join(", ")}`);
  return w;
}
