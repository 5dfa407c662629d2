import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createHybridRetriever } from "../../retrieval/hybrid.ts";
import { createRetriever } from "../../retrieval/registry.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";

/** A retriever answering every query with a fixed ranked list; records the k it was asked for. */
function fixedRetriever(id: string, list: [string, number][]): Retriever & { asked: number[] } {
  const asked: number[] = [];
  return {
    id,
    asked,
    async search(_q: string, k: number): Promise<SearchHit[]> {
      asked.push(k);
      return list.slice(0, k).map(([hid, score], i) => ({ id: hid, score, rank: i + 1 }));
    },
  };
}

const BM25: [string, number][] = [
  ["a", 5],
  ["b", 3],
  ["c", 1],
];
const DENSE: [string, number][] = [
  ["b", 0.9],
  ["d", 0.8],
  ["a", 0.1],
];

/** A fixed-list retriever that answers after `delayMs` and logs when each call starts and ends. */
function slowRetriever(id: string, list: [string, number][], delayMs: number, events: string[]): Retriever {
  return {
    id,
    async search(_q: string, k: number): Promise<SearchHit[]> {
      events.push(`${id} start`);
      await new Promise((r) => setTimeout(r, delayMs));
      events.push(`${id} end`);
      return list.slice(0, k).map(([hid, score], i) => ({ id: hid, score, rank: i + 1 }));
    },
  };
}

describe("hybrid retriever: legs concurrent or sequential", () => {
  it("concurrentLegs (default) starts both legs before either ends; false runs them in turn; same hits either way", async () => {
    const evC: string[] = [];
    const evS: string[] = [];
    // The BM25 leg is the slower one, so a concurrent run finishes the dense leg first.
    const conc = createHybridRetriever({ bm25: slowRetriever("bm25", BM25, 30, evC), dense: slowRetriever("dense", DENSE, 5, evC) });
    const seq = createHybridRetriever({ bm25: slowRetriever("bm25", BM25, 30, evS), dense: slowRetriever("dense", DENSE, 5, evS) }, { concurrentLegs: false });
    const a = await conc.search("q", 3);
    const b = await seq.search("q", 3);
    expect(evC).toEqual(["bm25 start", "dense start", "dense end", "bm25 end"]);
    expect(evS).toEqual(["bm25 start", "bm25 end", "dense start", "dense end"]);
    expect(b).toEqual(a);
    expect(a.map((h) => h.id)).toEqual(["b", "a", "d"]);
    for (const fusion of ["rrf", "weighted"] as const) {
      const x = await createHybridRetriever({ bm25: slowRetriever("bm25", BM25, 10, []), dense: slowRetriever("dense", DENSE, 1, []) }, { fusion }).search("q", 10);
      const y = await createHybridRetriever({ bm25: slowRetriever("bm25", BM25, 10, []), dense: slowRetriever("dense", DENSE, 1, []) }, { fusion, concurrentLegs: false }).search("q", 10);
      expect(y).toEqual(x);
    }
  });
});

