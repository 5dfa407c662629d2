import { describe, expect, it } from "vitest";
import { familyOverlapFlags, modelFamily, panelDiagnostics, wordCount, type DiagnosticsRecord } from "../../judges/diagnostics.ts";
import type { JudgeScoreEntry } from "../../experiments/types.ts";

const R = "medmeta-semantic-equivalence";
const v = (judgeId: string, s: number | null, repeat = 0): JudgeScoreEntry & { repeat: number } => ({
  judgeId,
  rubricId: R,
  scores: { semantic_equivalence: s },
  status: s === null ? "missing" : "ok",
  repeat,
});
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
const rec = (key: string, model: string, nWords: number, scores: [number | null, number | null, number | null]): DiagnosticsRecord => ({
  key,
  model,
  workflow: "g-rag",
  output: words(nWords),
  judgeScores: [v("A", scores[0]), v("B", scores[1]), v("C", scores[2])],
});

// Hand-computed panel: 3 judges, 4 records, 3 systems (S1 = r1, r2; S2 = r3; S3 = r4). C is missing on r2.
//   r1: A4 B5 C3 → 4   r2: A1 B3 C– → 2   r3: A1 B3 C2 → 2   r4: A3 B5 C1 → 3   panel mean 2.75
const RECORDS = [rec("r1", "S1", 10, [4, 5, 3]), rec("r2", "S1", 20, [1, 3, null]), rec("r3", "S2", 30, [1, 3, 2]), rec("r4", "S3", 40, [3, 5, 1])];
const D = panelDiagnostics(RECORDS, { rubricId: R }, (r) => r.model);

describe("panel diagnostics on a hand-computed panel", () => {
  it("matrix, panel mean, per-judge means and mean offsets (calibration shift)", () => {
    expect(D.dimension).toBe("semantic_equivalence");
    expect(D.matrix).toEqual([
      [4, 1, 1, 3],
      [5, 3, 3, 5],
      [3, null, 2, 1],
    ]);
    expect(D.panelMean).toBe(2.75);
    // offsets: A (0, −1, −1, 0)/4 = −0.5; B (1, 1, 1, 2)/4 = 1.25; C (−1, 0, −2)/3 = −1
    expect(D.calibration).toEqual([
      { judgeId: "A", n: 4, meanScore: 2.25, meanOffset: -0.5 },
      { judgeId: "B", n: 4, meanScore: 4, meanOffset: 1.25 },
      { judgeId: "C", n: 3, meanScore: 2, meanOffset: -1 },
    ]);
  });

  it("leave-one-judge-out panel means", () => {
    const byJudge = Object.fromEntries(D.leaveOneOut.map((l) => [l.judgeId, l]));
    expect(byJudge.A.perUnit).toEqual({ r1: 4, r2: 3, r3: 2.5, r4: 3 });
    expect(byJudge.A.meanScore).toBe(3.125);
    expect(byJudge.A.shift).toBe(0.375);
    expect(byJudge.B.perUnit).toEqual({ r1: 3.5, r2: 1, r3: 1.5, r4: 2 });
    expect(byJudge.B.meanScore).toBe(2);
    expect(byJudge.C.meanScore).toBe(3.125);
  });

  it("Kendall tau-b between judges' system rankings", () => {
    // system means: A (2.5, 1, 3), B (4, 3, 5), C (3, 2, 1)
    expect(D.systemMeans).toEqual({ S1: { A: 2.5, B: 4, C: 3 }, S2: { A: 1, B: 3, C: 2 }, S3: { A: 3, B: 5, C: 1 } });
    const tau = Object.fromEntries(D.rankingAgreement.map((r) => [`${r.judgeA}-${r.judgeB}`, r.tau.ok ? r.tau.value.tau : NaN]));
    expect(tau["A-B"]).toBeCloseTo(1, 12);
    expect(tau["A-C"]).toBeCloseTo(-1 / 3, 12); // 1 concordant, 2 discordant pairs
    expect(tau["B-C"]).toBeCloseTo(-1 / 3, 12);
    expect(D.rankingAgreement[0].nSystems).toBe(3);
  });

  it("agreement: Krippendorff's interval alpha and ICC(2,k) on the complete units (reference values from a direct NumPy computation)", () => {
    expect(D.krippendorffAlpha.ok && D.krippendorffAlpha.value.alpha).toBeCloseTo(0.07563025210084029, 12);
    expect(D.icc.ok && D.icc.value).toMatchObject({ n: 3, k: 3, droppedUnits: 1 });
    expect(D.icc.ok && D.icc.value.icc2k).toBeCloseTo(0.52, 12);
    expect(D.icc.ok && D.icc.value.icc21).toBeCloseTo(0.26530612244897955, 12);
  });

  it("length bias: Pearson and Spearman of panel score vs words", () => {
    const panel = D.lengthBias.find((b) => b.scorer === "panel")!;
    expect(panel.n).toBe(4);
    // x = 10,20,30,40; y = 4,2,2,3 → r = −15/√1375; ρ = −1.5/√22.5
    expect(panel.pearson.ok && panel.pearson.value.r).toBeCloseTo(-15 / Math.sqrt(1375), 12);
    expect(panel.spearman.ok && panel.spearman.value.rho).toBeCloseTo(-1.5 / Math.sqrt(22.5), 12);
    expect(D.lengthBias.find((b) => b.scorer === "C")!.n).toBe(3);
  });

  it("repeats are averaged per judge; a statistic that cannot be computed carries a reason", () => {
    const two: DiagnosticsRecord[] = [
      { key: "x", model: "m", workflow: "w", output: "a b", judgeScores: [v("A", 2, 0), v("A", 4, 1), v("B", 3)] },
      { key: "y", model: "m", workflow: "w", output: "a b c", judgeScores: [v("A", 1), v("B", 1)] },
    ];
    const d = panelDiagnostics(two, { rubricId: R });
    expect(d.matrix).toEqual([
      [3, 1],
      [3, 1],
    ]);
    expect(d.rankingAgreement[0].tau).toEqual({ ok: false, reason: "Kendall tau needs at least 3 systems both judges scored, got 1" });
    expect(() => panelDiagnostics(two, { rubricId: "other" })).toThrow(/no verdicts for rubric "other"/);
  });

  it("wordCount splits on whitespace", () => {
    expect(wordCount("  Drainage made  no\ndifference. ")).toBe(4);
    expect(wordCount(null)).toBe(0);
  });
});

