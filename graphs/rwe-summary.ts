/**
 * RWE summary (RWESummary, "Prompt" section): a structured real-world-evidence study
 * ({@link RweStudy}: question, PICOT design, group sizes, baseline differences, outcomes with
 * estimate, CI and p) → a plain-English summary answering the question.
 *
 * The template is chosen by design (`rwe-summary-cohort|case-series|cross-sectional`). The model
 * gets the structured study itself ({@link formatStudyRaw}: the study output as JSON, as the paper
 * passes it), with no significance pre-labelled: the template tells it to apply p < `alpha` (0.05)
 * itself, plus the paper's other instructions (about 100 words; percentages and Charlson scores to
 * one decimal; baseline differences never called significant; no statements without outcomes).
 * When `propensityMatched`, the `rwe-psm-note` template's note is added. Two example summaries
 * are always included: the templates `rwe-summary-example-1|2` (our own invented studies; replace
 * them through the prompt folder), or the text of `fewShotFile` instead. Graph: START → summarize
 * → END. With an extractive model the formatted study lines, labelled by the p-value rule, are the
 * evidence (a baseline that cannot reason applies the rule by code).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { RweOutcome, RweStudy } from "../corpus/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { chatStep, isExtractiveModel } from "./nodes/model-call.ts";
import { loadWorkflowPrompt, renderWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph } from "./nodes/run-context.ts";
import { NO_CALLS, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const RWE_SUMMARY_ID = "rwe-summary";

/** RWE summary options. */
export const RweSummaryConfigSchema = z
  .object({
    /** Significance level of the p-value rule (paper: 0.05). */
    alpha: z.number().gt(0).lt(1).default(0.05),
    /** Text file of example summaries shown to the model instead of the bundled two (templates `rwe-summary-example-1|2`). */
    fewShotFile: z.string().min(1).optional(),
    /** Show example summaries at all (paper: two, always). */
    examples: z.boolean().default(true),
  })
  .strict();
/** {@link RweSummaryConfigSchema} after parsing (defaults applied). */
export type RweSummaryConfig = z.infer<typeof RweSummaryConfigSchema>;

/** Template file name per design. */
export const RWE_TEMPLATES: Record<RweStudy["design"], string> = { cohort: "rwe-summary-cohort", "case series": "rwe-summary-case-series", "cross-sectional": "rwe-summary-cross-sectional" };

/**
 * One outcome as a line: "name: OR 0.866 (95% CI 0.665 to 1.13), p = 0.28 — not statistically
 * significant (p ≥ 0.05)"; with `alpha` null, no significance label (the extractive baseline's evidence uses the label).
 */
export function formatOutcome(o: RweOutcome, alpha: number | null): string {
  const ci = o.ciLower !== null && o.ciUpper !== null ? ` (95% CI ${o.ciLower} to ${o.ciUpper})` : "";
  const p = o.pValue !== null ? `, p = ${o.pValue}` : ", p not reported";
  const sig = o.pValue === null || alpha === null ? "" : o.pValue < alpha ? ` — statistically significant (p < ${alpha})` : ` — not statistically significant (p ≥ ${alpha})`;
  const events = o.exposedEvents != null || o.comparatorEvents != null ? `; events exposed ${o.exposedEvents ?? "n/a"}, comparator ${o.comparatorEvents ?? "n/a"}` : "";
  return `${o.name}: ${o.measure} ${o.estimate}${ci}${p}${sig}${events}${o.note ? ` (${o.note})` : ""}`;
}

/** The PICOT block. */
export function formatDesign(s: RweStudy): string {
  const d = s.picot;
  return [
    `Study type: ${s.design}`,
    `Population: ${d.population}`,
    `Intervention/exposure: ${d.intervention}`,
    `Comparator: ${d.comparator ?? "none"}`,
    `Outcomes: ${d.outcomes.join("; ") || "see results"}`,
    `Time frame: ${d.time ?? "not stated"}`,
  ].join("\n");
}

/**
 * The study as the model and the jurors see it: its structured output as indented JSON (question,
 * design, PICOT, group sizes, propensity matching, baseline differences, outcomes with estimate,
 * CI and p), with no significance labels and no dataset bookkeeping (id, dataset, source).
 */
export function formatStudyRaw(s: RweStudy): string {
  const { question, design, picot, cohortSizes, propensityMatched, baselineDifferences, outcomes } = s;
  return JSON.stringify({ question, design, picot, cohortSizes, propensityMatched, baselineDifferences, outcomes }, null, 2);
}

