/**
 * RWESummary (seed 002) published numbers: Table 1 (per model: direction of effect, numbers
 * accurate, completeness — the jury's mean verdict over 13 studies, 0–1 — and inference time in
 * seconds) and Figure 2 (the example weighted rubric: outcome weights, each model's min–max
 * normalised outcomes and final score in %, and the normalising min and max). No ± is printed.
 *
 * This is the one transcription of Table 1 in the tree: the weighted-score test
 * (tests/judges/rwe-weighted-score.test.ts) reproduces Figure 2 from {@link RWESUMMARY_TABLE1}.
 *
 * @see ../../../../shared/seeds/002_* (Results, Table 1 and Figure 2).
 */
import { numericTable, type PublishedValue } from "./schema.ts";

const paper = "rwesummary" as const;

/** Table 1 / Figure 2 outcome columns as printed. */
export const RWESUMMARY_OUTCOMES = ["Direction of Effect", "Numbers Accurate", "Completeness", "Inference Time"] as const;

/** Rubric metric id (judges/rwe-weighted-score.ts) of each outcome column. */
export const RWESUMMARY_METRIC_IDS: Readonly<Record<(typeof RWESUMMARY_OUTCOMES)[number], string>> = {
  "Direction of Effect": "direction_of_effect",
  "Numbers Accurate": "numbers_accurate",
  Completeness: "completeness",
  "Inference Time": "inference_time",
};

/** Table 1 as printed: model, direction of effect, numbers accurate, completeness, inference time (s). */
export const RWESUMMARY_TABLE1: readonly (readonly [string, string, string, string, string])[] = [
  ["Gemini 2.5 Flash", "0.923", "0.949", "1", "14.355"],
  ["Gemini 2.5 Pro", "0.949", "0.974", "0.897", "14.226"],
  ["Gemini 2.0 Flash", "0.897", "0.974", "0.949", "2.253"],
  ["o4-mini", "0.846", "0.923", "1", "20.477"],
  ["o3", "0.821", "0.897", "1", "22.788"],
  ["Claude 4 Sonnet", "0.923", "0.795", "0.821", "6.922"],
  ["GPT-4.1", "0.795", "0.897", "0.949", "4.456"],
  ["Claude 3.7 Sonnet", "0.718", "0.821", "0.949", "5.735"],
  ["Claude 4 Opus", "0.744", "0.769", "0.949", "9.585"],
];

/** The paper's model names: the values a `paperModel:` label takes for RWESummary. */
export const RWESUMMARY_MODELS: readonly string[] = RWESUMMARY_TABLE1.map((r) => r[0]);

/** Figure 2 column headers as printed: the four outcomes (normalised, %) and the final score. */
export const RWESUMMARY_FIG2_COLUMNS = [...RWESUMMARY_OUTCOMES, "Score"] as const;

/** Figure 2 model rows as printed: model, four normalised outcomes, score. */
const FIG2: [string, string][] = [
  ["Gemini 2.5 Flash", "89% 88% 100% 41% 99%"],
  ["Gemini 2.5 Pro", "100% 100% 42% 42% 100%"],
  ["Gemini 2.0 Flash", "77% 100% 72% 100% 94%"],
  ["o4-mini", "55% 75% 100% 11% 61%"],
  ["o3", "45% 62% 100% 0% 46%"],
  ["Claude 4 Sonnet", "89% 13% 0% 77% 61%"],
  ["GPT-4.1", "33% 62% 72% 89% 42%"],
  ["Claude 3.7 Sonnet", "0% 25% 72% 83% 0%"],
  ["Claude 4 Opus", "11% 0% 72% 64% 1%"],
];

/** Figure 2 rows of the rubric itself: weights and normalising bounds, one cell per outcome. */
const FIG2_RUBRIC: [string, string][] = [
  ["Outcome weight", "20 6 5 3"],
  ["Normalizing Min", "0.718 0.769 0.821 2.253"],
  ["Normalizing Max", "0.949 0.974 1.000 22.788"],
];

/** Every RWESummary value of Table 1 and Figure 2, in table order. */
export const RWESUMMARY_PUBLISHED: readonly PublishedValue[] = Object.freeze([
  ...numericTable(
    { paper, table: "Table 1" },
    RWESUMMARY_OUTCOMES,
    RWESUMMARY_TABLE1.map(([model, ...cells]) => ({ row: { model }, cells })),
  ),
  ...numericTable(
    { paper, table: "Figure 2" },
    RWESUMMARY_OUTCOMES,
    FIG2_RUBRIC.slice(0, 1).map(([rubric, c]) => ({ row: { rubric }, cells: c.split(" ") })),
  ),
  ...numericTable(
    { paper, table: "Figure 2" },
    RWESUMMARY_FIG2_COLUMNS,
    FIG2.map(([model, c]) => ({ row: { model }, cells: c.split(" ") })),
  ),
  ...numericTable(
    { paper, table: "Figure 2" },
    RWESUMMARY_OUTCOMES,
    FIG2_RUBRIC.slice(1).map(([rubric, c]) => ({ row: { rubric }, cells: c.split(" ") })),
  ),
]);
