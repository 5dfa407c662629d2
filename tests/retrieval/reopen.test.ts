/**
 * What makes reopening a cached hybrid retriever cheap (issue 11.3), each checked against the
 * slow path it replaces:
 * - the lazily opened word-vector table (hashed vocabulary index + rows read on demand) gives the
 *   same row for every one of the 341,479 words as the JSON vocabulary's Map, and the same vectors;
 * - the dense table records the ids of unmatchable docs at build, so a reopen does not analyse
 *   the corpus again, and they equal `unmatchableDocIds`;
 * - the embedder's fitted state keyed by a caller-given corpus key is found by a second build.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { unmatchableDocIds } from "../../retrieval/dense/dense-retriever.ts";
import { openOrBuildDenseStore } from "../../retrieval/dense/lancedb-store.ts";
import { createWordVectorsEmbedder, loadWordVectors, openWordVectors } from "../../retrieval/embedders/word-vectors.ts";
import { corpusContentHash } from "../../retrieval/content-hash.ts";
import { createRetriever } from "../../retrieval/registry.ts";

describe("lazy word-vector table", () => {
  it("every vocabulary word maps to the same row as the JSON vocabulary; rows equal the matrix", async () => {
    const full = await loadWordVectors();
    const lazy = await openWordVectors();
    expect(lazy.size).toBe(full.words.length);
    let mismatches = 0;
    for (const [w, row] of full.index) if (lazy.index.get(w) !== row) mismatches++;
    expect(mismatches).toBe(0);
    expect(lazy.index.get("heart")).toBe(989);
    expect(lazy.index.get("xqzzy-not-a-word")).toBeUndefined();
    for (const row of [0, 989, 12_345, full.words.length - 1]) {
      expect(Array.from(lazy.row(row))).toEqual(Array.from(full.matrix.subarray(row * 100, row * 100 + 100)));
    }
  }, 120_000);
});

describe("reopen without re-analysing or refitting", () => {
  let dir: string;
  const docs: CorpusDoc[] = Array.from({ length: 60 }, (_, i) => ({
    id: `d${i}`,
    title: i % 20 === 7 ? "" : `Study ${i} of heart disease`,
    text: i % 20 === 7 ? "the of and" : `patients with cardiac failure were treated with drug number ${i} and followed for ${i} months`,
  }));
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-reopen-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the dense table records the unmatchable ids; a reopen reads them back", async () => {
    const e = await createWordVectorsEmbedder({ pooling: "sif" });
    const built = await openOrBuildDenseStore(docs, e, { dir }, { log: () => {} });
    expect([...built.unmatchable!].sort()).toEqual(["d27", "d47", "d7"]);
    expect(built.unmatchable).toEqual(unmatchableDocIds(docs));
    const again = await openOrBuildDenseStore(docs, e, { dir }, { log: () => {}, corpusHash: corpusContentHash(docs) });
    expect(again.built).toBe(false);
    expect(again.unmatchable).toEqual(built.unmatchable);
  });

  it("fitted SIF state keyed by the corpus hash is read back by the next build (same vectors)", async () => {
    const fitCacheDir = join(dir, "fit");
    const texts = docs.map((d) => `${d.title}\n${d.text}`);
    const cfg = { pooling: "sif" as const, frequencies: "corpus" as const, removeComponents: 1 };
    const a = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitTextsKey: "corpus-x", fitCacheDir });
    const b = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitTextsKey: "corpus-x", fitCacheDir });
    const c = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitTextsKey: "corpus-y", fitCacheDir });
    expect([a.fitSource, b.fitSource, c.fitSource]).toEqual(["computed", "cache", "computed"]);
    expect(a.id).toBe("word-vectors:sg-100d-sif-corpus-pc1");
    const [va, vb] = [(await a.embed(["heart failure drug"]))[0], (await b.embed(["heart failure drug"]))[0]];
    expect(Array.from(vb)).toEqual(Array.from(va));
  });

  it("a reopened hybrid retriever answers like the one that built it", async () => {
    const cfg = { mode: "hybrid" as const, dense: { dir }, bm25: { cache: false } };
    const r1 = await createRetriever(cfg, { docs, log: () => {}, embedderOptions: { log: () => {} } });
    const r2 = await createRetriever(cfg, { docs, log: () => {}, embedderOptions: { log: () => {} } });
    expect(r2.store!.built).toBe(false);
    const q = "cardiac failure drug 12";
    expect((await r2.search(q, 5)).map((h) => [h.id, h.score])).toEqual((await r1.search(q, 5)).map((h) => [h.id, h.score]));
  });
});