/** The results block: sizes, baseline differences, every outcome (labelled by the p-value rule unless `alpha` is null). */
export function formatResults(s: RweStudy, alpha: number | null): string {
  const sizes = `Group sizes: exposed ${s.cohortSizes.exposed ?? "not reported"}, comparator ${s.cohortSizes.comparator ?? "not reported"}${s.cohortSizes.total != null ? `, total ${s.cohortSizes.total}` : ""}`;
  const base = s.baselineDifferences.length ? ["Baseline differences:", ...s.baselineDifferences.map((b) => `- ${b.variable}: ${b.description}`)] : ["Baseline differences: none reported"];
  return [sizes, ...base, "Outcomes:", ...s.outcomes.map((o) => `- ${formatOutcome(o, alpha)}`)].join("\n");
}

const State = Annotation.Root({ study: Annotation<RweStudy>, output: Annotation<string>, sentences: Annotation<{ docId: string; text: string }[] | undefined> });

function create(deps: WorkflowDeps, rawConfig: z.input<typeof RweSummaryConfigSchema>): RunnableWorkflow<"rwe"> {
  const config = RweSummaryConfigSchema.parse(rawConfig ?? {});
  let examples = "";
  const header = "\nExample summaries of other studies (for form only; their numbers do not apply here):\n";
  if (config.examples && !config.fewShotFile) {
    const shown = ["rwe-summary-example-1", "rwe-summary-example-2"].map((n) =>
      renderWorkflowPrompt(loadWorkflowPrompt(n, deps.promptDir), {})
        .map((m) => m.content)
        .join("\n"),
    );
    examples = `${header}\n${shown.join("\n\n")}`;
  } else if (config.examples && config.fewShotFile) {
    let text: string;
    try {
      text = readFileSync(config.fewShotFile, "utf8").trim();
    } catch (err) {
      throw new Error(`rwe-summary fewShotFile '${config.fewShotFile}' cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!text) throw new Error(`rwe-summary fewShotFile '${config.fewShotFile}' is empty`);
    examples = `${header}${text}`;
  }
  const prompts = Object.fromEntries(Object.entries(RWE_TEMPLATES).map(([d, name]) => [d, loadWorkflowPrompt(name, deps.promptDir)]));
  const psm = loadWorkflowPrompt("rwe-psm-note", deps.promptDir);
  const psmNote = renderWorkflowPrompt(psm, {})
    .map((m) => m.content)
    .join("\n");
  const graph = new StateGraph(State)
    .addNode("summarize", async (s, c) => {
      const st = s.study;
      if (isExtractiveModel(deps.model)) {
        const lines = [
          `Study type: ${st.design}. ${st.question}`,
          formatResults(st, config.alpha)
            .split("\n")
            .filter((l) => !l.endsWith(":"))
            .join("\n"),
        ].join("\n");
        const evidence: EvidencePassage[] = lines.split("\n").map((text, i) => ({ id: `${st.id}#${i}`, title: "", text: text.replace(/^- /, "").replace(/([^.])$/, "$1.") }));
        const r = deps.model.synthesize({ question: st.question, evidence });
        return { output: r.text, sentences: r.sentences };
      }
      const vars = { question: st.question, study: formatStudyRaw(st), psm_note: st.propensityMatched ? psmNote : "", alpha: config.alpha, examples };
      return { output: await chatStep(getRunContext(c), deps.model, "summarize", prompts[st.design], vars) };
    })
    .addEdge(START, "summarize")
    .addEdge("summarize", END)
    .compile();
  return {
    id: RWE_SUMMARY_ID,
    run: (study: RweStudy, opts) =>
      runGraph(graph, { study }, { ...opts, recursionLimit: 4 }, (s) => ({
        output: s.output,
        intermediate: {
          design: study.design,
          template: RWE_TEMPLATES[study.design],
          propensityMatched: study.propensityMatched,
          examples: !config.examples ? "none" : config.fewShotFile ? "file" : "bundled",
          ...(s.sentences ? { extractedSentences: s.sentences } : {}),
        },
      })),
  };
}

/** RWE summary definition (task kind "rwe"). */
export const rweSummaryWorkflow: WorkflowDefinition<"rwe", typeof RweSummaryConfigSchema> = {
  id: RWE_SUMMARY_ID,
  taskKind: "rwe",
  description:
    "RWE summary (RWESummary): structured RWE study (raw, unlabelled) → plain-English summary; design-specific instructions, p < 0.05 rule applied by the model, PSM note, two example summaries",
  configSchema: RweSummaryConfigSchema,
  create,
  // one summary call (an extractive baseline selects sentences without a call)
  llmCalls: (_c, i) => (i.llm ? { min: 1, max: 1, structured: 0 } : NO_CALLS),
};
