/**
 * MedConclusion prompt modes A–D (MedConclusion §3.2, Appendix B): the non-conclusion sections of
 * a structured abstract → its conclusion. Four registered workflows sharing one node:
 * - `conclusion-a`: formal academic conclusion, free length (paper default);
 * - `conclusion-b`: formal academic summary, free length;
 * - `conclusion-c`: conclusion with the reference's sentence and word counts as targets, in the abstract's style;
 * - `conclusion-d`: summary with the same targets and style instruction.
 * Every template forbids claims not in the given sections. Graph: START → write → END.
 * With an extractive model the sections are the evidence (one passage per section) and C/D pass
 * the target word count.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { ConclusionTask } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { chatStep, isExtractiveModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph } from "./nodes/run-context.ts";
import { countSentences, countWords } from "./nodes/text-stats.ts";
import type { RunnableWorkflow, WorkflowDefinition, WorkflowDeps } from "./types.ts";

/** The four modes. */
export type ConclusionMode = "a" | "b" | "c" | "d";

/** What each mode asks for. */
export const CONCLUSION_MODES: Record<ConclusionMode, { kind: "conclusion" | "summary"; constrained: boolean }> = {
  a: { kind: "conclusion", constrained: false },
  b: { kind: "summary", constrained: false },
  c: { kind: "conclusion", constrained: true },
  d: { kind: "summary", constrained: true },
};

/** Modes have no options. */
export const ConclusionModeConfigSchema = z.object({}).strict();
/** {@link ConclusionModeConfigSchema} after parsing (defaults applied). */
export type ConclusionModeConfig = z.infer<typeof ConclusionModeConfigSchema>;

/**
 * Targets of the constrained modes, from the reference conclusion.
 * @returns sentence count (≥ 1) and word count as computed by graphs/nodes/text-stats.ts
 */
export function conclusionTargets(reference: string): { targetSentences: number; targetWords: number } {
  return { targetSentences: Math.max(1, countSentences(reference)), targetWords: countWords(reference) };
}

/** Sections as prompt text: "LABEL: text" per line (unlabelled sections without a prefix). */
export function formatSections(task: ConclusionTask): string {
  return task.sections.map((s) => (s.label ? `${s.label}: ${s.text}` : s.text)).join("\n");
}

const State = Annotation.Root({ task: Annotation<ConclusionTask>, output: Annotation<string>, sentences: Annotation<{ docId: string; text: string }[] | undefined> });

function makeDefinition(mode: ConclusionMode): WorkflowDefinition<"conclusion", typeof ConclusionModeConfigSchema> {
  const id = `conclusion-${mode}`;
  const spec = CONCLUSION_MODES[mode];
  const create = (deps: WorkflowDeps, rawConfig: z.input<typeof ConclusionModeConfigSchema>): RunnableWorkflow<"conclusion"> => {
    ConclusionModeConfigSchema.parse(rawConfig ?? {});
    const prompt = loadWorkflowPrompt(id, deps.promptDir);
    const graph = new StateGraph(State)
      .addNode("write", async (s, c) => {
        const t = s.task;
        const targets = spec.constrained ? conclusionTargets(t.referenceConclusion) : null;
        if (isExtractiveModel(deps.model)) {
          const evidence: EvidencePassage[] = t.sections.map((sec, i) => ({ id: `${t.pmid ?? t.id}#${i}`, title: sec.label ?? "", text: sec.text }));
          const r = deps.model.synthesize({ question: t.title ?? t.id, evidence, ...(targets ? { targetWords: targets.targetWords, targetSentences: targets.targetSentences } : {}) });
          return { output: r.text, sentences: r.sentences };
        }
        const vars: Record<string, string | number> = { title: t.title ?? "(no title)", abstract: formatSections(t) };
        if (targets) Object.assign(vars, { target_sentences: targets.targetSentences, target_words: targets.targetWords });
        return { output: await chatStep(getRunContext(c), deps.model, "write", prompt, vars) };
      })
      .addEdge(START, "write")
      .addEdge("write", END)
      .compile();
    return {
      id,
      run: (task: ConclusionTask, opts) =>
        runGraph(graph, { task }, { ...opts, recursionLimit: 4 }, (s) => ({
          output: s.output,
          intermediate: { mode, ...CONCLUSION_MODES[mode], ...(spec.constrained ? conclusionTargets(task.referenceConclusion) : {}), ...(s.sentences ? { extractedSentences: s.sentences } : {}) },
        })),
    };
  };
  return {
    id,
    taskKind: "conclusion",
    description: `MedConclusion mode ${mode.toUpperCase()}: formal ${spec.kind}${spec.constrained ? " with the reference's sentence/word counts and the abstract's style" : ", free length"}`,
    configSchema: ConclusionModeConfigSchema,
    create,
  };
}

/** Mode A: conclusion, free. */
export const conclusionAWorkflow = makeDefinition("a");
/** Mode B: summary, free. */
export const conclusionBWorkflow = makeDefinition("b");
/** Mode C: conclusion, constrained (target counts from the reference, abstract's style). */
export const conclusionCWorkflow = makeDefinition("c");
/** Mode D: summary, constrained. */
export const conclusionDWorkflow = makeDefinition("d");
