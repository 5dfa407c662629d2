/**
 * MedConclusion (seed 000) published numbers: Table 2 (five LLM-judge dimensions, 0–100, per model
 * under the primary judge GPT-5.4-mini, mode A), Table 3 (rule-based metrics, mode A), Table 4
 * (judge dimensions for GPT-5.4 and Gemini 3 Flash in prompt modes A–D) and Table 5 (the judge
 * swap: the same three generators under GPT-5.4-mini and under Gemini 3 Flash). No ± is printed.
 * Cells are kept as printed.
 *
 * @see ../../../../shared/seeds/000_* (§3.2, Tables 2–5).
 */
import { numericTable, type PublishedValue } from "./schema.ts";

const paper = "medconclusion" as const;

/** Judge-dimension column headers of Tables 2, 4 and 5 as printed (arrows left out). */
export const MEDCONCLUSION_JUDGE_COLUMNS = ["Semantic Sim.", "Writing Style Sim.", "Non-Contradiction Rate", "Numeric Consistency", "Formality Sim."] as const;
/** Table 3 column headers as printed (arrows left out). */
export const MEDCONCLUSION_T3_COLUMNS = ["WC Ratio", "SC Ratio", "Embed. Sim.", "ROUGE-1", "ROUGE-2", "ROUGE-L", "BLEU", "PPL Orig.", "PPL Gen."] as const;
/** The paper's primary and secondary judges (§3.2). */
export const MEDCONCLUSION_JUDGES = { primary: "GPT-5.4-mini", secondary: "Gemini 3 Flash" } as const;

type Group = "General-purpose Models" | "Reasoning Models" | "Vision-Language Models";

/** Table 2 rows as printed: group, model, five cells. */
const T2: [Group, string, string][] = [
  ["General-purpose Models", "GPT-5.4", "73.22 71.21 84.61 88.24 89.80"],
  ["General-purpose Models", "Gemini 3.1 Pro", "71.87 70.13 82.02 86.92 89.49"],
  ["General-purpose Models", "Gemini 3 Flash", "71.33 69.87 81.76 86.45 89.17"],
  ["General-purpose Models", "Gemma-3-27B", "71.03 69.18 81.55 84.13 89.36"],
  ["General-purpose Models", "DeepSeek-V3.2", "69.47 68.21 80.31 86.22 88.59"],
  ["General-purpose Models", "Llama-3.1-8B", "70.53 66.69 80.24 79.82 88.03"],
  ["General-purpose Models", "MiniMax-M2.1", "71.21 66.95 81.89 73.65 88.83"],
  ["General-purpose Models", "Gemma-2-9B", "69.31 67.42 79.12 75.05 88.41"],
  ["General-purpose Models", "Qwen3-4B", "69.80 66.35 78.96 71.78 88.47"],
  ["General-purpose Models", "Qwen2.5-7B", "66.87 65.74 77.50 77.31 86.60"],
  ["General-purpose Models", "Llama-3.2-1B", "54.17 50.69 66.14 82.69 78.35"],
  ["Reasoning Models", "Kimi-K2", "69.79 66.36 80.92 61.62 88.62"],
  ["Reasoning Models", "DeepSeek-R1", "68.93 48.06 79.67 75.58 75.91"],
  ["Vision-Language Models", "GLM-4.6V", "70.86 68.83 80.50 80.19 88.87"],
  ["Vision-Language Models", "Qwen2.5-VL-7B", "68.96 64.74 78.73 71.82 87.34"],
];

/** The paper's model names (Table 2 spelling): the values a `paperModel:` label takes for MedConclusion. */
export const MEDCONCLUSION_MODELS: readonly string[] = T2.map((r) => r[1]);

/** Table 3 rows as printed (same order as Table 2): model, nine cells. */
const T3: [string, string][] = [
  ["GPT-5.4", "2.19 1.71 0.77 0.34 0.10 0.21 0.04 70.26 40.39"],
  ["Gemini 3.1 Pro", "2.28 1.75 0.73 0.33 0.10 0.21 0.04 70.26 34.54"],
  ["Gemini 3 Flash", "2.12 1.69 0.74 0.34 0.10 0.21 0.04 70.26 33.87"],
  ["Gemma-3-27B", "2.49 2.01 0.77 0.32 0.09 0.20 0.04 70.26 30.46"],
  ["DeepSeek-V3.2", "1.73 1.38 0.76 0.35 0.11 0.23 0.05 70.26 47.14"],
  ["Llama-3.1-8B", "2.67 2.06 0.74 0.32 0.10 0.20 0.04 70.26 21.47"],
  ["MiniMax-M2.1", "3.11 2.39 0.76 0.30 0.09 0.19 0.03 70.26 30.69"],
  ["Gemma-2-9B", "2.38 2.12 0.78 0.33 0.10 0.21 0.04 70.26 30.06"],
  ["Qwen3-4B", "3.05 2.20 0.75 0.30 0.09 0.19 0.03 70.26 25.92"],
  ["Qwen2.5-7B", "1.78 1.59 0.75 0.34 0.11 0.22 0.05 70.26 35.26"],
  ["Llama-3.2-1B", "1.82 1.23 0.72 0.31 0.09 0.20 0.04 70.26 29.88"],
  ["Kimi-K2", "2.90 2.79 0.75 0.30 0.09 0.18 0.03 70.26 60.76"],
  ["DeepSeek-R1", "9.45 11.17 0.40 0.15 0.05 0.10 0.01 70.26 36.67"],
  ["GLM-4.6V", "2.23 1.99 0.76 0.34 0.11 0.22 0.05 70.26 30.72"],
  ["Qwen2.5-VL-7B", "2.89 2.49 0.75 0.31 0.10 0.20 0.04 70.26 23.52"],
];

