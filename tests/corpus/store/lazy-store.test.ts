/** The store is read lazily: noise sampling and the MedConclusion view fetch only what they return. */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNoiseCorpus, buildNoiseCorpusFromSource } from "../../../retrieval/noise-corpus.ts";
import { createMemoryDocumentSource, createMemoryRecordStore } from "../../../corpus/store/memory-store.ts";
import { conclusionTasksFromStore } from "../../../corpus/store/conclusion-view.ts";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { openLanceRecordStore } from "../../../corpus/store/lance-store.ts";
import { parsePubmedXmlString } from "../../../corpus/pubmed-xml.ts";
import type { CorpusDoc } from "../../../corpus/types.ts";
import { citationXml, writeSet, type FixtureCitation } from "../ingest/fixtures.ts";

const doc = (i: number): CorpusDoc => ({ id: `d${i}`, title: `Title ${i}`, text: `Text ${i}` });

describe("lazy reads through the corpus store interface", () => {
  it("noise sampling from a source equals the in-memory builder and fetches only golden-excluded samples", async () => {
    const pool = Array.from({ length: 500 }, (_, i) => doc(i));
    const golden = [doc(3), doc(7), { id: "g1", title: "G", text: "golden" }];
    const source = createMemoryDocumentSource(pool);
    const lazy = await buildNoiseCorpusFromSource(golden, source, { noiseCount: 20, seed: "s1" });
    const eager = buildNoiseCorpus(golden, pool, { noiseCount: 20, seed: "s1" });
    expect(lazy.docs).toEqual(eager.docs);
    expect(lazy.excludedFromPool).toEqual(eager.excludedFromPool);
    expect(lazy.excludedFromPool.golden).toBe(2);
    // 20 documents fetched out of 500; the id column listed twice (count pass + position pass).
    expect(source.counters.fetched).toBe(20);
    expect(source.counters.idsListed).toBe(1000);
    await expect(buildNoiseCorpusFromSource(golden, source, { noiseCount: 499 })).rejects.toThrow(/noiseCount 499 exceeds the 498 eligible pool docs/);
  });

  it("the MedConclusion view streams: the first 3 tasks read one batch, not the corpus", async () => {
    const cites: FixtureCitation[] = Array.from({ length: 50 }, (_, i) => ({ pmid: String(500 + i), title: `Trial ${i}.` }));
    const records = parsePubmedXmlString(`<PubmedArticleSet>${cites.map(citationXml).join("")}</PubmedArticleSet>`);
    const store = createMemoryRecordStore(records);
    const tasks = [];
    for await (const t of conclusionTasksFromStore(store, { limit: 3, dataset: "ms" })) tasks.push(t);
    expect(tasks.map((t) => t.id)).toEqual(["ms:500", "ms:501", "ms:502"]);
    expect(tasks[0].referenceConclusion).toBe("Conclusion of 500.");
    expect(tasks[0].sections.map((s) => s.label)).toEqual(["BACKGROUND", "METHODS", "RESULTS"]);
    expect(store.counters.fetched).toBe(3);
  });

  it("a Lance store: noise sampling fetches only the sampled records; get by ids fetches only those", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-lazy-"));
    mkdirSync(join(dir, "in"));
    writeSet(
      join(dir, "in"),
      "a.xml",
      Array.from({ length: 120 }, (_, i) => ({ pmid: String(9000 + i), title: `Cohort ${i} of something.` })),
    );
    const uri = join(dir, "store");
    await ingestToStore([join(dir, "in")], { store: { uri }, clean: null, jobs: 1 });
    const store = await openLanceRecordStore({ uri });
    expect(await store.count()).toBe(120);
    const golden = [{ id: "9005", title: "x", text: "y" }];
    const noise = await buildNoiseCorpusFromSource(golden, store, { noiseCount: 7, seed: "lance" });
    expect(noise.docs).toHaveLength(8);
    expect(noise.excludedFromPool.golden).toBe(1);
    expect(store.counters.fetched).toBe(7);
    expect(new Set(noise.docs.map((d) => d.id)).size).toBe(8);
    for (const d of noise.docs.filter((d) => d.id !== "9005")) expect(d.text).toContain(`CONCLUSIONS: Conclusion of ${d.id}.`);

    // Reads go through the store connection's own bounded caches (STORE_READ_CACHE_MIB, or
    // readCacheMiB): LanceDB 0.31 drops a session passed as connect's third argument, which left
    // the 6 GB + 1 GB defaults growing with every PMID looked up (0.61 GB after 600 lookups at 24 M).
    const bounded = await openLanceRecordStore({ uri, readCacheMiB: { index: 1, metadata: 1 } });
    const before = bounded.cacheBytes();
    expect((await bounded.getDocs(["9001", "9100", "9119"])).size).toBe(3);
    expect(bounded.cacheBytes()).toBeGreaterThan(before);
    expect(bounded.cacheBytes()).toBeLessThanOrEqual(2 * 2 ** 20);
    await expect(openLanceRecordStore({ uri, readCacheMiB: { index: 0, metadata: 16 } })).rejects.toThrow(/readCacheMiB\.index must be a finite positive number of MiB \(at least 1 byte\), got 0/);
    for (const [bad, field, shown] of [
      [{ index: 16 }, "metadata", "undefined"],
      [{ index: Infinity, metadata: 16 }, "index", "Infinity"],
      [{ index: 16, metadata: 1e-9 }, "metadata", "1e-9"],
      [{ index: "16", metadata: 16 }, "index", '"16"'],
    ] as const)
      await expect(openLanceRecordStore({ uri, readCacheMiB: bad as unknown as { index: number; metadata: number } })).rejects.toThrow(
        `readCacheMiB.${field} must be a finite positive number of MiB (at least 1 byte), got ${shown}`,
      );
  }, 120_000);
});
