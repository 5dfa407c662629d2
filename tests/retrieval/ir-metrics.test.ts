import { describe, expect, it } from "vitest";
import { averagePrecision, computeMetric, evaluateRun, hitAtK, ndcgAtK, parseMetric, precisionAtK, recallAtK, reciprocalRank } from "../../retrieval/eval/ir-metrics.ts";

// Binary case: 3 relevant docs (d2, d4, d9), d9 never retrieved.
const RANKED = ["d1", "d2", "d3", "d4", "d5"];
const BIN = { d2: 1, d4: 1, d9: 1, d7: 0 };

describe("binary relevance", () => {
  it("recall@k = found / 3", () => {
    expect(recallAtK(RANKED, BIN, 1)).toBe(0);
    expect(recallAtK(RANKED, BIN, 2)).toBeCloseTo(1 / 3, 15);
    expect(recallAtK(RANKED, BIN, 5)).toBeCloseTo(2 / 3, 15);
    expect(recallAtK(RANKED, BIN, 100)).toBeCloseTo(2 / 3, 15);
  });
  it("precision@k divides by k, even past the end of the list", () => {
    expect(precisionAtK(RANKED, BIN, 2)).toBe(0.5);
    expect(precisionAtK(RANKED, BIN, 5)).toBe(0.4);
    expect(precisionAtK(RANKED, BIN, 10)).toBe(0.2);
  });
  it("MRR and hit@k: first relevant at rank 2", () => {
    expect(reciprocalRank(RANKED, BIN)).toBe(0.5);
    expect(reciprocalRank(RANKED, BIN, 1)).toBe(0);
    expect(hitAtK(RANKED, BIN, 1)).toBe(0);
    expect(hitAtK(RANKED, BIN, 2)).toBe(1);
  });
  it("nDCG@5 = (1/log2 3 + 1/log2 5) / (1 + 1/log2 3 + 1/log2 4) = 1.0616063 / 2.1309298 = 0.4981893", () => {
    expect(ndcgAtK(RANKED, BIN, 5)).toBeCloseTo(0.4981892575, 9);
    // nDCG@2 = (1/log2 3) / (1 + 1/log2 3) = 0.6309298 / 1.6309298 = 0.3868528
    expect(ndcgAtK(RANKED, BIN, 2)).toBeCloseTo(0.3868528072, 9);
    expect(ndcgAtK(["d2", "d4", "d9"], BIN, 3)).toBe(1);
  });
  it("repeated ids count once; SearchHit-like objects are accepted", () => {
    expect(recallAtK(["d2", "d2", "d4"], BIN, 2)).toBeCloseTo(2 / 3, 15);
    expect(precisionAtK([{ id: "d2" }, { id: "d4" }], BIN, 2)).toBe(1);
  });
});

describe("graded relevance", () => {
  // grades d1 3, d3 2, d6 1; ranked d3, d2, d1.
  const G = { d1: 3, d3: 2, d6: 1 };
  const R = ["d3", "d2", "d1"];
  it("linear gains: DCG@3 = 2/1 + 0 + 3/2 = 3.5; IDCG@3 = 3 + 2/log2 3 + 1/2 = 4.7618595 → 0.7350070", () => {
    expect(ndcgAtK(R, G, 3)).toBeCloseTo(0.7350069851, 9);
    // @1: 2 / 3
    expect(ndcgAtK(R, G, 1)).toBeCloseTo(2 / 3, 15);
  });
  it("exponential gains 2^g − 1: DCG = 3 + 7/2 = 6.5; IDCG = 7 + 3/log2 3 + 1/2 = 9.3927893 → 0.6920202", () => {
    expect(ndcgAtK(R, G, 3, { gain: "exponential" })).toBeCloseTo(0.6920202104, 9);
  });
  it("graded qrels are relevant when > 0 for recall", () => {
    expect(recallAtK(R, G, 3)).toBeCloseTo(2 / 3, 15);
  });
});

describe("evaluateRun", () => {
  it("per query and macro means; skips queries without relevant docs; missing queries score 0", () => {
    const qrels = { q1: BIN, q2: { x: 1 }, q3: { y: 0 }, q4: { z: 1 } };
    const run = { q1: RANKED, q2: ["x", "w"], q3: ["y"], q9: ["a"] };
    const ev = evaluateRun(run, qrels, ["recall@2", "P@2", "mrr", "hit@1", "ndcg@2"]);
    expect(ev.queries).toBe(3);
    expect(ev.skippedNoRelevant).toEqual(["q3"]);
    expect(ev.missingFromRun).toEqual(["q4"]);
    expect(ev.unjudged).toEqual(["q9"]);
    expect(ev.perQuery.q2).toEqual({ "recall@2": 1, "P@2": 0.5, mrr: 1, "hit@1": 1, "ndcg@2": 1 });
    expect(ev.perQuery.q4["recall@2"]).toBe(0);
    // recall@2 mean = (1/3 + 1 + 0) / 3; mrr mean = (0.5 + 1 + 0) / 3
    expect(ev.mean["recall@2"]).toBeCloseTo(4 / 9, 15);
    expect(ev.mean.mrr).toBeCloseTo(0.5, 15);
    expect(ev.mean["P@2"]).toBeCloseTo(1 / 3, 15);
  });
  it("rejects unknown metrics and missing cutoffs", () => {
    expect(() => evaluateRun({}, {}, ["err@10"])).toThrow(/unknown metric "err@10"/);
    expect(() => parseMetric("recall")).toThrow(/needs a cutoff/);
    expect(parseMetric("NDCG@10")).toEqual({ family: "ndcg", k: 10 });
    expect(() => recallAtK(RANKED, BIN, 0)).toThrow(/k must be an integer/);
  });
});

describe("average precision (MAP) and uncut MRR (trec_eval map, map_cut, recip_rank)", () => {
  const rels = { r1: 1, r2: 2, r3: 1, n: 0 };
  const ranked = ["x", "r1", "n", "r2", "y"];
  it("AP = (1/2 + 2/4)/3 relevant = 1/3; map@2 = (1/2)/3; mrr uncut = 1/2, mrr@1 = 0", () => {
    expect(averagePrecision(ranked, rels)).toBeCloseTo(1 / 3, 15);
    expect(averagePrecision(ranked, rels, 2)).toBeCloseTo(1 / 6, 15);
    expect(computeMetric("map", ranked, rels)).toBeCloseTo(1 / 3, 15);
    expect(computeMetric("map@2", ranked, rels)).toBeCloseTo(1 / 6, 15);
    expect(computeMetric("mrr", ranked, rels)).toBe(0.5);
    expect(computeMetric("mrr@1", ranked, rels)).toBe(0);
    expect(averagePrecision(ranked, { n: 0 })).toBe(0);
  });
});
