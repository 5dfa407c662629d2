/**
 * MedMeta analyses section on a fixed set of records: three judges' scores on ten items (the
 * same scores as tests/judges/stats/ordinal-agreement.test.ts, whose sklearn/scipy reference
 * output is pasted there), feasibility records, topics and years. Spearman/Pearson reference
 * (scipy 1.10.1, Debian python3):
 *   feas = [4.33, 4.67, 5, 3.67, 4, 4.33, 5, 3.33, 4.67, 4]; panel = mean of the three judges
 *   stats.spearmanr(feas, panel) → statistic=-0.17792750455055614, pvalue=0.6228731846521808
 *   stats.pearsonr(feas, panel)  → statistic=-0.12276774202183964, pvalue=0.7354567229076803
 *   P = [0, 1, 1, 2, 2, 3, 2, 1, 2, 3]  # P-ZS panel scores; improvement = panel − P
 *   stats.pearsonr(feas, [p - b for p, b in zip(panel, P)]) → statistic=-0.14938313093511157
 */
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { bertscoreBesideJudgesTable, feasibilityByItem, medmetaAnalysisSection, yearOfRecord } from "../../../experiments/report/medmeta-analysis-section.ts";
import { buildSections } from "../../../experiments/report/build.ts";

const A = [0, 1, 2, 3, 4, 5, 3.5, 2, 4, 5];
const B = [0, 2, 2, 3, 5, 5, 2, 2, 4, 4.9];
const C = [1, 1, 2, 4, 4, 5, 3, 1, 4, 5];
const FEAS = [4.33, 4.67, 5, 3.67, 4, 4.33, 5, 3.33, 4.67, 4];
const COL = "judge:medmeta-semantic-equivalence.score";

function base(i: number, workflow: string): RunRecord {
  return {
    key: `${i}-${workflow}`,
    itemId: `medmeta:${i + 1}`,
    dataset: "medmeta",
    taskKind: "synthesis",
    model: "m1",
    workflow,
    params: {},
    repeat: 0,
    status: "ok",
    output: "x",
    reference: "y",
    itemMeta: { topic: i % 2 ? "Oncology" : "Cardiology", date: `${2020 + (i % 3)}-05-31` },
    intermediate: {},
    generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
    startedAt: "",
    finishedAt: "",
  };
}
function judged(i: number, workflow = "pcot", scores = [A[i], B[i], C[i]]): RunRecord {
  return {
    ...base(i, workflow),
    judgeScores: [
      ["gemini", scores[0]],
      ["o4", scores[1]],
      ["qwen", scores[2]],
    ].map(([judgeId, v]) => ({ judgeId: judgeId as string, rubricId: "medmeta-semantic-equivalence", scores: { score: v as number }, status: "ok" as const })),
    metrics: { bertscore_f1: null },
    metricNotes: { bertscore_f1: "model Xenova/roberta-large not in the local model cache" },
  };
}
function feasibility(i: number): RunRecord {
  return { ...base(i, "feasibility"), output: FEAS[i].toFixed(2), outputKind: "score", metrics: { feasibility_score: FEAS[i] } };
}
const records = [...Array.from({ length: 10 }, (_, i) => judged(i)), ...Array.from({ length: 10 }, (_, i) => feasibility(i))];

