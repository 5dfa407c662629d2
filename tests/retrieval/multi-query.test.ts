import { describe, expect, it } from "vitest";
import { multiQueryRetrieve } from "../../retrieval/multi-query.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";

/** Answers each query with its scripted list; records calls. */
function scripted(lists: Record<string, [string, number][]>): Retriever & { calls: [string, number][] } {
  const calls: [string, number][] = [];
  return {
    id: "scripted",
    calls,
    async search(q: string, k: number): Promise<SearchHit[]> {
      calls.push([q, k]);
      return (lists[q] ?? []).slice(0, k).map(([id, score], i) => ({ id, score, rank: i + 1 }));
    },
  };
}

describe("multiQueryRetrieve", () => {
  const r = () =>
    scripted({
      q1: [
        ["p1", 9],
        ["p2", 8],
        ["p3", 7],
      ],
      q2: [
        ["p2", 0.9],
        ["p4", 0.8],
        ["p1", 0.7],
      ],
      q3: [["p5", 2]],
    });

  it("merges, de-duplicates by id and keeps per-query provenance", async () => {
    const ret = r();
    const hits = await multiQueryRetrieve(ret, ["q1", "q2", "q3"], { k: 3 });
    expect(ret.calls).toEqual([
      ["q1", 3],
      ["q2", 3],
      ["q3", 3],
    ]);
    // RRF over sub-queries: p2 = 1/62+1/61, p1 = 1/61+1/63, p5 = 1/61, p3 = 1/63, p4 = 1/62
    expect(hits.map((h) => h.id)).toEqual(["p2", "p1", "p5", "p4", "p3"]);
    expect(hits[0].score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(hits[1].provenance.queries).toEqual([
      { query: "q1", queryIndex: 0, rank: 1, score: 9 },
      { query: "q2", queryIndex: 1, rank: 3, score: 0.7 },
    ]);
    expect(hits[2].provenance.queries).toEqual([{ query: "q3", queryIndex: 2, rank: 1, score: 2 }]);
  });

  it("K per query, maxDocs cap, blank and repeated sub-queries dropped", async () => {
    const ret = r();
    const hits = await multiQueryRetrieve(ret, ["q1", " ", "q1", "q2"], { k: 1, maxDocs: 5 });
    expect(ret.calls).toEqual([
      ["q1", 1],
      ["q2", 1],
    ]);
    expect(hits.map((h) => h.id)).toEqual(["p1", "p2"]);
    expect(hits[1].provenance.queries).toEqual([{ query: "q2", queryIndex: 1, rank: 1, score: 0.9 }]);
    const capped = await multiQueryRetrieve(r(), ["q1", "q2"], { k: 3, maxDocs: 2 });
    expect(capped.map((h) => h.id)).toEqual(["p2", "p1"]);
  });

  it("no usable sub-query → []; bad config throws", async () => {
    expect(await multiQueryRetrieve(r(), [])).toEqual([]);
    expect(await multiQueryRetrieve(r(), ["", "  "])).toEqual([]);
    await expect(multiQueryRetrieve(r(), ["q1"], { k: 0 })).rejects.toThrow();
    await expect(multiQueryRetrieve(r(), ["q1"], { K: 3 } as never)).rejects.toThrow();
  });
});
