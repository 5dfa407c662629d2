/**
 * The top-k heap's sort (retrieval/bm25/topk-heap.ts) orders best first — score descending, ties
 * by doc index ascending — as Array#sort with that comparator does, for small and large k (a
 * heapsort now; the insertion sort it replaces took 3.4 s at k = 47,159).
 */
import { describe, expect, it } from "vitest";
import { offerTopK, sortHeap } from "../../retrieval/bm25/topk-heap.ts";
import { mulberry32 } from "../helpers/zipf-docs.ts";

describe("sortHeap", () => {
  it.each([1, 2, 7, 50_000])("sorts a full top-%i heap best first, ties by doc index", (k) => {
    const next = mulberry32(k);
    const docs = new Int32Array(k);
    const scores = new Float64Array(k);
    const all: [number, number][] = [];
    let size = 0;
    for (let d = 0; d < 2 * k + 5; d++) {
      const s = Math.floor(next() * 50) / 4; // many exact ties
      all.push([d, s]);
      size = offerTopK(docs, scores, size, k, d, s);
    }
    sortHeap(docs, scores, size);
    const expected = all.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
    expect(Array.from(docs.subarray(0, size), (d, i) => [d, scores[i]])).toEqual(expected);
  });
});
