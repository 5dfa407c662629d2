/**
 * Issue 28.1: the three papers' published numbers as data. Every row is checked against the
 * paper's own text (../shared/seeds, when the checkout has it beside it), the counts per table are
 * fixed, and the internal-consistency checks list exactly the inconsistencies of the papers.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_PUBLISHED, countByTable, parseCell, publishedInterval, PublishedValueSchema, type PublishedValue } from "../../../experiments/report/published/index.ts";
import { publishedConsistencyChecks, printedHalfUnit } from "../../../experiments/report/published/consistency.ts";

const SEEDS = resolve(__dirname, "../../../../shared/seeds");
const seedText = (prefix: string): string | null => {
  if (!existsSync(SEEDS)) return null;
  const f = readdirSync(SEEDS).find((x) => x.startsWith(prefix));
  // As printed: LaTeX ± to ±, runs of whitespace (tabs between cells) to one space.
  return f
    ? readFileSync(join(SEEDS, f), "utf8")
        .replace(/\$\\pm\$/g, "±")
        .replace(/\s+/g, " ")
    : null;
};
const papers = { medconclusion: seedText("000_"), medmeta: seedText("001_"), rwesummary: seedText("002_") };

/** The printed row text: labels then cells, as the paper's text lays the row out. */
function rowTexts(values: readonly PublishedValue[], labels: (row: Record<string, string>) => string, sep = " "): string[] {
  const rows = new Map<string, PublishedValue[]>();
  for (const v of values) rows.set(JSON.stringify(v.row), [...(rows.get(JSON.stringify(v.row)) ?? []), v]);
  return [...rows.values()].map((vs) => [labels(vs[0].row), ...vs.map((v) => (v.interval ? `${v.printed} [${v.interval.map((x) => x.toFixed(2)).join(", ")}]` : v.printed))].join(sep));
}

/** Text between two markers of a paper (the region one table occupies). */
function region(text: string, from: string, to: string): string {
  const a = text.indexOf(from);
  const b = text.indexOf(to, a);
  expect(a, `marker "${from}"`).toBeGreaterThanOrEqual(0);
  expect(b, `marker "${to}"`).toBeGreaterThan(a);
  return text.slice(a, b);
}

const tableOf = (paper: string, table: string) => ALL_PUBLISHED.filter((v) => v.paper === paper && v.table === table);