/** Prompt modes of Table 4 (§3.2): what each asks for and its section header in the table. */
export const MEDCONCLUSION_MODES = {
  A: { target: "conclusion", setting: "Prompt without Formatting Restriction" },
  B: { target: "summary", setting: "Prompt without Formatting Restriction" },
  C: { target: "conclusion", setting: "Prompt with Length and Writing Style Restriction" },
  D: { target: "summary", setting: "Prompt with Length and Writing Style Restriction" },
} as const;

/** Table 4 rows as printed: mode, model, five cells. */
const T4: [keyof typeof MEDCONCLUSION_MODES, string, string][] = [
  ["A", "GPT-5.4", "73.22 71.20 84.61 88.24 89.80"],
  ["A", "Gemini 3 Flash", "71.33 69.87 81.76 86.45 89.17"],
  ["B", "GPT-5.4", "72.11 62.60 83.96 66.24 88.47"],
  ["B", "Gemini 3 Flash", "71.04 61.55 82.44 58.09 88.11"],
  ["C", "GPT-5.4", "70.90 69.07 82.17 91.36 87.54"],
  ["C", "Gemini 3 Flash", "68.59 67.24 78.47 91.82 86.51"],
  ["D", "GPT-5.4", "64.99 60.13 78.76 74.06 85.35"],
  ["D", "Gemini 3 Flash", "64.16 62.29 75.51 77.66 85.28"],
];

/** Table 5 rows as printed: judge, model, five cells. */
const T5: [string, string, string][] = [
  ["GPT-5.4-mini", "GPT-5.4", "73.22 71.20 84.61 88.24 89.80"],
  ["GPT-5.4-mini", "Gemini 3.1 Pro", "71.87 70.13 82.02 86.92 89.49"],
  ["GPT-5.4-mini", "Gemini 3 Flash", "71.33 69.87 81.76 86.45 89.17"],
  ["Gemini 3 Flash", "GPT-5.4", "84.30 71.49 97.51 98.18 92.50"],
  ["Gemini 3 Flash", "Gemini 3.1 Pro", "82.64 68.41 96.58 97.53 90.70"],
  ["Gemini 3 Flash", "Gemini 3 Flash", "82.59 70.04 96.62 97.28 91.46"],
];

const cells = (s: string) => s.split(" ");
const group = (model: string): Group => T2.find((r) => r[1] === model)![0];

/** Every MedConclusion value of Tables 2–5, in table order. */
export const MEDCONCLUSION_PUBLISHED: readonly PublishedValue[] = Object.freeze([
  ...numericTable(
    { paper, table: "Table 2" },
    MEDCONCLUSION_JUDGE_COLUMNS,
    T2.map(([g, model, c]) => ({ row: { group: g, model, judge: MEDCONCLUSION_JUDGES.primary, mode: "A" }, cells: cells(c) })),
  ),
  ...numericTable(
    { paper, table: "Table 3" },
    MEDCONCLUSION_T3_COLUMNS,
    T3.map(([model, c]) => ({ row: { group: group(model), model, mode: "A" }, cells: cells(c) })),
  ),
  ...numericTable(
    { paper, table: "Table 4" },
    MEDCONCLUSION_JUDGE_COLUMNS,
    T4.map(([mode, model, c]) => ({
      row: { setting: MEDCONCLUSION_MODES[mode].setting, mode, target: MEDCONCLUSION_MODES[mode].target, model, judge: MEDCONCLUSION_JUDGES.primary },
      cells: cells(c),
    })),
  ),
  ...numericTable(
    { paper, table: "Table 5" },
    MEDCONCLUSION_JUDGE_COLUMNS,
    T5.map(([judge, model, c]) => ({ row: { judge, model, mode: "A" }, cells: cells(c) })),
  ),
]);
