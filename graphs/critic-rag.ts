/**
 * Critic-RAG (robustness suite, issue 15; MedMeta §5 calls for "more robust and critical RAG"):
 * before synthesising, check the evidence for internal conflicts, numbers inconsistent with their
 * CIs or p-values, retracted and implausible studies; write down what was found; then synthesise
 * from the evidence minus what was excluded — or abstain with a reason.
 * Graph: START → check → (abstain ? END : synthesize → END).
 *
 * The check always runs the offline rules (graphs/perturb/evidence-checks.ts). With an LLM it also
 * asks the model (prompt `critic-check`, structured answer; the model sees every passage, both
 * versions of a contradicted study included, and the rule findings). Rule findings exclude the
 * passages they name when `onRuleFinding: "exclude"` (default) — for a conflict, both sides.
 * Evidence arrives perturbed when `op` is set (same params as Perturbed-RAG), so the critic is
 * measured on the same corrupted evidence as the plain workflows.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import { docToPassage, formatEvidence, synthesizeFromEvidence, type SynthesisOutput } from "./nodes/evidence.ts";
import { isChatModel, isExtractiveModel, structuredStep } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph, skippedResult } from "./nodes/run-context.ts";
import { checkEvidence, type EvidenceFinding } from "./perturb/evidence-checks.ts";
import { applyPerturbations, createPerturbation, PERTURBATION_IDS, perturbationListCalls } from "./perturb/registry.ts";
import type { PerturbationStep, PerturbedPassage } from "./perturb/types.ts";
import { perturbationSpecs, PerturbedRagConfigSchema, retrieverSearch } from "./perturbed-rag.ts";
import { addCalls, NO_CALLS, SKIPPED_CELL, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const CRITIC_RAG_ID = "critic-rag";

/** Text of an abstention (the output of an item the critic abstained on). */
export const ABSTAIN_PREFIX = "No conclusion can be drawn from this evidence:";

/** Critic-RAG options: optional perturbation of the evidence (as Perturbed-RAG) + critic settings. */
export const CriticRagConfigSchema = PerturbedRagConfigSchema.extend({
  op: z.enum(PERTURBATION_IDS).optional(),
  /** What a rule finding does to the passages it names. */
  onRuleFinding: z.enum(["exclude", "note"]).default("exclude"),
  /** Ask the LLM critic (when the generator is an LLM). */
  llmCritic: z.boolean().default(true),
}).strict();

/** Structured answer of the LLM critic. */
export const CriticAnswerSchema = z.object({
  findings: z.array(z.object({ pmids: z.array(z.string()), issue: z.string(), action: z.enum(["exclude", "downweight"]) })),
  abstain: z.boolean(),
  reason: z.string(),
});

const CriticState = Annotation.Root({
  topic: Annotation<string>,
  itemId: Annotation<string>,
  evidence: Annotation<PerturbedPassage[]>,
  steps: Annotation<PerturbationStep[]>,
  evidenceHash: Annotation<string | null>,
  ruleFindings: Annotation<EvidenceFinding[]>,
  llmFindings: Annotation<z.infer<typeof CriticAnswerSchema> | null>,
  kept: Annotation<PerturbedPassage[]>,
  abstained: Annotation<string | null>,
  synthesis: Annotation<SynthesisOutput | null>,
});

