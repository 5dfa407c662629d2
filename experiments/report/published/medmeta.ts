/**
 * MedMeta (seed 001) published numbers: Table 2 (mean LLM-judge score ± 95 % CI per model ×
 * workflow, 0–5), Table 3 (human–LLM-judge alignment: Pearson's r, mean bias with its 95 % limits
 * of agreement), Table 4 (paired t-tests for H2 and H3: N, mean difference, t, p, Cohen's d,
 * significance) and Table 5 (BERTScore F1 ± standard error). Cells are kept as printed.
 *
 * @see ../../../../shared/seeds/001_* (§4 Table 2, §5.1 Table 3, §5.2 Table 4, §6 Table 5).
 */
import { numericTable, parseCell, type PublishedValue } from "./schema.ts";

const paper = "medmeta" as const;

/** Table 2 column headers (workflows) as printed. */
export const MEDMETA_T2_COLUMNS = ["P-ZS", "P-CoT", "G-RAG", "K5-RAG", "K10-RAG", "N-RAG"] as const;

/** Table 2 rows as printed ("Mean LLM-Judge scores (±95% CI)"; P-ZS is printed without ±). */
const T2: [string, ...string[]][] = [
  ["Gemini Flash 2.5", "2.10", "2.90 ± 0.21", "3.16 ± 0.18", "3.03 ± 0.16", "3.17 ± 0.18", "1.01 ± 0.19"],
  ["O4 Mini", "2.00", "2.70 ± 0.22", "2.79 ± 0.20", "2.90 ± 0.18", "2.94 ± 0.21", "1.19 ± 0.24"],
  ["MedGemma 27B", "1.80", "2.17 ± 0.21", "2.72 ± 0.17", "2.68 ± 0.19", "2.46 ± 0.20", "1.00 ± 0.18"],
  ["Gemma 27B", "1.60", "1.77 ± 0.22", "2.58 ± 0.20", "2.37 ± 0.22", "2.31 ± 0.22", "0.98 ± 0.19"],
  ["Qwen3 8B", "1.70", "2.27 ± 0.24", "2.72 ± 0.16", "2.53 ± 0.24", "2.63 ± 0.22", "1.03 ± 0.20"],
  ["Qwen3 8B (reasoning)", "1.50", "2.00 ± 0.22", "2.56 ± 0.19", "2.46 ± 0.22", "2.30 ± 0.25", "1.00 ± 0.19"],
  ["Qwen3 8B-DeepSeek", "1.30", "1.94 ± 0.24", "2.55 ± 0.16", "2.10 ± 0.24", "2.13 ± 0.25", "1.17 ± 0.23"],
];

/** The paper's model names (Table 2 spelling): the values a `paperModel:` label takes for MedMeta. */
export const MEDMETA_MODELS: readonly string[] = T2.map((r) => r[0]);

/** Table 5 spells some models differently; this maps its spelling to Table 2's. */
export const MEDMETA_MODEL_ALIASES: Readonly<Record<string, string>> = { Gemma: "Gemma 27B", MedGemma: "MedGemma 27B", "Qwen3 8B DeepSeek": "Qwen3 8B-DeepSeek" };

/** Table 3 rows as printed: model, workflow, Pearson's r, mean bias, 95 % LoA. */
const T3: [string, string, string, string, [number, number]][] = [
  ["MedGemma 27B", "Golden-RAG", "0.74", "+0.14", [-1.18, 1.46]],
  ["Gemma 27B", "Golden-RAG", "0.65", "+0.31", [-1.42, 2.04]],
  ["MedGemma 27B", "Parametric-CoT", "0.81", "+0.27", [-1.08, 1.62]],
  ["Gemma 27B", "Parametric-CoT", "0.70", "+0.10", [-1.58, 1.78]],
];

/** Table 4 column headers as printed. */
export const MEDMETA_T4_COLUMNS = ["N", "Mean Diff.", "t-stat", "p-value", "Cohen's d", "Sig."] as const;