describe("published values: shape and counts", () => {
  it("every value validates against the schema; counts per table are the printed tables' cells", () => {
    for (const v of ALL_PUBLISHED) expect(() => PublishedValueSchema.parse(v)).not.toThrow();
    expect(countByTable().map((c) => `${c.paper} ${c.table}: ${c.count}`)).toEqual([
      "medmeta Table 2: 42", // 7 models × 6 workflows
      "medmeta Table 3: 8", // 4 rows × (r, bias with LoA)
      "medmeta Table 4: 48", // 8 rows × 6 columns
      "medmeta Table 5: 21", // 7 models × 3 workflows
      "medconclusion Table 2: 75", // 15 models × 5 dimensions
      "medconclusion Table 3: 135", // 15 × 9
      "medconclusion Table 4: 40", // 4 modes × 2 models × 5
      "medconclusion Table 5: 30", // 2 judges × 3 models × 5
      "rwesummary Table 1: 36", // 9 × 4
      "rwesummary Figure 2: 57", // 9 × 5 + weights, min, max × 4
    ]);
    expect(ALL_PUBLISHED).toHaveLength(492);
  });
  it("parses printed cells and states what ± means", () => {
    expect(parseCell("2.90 ± 0.21")).toEqual({ value: 2.9, pm: 0.21 });
    expect(parseCell("+0.14")).toEqual({ value: 0.14 });
    expect(parseCell("89%")).toEqual({ value: 89 });
    expect(() => parseCell("n/a")).toThrow('published cell "n/a" is not a number');
    const gemRag = ALL_PUBLISHED.find((v) => v.paper === "medmeta" && v.table === "Table 2" && v.row.model === "Gemma 27B" && v.column === "G-RAG")!;
    expect(gemRag).toMatchObject({ value: 2.58, pm: 0.2, pmKind: "ci95", printed: "2.58 ± 0.20" });
    expect(publishedInterval(gemRag)![0]).toBeCloseTo(2.38, 12);
    const bert = ALL_PUBLISHED.find((v) => v.paper === "medmeta" && v.table === "Table 5" && v.row.model === "O4 Mini" && v.column === "Golden-RAG")!;
    expect(bert).toMatchObject({ value: 0.835, pm: 0.01, pmKind: "se" });
    expect(publishedInterval(bert)![1]).toBeCloseTo(0.835 + 1.96 * 0.01, 12); // SE → 95 % interval
    const bias = ALL_PUBLISHED.find((v) => v.table === "Table 3" && v.paper === "medmeta" && v.column === "Mean Bias" && v.row.model === "Gemma 27B" && v.row.workflow === "Golden-RAG")!;
    expect(bias).toMatchObject({ value: 0.31, printed: "+0.31", pmKind: "loa95", interval: [-1.42, 2.04] });
    expect(ALL_PUBLISHED.find((v) => v.table === "Table 4" && v.column === "Sig." && v.row.comparison === "Golden-RAG" && v.row.judge === "LLM")!.value).toBe("No");
    expect(printedHalfUnit("0.517")).toBe(0.0005);
    expect(printedHalfUnit("20")).toBe(0.5);
  });
});

describe.skipIf(!papers.medmeta || !papers.medconclusion || !papers.rwesummary)("published values: every row as the paper prints it (../shared/seeds)", () => {
  it("MedMeta Tables 2–5", () => {
    const t = papers.medmeta!;
    const check = (table: string, from: string, to: string, labels: (r: Record<string, string>) => string) => {
      const rows = rowTexts(tableOf("medmeta", table), labels);
      const text = region(t, from, to);
      for (const r of rows) expect(text, `${table}: ${r}`).toContain(r);
      return rows.length;
    };
    expect(check("Table 2", "Model P-ZS P-CoT", "Table 2:", (r) => r.model)).toBe(7);
    expect(check("Table 3", "Model & Workflow", "Table 3:", (r) => `${r.model} (${r.workflow})`)).toBe(4);
    expect(check("Table 4", "Hypothesis Comparison Judge", "Table 4:", (r) => `${r.comparison} ${r.judge}`)).toBe(8);
    expect(check("Table 5", "Model Parametric-CoT Golden-RAG", "Table 5:", (r) => r.model)).toBe(7);
    // Hypotheses as printed above their rows.
    expect(t).toContain("H2: Information Grounding (G-RAG vs. P-CoT)");
    expect(t).toContain("H3: Domain Adaptation (MedGemma vs. Gemma)");
  });
  it("MedConclusion Tables 2–5", () => {
    const t = papers.medconclusion!;
    const check = (table: string, from: string, to: string) => {
      const rows = rowTexts(tableOf("medconclusion", table), (r) => r.model);
      const text = region(t, from, to);
      for (const r of rows) expect(text, `${table}: ${r}`).toContain(r);
      return rows.length;
    };
    expect(check("Table 2", "General-purpose Models GPT-5.4", "Table 2:")).toBe(15);
    expect(check("Table 3", "Model WC Ratio", "Table 3:")).toBe(15);
    expect(check("Table 4", "Prompt without Formatting Restriction", "Table 4:")).toBe(8);
    expect(check("Table 5", "Judge: GPT-5.4-mini", "Table 5:")).toBe(6);
    // Mode letters and judges in their places.
    const t4 = region(t, "Prompt without Formatting Restriction", "Table 4:");
    for (const [mode, row] of [
      ["A", "GPT-5.4 73.22 71.20"],
      ["B", "GPT-5.4 72.11 62.60"],
      ["C", "GPT-5.4 70.90 69.07"],
      ["D", "GPT-5.4 64.99 60.13"],
    ])
      expect(t4).toContain(`(char) ${mode};${row}`);
    expect(region(t, "Judge: Gemini 3 Flash", "Table 5:")).toContain("GPT-5.4 84.30 71.49 97.51 98.18 92.50");
  });
  it("RWESummary Table 1 and Figure 2", () => {
    const t = papers.rwesummary!;
    const t1 = rowTexts(tableOf("rwesummary", "Table 1"), (r) => r.model, "");
    const r1 = region(t, "ModelDirection of EffectNumbers AccurateCompletenessInference Time", "No single model");
    for (const r of t1) expect(r1, r).toContain(r);
    const f2 = rowTexts(tableOf("rwesummary", "Figure 2"), (r) => r.model ?? r.rubric);
    const r2 = region(t, "Figure 2:** Application", "Other normalization");
    for (const r of f2) expect(r2, r).toContain(r);
    expect(t1).toHaveLength(9);
    expect(f2).toHaveLength(12);
  });
});

