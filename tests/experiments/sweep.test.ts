/**
 * `medsynth retrieval sweep` (issue 18.2–3): config errors naming the key, grid expansion and
 * collapsing, hybrid first stage and reranking by hand, Holm-adjusted paired tests on a fixed
 * per-query table by hand, the review-stratified protocols, and a small real sweep on the bundled
 * MedEvidence questions giving the documented table shape with figures equal to a direct
 * BM25 evaluation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { medsynthCommand } from "../../corpus/paths.ts";
import type { SynthesisTask } from "../../corpus/types.ts";
import { createRetriever } from "../../retrieval/registry.ts";
import { evaluateRun } from "../../retrieval/eval/ir-metrics.ts";
import { analyseSweep, compareToBaseline, CV_LABEL } from "../../experiments/sweep/analysis.ts";
import { planSweep, SweepConfigError } from "../../experiments/sweep/config.ts";
import { applyReranker, firstStage } from "../../experiments/sweep/rank.ts";
import { resultsHeader } from "../../experiments/sweep/report.ts";
import { runSweepCommand } from "../../experiments/sweep/command.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-sweep-"));
  process.env.MEDSYNTH_CACHE_DIR = join(dir, "cache");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problemsOf = (raw: unknown): string[] => {
  try {
    planSweep(raw);
  } catch (e) {
    if (e instanceof SweepConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe("sweep config", () => {
  it("reports every bad grid entry at once, naming the key and position", () => {
    expect(problemsOf({ grid: { k1: [1.2, "x", -1], fusion: ["rrf", "foo"], colour: [1] }, metric: "recall@7" })).toEqual([
      'grid.k1[1]: Invalid input: expected number, received string (got "x")',
      "grid.k1[2]: Too small: expected number to be >=0 (got -1)",
      expect.stringMatching(/^grid\.fusion\[1\]: Invalid option: expected one of "rrf"\|.*"borda" \(got "foo"\)$/),
      "grid.colour: unknown key; valid keys: mode, k1, b, fusion, weights, normalization, rrfK, candidates, reranker, rerankDepth",
      'metric: expected recall@K, ndcg@K or mrr@K with K in k (5, 10, 20) (got "recall@7")',
    ]);
    expect(problemsOf({ settings: [{ mode: "bm25", k2: 1 }], baseline: "nope", split: "dev-test", folds: 3 })).toEqual([
      "settings[0].k2: unknown key",
      "split / folds: choose one tuning protocol (split: dev-test or folds: k), not both",
    ]);
    expect(problemsOf({ settings: [{ name: "a" }], baseline: "nope" })).toEqual(['baseline: no setting named "nope"; settings: a']);
    // An experiment config given by mistake: its keys are named, and so is the command that runs it.
    expect(problemsOf({ name: "x", datasets: [], models: [], workflows: [] }).at(-1)).toBe(
      `(this file has \`models\` and \`workflows\`: it is an experiment config — run it with \`${medsynthCommand()} run <file>\`)`,
    );
    expect(problemsOf({ grid: { reranker: ["llm-pointwise", "bogus"] } })).toEqual([
      "grid point 1.reranker: llm-pointwise needs chatModel (openai:<model>)",
      'grid point 2.reranker: unknown reranker "bogus"; valid: none, cross-encoder, cross-encoder:<model id>, llm-pointwise',
    ]);
  });

  it("drops keys that do not apply and runs identical retrievers once", () => {
    const p = planSweep({ settings: [{ name: "base", mode: "bm25" }], grid: { mode: ["bm25", "hybrid"], fusion: ["rrf", "combmnz"], normalization: ["min-max", "z-score"] } });
    // bm25 × (2 fusions × 2 normalisations) = 1 retriever (= "base"); hybrid rrf ignores normalisation; combmnz takes both.
    expect(p.settings.map((s) => s.name)).toEqual(["base", "mode=hybrid fusion=rrf", "mode=hybrid fusion=combmnz normalization=min-max", "mode=hybrid fusion=combmnz normalization=z-score"]);
    expect(p.collapsed).toBe(5);
    expect(p.settings[1]).toEqual({ name: "mode=hybrid fusion=rrf", mode: "hybrid", k1: 1.5, b: 0.75, fusion: "rrf", rrfK: 60, candidates: 100, reranker: "none" });
    expect(p).toMatchObject({ baseline: "base", metric: "recall@20", testK: 20, protocol: "none", corpus: "bundled", curveK: [1, 2, 3, 5, 10, 20, 50, 100] });
  });
});

describe("ranking pieces", () => {
  it("hybrid first stage = the fusion unit over the top `candidates` of each list (RRF by hand)", () => {
    const bm25 = [
      { id: "a", score: 9 },
      { id: "b", score: 5 },
      { id: "c", score: 1 },
    ];
    const dense = [
      { id: "c", score: 0.9 },
      { id: "d", score: 0.8 },
      { id: "a", score: 0.1 },
    ];
    const s = { mode: "hybrid" as const, k1: 1.5, b: 0.75, fusion: "rrf", rrfK: 0, candidates: 2, reranker: "none" };
    // k = 0, top 2 of each: a 1/1, b 1/2, c 1/1, d 1/2 → a, c (tie, a first), b, d (tie, b first)
    expect(firstStage(s, { bm25, dense })).toEqual([
      { id: "a", score: 1 },
      { id: "c", score: 1 },
      { id: "b", score: 0.5 },
      { id: "d", score: 0.5 },
    ]);
    expect(firstStage({ ...s, mode: "bm25" }, { bm25 }).map((h) => h.id)).toEqual(["a", "b", "c"]);
  });

  it("reranking reorders the top depth by grade (failed grades last), the rest keeps its order", () => {
    const list = ["a", "b", "c", "d", "e"].map((id, i) => ({ id, score: 5 - i }));
    const grade = new Map([
      ["a", 0.1],
      ["b", Number.NEGATIVE_INFINITY],
      ["c", 0.9],
      ["d", 0.1],
    ]);
    expect(applyReranker(list, 4, grade)).toEqual(["c", "a", "d", "b", "e"]);
  });
});

describe("paired tests against the baseline, Holm-adjusted (hand values)", () => {
  // Per-query recall of the baseline and two settings on four queries.
  const pq = (xs: number[]) => Object.fromEntries(xs.map((x, i) => [`q${i + 1}`, { "recall@10": x, "ndcg@10": x, "mrr@10": x }]));
  const rows = [
    { setting: "base", perQuery: pq([0.2, 0.5, 0.4, 0.1]) },
    { setting: "A", perQuery: pq([0.4, 0.9, 0.6, 0.5]) }, // d = .2 .4 .2 .4
    { setting: "B", perQuery: pq([0.2, 0.6, 0.3, 0.3]) }, // d = 0 .1 −.1 .2
  ];
  it("matches t, exact randomisation p and Holm by hand", () => {
    const c = compareToBaseline(rows, "base", ["q1", "q2", "q3", "q4"], ["recall@10"], { iterations: 10_000, seed: "s" });
    // A: mean d .3, sd .11547, t = 3√3 = 5.19615, df 3: p = 2(1 − F), F(t) = ½ + (1/π)(u/(1+u²) + atan u), u = t/√3 = 3 → p = .0138466.
    // B: mean d .05, SS .05, t = √0.6 = .774597, u = 1/√5 → p = .4950262.
    // Randomisation (all 16 sign patterns): A only ±all-same reach |Σ| ≥ 1.2 → 2/16; B 12/16.
    // Holm: t [.0138466·2, max(.0276932, .4950262)]; rand [.125·2, max(.25, .75)].
    expect(c.map((x) => x.setting)).toEqual(["A", "B"]);
    expect(c[0].meanDiff).toBeCloseTo(0.3, 12);
    expect(c[0].t).toBeCloseTo(3 * Math.sqrt(3), 10);
    expect(c[0].pT).toBeCloseTo(0.0138466, 6);
    expect(c[1].t).toBeCloseTo(Math.sqrt(0.6), 10);
    expect(c[1].pT).toBeCloseTo(0.4950253, 6);
    expect(c[0].pTHolm).toBeCloseTo(2 * 0.0138466, 6);
    expect(c[1].pTHolm).toBeCloseTo(0.4950253, 6);
    expect([c[0].pRandomization, c[1].pRandomization]).toEqual([0.125, 0.75]);
    expect([c[0].pRandomizationHolm, c[1].pRandomizationHolm]).toEqual([0.25, 0.75]);
  });

  const plan = (o: object) => ({
    protocol: "none" as const,
    metric: "recall@10",
    baseline: "base",
    testK: 10,
    devFraction: 0.5,
    splitSeed: "s",
    folds: undefined,
    bootstrap: { iterations: 200, level: 0.95, seed: "b" },
    randomization: { iterations: 1000, seed: "r" },
    k: [10],
    curveK: [10],
    ...o,
  });
  const queries = ["q1", "q2", "q3", "q4"].map((id, i) => ({ id, text: id, group: i < 2 ? "g1" : `g${i}` }));
  const per = Object.fromEntries(rows.map((r) => [r.setting, r.perQuery]));

  it("no protocol: the best on all queries, flagged as picked on all", () => {
    const a = analyseSweep(plan({}), queries, per, ["base", "A", "B"]);
    expect(a.chosen).toEqual({ setting: "A", pickedOn: "all", score: 0.6 });
    expect(a.scopes.map((s) => [s.id, s.queries, s.rows.length, s.comparisons.length])).toEqual([["all", 4, 3, 6]]);
    expect(a.scopes[0].rows[1].metrics["recall@10"].mean).toBeCloseTo(0.6, 12);
  });

  it("k folds: each fold scored with the setting best on the other folds; groups stay together", () => {
    const a = analyseSweep(plan({ protocol: "folds", folds: 3 }), queries, per, ["base", "A", "B"]);
    expect(a.folds!.map((f) => f.chosen)).toEqual(["A", "A", "A"]); // A is best on every subset
    expect(a.scopes[0].rows.map((r) => r.setting)).toEqual([CV_LABEL, "base"]);
    expect(a.scopes[0].rows[0].metrics["recall@10"].mean).toBeCloseTo(0.6, 12);
    const foldOf = (q: string) => a.folds!.findIndex((f) => f.test.includes(q));
    expect(foldOf("q1")).toBe(foldOf("q2")); // both of group g1
    expect(a.folds!.flatMap((f) => f.test).sort()).toEqual(["q1", "q2", "q3", "q4"]);
  });
});

describe("a small sweep on the bundled MedEvidence questions", () => {
  it("writes the documented tables; dev figures equal a direct BM25 evaluation; no review on both sides", async () => {
    const cfg = join(dir, "sweep.yaml");
    writeFileSync(
      cfg,
      [
        "name: tiny",
        "dataset: medevidence",
        "corpus: dataset",
        "k: [5, 10]",
        "metric: ndcg@10",
        "baseline: default",
        "split: dev-test",
        "bootstrap: {iterations: 200}",
        "randomization: {iterations: 500}",
        "settings:",
        "  - {name: default, mode: bm25}",
        "grid:",
        "  k1: [0.9]",
        "  b: [0.4, 1.0]",
      ].join("\n"),
    );
    const out: string[] = [];
    const { result, dir: outDir } = await runSweepCommand(
      cfg,
      { out: join(dir, "out") },
      (l) => out.push(l),
      () => {},
    );
    const names = ["default", "k1=0.9 b=0.4", "k1=0.9 b=1"];
    expect(result.plan.settings.map((s) => s.name)).toEqual(names);
    expect(result.rankStats.bm25Indexes).toBe(3);
    expect(result.queries).toBe(284);
    // results.tsv: header, 3 dev rows, then the chosen setting and the baseline on test.
    const tsv = readFileSync(join(outDir, "results.tsv"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("\t"));
    expect(tsv[0]).toEqual(resultsHeader([5, 10]));
    expect(tsv[0].slice(0, 6)).toEqual(["scope", "setting", "queries", "recall@5", "recall@5_lo", "recall@5_hi"]);
    expect(tsv.slice(1).map((r) => [r[0], r[1]])).toEqual([...names.map((n) => ["dev", n]), ...[...new Set(["default", result.analysis.chosen.setting])].map((n) => ["test", n])]);
    expect(tsv.every((r) => r.length === tsv[0].length)).toBe(true);
    const comparisons = readFileSync(join(outDir, "comparisons.tsv"), "utf8").split("\n").filter(Boolean);
    expect(comparisons.length - 1).toBe(2 * 3 + (result.analysis.chosen.setting === "default" ? 0 : 3));
    expect(readFileSync(join(outDir, "curves.tsv"), "utf8").split("\n")[0]).toBe("scope\tsetting\tK\trecall\tlo\thi");
    expect(readFileSync(join(outDir, "report.md"), "utf8")).toContain(`Chosen on dev: "${result.analysis.chosen.setting}"`);
    expect(out[0]).toMatch(/^Protocol: dev-test split/);
    // Reference: BM25 k1 0.9, b 0.4 over the dataset's documents, evaluated directly on the dev questions.
    const ds = await loadDataset("medevidence");
    const r = await createRetriever({ mode: "bm25", bm25: { k1: 0.9, b: 0.4 } }, { docs: ds.docs!, log: () => {} });
    const dev = result.analysis.split!.dev;
    const tasks = new Map((ds.items as SynthesisTask[]).map((t) => [t.id, t]));
    const run = Object.fromEntries(await Promise.all(dev.map(async (q) => [q, (await r.search(tasks.get(q)!.question, 10)).map((h) => h.id)] as const)));
    const ref = evaluateRun(run, Object.fromEntries(dev.map((q) => [q, ds.qrels![q]])), ["ndcg@10", "recall@5"]);
    const row = tsv.find((x) => x[0] === "dev" && x[1] === "k1=0.9 b=0.4")!;
    expect(Number(row[tsv[0].indexOf("ndcg@10")])).toBeCloseTo(ref.mean["ndcg@10"], 5);
    expect(Number(row[tsv[0].indexOf("recall@5")])).toBeCloseTo(ref.mean["recall@5"], 5);
    // The split keeps each Cochrane review on one side.
    const review = (q: string) => tasks.get(q)!.meta?.original_review as string | null;
    const devReviews = new Set(dev.map(review).filter((x) => x !== null));
    expect(result.analysis.split!.test.map(review).filter((x) => x !== null && devReviews.has(x))).toEqual([]);
  });
});