describe("MedMeta analyses section", () => {
  const section = medmetaAnalysisSection(records, COL)!;
  const table = (id: string) => section.tables.find((t) => t.id.startsWith(id))!;

  it("pairwise κ and quadratic-weighted κ on binned scores, and Fleiss' κ, match sklearn", () => {
    const all = table("medmeta-kappa").values!.filter((v) => v.group === "all workflows");
    const pair = (a: string, b: string) => all.find((v) => v.kind === "cohen" && (v.raters as string[]).join() === `${a},${b}`)!;
    expect(pair("gemini", "o4").kappa).toBeCloseTo(0.5061728395061729, 12);
    expect(pair("gemini", "o4").weightedKappa).toBeCloseTo(0.9163179916317992, 12);
    expect(pair("gemini", "qwen").weightedKappa).toBeCloseTo(0.9387755102040817, 12);
    expect(pair("o4", "qwen").kappa).toBeCloseTo(0.17647058823529416, 12);
    expect(all.find((v) => v.kind === "fleiss")!.kappa).toBeCloseTo(0.4246575342465753, 12);
    // feasibility records are not judged and are not in the κ table
    expect(table("medmeta-kappa").rows.map((r) => r[0])).not.toContain("feasibility");
  });

  it("Spearman of feasibility vs the panel mean per workflow matches scipy, with n", () => {
    const f = table("medmeta-feasibility");
    expect(f.rows).toHaveLength(1);
    const v = f.values![0] as { n: number; spearman: { estimate: number; p: number }; pearson: { estimate: number; p: number } };
    expect(v.n).toBe(10);
    expect(v.spearman.estimate).toBeCloseTo(-0.17792750455055614, 12);
    expect(v.spearman.p).toBeCloseTo(0.6228731846521808, 9);
    expect(v.pearson.estimate).toBeCloseTo(-0.12276774202183964, 12);
    expect(v.pearson.p).toBeCloseTo(0.7354567229076803, 9);
  });

  it("with P-ZS records: Pearson r of feasibility vs the improvement over P-ZS (the authors' analysis)", () => {
    const P = [0, 1, 1, 2, 2, 3, 2, 1, 2, 3];
    const withPzs = [...records, ...P.map((p, i) => judged(i, "pzs", [p, p, p]))];
    const f = medmetaAnalysisSection(withPzs, COL)!.tables.find((t) => t.id.startsWith("medmeta-feasibility"))!;
    const pcot = f.values!.find((v) => v.group === "m1 · pcot") as { improvementN: number; improvementPearson: { estimate: number } };
    expect(pcot.improvementN).toBe(10);
    expect(pcot.improvementPearson.estimate).toBeCloseTo(-0.14938313093511157, 12);
    const pzs = f.values!.find((v) => v.group === "m1 · pzs") as { improvementN: number; improvementPearson: null };
    expect(pzs.improvementPearson).toBeNull(); // no improvement of the baseline over itself
  });

  it("per-topic and by-year tables: mean judge score per workflow with n", () => {
    const topic = table("medmeta-topic");
    // Cardiology = items 0,2,4,6,8 → panel means (1/3, 2, 13/3, 8.5/3, 4) → mean 2.7
    const card = topic.values!.find((v) => v.topic === "Cardiology")!;
    expect(card.n).toBe(5);
    expect(card.mean as number).toBeCloseTo((1 / 3 + 2 + 13 / 3 + 8.5 / 3 + 4) / 5, 12);
    expect(topic.rows.find((r) => r[0] === "Cardiology")!.slice(1)).toEqual(["5", "2.70 (5)"]);
    const year = table("medmeta-year");
    expect(year.rows.map((r) => r[0])).toEqual(["2020", "2021", "2022"]);
    expect(year.values!.find((v) => v.year === "2020")!.n).toBe(4); // items 0, 3, 6, 9
  });

  it("BERTScore is listed beside the judges and says honestly when it did not run", () => {
    const t = table("medmeta-bertscore");
    expect(t.rows[0][2]).toBe("not available");
    expect(t.caption).toContain("not in the local model cache");
    const withScore = bertscoreBesideJudgesTable(
      [
        { ...judged(0), metrics: { bertscore_f1: 0.8 } },
        { ...judged(1), metrics: { bertscore_f1: 0.9 } },
      ],
      COL,
    );
    // mean 0.85, SE = sd/√2 = 0.0707107/1.41421 = 0.05
    expect(withScore.rows[0][2]).toBe("0.850 ± 0.050");
  });

  it("feasibility falls back to an item field; year from date", () => {
    const r = { ...judged(0), itemMeta: { suitabilityScore: 4.5, date: "2019-01-01" } };
    expect([...feasibilityByItem([r]).values()]).toEqual([4.5]);
    expect(yearOfRecord(r)).toBe(2019);
  });

  it("buildSections adds the section for MedMeta records only", async () => {
    const s = await buildSections(records, {});
    expect(s.map((x) => x.heading)).toContain("MedMeta analyses: judge agreement, feasibility, topic, year, BERTScore");
    const other = await buildSections(
      records.map((r) => ({ ...r, dataset: "medevidence" })),
      {},
    );
    expect(other.map((x) => x.heading).some((h) => h.startsWith("MedMeta analyses"))).toBe(false);
  });
});