describe("published values: internal consistency", () => {
  const checks = publishedConsistencyChecks();
  it("recomputes what the papers allow and lists the papers' own inconsistencies", () => {
    expect(checks.length).toBe(84);
    const failed = checks.filter((c) => !c.ok).map((c) => `${c.paper}: ${c.check}`);
    expect(failed).toEqual([
      // t = 4.347 and 5.745 on 80 df give p = 4.0e-5 and 1.6e-7: "0.001" reads as a floor "< 0.001".
      "medmeta: Table 4 H2 MedGemma 27B (LLM): p-value from t with N − 1 df (two-sided)",
      "medmeta: Table 4 H2 Gemma 27B (LLM): p-value from t with N − 1 df (two-sided)",
      // Table 2 gives P-CoT/P-ZS − 1 from 10.6 % (Gemma) to 49.2 % (Qwen3 8B-DeepSeek).
      "medmeta: §4 text: P-CoT outperforms P-ZS by ~30–33 % for every model",
      // 3.17 is Gemini Flash 2.5 with K10-RAG; its oracle G-RAG score is 3.16.
      "medmeta: Abstract: top model scores 3.17 under oracle retrieval (G-RAG)",
      // GPT-5.4 writing style: 71.21 in Table 2, 71.20 in Tables 4 and 5.
      "medconclusion: Table 4 mode A GPT-5.4 Writing Style Sim. = Table 2",
      "medconclusion: Table 5 judge GPT-5.4-mini GPT-5.4 Writing Style Sim. = Table 2",
      // Gemini 2.0 Flash's 2.253 s rounds to 2.3, not 2.2.
      "rwesummary: Results text: Inference Time range 2.2 to 22.8",
    ]);
  });
  it("Cohen's d = t/√N holds for all eight Table 4 rows, and the LoA midpoints equal the biases", () => {
    const d = checks.filter((c) => c.check.includes("Cohen's d = t/√N"));
    expect(d).toHaveLength(8);
    expect(d.every((c) => c.ok)).toBe(true);
    expect(d[0].detail).toBe("t/√N = 2.314/√20 = 0.5174; printed d 0.517");
    const loa = checks.filter((c) => c.check.includes("LoA midpoint"));
    expect(loa.map((c) => c.ok)).toEqual([true, true, true, true]);
    expect(loa[0].detail).toBe("midpoint of [-1.18, 1.46] = 0.140; printed bias +0.14");
  });
  it("RWESummary Figure 2 is recomputed from Table 1: all nine models and the bounds agree", () => {
    const f = checks.filter((c) => c.paper === "rwesummary" && c.check.startsWith("Figure 2"));
    expect(f).toHaveLength(8 + 9);
    expect(f.every((c) => c.ok)).toBe(true);
  });
});