describe("hybrid retriever: fusion wiring on hand-made rankings", () => {
  it("RRF (k=60): b = 1/61+1/62, a = 1/61+1/63, d = 1/62, c = 1/63; per-retriever scores kept", async () => {
    const bm25 = fixedRetriever("bm25", BM25);
    const dense = fixedRetriever("dense", DENSE);
    const h = createHybridRetriever({ bm25, dense });
    expect(h.id).toBe("hybrid-rrf");
    const hits = await h.search("q", 10);
    expect(bm25.asked).toEqual([100]);
    expect(dense.asked).toEqual([100]);
    expect(hits.map((x) => x.id)).toEqual(["b", "a", "d", "c"]);
    expect(hits[0].score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(hits[1].score).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(hits[2].score).toBeCloseTo(1 / 62, 12);
    expect(hits[3].score).toBeCloseTo(1 / 63, 12);
    expect(hits[0].scores).toEqual({ bm25: 3, dense: 0.9, rrf: hits[0].score });
    expect(hits[2].scores).toEqual({ dense: 0.8, rrf: hits[2].score });
    expect(hits.map((x) => x.rank)).toEqual([1, 2, 3, 4]);
    expect((await h.search("q", 2)).map((x) => x.id)).toEqual(["b", "a"]);
  });

  it("weighted min–max (equal weights): b .75, a .5, d .4375, c 0", async () => {
    const h = createHybridRetriever({ bm25: fixedRetriever("bm25", BM25), dense: fixedRetriever("dense", DENSE) }, { fusion: "weighted" });
    expect(h.id).toBe("hybrid-weighted");
    const hits = await h.search("q", 10);
    expect(hits.map((x) => [x.id, x.score])).toEqual([
      ["b", 0.75],
      ["a", 0.5],
      ["d", 0.4375],
      ["c", 0],
    ]);
    expect(hits[1].scores).toEqual({ bm25: 5, dense: 0.1, weighted: 0.5 });
  });

  it("weights and candidate depth are honoured; empty query → []", async () => {
    const bm25 = fixedRetriever("bm25", BM25);
    const h = createHybridRetriever({ bm25, dense: fixedRetriever("dense", DENSE) }, { fusion: "weighted", weights: { bm25: 1, dense: 0 }, candidates: 2 });
    const hits = await h.search("q", 3);
    expect(bm25.asked).toEqual([3]);
    // depth = max(candidates 2, k 3) = 3; bm25 norm a 1, b .5, c 0; dense weight 0; tie c/d by first appearance
    expect(hits.map((x) => [x.id, x.score])).toEqual([
      ["a", 1],
      ["b", 0.5],
      ["c", 0],
    ]);
    expect(await h.search("  ", 3)).toEqual([]);
    expect(() => createHybridRetriever({ bm25, dense: bm25 }, { fusion: "max" } as never)).toThrow();
  });
});

describe("hybrid retrieval on real abstracts (MedEvidence sources, 329 docs)", () => {
  let dir: string;
  let docs: CorpusDoc[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-hybrid-"));
    docs = (await loadBundledCorpus({ sources: ["medevidence"] })).docs;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("createRetriever hybrid: BM25 + word vectors, RRF; a doc's own title + text finds it first", async () => {
    const r = await createRetriever({ mode: "hybrid", dense: { dir } }, { docs, log: () => {} });
    expect(r.id).toBe("hybrid-rrf");
    const target = docs[17];
    const hits = await r.search(`${target.title}\n${target.text}`, 10);
    expect(hits[0].id).toBe(target.id);
    expect(hits[0].doc?.title).toBe(target.title);
    expect(Object.keys(hits[0].scores!).sort()).toEqual(["bm25", "dense", "rrf"]);
    expect(hits).toHaveLength(10);
  });

  it("LanceDB-native hybrid (LanceDB FTS + vector lists, our RRF) also finds a doc by its title + text", async () => {
    const r = await createRetriever({ mode: "lance-hybrid", dense: { dir } }, { docs, log: () => {} });
    expect(r.id).toBe("hybrid-lance");
    const target = docs[42];
    const hits = await r.search(`${target.title}\n${target.text}`, 5);
    expect(hits[0].id).toBe(target.id);
    expect(hits[0].scores!.rrf).toBe(hits[0].score);
    // Top of both lists → 1/61 + 1/61 (1-based ranks, as the in-memory hybrid).
    expect(hits[0].score).toBeCloseTo(2 / 61, 15);
    expect(Object.keys(hits[0].scores!).sort()).toEqual(["dense", "fts", "rrf"]);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(await r.search("", 5)).toEqual([]);
  });

  it("lance-hybrid and in-memory hybrid RRF agree on the scale: a doc first in both lists scores 2/61 in each", async () => {
    const mem = await createRetriever({ mode: "hybrid", dense: { dir }, bm25: { cache: false } }, { docs, log: () => {} });
    const target = docs[200];
    expect((await mem.search(`${target.title}\n${target.text}`, 1))[0]).toMatchObject({ id: target.id, score: 2 / 61 });
  });
});
