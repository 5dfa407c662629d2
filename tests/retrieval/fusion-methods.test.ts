/**
 * Fusion methods as registry units (issue 18 item 1), each on hand-made rankings with values
 * computed by hand. A = [a 10, b 6, c 2] (e.g. BM25), B = [b 0.9, d 0.5, a 0.1] (e.g. dense).
 * Min–max: A → a 1, b 0.5, c 0; B → b 1, d 0.5, a 0.
 */
import { describe, expect, it } from "vitest";
import { createFusionMethod, FUSION_METHOD_IDS, normalizeScores } from "../../retrieval/fusion-methods/registry.ts";

const hits = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));
const A = hits(["a", 10], ["b", 6], ["c", 2]);
const B = hits(["b", 0.9], ["d", 0.5], ["a", 0.1]);
const fuse = (id: string, config: Record<string, unknown> = {}) =>
  createFusionMethod(id, config)
    .fuse([A, B], ["bm25", "dense"])
    .map((h) => [h.id, h.score]);

describe("fusion methods by hand", () => {
  it("registry lists every method and names valid ids on an unknown one", () => {
    expect(FUSION_METHOD_IDS).toEqual(["rrf", "combsum", "combmnz", "combmax", "weighted-sum", "isr", "borda"]);
    expect(() => createFusionMethod("condorcet")).toThrow(/unknown fusion method "condorcet"; valid ids: rrf, combsum/);
    expect(() => createFusionMethod("combsum", { normalization: "l2" })).toThrow();
    expect(() => createFusionMethod("isr", { k: 1 })).toThrow();
  });

  it("CombSUM (min–max): b 0.5 + 1 = 1.5, a 1 + 0 = 1, d 0.5, c 0", () => {
    expect(fuse("combsum")).toEqual([
      ["b", 1.5],
      ["a", 1],
      ["d", 0.5],
      ["c", 0],
    ]);
  });

  it("CombMNZ (min–max): b 1.5·2 = 3, a 1·2 = 2, d 0.5·1, c 0", () => {
    expect(fuse("combmnz")).toEqual([
      ["b", 3],
      ["a", 2],
      ["d", 0.5],
      ["c", 0],
    ]);
  });

  it("CombMAX (min–max): a = b = 1 (tie: first appearance, a), d 0.5, c 0", () => {
    expect(fuse("combmax")).toEqual([
      ["a", 1],
      ["b", 1],
      ["d", 0.5],
      ["c", 0],
    ]);
  });

  it("weighted sum [2, 1] (min–max): a 2·1 + 0 = 2, b 2·0.5 + 1 = 2, d 0.5, c 0", () => {
    expect(fuse("weighted-sum", { weights: [2, 1] })).toEqual([
      ["a", 2],
      ["b", 2],
      ["d", 0.5],
      ["c", 0],
    ]);
    expect(() => fuse("weighted-sum", { weights: [1] })).toThrow(/weights has 1 entries but there are 2 lists/);
  });

  it("RRF k = 60: b 1/62 + 1/61, a 1/61 + 1/63, d 1/62, c 1/63; k = 0 and weights", () => {
    const f = fuse("rrf");
    expect(f.map((x) => x[0])).toEqual(["b", "a", "d", "c"]);
    expect(f[0][1]).toBe(1 / 61 + 1 / 62);
    expect(f[1][1]).toBe(1 / 61 + 1 / 63);
    expect(fuse("rrf", { k: 0, weights: [1, 2] })).toEqual(
      [
        ["b", 2 + 1 / 2],
        ["d", 1],
        ["a", 1 + 2 / 3],
        ["c", 1 / 3],
      ].sort((x, y) => (y[1] as number) - (x[1] as number)),
    );
  });

  it("ISR: b (1/2² + 1/1²)·2 = 2.5, a (1 + 1/3²)·2 = 20/9, d 1/4, c 1/9; a repeated id keeps its first rank", () => {
    const f = fuse("isr");
    expect(f.map((x) => x[0])).toEqual(["b", "a", "d", "c"]);
    expect(f[0][1]).toBe(2.5);
    expect(f[1][1]).toBeCloseTo(20 / 9, 15);
    expect(f[3][1]).toBeCloseTo(1 / 9, 15);
    expect(
      createFusionMethod("isr")
        .fuse([hits(["x", 3], ["x", 2], ["y", 1])])
        .map((h) => h.score),
    ).toEqual([1, 1 / 9]);
  });

  it("Borda (4 candidates): A gives a 4, b 3, c 2, unranked d (4 − 3 + 1)/2 = 1; B gives b 4, d 3, a 2, c 1 → b 7, a 6, d 4, c 3", () => {
    expect(fuse("borda")).toEqual([
      ["b", 7],
      ["a", 6],
      ["d", 4],
      ["c", 3],
    ]);
  });

  it("per-list scores are kept under the list names; ids compared as strings", () => {
    const f = createFusionMethod("combsum").fuse([A, B], ["bm25", "dense"]);
    expect(f[1].scores).toEqual({ bm25: 10, dense: 0.1 });
    expect(createFusionMethod("combmnz").fuse([[{ id: 7 as unknown as string, score: 1 }], hits(["7", 2])])).toHaveLength(1);
  });
});

describe("normalisations", () => {
  const e = [10, 6, 2].map((score, i) => ({ score, rank: i + 1 }));
  it("min–max [1, 0.5, 0]; z-score ±√(3/2) (population SD √(32/3)); sum [10, 6, 2]/18; rank [1, 2/3, 1/3]", () => {
    expect(normalizeScores(e, "min-max")).toEqual([1, 0.5, 0]);
    const z = normalizeScores(e, "z-score");
    expect(z[0]).toBeCloseTo(Math.sqrt(1.5), 14);
    expect(z[1]).toBe(0);
    expect(z[2]).toBeCloseTo(-Math.sqrt(1.5), 14);
    expect(normalizeScores(e, "sum")).toEqual([10 / 18, 6 / 18, 2 / 18]);
    expect(normalizeScores(e, "rank")).toEqual([1, 2 / 3, 1 / 3]);
  });
  it("degenerate lists: equal scores → min–max 1, z-score 0; zero sum → 0", () => {
    const flat = [
      { score: 3, rank: 1 },
      { score: 3, rank: 2 },
    ];
    expect(normalizeScores(flat, "min-max")).toEqual([1, 1]);
    expect(normalizeScores(flat, "z-score")).toEqual([0, 0]);
    expect(
      normalizeScores(
        [
          { score: 1, rank: 1 },
          { score: -1, rank: 2 },
        ],
        "sum",
      ),
    ).toEqual([0, 0]);
  });
  it("CombSUM with z-score: a 1.22 − 1.22 = 0, b 0 + 1.22, d 0, c −1.22", () => {
    const f = createFusionMethod("combsum", { normalization: "z-score" }).fuse([A, B]);
    expect(f.map((h) => h.id)).toEqual(["b", "a", "d", "c"]);
    expect(f[0].score).toBeCloseTo(Math.sqrt(1.5), 14);
  });
});