describe("model-family flag", () => {
  it("families from model ids behind endpoint prefixes and organisation paths", () => {
    expect(modelFamily("openai:gpt-4o-mini")).toBe("openai");
    expect(modelFamily("openai:o4-mini")).toBe("openai");
    expect(modelFamily("openai:gpt-oss-120b")).toBe("openai");
    expect(modelFamily("openai:claude-sonnet-4")).toBe("anthropic");
    expect(modelFamily("gemini-2.5-pro")).toBe("google");
    expect(modelFamily("openai:google/medgemma-27b-text-it")).toBe("google");
    expect(modelFamily("openai:meta-llama/Llama-3.1-8B-Instruct")).toBe("meta");
    expect(modelFamily("ollama:qwen2.5:7b")).toBe("qwen");
    expect(modelFamily("openai:Qwen3-235B-A22B")).toBe("qwen");
    expect(modelFamily("openai:mixtral-8x7b")).toBe("mistral");
    expect(modelFamily("openai:deepseek-v3.2")).toBe("deepseek");
    expect(modelFamily("openai:biomistral-7b")).toBe("mistral");
    expect(modelFamily("openai:olmo-2-7b")).toBeNull();
    expect(modelFamily("extractive:lead")).toBeNull();
  });

  it("flags judges that share a family with a generator, listing the generators", () => {
    const flags = familyOverlapFlags({ gpt: "openai:gpt-4o-mini", claude: "openai:claude-sonnet-4", qwen: "openai:qwen3-235b", unknown: "openai:olmo-2" }, [
      "openai:gpt-5.4",
      "openai:meta-llama/Llama-3.1-8B-Instruct",
      "ollama:qwen2.5:7b",
      "openai:gpt-5.4",
      "extractive:lead",
    ]);
    expect(flags).toEqual([
      { judgeId: "gpt", judgeModel: "openai:gpt-4o-mini", family: "openai", generators: ["openai:gpt-5.4"] },
      { judgeId: "qwen", judgeModel: "openai:qwen3-235b", family: "qwen", generators: ["ollama:qwen2.5:7b"] },
    ]);
  });
});
