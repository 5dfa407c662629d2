/**
 * Equal scores in a component list share a rank for rank-based fusion (RRF, ISR, Borda, the `rank`
 * normalisation), as score-based fusion (`weighted`) already treats them; ties of the fused score
 * are broken only for the output order, by first appearance. Values by hand.
 * A = [a 3, b 2, c 2, d 1] → shared ranks a 1, b 2, c 2, d 4; B = [c 5, a 4, d 4, b 1] → c 1, a 2, d 2, b 4.
 */
import { describe, expect, it } from "vitest";
import { minMaxFuse, rrfFuse, sharedRanks } from "../../retrieval/fusion.ts";
import { createFusionMethod } from "../../retrieval/fusion-methods/registry.ts";
import { createHybridRetriever } from "../../retrieval/hybrid.ts";
import { multiQueryRetrieve } from "../../retrieval/multi-query.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";

const hits = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));
const A = hits(["a", 3], ["b", 2], ["c", 2], ["d", 1]);
const B = hits(["c", 5], ["a", 4], ["d", 4], ["b", 1]);
const pairs = (h: SearchHit[]) => h.map((x) => [x.id, x.score]);

describe("shared ranks for tied scores", () => {
  it("sharedRanks: standard competition ranking over adjacent equal scores (1224), positions not renumbered", () => {
    expect(sharedRanks([1, 2, 3, 4], [9, 7, 7, 5])).toEqual([1, 2, 2, 4]);
    expect(sharedRanks([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1])).toEqual([1, 1, 1, 1, 1, 1]);
    // A repeated id removed at position 2: positions 1, 3, 4.
    expect(sharedRanks([1, 3, 4], [5, 5, 2])).toEqual([1, 1, 4]);
    expect(sharedRanks([1, 2], [NaN, NaN])).toEqual([1, 2]);
  });

  it("rrfFuse: six documents tied in both lists get one fused score 2/61 (was 0.0328 … 0.0303), listed in first-appearance order", () => {
    const ids = ["p1", "p2", "p3", "p4", "p5", "p6"];
    const bm25 = ids.map((id) => ({ id, score: 4.2 }));
    const dense = [...ids].reverse().map((id) => ({ id, score: 0.81 }));
    const f = rrfFuse([bm25, dense], { names: ["bm25", "dense"] });
    expect(f.map((h) => h.id)).toEqual(ids);
    for (const h of f) expect(h.score).toBe(1 / 61 + 1 / 61);
    expect(f.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("rrfFuse and the rrf unit: a = c = 1/61 + 1/62, b = d = 1/62 + 1/64; ties listed by first appearance", () => {
    const want = [
      ["a", 1 / 61 + 1 / 62],
      ["c", 1 / 61 + 1 / 62],
      ["b", 1 / 62 + 1 / 64],
      ["d", 1 / 62 + 1 / 64],
    ];
    expect(pairs(rrfFuse([A, B]))).toEqual(want);
    expect(pairs(createFusionMethod("rrf").fuse([A, B]))).toEqual(want);
  });

  it("ISR: a = c = 2·(1 + 1/4) = 2.5, b = d = 2·(1/4 + 1/16) = 0.625", () => {
    expect(pairs(createFusionMethod("isr").fuse([A, B]))).toEqual([
      ["a", 2.5],
      ["c", 2.5],
      ["b", 0.625],
      ["d", 0.625],
    ]);
  });

  it("Borda (4 candidates): places A a1 b2 c2 d4 → 4, 3, 3, 1; B c1 a2 d2 b4 → 4, 3, 3, 1; a = c = 7, b = d = 4", () => {
    expect(pairs(createFusionMethod("borda").fuse([A, B]))).toEqual([
      ["a", 7],
      ["c", 7],
      ["b", 4],
      ["d", 4],
    ]);
  });

  it("rank normalisation (CombSUM): (4 − r + 1)/4 → a = c = 1 + 0.75, b = d = 0.75 + 0.25", () => {
    expect(pairs(createFusionMethod("combsum", { normalization: "rank" }).fuse([A, B]))).toEqual([
      ["a", 1.75],
      ["c", 1.75],
      ["b", 1],
      ["d", 1],
    ]);
  });

  it("weighted (min–max) and RRF agree: documents tied in every list get one fused score each", () => {
    const bm25 = hits(["t1", 2], ["t2", 2], ["t3", 2], ["u", 1]);
    const dense = hits(["u", 0.9], ["t3", 0.4], ["t2", 0.4], ["t1", 0.4]);
    const w = minMaxFuse([bm25, dense]);
    const r = rrfFuse([bm25, dense]);
    expect(w.filter((h) => h.id.startsWith("t")).map((h) => h.score)).toEqual([0.5, 0.5, 0.5]);
    expect(r.filter((h) => h.id.startsWith("t")).map((h) => h.score)).toEqual([1 / 61 + 1 / 62, 1 / 61 + 1 / 62, 1 / 61 + 1 / 62]);
    expect(r.map((h) => h.id)).toEqual(["t1", "t2", "t3", "u"]);
  });

  it("the hybrid retriever (RRF) gives tied BM25 and dense hits one fused score", async () => {
    const docs = ["x1", "x2", "x3"].map((id) => ({ id, title: id, text: id }));
    const fixed = (score: number, order: string[]): Retriever => ({
      id: "fixed",
      search: async (_q: string, k: number) => order.slice(0, k).map((id, i) => ({ id, score, rank: i + 1, doc: docs.find((d) => d.id === id) })),
    });
    const r = createHybridRetriever({ bm25: fixed(2, ["x1", "x2", "x3"]), dense: fixed(0.5, ["x3", "x2", "x1"]) }, { fusion: "rrf" });
    const got = await r.search("q", 3);
    expect(got.map((h) => [h.id, h.scores?.rrf])).toEqual([
      ["x1", 2 / 61],
      ["x2", 2 / 61],
      ["x3", 2 / 61],
    ]);
  });

  it("multi-query merging (RRF over sub-queries): tied hits of a sub-query share a rank; provenance keeps list positions", async () => {
    const lists: Record<string, SearchHit[]> = {
      q1: [
        { id: "a", score: 5, rank: 1 },
        { id: "b", score: 5, rank: 2 },
        { id: "c", score: 1, rank: 3 },
      ],
      q2: [
        { id: "b", score: 0.9, rank: 1 },
        { id: "a", score: 0.9, rank: 2 },
      ],
    };
    const r: Retriever = { id: "fixed", search: async (q: string) => lists[q] };
    const got = await multiQueryRetrieve(r, ["q1", "q2"], { k: 3 });
    expect(got.map((h) => [h.id, h.score])).toEqual([
      ["a", 2 / 61],
      ["b", 2 / 61],
      ["c", 1 / 63],
    ]);
    expect(got[1].provenance.queries.map((p) => p.rank)).toEqual([2, 1]);
  });
});