/** Table 4 rows as printed: hypothesis, comparison, judge, then the six cells. */
const T4: [string, string, string, string, string, string, string, string, string][] = [
  ["H2: Information Grounding (G-RAG vs. P-CoT)", "MedGemma 27B", "Human", "20", "0.742", "2.314", "0.032", "0.517", "Yes"],
  ["H2: Information Grounding (G-RAG vs. P-CoT)", "MedGemma 27B", "LLM", "81", "0.543", "4.347", "0.001", "0.483", "Yes"],
  ["H2: Information Grounding (G-RAG vs. P-CoT)", "Gemma 27B", "Human", "20", "1.025", "3.289", "0.004", "0.735", "Yes"],
  ["H2: Information Grounding (G-RAG vs. P-CoT)", "Gemma 27B", "LLM", "81", "0.807", "5.745", "0.001", "0.638", "Yes"],
  ["H3: Domain Adaptation (MedGemma vs. Gemma)", "Golden-RAG", "Human", "20", "0.150", "1.084", "0.292", "0.242", "No"],
  ["H3: Domain Adaptation (MedGemma vs. Gemma)", "Golden-RAG", "LLM", "81", "0.140", "1.952", "0.054", "0.217", "No"],
  ["H3: Domain Adaptation (MedGemma vs. Gemma)", "Parametric-CoT", "Human", "20", "0.433", "1.317", "0.203", "0.295", "No"],
  ["H3: Domain Adaptation (MedGemma vs. Gemma)", "Parametric-CoT", "LLM", "81", "0.403", "2.935", "0.004", "0.326", "Yes"],
];

/** Table 5 column headers as printed (workflows). */
export const MEDMETA_T5_COLUMNS = ["Parametric-CoT", "Golden-RAG", "Negated-RAG"] as const;

/** Table 5 rows as printed ("Mean BERTScore F1 (± standard error)"). */
const T5: [string, string, string, string][] = [
  ["Gemini Flash 2.5", "0.850 ± 0.010", "0.855 ± 0.011", "0.845 ± 0.012"],
  ["O4 Mini", "0.830 ± 0.011", "0.835 ± 0.010", "0.840 ± 0.011"],
  ["Gemma", "0.845 ± 0.012", "0.840 ± 0.012", "0.840 ± 0.013"],
  ["MedGemma", "0.840 ± 0.010", "0.840 ± 0.011", "0.843 ± 0.010"],
  ["Qwen3 8B", "0.835 ± 0.011", "0.840 ± 0.010", "0.845 ± 0.012"],
  ["Qwen3 8B (reasoning)", "0.840 ± 0.012", "0.840 ± 0.011", "0.845 ± 0.011"],
  ["Qwen3 8B DeepSeek", "0.835 ± 0.013", "0.840 ± 0.012", "0.842 ± 0.013"],
];

function table3(): PublishedValue[] {
  const out: PublishedValue[] = [];
  for (const [model, workflow, r, bias, loa] of T3) {
    const row = { model, workflow };
    out.push({ paper, table: "Table 3", row, column: "Pearson's r", value: parseCell(r).value, printed: r });
    out.push({ paper, table: "Table 3", row, column: "Mean Bias", value: parseCell(bias).value, printed: bias, interval: loa, pmKind: "loa95" });
  }
  return out;
}

function table4(): PublishedValue[] {
  const out: PublishedValue[] = [];
  for (const [hypothesis, comparison, judge, ...cells] of T4) {
    const row = { hypothesis, comparison, judge };
    cells.forEach((printed, i) => {
      const column = MEDMETA_T4_COLUMNS[i];
      out.push({ paper, table: "Table 4", row, column, value: column === "Sig." ? printed : parseCell(printed).value, printed });
    });
  }
  return out;
}

/** Every MedMeta value of Tables 2–5, in table order. */
export const MEDMETA_PUBLISHED: readonly PublishedValue[] = Object.freeze([
  ...numericTable(
    { paper, table: "Table 2" },
    MEDMETA_T2_COLUMNS,
    T2.map(([model, ...cells]) => ({ row: { model }, cells })),
    "ci95",
  ),
  ...table3(),
  ...table4(),
  ...numericTable(
    { paper, table: "Table 5" },
    MEDMETA_T5_COLUMNS,
    T5.map(([model, ...cells]) => ({ row: { model }, cells })),
    "se",
  ),
]);
