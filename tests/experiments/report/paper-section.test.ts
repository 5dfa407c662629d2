/**
 * Issue 28.4: "Paper vs this run" on hand-built run records — every number of the section
 * computed by hand (means with t intervals, paired t, d_z, Kendall τ-b, the weighted score), the
 * verdicts of the headline claims, and the uncovered rows with their reasons.
 */
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { comparePapers, paperSection, paperSectionForConfig, sectionPapers, type PaperVsRun } from "../../../experiments/report/paper-section.ts";
import { configHash, parseExperimentConfig } from "../../../experiments/config.ts";

let n = 0;
function rec(p: {
  model: string;
  workflow: string;
  item: string;
  dataset?: string;
  taskKind?: RunRecord["taskKind"];
  params?: Record<string, unknown>;
  judges?: { id: string; rubric: string; scores: Record<string, number> }[];
  metrics?: Record<string, number>;
  latencyMs?: number;
}): RunRecord {
  return {
    key: `k${n++}`,
    itemId: p.item,
    dataset: p.dataset ?? "medmeta",
    taskKind: p.taskKind ?? "synthesis",
    model: p.model,
    workflow: p.workflow,
    params: p.params ?? {},
    repeat: 0,
    status: "ok",
    output: "text",
    reference: "ref",
    itemMeta: {},
    intermediate: {},
    generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 5, cached: false, ...(p.latencyMs !== undefined ? { modelLatencyMs: p.latencyMs } : {}) },
    judgeScores: (p.judges ?? []).map((j) => ({ judgeId: j.id, rubricId: j.rubric, scores: j.scores, status: "ok" as const })),
    metrics: p.metrics ?? {},
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
  };
}

// t quantiles (scipy.stats.t.ppf(0.975, df)): df 1 → 12.706204736, df 2 → 4.302652730.
const T1 = 12.706204736174698;
const T2 = 4.302652729749464;

const mm = (model: string, workflow: string, scores: number[], params: Record<string, unknown> = {}) =>
  scores.map((s, i) => rec({ model, workflow, item: `i${i + 1}`, params, judges: [{ id: "j1", rubric: "medmeta-semantic-equivalence", scores: { semantic_equivalence: s } }] }));

