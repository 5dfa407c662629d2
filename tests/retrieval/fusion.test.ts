import { describe, expect, it } from "vitest";
import { minMaxFuse, RRF_K, rrfFuse } from "../../retrieval/fusion.ts";

const hits = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));
// List A (e.g. BM25): a 10, b 6, c 2. List B (e.g. dense): b 0.9, d 0.5, a 0.1.
const A = hits(["a", 10], ["b", 6], ["c", 2]);
const B = hits(["b", 0.9], ["d", 0.5], ["a", 0.1]);

describe("rrfFuse", () => {
  it("k = 60 by hand: b = 1/62 + 1/61, a = 1/61 + 1/63, d = 1/62, c = 1/63", () => {
    expect(RRF_K).toBe(60);
    const f = rrfFuse([A, B], { names: ["bm25", "dense"] });
    expect(f.map((h) => h.id)).toEqual(["b", "a", "d", "c"]);
    expect(f[0].score).toBeCloseTo(0.0325224749, 10);
    expect(f[1].score).toBeCloseTo(0.0322664585, 10);
    expect(f[2].score).toBeCloseTo(1 / 62, 12);
    expect(f[3].score).toBeCloseTo(1 / 63, 12);
    expect(f.map((h) => h.rank)).toEqual([1, 2, 3, 4]);
    expect(f[1].scores).toEqual({ bm25: 10, dense: 0.1 });
    expect(f[2].scores).toEqual({ dense: 0.5 });
  });

  it("per-list weights [2, 1]: a = 2/61 + 1/63 = 0.0486599 beats b = 2/62 + 1/61 = 0.0486515", () => {
    const f = rrfFuse([A, B], { weights: [2, 1] });
    expect(f.map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
    expect(f[0].score).toBeCloseTo(0.0486599011, 10);
    expect(f[1].score).toBeCloseTo(0.0486515071, 10);
  });

  it("k = 0: b = 1/2 + 1/1 = 1.5, a = 1 + 1/3; works for 1 or 3 lists; limit; duplicates keep first rank", () => {
    const f = rrfFuse([A, B], { k: 0, limit: 2 });
    expect(f.map((h) => [h.id, h.score])).toEqual([
      ["b", 1.5],
      ["a", 1 + 1 / 3],
    ]);
    expect(rrfFuse([A]).map((h) => h.id)).toEqual(["a", "b", "c"]);
    expect(rrfFuse([A, B, hits(["c", 1])]).map((h) => h.id)).toEqual(["b", "a", "c", "d"]);
    // A repeated id keeps its first rank and the ranks after it are not renumbered (ranx,
    // trec_eval): y stays 3rd, 1/3 — not 1/2.
    const dup = rrfFuse([hits(["x", 3], ["x", 2], ["y", 1])], { k: 0 });
    expect(dup.map((h) => [h.id, h.score])).toEqual([
      ["x", 1],
      ["y", 1 / 3],
    ]);
    expect(rrfFuse([])).toEqual([]);
  });

  it("rejects mismatched weights/names and bad k", () => {
    expect(() => rrfFuse([A, B], { weights: [1] })).toThrow(/weights has 1 entries but there are 2 lists/);
    expect(() => rrfFuse([A, B], { names: ["x", "x"] })).toThrow(/unique/);
    expect(() => rrfFuse([A], { k: -1 })).toThrow(/k must be/);
  });

  it("does not mutate inputs", () => {
    const copy = JSON.stringify([A, B]);
    rrfFuse([A, B]);
    minMaxFuse([A, B]);
    expect(JSON.stringify([A, B])).toBe(copy);
  });
});

describe("RRF as ranx and trec_eval see it (issue 12 item 6)", () => {
  it('ids are compared as strings: 101 and "101" are one document', () => {
    const f = rrfFuse([[{ id: 101 as unknown as string, score: 1 }], hits(["101", 1])], { k: 0 });
    expect(f).toHaveLength(1);
    expect(f[0].id).toBe("101");
    expect(f[0].score).toBe(2);
  });

  it("identical inputs give bit-identical fused scores whatever the list order (k = 0: 1 + 1/2 + 1/6 both)", () => {
    // x has ranks (1, 2, 6), y has (2, 6, 1). Summed in list order these differ in the last bit
    // (1.6666666666666667 vs 1.6666666666666665); contributions are summed largest first.
    const L0 = hits(["x", 6], ["y", 5], ["f1", 4], ["f2", 3], ["f3", 2], ["f4", 1]);
    const L1 = hits(["g1", 6], ["x", 5], ["g2", 4], ["g3", 3], ["g4", 2], ["y", 1]);
    const L2 = hits(["y", 6], ["h1", 5], ["h2", 4], ["h3", 3], ["h4", 2], ["x", 1]);
    const f = rrfFuse([L0, L1, L2], { k: 0 });
    const x = f.find((h) => h.id === "x")!;
    const y = f.find((h) => h.id === "y")!;
    expect(x.score).toBe(y.score);
    expect(x.score).toBe(1 + 1 / 2 + 1 / 6);
    // Tie rule: first appearance (x is met first in list 0).
    expect([x.rank, y.rank]).toEqual([1, 2]);
    const g = rrfFuse([L2, L1, L0], { k: 0 });
    expect(g.find((h) => h.id === "x")!.score).toBe(x.score);
    expect(g.slice(0, 2).map((h) => h.id)).toEqual(["y", "x"]); // first appearance in list 0 = L2
  });
});

describe("minMaxFuse", () => {
  // A normalised: a 1, b (6−2)/8 = 0.5, c 0. B normalised: b 1, d (0.5−0.1)/0.8 = 0.5, a 0.
  it("equal weights (1/2 each); a doc missing from a list gets 0 there", () => {
    const f = minMaxFuse([A, B], { names: ["bm25", "dense"] });
    expect(f.map((h) => [h.id, +h.score.toFixed(12)])).toEqual([
      ["b", 0.75], // 0.5·0.5 + 0.5·1
      ["a", 0.5], //  0.5·1 + 0.5·0
      ["d", 0.25], // 0 (missing from A) + 0.5·0.5
      ["c", 0], //    0.5·0 + 0 (missing from B)
    ]);
    expect(f[2].scores).toEqual({ dense: 0.5 });
  });

  it("weights [0.8, 0.2]: a = 0.8, b = 0.4 + 0.2 = 0.6, d = 0.1, c = 0", () => {
    const f = minMaxFuse([A, B], { weights: [0.8, 0.2] });
    expect(f.map((h) => [h.id, +h.score.toFixed(12)])).toEqual([
      ["a", 0.8],
      ["b", 0.6],
      ["d", 0.1],
      ["c", 0],
    ]);
  });

  it("a list with all-equal scores (or one hit) maps to 1; non-finite scores throw", () => {
    const f = minMaxFuse([hits(["x", 3]), hits(["y", 2], ["x", 2])]);
    expect(f.map((h) => [h.id, h.score])).toEqual([
      ["x", 1],
      ["y", 0.5],
    ]);
    expect(() => minMaxFuse([hits(["x", NaN])])).toThrow(/non-finite score for id x/);
  });
});
