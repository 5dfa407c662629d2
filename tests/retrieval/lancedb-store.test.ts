import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createWordVectorsEmbedder } from "../../retrieval/embedders/word-vectors.ts";
import { denseTableName, docContent, LANCE_META, openOrBuildDenseStore } from "../../retrieval/dense/lancedb-store.ts";
import { createDenseRetriever } from "../../retrieval/dense/dense-retriever.ts";
import { corpusContentHash } from "../../retrieval/content-hash.ts";
import type { Embedder } from "../../retrieval/types.ts";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i], 0);

describe("LanceDB dense store (real table in a temp dir)", () => {
  let dir: string;
  let docs: CorpusDoc[];
  let embedder: Embedder;
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-lance-"));
    docs = (await loadBundledCorpus({ sources: ["medevidence"] })).docs; // 329 real abstracts
    embedder = await createWordVectorsEmbedder();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds one table per (corpus hash, embedder id) with both in the schema metadata", async () => {
    const small = docs.slice(0, 60);
    const store = await openOrBuildDenseStore(small, embedder, { dir }, { log });
    expect(store.built).toBe(true);
    expect(store.tableName).toBe(denseTableName(corpusContentHash(small), embedder.id));
    expect(store.tableName).toMatch(/^dense_[0-9a-f]{16}_word_vectors_sg_100d_mean$/);
    const meta = (await store.table.schema()).metadata;
    expect(meta.get(LANCE_META.embedderId)).toBe("word-vectors:sg-100d-mean");
    expect(meta.get(LANCE_META.corpusHash)).toBe(corpusContentHash(small));
    expect(await store.table.countRows()).toBe(60);
    const again = await openOrBuildDenseStore(small, embedder, { dir }, { log });
    expect(again.built).toBe(false);
  });

  it("exact search equals brute-force cosine (top-10 ids and scores)", async () => {
    const small = docs.slice(0, 60);
    const store = await openOrBuildDenseStore(small, embedder, { dir }, { log });
    const docVecs = await embedder.embed(small.map(docContent));
    for (const query of ["abdominal drainage after surgery", "antibiotic prophylaxis infection"]) {
      const [q] = await embedder.embed([query]);
      const brute = small.map((d, i) => ({ id: d.id, score: dot(q, docVecs[i]) })).sort((a, b) => b.score - a.score);
      const hits = await store.search(q, 10);
      expect(hits.map((h) => h.id)).toEqual(brute.slice(0, 10).map((h) => h.id));
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(brute[i].score, 5));
    }
  });

  it("in-memory exact backend returns the same top-10 as LanceDB's flat scan", async () => {
    const mem = await openOrBuildDenseStore(docs, embedder, { dir, exactBackend: "memory" }, { log });
    const lance = await openOrBuildDenseStore(docs, embedder, { dir, exactBackend: "lancedb" }, { log });
    const queries = await embedder.embed(["beta blockers after myocardial infarction", "vitamin D supplementation in children", "antibiotics for otitis media"]);
    for (const q of queries) {
      const a = await mem.search(q, 10);
      const b = await lance.search(q, 10);
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i].score, 5));
    }
  });

  it("refuses a table built with another embedder or another corpus (never silent reuse)", async () => {
    const small = docs.slice(0, 60);
    const tableName = "conflict_test";
    await openOrBuildDenseStore(small, embedder, { dir, tableName }, { log });
    const other: Embedder = { id: "word-vectors:sg-100d-sif", dims: 100, embed: embedder.embed.bind(embedder) };
    await expect(openOrBuildDenseStore(small, other, { dir, tableName }, { log })).rejects.toThrow(/was built with embedder "word-vectors:sg-100d-mean", not the requested "word-vectors:sg-100d-sif"/);
    await expect(openOrBuildDenseStore(docs.slice(0, 59), embedder, { dir, tableName }, { log })).rejects.toThrow(/was built from corpus [0-9a-f]{64}, not the requested corpus/);
    // rebuild mode replaces it deliberately
    const rebuilt = await openOrBuildDenseStore(docs.slice(0, 59), embedder, { dir, tableName, mode: "rebuild" }, { log });
    expect(rebuilt.built).toBe(true);
    expect(await rebuilt.table.countRows()).toBe(59);
  });

  it("dense retriever: ranks 1..k, cosine scores, [] for empty or out-of-vocabulary queries", async () => {
    const store = await openOrBuildDenseStore(docs.slice(0, 60), embedder, { dir }, { log });
    expect(() => createDenseRetriever({ store, embedder: { ...embedder, id: "x" } })).toThrow(/built with embedder/);
    const r = createDenseRetriever({ store, embedder, docs });
    expect(r.id).toBe("dense:word-vectors:sg-100d-mean");
    const hits = await r.search("drains after radical mastectomy", 5);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(hits[0].doc?.id).toBe(hits[0].id);
    expect(hits[0].scores?.dense).toBe(hits[0].score);
    expect(await r.search("   ", 5)).toEqual([]);
    expect(await r.search("xqzzy", 5)).toEqual([]);
  });

  it("HNSW_SQ index: recall@10 against exact search is measured and printed", async () => {
    const store = await openOrBuildDenseStore(docs, embedder, { dir, index: "hnsw_sq" }, { log });
    expect(store.index).toBe("hnsw_sq");
    expect(store.annRecallAt10).not.toBeNull();
    expect(store.annRecallAt10!).toBeGreaterThanOrEqual(0.9);
    expect(store.annRecallAt10!).toBeLessThanOrEqual(1);
    expect(logs.some((l) => /hnsw_sq recall@10 vs exact search = \d\.\d{3}/.test(l))).toBe(true);
    await expect(openOrBuildDenseStore(docs.slice(0, 100), embedder, { dir, index: "ivf_pq" }, { log })).rejects.toThrow(/needs at least 256 docs/);
  });
});