describe("Paper vs this run: MedMeta", () => {
  // MedGemma (label mg): P-ZS 1,2,3; P-CoT 2,2,3; G-RAG 3,4,5. Gemma (label g): P-ZS 1,1,1; P-CoT 1,2,2; G-RAG 3,3,5.
  const records = [
    ...mm("mg", "pzs", [1, 2, 3]),
    ...mm("mg", "pcot", [2, 2, 3]),
    ...mm("mg", "golden-rag", [3, 4, 5]),
    ...mm("g", "pzs", [1, 1, 1]),
    ...mm("g", "pcot", [1, 2, 2]),
    ...mm("g", "golden-rag", [3, 3, 5]),
  ];
  const res = comparePapers(
    records,
    [
      { name: "mg", paperModel: "MedGemma 27B" },
      { name: "g", paperModel: "Gemma 27B" },
    ],
    ["medmeta"],
  );
  const cov = (table: string, row: Record<string, string>, column: string) =>
    res.covered.find((c) => c.value.table === table && c.value.column === column && Object.entries(row).every(([k, v]) => c.value.row[k] === v));
  const claim = (re: RegExp) => res.claims.find((c) => re.test(c.claim))!;

  it("Table 2: mean ± t interval over items, difference, and both interval checks", () => {
    const pzs = cov("Table 2", { model: "MedGemma 27B" }, "P-ZS")!;
    expect(pzs.run.value).toBe(2);
    expect(pzs.run.ciLow).toBeCloseTo(2 - T2 / Math.sqrt(3), 9); // sd 1
    expect(pzs.difference).toBeCloseTo(0.2, 12); // 2 − 1.80
    expect(pzs.publishedInterval).toBeNull(); // P-ZS is printed without ±
    expect(pzs.publishedInRunCi).toBe(true);
    expect(pzs.runInPublishedInterval).toBeNull();
    const g = cov("Table 2", { model: "MedGemma 27B" }, "G-RAG")!;
    expect(g.run).toMatchObject({ value: 4, n: 3 });
    expect(g.publishedInterval![0]).toBeCloseTo(2.55, 12);
    expect(g.publishedInterval![1]).toBeCloseTo(2.89, 12);
    expect(g.runInPublishedInterval).toBe(false);
    expect(g.publishedInRunCi).toBe(true); // 2.72 in 4 ± 2.484
    expect(cov("Table 2", { model: "Gemma 27B" }, "G-RAG")!.run.value).toBeCloseTo(11 / 3, 12);
  });

  it("Table 4 LLM rows: paired t over items (N, Δ with CI, t, p, d_z = t/√N, Sig.)", () => {
    const row = { comparison: "MedGemma 27B", judge: "LLM" };
    // d = G-RAG − P-CoT = [1, 2, 2]: mean 5/3, sd 1/√3, t = 5, df 2, p = 1 − 5/√27, d_z = 5/√3.
    expect(cov("Table 4", row, "N")!.run.value).toBe(3);
    expect(cov("Table 4", row, "N")!.difference).toBe(-78);
    const md = cov("Table 4", row, "Mean Diff.")!;
    expect(md.run.value).toBeCloseTo(5 / 3, 12);
    expect(md.run.ciHigh).toBeCloseTo(5 / 3 + (T2 * (1 / Math.sqrt(3))) / Math.sqrt(3), 9);
    expect(cov("Table 4", row, "t-stat")!.run.value).toBeCloseTo(5, 9);
    expect(cov("Table 4", row, "p-value")!.run.value).toBeCloseTo(1 - 5 / Math.sqrt(27), 9);
    expect(cov("Table 4", row, "Cohen's d")!.run.value).toBeCloseTo(5 / Math.sqrt(3), 9);
    expect(cov("Table 4", row, "Sig.")!.run.value).toBe("Yes");
    // H3 P-CoT: MedGemma − Gemma = [1, 0, 1]: t = 2, p = 1 − 2/√6 = 0.1835 → "No".
    expect(cov("Table 4", { comparison: "Parametric-CoT", judge: "LLM" }, "p-value")!.run.value).toBeCloseTo(1 - 2 / Math.sqrt(6), 9);
    expect(cov("Table 4", { comparison: "Parametric-CoT", judge: "LLM" }, "Sig.")!.run.value).toBe("No");
  });

  it("claims: H2 per model, H3 per workflow, Table 2's ordering, H1 not covered", () => {
    expect(claim(/^H1/).verdict).toBe("not covered");
    expect(claim(/^H2 \(MedGemma/)).toMatchObject({ verdict: "reproduced", thisRun: "Δ 1.667, t 5.000, p 0.038, d 2.887 (N 3)" });
    // Gemma: [2, 1, 3], t = 2√3 = 3.464, p = 1 − 3.464/√14 = 0.0742 → not significant.
    expect(claim(/^H2 \(Gemma/)).toMatchObject({ verdict: "not reproduced", thisRun: "Δ 2.000, t 3.464, p 0.074, d 2.000 (N 3)" });
    // G-RAG: [0, 1, 0], t = 1, p = 0.423: not significant, as in the paper (Sig. No) → reproduced.
    expect(claim(/^H3 \(Golden-RAG/).verdict).toBe("reproduced");
    // P-CoT: p = 0.18, but the paper's LLM row is significant → not reproduced.
    expect(claim(/^H3 \(Parametric-CoT/).verdict).toBe("not reproduced");
    expect(claim(/^Table 2/)).toMatchObject({ verdict: "reproduced", thisRun: "MedGemma 27B: P-ZS 2.000, G-RAG 4.000; Gemma 27B: P-ZS 1.000, G-RAG 3.667" });
  });

  it("uncovered rows say why: human ratings, no BERTScore, unlabelled models", () => {
    const why = (table: string, row: Record<string, string>) => res.uncovered.find((u) => u.value.table === table && Object.entries(row).every(([k, v]) => u.value.row[k] === v))!.reason;
    expect(why("Table 3", { model: "Gemma 27B" })).toMatch(/needs human expert ratings/);
    expect(why("Table 4", { comparison: "Gemma 27B", judge: "Human" })).toMatch(/needs human expert ratings/);
    expect(why("Table 5", { model: "Gemma" })).toBe("Gemma 27B Parametric-CoT (BERTScore F1): no record has a value for bertscore_f1");
    expect(why("Table 2", { model: "O4 Mini" })).toBe('no model of this run is labelled paperModel "O4 Mini" (labels: MedGemma 27B, Gemma 27B)');
    expect(why("Table 2", { model: "Gemma 27B" })).toBe("this run has no Gemma 27B K5-RAG records");
    expect(res.covered.length + res.uncovered.length).toBe(119);
    // 2 models × 3 workflows of Table 2, and 4 LLM rows × 6 columns of Table 4.
    expect(res.covered.length).toBe(6 + 24);
  });
});

describe("Paper vs this run: MedConclusion", () => {
  const dims = (v: number) => ({ semantic_similarity: v, writing_style_similarity: v, non_contradiction: v, numeric_consistency: v, formality_similarity: v });
  const mc = (model: string, mode: string, primary: number[], secondary: number[], extra: { numeric?: number[]; rouge1?: number[] } = {}) =>
    primary.map((s, i) =>
      rec({
        model,
        workflow: `conclusion-${mode}`,
        item: `p${i}`,
        dataset: "medconclusion-hf",
        taskKind: "conclusion",
        judges: [
          { id: "primary", rubric: "medconclusion-dimensions", scores: { ...dims(s), ...(extra.numeric ? { numeric_consistency: extra.numeric[i] } : {}) } },
          { id: "secondary", rubric: "medconclusion-dimensions", scores: dims(secondary[i]) },
        ],
        metrics: extra.rouge1 ? { rouge1_fmeasure: extra.rouge1[i] } : {},
      }),
    );
  const records = [
    ...mc("gpt", "a", [80, 70], [90, 80], { rouge1: [0.3, 0.4] }),
    ...mc("gpt", "c", [80, 70], [90, 80], { numeric: [90, 85] }),
    ...mc("pro", "a", [70, 60], [70, 70]),
    ...mc("flash", "a", [60, 50], [95, 85]),
  ];
  const res = comparePapers(
    records,
    [
      { name: "gpt", paperModel: "GPT-5.4" },
      { name: "pro", paperModel: "Gemini 3.1 Pro" },
      { name: "flash", paperModel: "Gemini 3 Flash" },
    ],
    ["medconclusion"],
  );
  const cov = (table: string, row: Record<string, string>, column: string) =>
    res.covered.find((c) => c.value.table === table && c.value.column === column && Object.entries(row).every(([k, v]) => c.value.row[k] === v))!;

  it("Tables 2, 3 and 5: primary and secondary judges, rule-based metrics", () => {
    const t2 = cov("Table 2", { model: "GPT-5.4" }, "Semantic Sim.");
    expect(t2.run.value).toBe(75);
    expect(t2.run.ciHigh).toBeCloseTo(75 + T1 * 5, 9); // sd √50, se 5
    expect(t2.difference).toBeCloseTo(75 - 73.22, 12);
    expect(cov("Table 5", { judge: "Gemini 3 Flash", model: "GPT-5.4" }, "Semantic Sim.").run.value).toBe(85);
    expect(cov("Table 5", { judge: "GPT-5.4-mini", model: "Gemini 3 Flash" }, "Semantic Sim.").run.value).toBe(55);
    expect(cov("Table 3", { model: "GPT-5.4" }, "ROUGE-1").run.value).toBeCloseTo(0.35, 12);
    expect(cov("Table 4", { mode: "C", model: "GPT-5.4" }, "Numeric Consistency").run.value).toBe(87.5);
    expect(res.uncovered.find((u) => u.value.table === "Table 3" && u.value.row.model === "GPT-5.4" && u.value.column === "BLEU")!.reason).toBe(
      "GPT-5.4 mode A (conclusion-a): no record has a value for bleu",
    );
  });

  it("claims: ranking τ-b = 1 on every dimension; judge swap flips the top model (τ-b −1/3); mode C's gain not significant", () => {
    const ranking = res.claims.filter((c) => c.claim.startsWith("Model ranking"));
    expect(ranking).toHaveLength(5);
    for (const c of ranking) expect(c.verdict).toBe("reproduced");
    expect(ranking[0].thisRun).toBe("τ-b 1.000 over 3 models: GPT-5.4 75.00, Gemini 3.1 Pro 65.00, Gemini 3 Flash 55.00");
    const swap = res.claims.filter((c) => c.claim.startsWith("Judge swap"));
    expect(swap.map((c) => c.verdict)).toEqual(Array(5).fill("not reproduced"));
    expect(swap[0].thisRun).toBe("top GPT-5.4 (primary) / Gemini 3 Flash (secondary); τ-b -0.333 over 3 models");
    // Paper: Semantic Sim. keeps its order under both judges (τ-b 1); writing style flips Pro and Flash (1/3).
    expect(swap[0].published).toBe("top GPT-5.4 under both; τ-b 1.000 over 3 models");
    expect(swap[1].published).toBe("top GPT-5.4 under both; τ-b 0.333 over 3 models");
    // C − A numeric consistency = [10, 15]: t = 12.5/2.5 = 5, df 1, p = 1 − (2/π)·atan 5 = 0.1257.
    const c = res.claims.find((x) => x.claim.startsWith("Mode C"))!;
    expect(c.thisRun).toBe("GPT-5.4: Δ 12.500, t 5.000, p 0.126 (N 2)");
    expect(c.verdict).toBe("not reproduced");
    expect(c.published).toBe("GPT-5.4 +3.12, Gemini 3 Flash +5.37 (Table 4, no test printed)");
  });
});

describe("Paper vs this run: RWESummary", () => {
  const jury = (d: number, nm: number, c: number): { id: string; rubric: string; scores: Record<string, number> }[] => [
    { id: "juror", rubric: "rwe-direction-of-effect", scores: { direction_of_effect: d } },
    { id: "juror", rubric: "rwe-numbers-accurate", scores: { numbers_accurate: nm } },
    { id: "juror", rubric: "rwe-completeness", scores: { completeness: c } },
  ];
  const rw = (model: string, rows: [number, number, number, number][]) =>
    rows.map(([d, nm, c, s], i) => rec({ model, workflow: "rwe-summary", item: `s${i}`, dataset: "rwe-glp1", taskKind: "rwe", judges: jury(d, nm, c), latencyMs: s * 1000 }));
  const records = [
    ...rw("pro", [
      [1, 1, 1, 2],
      [1, 1, 1, 4],
    ]),
    ...rw("o3", [
      [1, 1, 1, 10],
      [0, 0, 1, 10],
    ]),
    ...rw("gpt41", [
      [0, 0, 0, 20],
      [0, 0, 1, 20],
    ]),
  ];
  const res = comparePapers(
    records,
    [
      { name: "pro", paperModel: "Gemini 2.5 Pro" },
      { name: "o3", paperModel: "o3" },
      { name: "gpt41", paperModel: "GPT-4.1" },
    ],
    ["rwesummary"],
  );

  it("Table 1 means (Wilson interval for 0/1 verdicts), weights covered, Figure 2's normalised rows not (3 of 9 models)", () => {
    const t1 = (model: string, column: string) => res.covered.find((c) => c.value.table === "Table 1" && c.value.row.model === model && c.value.column === column)!;
    expect(t1("o3", "Direction of Effect").run.value).toBe(0.5);
    expect(t1("o3", "Direction of Effect").run.ciLow).toBeCloseTo(0.0945, 4); // Wilson 1 of 2
    expect(t1("Gemini 2.5 Pro", "Inference Time").run.value).toBe(3);
    expect(t1("Gemini 2.5 Pro", "Inference Time").difference).toBeCloseTo(3 - 14.226, 12);
    const w = res.covered.filter((c) => c.value.table === "Figure 2" && c.value.row.rubric === "Outcome weight");
    expect(w.map((c) => c.run.value)).toEqual([20, 6, 5, 3]);
    expect(w.every((c) => c.difference === 0)).toBe(true);
    expect(res.uncovered.find((u) => u.value.table === "Figure 2" && u.value.column === "Score")!.reason).toBe(
      "min–max normalised across the paper's nine models; this run has all four outcomes for 3 of them",
    );
  });

  it("claim: weighted-score ranking against the paper's scores recomputed over the same three models", () => {
    const c = res.claims[0];
    // Paper (Table 1 over these three): Pro 100 %, o3 13 %, GPT-4.1 0 %; this run: 100, 58, 0 → τ-b 1.
    expect(c.published).toBe("Gemini 2.5 Pro 100 %, o3 13 %, GPT-4.1 0 %");
    expect(c.thisRun).toBe("τ-b 1.000: Gemini 2.5 Pro 100 %, o3 58 %, GPT-4.1 0 %");
    expect(c.verdict).toBe("reproduced");
  });
});

describe("Paper vs this run: when it is on, and a run without labels", () => {
  it("papers come from report.papers, else the labels; a label outside the papers is a config error", () => {
    expect(
      sectionPapers([
        { name: "a", paperModel: "Gemma 27B" },
        { name: "b", paperModel: "o3" },
      ]),
    ).toEqual(["medmeta", "rwesummary"]);
    expect(sectionPapers([{ name: "a" }])).toEqual([]);
    expect(sectionPapers([{ name: "a", paperModel: "Gemma 27B" }], false)).toEqual([]);
    expect(sectionPapers([{ name: "a" }], ["rwesummary"])).toEqual(["rwesummary"]);
    expect(() =>
      parseExperimentConfig({ name: "x", output: "o", datasets: [{ name: "pubmedqa" }], models: [{ id: "openai:m", paperModel: "Gemma 3 27B" }], workflows: [{ id: "conclusion-a" }] }),
    ).toThrow(/models\.0\.paperModel: not a model of the papers' tables; one of: "Gemini Flash 2.5"/);
    expect(paperSectionForConfig([], { models: [{ id: "extractive:mmr" }] })).toBeNull();
    // A label changes no result: labelling a finished run's models keeps its config hash.
    const base = { name: "x", output: "o", datasets: [{ name: "medmeta" }], workflows: [{ id: "pzs" }] };
    const plain = parseExperimentConfig({ ...base, models: [{ id: "openai:m" }] });
    const labelled = parseExperimentConfig({ ...base, models: [{ id: "openai:m", paperModel: "Gemma 27B" }] });
    expect(labelled.models[0].paperModel).toBe("Gemma 27B");
    expect(configHash(labelled)).toBe(configHash(plain));
  });
  it("the demo shape: every published row not covered, with why; every claim not covered", () => {
    const records = [rec({ model: "extractive:mmr", workflow: "golden-rag", item: "q1", dataset: "medevidence" })];
    const s = paperSectionForConfig(records, { models: [{ id: "extractive:mmr" }], report: { papers: ["medmeta", "medconclusion", "rwesummary"] } })!;
    const [values, claims, uncovered] = s.tables;
    expect(values.rows).toHaveLength(0);
    expect(claims.rows.every((r) => r[5] === "not covered")).toBe(true);
    expect(
      claims.rows.filter((r) => !/no model of this run carries a paperModel label \(models: extractive:mmr\)|needs human expert ratings|needs at least 3 of the paper's nine models/.test(r[6])),
    ).toEqual([]);
    expect(uncovered.values!.reduce((a, v) => a + (v.columns as string[]).length, 0)).toBe(492);
    expect(uncovered.rows.find((r) => r[0] === "MedMeta" && r[1] === "Table 2")![4]).toBe("no model of this run carries a paperModel label (models: extractive:mmr)");
    expect(s.text).toMatch(/^MedMeta, MedConclusion, RWESummary: this run covers 0 of the 492 published values\. Headline claims: 0 reproduced, 0 not reproduced, \d+ not covered\./);
  });
  it("rendered rows: published, its interval, this run with CI, n, difference, interval checks", () => {
    const records = mm("g", "golden-rag", [3, 3, 5]);
    const res: PaperVsRun = comparePapers(records, [{ name: "g", paperModel: "Gemma 27B" }], ["medmeta"]);
    const t = paperSection(res).tables[0];
    expect(t.rows).toHaveLength(1);
    // mean 11/3, sd 2/√3 → half-width T2·(2/√3)/√3 = 2.869
    expect(t.rows[0]).toEqual(["MedMeta", "Table 2", "Gemma 27B", "G-RAG", "2.58 ± 0.20", "[2.380, 2.780] (95 % CI)", "3.667", "[0.798, 6.535]", "3", "1.087", "yes", "no"]);
  });
});
