/**
 * LanceDB-native hybrid (`lance-hybrid`): FTS + vector candidate lists from LanceDB fused by our
 * `rrfFuse` — 1-based RRF ranks, `candidates` honoured, scores independent of k, no filler
 * documents for queries without a term, no LanceDB deprecation warnings on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openOrBuildDenseStore, type DenseStore } from "../../retrieval/dense/lancedb-store.ts";
import { createLanceHybridRetriever } from "../../retrieval/hybrid.ts";
import type { Retriever } from "../../retrieval/types.ts";
import { CONCEPT_DOCS, conceptEmbedder } from "./fixtures/concept-embedder.ts";

describe("lance-hybrid on a 5-doc store with a transparent embedder", () => {
  let dir: string;
  let store: DenseStore;
  let r: Retriever;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-lance-hybrid-"));
    store = await openOrBuildDenseStore(CONCEPT_DOCS, conceptEmbedder, { dir }, { log: () => {} });
    r = await createLanceHybridRetriever({ store, embedder: conceptEmbedder, docs: CONCEPT_DOCS, log: () => {} });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("RRF with 1-based ranks: FTS [d2], dense [d1, d2, d3, d4, d5] → d2 = 1/61 + 1/62, d1 = 1/61, d3 = d4 = d5 = 1/63 (cosine 0 each: tied, one shared rank)", async () => {
    expect(r.id).toBe("hybrid-lance");
    const hits = await r.search("heart", 5);
    expect(hits.map((h) => h.id)).toEqual(["d2", "d1", "d3", "d4", "d5"]);
    const want = [1 / 61 + 1 / 62, 1 / 61, 1 / 63, 1 / 63, 1 / 63];
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(want[i], 15));
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    // Component scores: LanceDB BM25 for the FTS hit only; cosine for the dense hits.
    expect(Object.keys(hits[0].scores!).sort()).toEqual(["dense", "fts", "rrf"]);
    expect(hits[0].scores!.fts).toBeGreaterThan(0);
    expect(hits[0].scores!.dense).toBeCloseTo(2 / Math.sqrt(8), 6);
    expect(hits[0].scores!.rrf).toBe(hits[0].score);
    expect(hits[1].scores).toEqual({ dense: expect.closeTo(1, 6), rrf: hits[1].score });
    expect(hits[0].doc?.title).toBe("Heart surgery");
  });

  it("a doc's fused score does not depend on k (lists fetched to `candidates`, fused, then cut)", async () => {
    const full = new Map((await r.search("heart", 5)).map((h) => [h.id, h.score]));
    for (const k of [1, 2, 3, 4]) {
      const hits = await r.search("heart", k);
      expect(hits).toHaveLength(k);
      for (const h of hits) expect(h.score).toBe(full.get(h.id));
    }
    expect((await r.search("heart", 1))[0]).toMatchObject({ id: "d2", score: 1 / 61 + 1 / 62 });
  });

  it("the candidates setting is honoured: candidates 1 → FTS [d2], dense [d1]: both 1/61, d2 first (FTS list first)", async () => {
    const shallow = await createLanceHybridRetriever({ store, embedder: conceptEmbedder, candidates: 1, log: () => {} });
    const hits = await shallow.search("heart", 1);
    expect(hits.map((h) => [h.id, h.score])).toEqual([["d2", 1 / 61]]);
    // candidates below k: k wins (depth = max(candidates, k)).
    expect((await shallow.search("heart", 5)).map((h) => h.id)).toEqual(["d2", "d1", "d3", "d4", "d5"]);
    await expect(createLanceHybridRetriever({ store, embedder: conceptEmbedder, candidates: 0 })).rejects.toThrow();
  });

  it("rrfK is the RRF constant: rrfK 0 → d2 = 1/1 + 1/2", async () => {
    const r0 = await createLanceHybridRetriever({ store, embedder: conceptEmbedder, rrfK: 0, log: () => {} });
    expect((await r0.search("heart", 1))[0].score).toBe(1.5);
  });

  it("a query without an analyzable term returns [] (never filler documents)", async () => {
    for (const q of ["*&^%$#@!", "ééé 中文", "the of and", "", "  "]) expect(await r.search(q, 3)).toEqual([]);
  });

  it("query punctuation is not query syntax: quotes, colons and parentheses still search", async () => {
    const plain = await r.search("aspirin stroke", 5);
    expect(plain[0].id).toBe("d5");
    expect((await r.search('"aspirin" (stroke): AND', 5)).map((h) => [h.id, h.score])).toEqual(plain.map((h) => [h.id, h.score]));
  });
});

describe("lance-hybrid writes no LanceDB WARN lines to stderr", () => {
  it("a child process searching (FTS + vector) prints hits and no deprecation warning", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-lance-hybrid-warn-"));
    try {
      const child = spawnSync(process.execPath, ["--import", "tsx", resolve(__dirname, "fixtures/lance-hybrid-child.ts"), dir], { encoding: "utf8", timeout: 60_000 });
      expect(child.status, child.stderr).toBe(0);
      const out = JSON.parse(child.stdout.trim()) as string[][];
      expect(out[0]).toEqual(["d2", "d1", "d3"]);
      expect(out.map((ids) => ids.length)).toEqual([3, 3, 3]);
      const marker = child.stderr.indexOf("--- searching ---");
      expect(marker, child.stderr).toBeGreaterThanOrEqual(0);
      const searching = child.stderr.slice(marker);
      expect(searching).not.toMatch(/WARN|[Dd]eprecation/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