function create(deps: WorkflowDeps, rawConfig: z.input<typeof CriticRagConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = CriticRagConfigSchema.parse(rawConfig ?? {});
  const synthPrompt = loadWorkflowPrompt("rag-synthesize", deps.promptDir);
  const criticPrompt = loadWorkflowPrompt("critic-check", deps.promptDir);
  const llm = isChatModel(deps.model) ? deps.model : undefined;
  const ops = config.op ? perturbationSpecs({ ...config, op: config.op }).map((s) => createPerturbation(s, { model: llm, promptDir: deps.promptDir })) : [];
  const search = retrieverSearch(deps);

  const graph = new StateGraph(CriticState)
    .addNode("check", async (s, c) => {
      const ctx = getRunContext(c);
      const p = ops.length
        ? await applyPerturbations(ops, s.evidence, {
            itemId: s.itemId,
            question: s.topic,
            seed: config.seed,
            goldenIds: new Set(s.evidence.map((e) => e.id)),
            pool: deps.corpus,
            poolSource: deps.corpusSource,
            search,
            run: ctx,
          })
        : { evidence: s.evidence, steps: [], hash: null };
      const ruleFindings = checkEvidence(p.evidence);
      const excluded = new Set<string>(config.onRuleFinding === "exclude" ? ruleFindings.flatMap((f) => f.ids) : []);
      let llmFindings: z.infer<typeof CriticAnswerSchema> | null = null;
      if (llm && config.llmCritic) {
        const vars = {
          topic: s.topic,
          abstracts: formatEvidence(p.evidence),
          ruleFindings: ruleFindings.length ? ruleFindings.map((f) => `- ${f.kind}: PMIDs ${f.ids.join(", ")} — ${f.detail}`).join("\n") : "(none)",
        };
        llmFindings = await structuredStep(ctx, llm, "check", criticPrompt, vars, CriticAnswerSchema, "critic_findings");
        for (const f of llmFindings.findings) if (f.action === "exclude") f.pmids.forEach((id) => excluded.add(id));
      }
      const kept = p.evidence.filter((e) => !excluded.has(e.id));
      const abstained = llmFindings?.abstain ? llmFindings.reason || "the critic abstained" : kept.length === 0 ? "every passage was excluded by the checks" : null;
      return { evidence: p.evidence, steps: p.steps, evidenceHash: p.hash, ruleFindings, llmFindings, kept, abstained };
    })
    .addNode("synthesize", async (s, c) => ({
      synthesis: await synthesizeFromEvidence(getRunContext(c), deps.model, synthPrompt, { topic: s.topic, evidence: s.kept, targetWords: config.targetWords }),
    }))
    .addEdge(START, "check")
    .addConditionalEdges("check", (s) => (s.abstained ? END : "synthesize"))
    .addEdge("synthesize", END)
    .compile();

  return {
    id: CRITIC_RAG_ID,
    async run(task: SynthesisTask, opts) {
      if (task.goldenDocs.length === 0) return skippedResult(`no golden abstracts for item '${task.id}' to check`);
      const init = { topic: task.question, itemId: task.id, evidence: task.goldenDocs.map(docToPassage), synthesis: null, abstained: null };
      return runGraph(graph, init, { ...opts, recursionLimit: 6 }, (s) => ({
        output: s.abstained ? `${ABSTAIN_PREFIX} ${s.abstained}` : s.synthesis!.text,
        intermediate: {
          critic: {
            ruleFindings: s.ruleFindings,
            llmFindings: s.llmFindings,
            excludedIds: s.evidence.filter((e) => !s.kept.some((k) => k.id === e.id)).map((e) => e.id),
            abstained: s.abstained !== null,
            abstainReason: s.abstained,
          },
          ...(config.op
            ? {
                perturbation: {
                  op: config.op,
                  strength: config.strength,
                  also: config.also ?? null,
                  steps: s.steps,
                  evidenceHash: s.evidenceHash,
                  evidence: s.evidence.map(({ id, title, text, retracted }) => ({ id, title, text, ...(retracted ? { retracted } : {}) })),
                },
              }
            : {}),
          evidenceIds: s.kept.map((p) => p.id),
          ...(s.synthesis?.sentences ? { extractedSentences: s.synthesis.sentences } : {}),
          criticMode: isExtractiveModel(deps.model) || !config.llmCritic ? "rules" : "rules+llm",
        },
      }));
    },
  };
}

/** Critic-RAG definition (task kind "synthesis"). */
export const criticRagWorkflow: WorkflowDefinition<"synthesis", typeof CriticRagConfigSchema> = {
  id: CRITIC_RAG_ID,
  taskKind: "synthesis",
  description: "Critic-RAG (robustness): check the (optionally perturbed) evidence for conflicts, inconsistent numbers, retracted/implausible studies (rules + LLM) → exclude or abstain → synthesize",
  configSchema: CriticRagConfigSchema,
  create,
  // operators (when `op` is set) + the LLM check (structured, when llmCritic) + synthesis (left out when the critic abstains)
  llmCalls: (c, i) => {
    if (i.passages === 0) return SKIPPED_CELL;
    if (!i.llm) return NO_CALLS;
    const ops = c.op ? perturbationListCalls(perturbationSpecs({ ...c, op: c.op }), i.passages, true) : NO_CALLS;
    const check = c.llmCritic ? { min: 1, max: 1, structured: 1 } : NO_CALLS;
    return addCalls(ops, check, { min: 0, max: 1, structured: 0 });
  },
};
