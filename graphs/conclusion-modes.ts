/**
 * MedConclusion prompt modes (MedConclusion §3.2, Appendix B, and the authors' code, which has
 * seven): the non-conclusion sections of a structured abstract → its conclusion. Registered
 * workflows sharing one node:
 * - `conclusion-a`: formal academic conclusion, free length (paper default);
 * - `conclusion-b`: formal academic summary, free length;
 * - `conclusion-c`: conclusion with the reference's sentence and word counts as targets, in the abstract's style;
 * - `conclusion-d`: summary with the same targets and style instruction;
 * - `conclusion-sentences`: conclusion with the reference's sentence count as the only target;
 * - `conclusion-unrestricted`, `summary-unrestricted`: no register, length or style instruction at all.
 * Every template forbids claims not in the given sections. Graph: START → write → END.
 * With an extractive model the sections are the evidence (one passage per section) and the
 * targeted modes pass their targets.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { ConclusionTask } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { chatStep, isExtractiveModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph } from "./nodes/run-context.ts";
import { countSentences, countWords } from "./nodes/text-stats.ts";
import { NO_CALLS, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** The modes (A–D of the paper; the authors' three others by name). */
export type ConclusionMode = "a" | "b" | "c" | "d" | "sentences" | "unrestricted" | "summary-unrestricted";

/**
 * What each mode asks for: `kind`, `targets` taken from the reference ("none", "sentences" only,
 * or "sentences-words"), `constrained` (= any target), `formal` (formal academic register asked).
 */
export const CONCLUSION_MODES: Record<ConclusionMode, { id: string; kind: "conclusion" | "summary"; constrained: boolean; targets: "none" | "sentences" | "sentences-words"; formal: boolean }> = {
  a: { id: "conclusion-a", kind: "conclusion", constrained: false, targets: "none", formal: true },
  b: { id: "conclusion-b", kind: "summary", constrained: false, targets: "none", formal: true },
  c: { id: "conclusion-c", kind: "conclusion", constrained: true, targets: "sentences-words", formal: true },
  d: { id: "conclusion-d", kind: "summary", constrained: true, targets: "sentences-words", formal: true },
  sentences: { id: "conclusion-sentences", kind: "conclusion", constrained: true, targets: "sentences", formal: true },
  unrestricted: { id: "conclusion-unrestricted", kind: "conclusion", constrained: false, targets: "none", formal: false },
  "summary-unrestricted": { id: "summary-unrestricted", kind: "summary", constrained: false, targets: "none", formal: false },
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

/** The targets a mode passes on: none, the sentence count only, or sentence and word counts. */
function targetsOf(kind: "none" | "sentences" | "sentences-words", reference: string): { targetSentences?: number; targetWords?: number } {
  if (kind === "none") return {};
  const t = conclusionTargets(reference);
  return kind === "sentences" ? { targetSentences: t.targetSentences } : t;
}

const State = Annotation.Root({ task: Annotation<ConclusionTask>, output: Annotation<string>, sentences: Annotation<{ docId: string; text: string }[] | undefined> });

function makeDefinition(mode: ConclusionMode): WorkflowDefinition<"conclusion", typeof ConclusionModeConfigSchema> {
  const spec = CONCLUSION_MODES[mode];
  const id = spec.id;
  const create = (deps: WorkflowDeps, rawConfig: z.input<typeof ConclusionModeConfigSchema>): RunnableWorkflow<"conclusion"> => {
    ConclusionModeConfigSchema.parse(rawConfig ?? {});
    const prompt = loadWorkflowPrompt(id, deps.promptDir);
    const graph = new StateGraph(State)
      .addNode("write", async (s, c) => {
        const t = s.task;
        const targets = targetsOf(spec.targets, t.referenceConclusion);
        if (isExtractiveModel(deps.model)) {
          const evidence: EvidencePassage[] = t.sections.map((sec, i) => ({ id: `${t.pmid ?? t.id}#${i}`, title: sec.label ?? "", text: sec.text }));
          const r = deps.model.synthesize({
            question: t.title ?? t.id,
            evidence,
            ...(targets.targetWords !== undefined ? { targetWords: targets.targetWords } : {}),
            ...(targets.targetSentences !== undefined ? { targetSentences: targets.targetSentences } : {}),
          });
          return { output: r.text, sentences: r.sentences };
        }
        const vars: Record<string, string | number> = { title: t.title ?? "", abstract: formatSections(t) }; // no title → no "Title:" line (models/prompt-template.ts)
        if (targets.targetSentences !== undefined) vars.target_sentences = targets.targetSentences;
        if (targets.targetWords !== undefined) vars.target_words = targets.targetWords;
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
          intermediate: {
            mode,
            kind: spec.kind,
            constrained: spec.constrained,
            targets: spec.targets,
            formal: spec.formal,
            ...targetsOf(spec.targets, task.referenceConclusion),
            ...(s.sentences ? { extractedSentences: s.sentences } : {}),
          },
        })),
    };
  };
  return {
    id,
    taskKind: "conclusion",
    description: `MedConclusion mode ${mode.length === 1 ? mode.toUpperCase() : mode}: ${spec.formal ? "formal " : ""}${spec.kind}${spec.targets === "sentences-words" ? " with the reference's sentence/word counts and the abstract's style" : spec.targets === "sentences" ? " with the reference's sentence count" : spec.formal ? ", free length" : ", no restriction"}`,
    configSchema: ConclusionModeConfigSchema,
    create,
    // one writing call (an extractive baseline selects sentences without a call)
    llmCalls: (_c, i) => (i.llm ? { min: 1, max: 1, structured: 0 } : NO_CALLS),
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
/** The authors' sentence-count mode: conclusion with the reference's sentence count as its only target. */
export const conclusionSentencesWorkflow = makeDefinition("sentences");
/** The authors' unrestricted conclusion mode: no register, length or style instruction. */
export const conclusionUnrestrictedWorkflow = makeDefinition("unrestricted");
/** The authors' unrestricted summary mode. */
export const summaryUnrestrictedWorkflow = makeDefinition("summary-unrestricted");
