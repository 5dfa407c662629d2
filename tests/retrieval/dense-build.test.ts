/**
 * Dense vectors built from a source at scale (issue 26 item 5): batched, concurrent embedder
 * calls; a build that stops half-way (an endpoint failing past its retries, a kill) resumes
 * without embedding the appended docs again and gives the same table; IVF-PQ with recall@10 vs
 * exact search measured and stored.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { createMemoryDocumentSource } from "../../corpus/store/memory-store.ts";
import { openOrBuildLanceAnn } from "../../retrieval/lance/disk-engines.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Embedder } from "../../retrieval/types.ts";

const DIMS = 16;
const WORDS = ["aspirin", "stroke", "insulin", "glucose", "tumour", "statin", "warfarin", "sepsis", "asthma", "dialysis", "migraine", "obesity"];

/** Feature hashing of words into 16 dims (a real, deterministic bag-of-words embedding). */
function hashVector(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const h = createHash("md5").update(w).digest();
    v[h[0] % DIMS] += h[1] % 2 ? 1 : -1;
  }
  return v;
}

/** A counting embedder: calls, texts embedded, most calls in flight; `failAt`: the n-th call (1-based) throws. */
function countingEmbedder(failAt = Infinity) {
  const stats = { calls: 0, texts: 0, inFlight: 0, maxInFlight: 0 };
  const embedder: Embedder = {
    id: "hash16",
    dims: DIMS,
    async embed(texts) {
      const call = ++stats.calls;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      await new Promise((r) => setTimeout(r, 5));
      stats.inFlight--;
      if (call >= failAt) throw new Error(`endpoint down (call ${call})`);
      stats.texts += texts.length;
      return texts.map(hashVector);
    },
  };
  return { embedder, stats };
}

const docs: CorpusDoc[] = Array.from({ length: 600 }, (_, i) => ({
  id: `p${i}`,
  title: `${WORDS[i % 12]} trial ${i}`,
  text: `${WORDS[(i * 7) % 12]} and ${WORDS[(i * 5 + 1) % 12]} in patients ${WORDS[(i * 11 + 3) % 12]}`,
}));
const cfg = (dir: string) => ({ dir, scanBatch: 100, writeRows: 100, ann: { index: "ivf_pq" as const, embedBatch: 50, concurrency: 2, retries: 0, sampleQueries: 50 } });

describe("dense build from a source: batched, concurrent, resumable, IVF-PQ with stored recall", () => {
  it("a build stopped by a failing endpoint resumes where its appends ended and equals a build from scratch", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-dense-"));
    const failing = countingEmbedder(7);
    const lines: string[] = [];
    await expect(openOrBuildLanceAnn(createMemoryDocumentSource(docs), failing.embedder, cfg(dir), { log: (l) => lines.push(l) })).rejects.toThrow(/endpoint down \(call 7\)/);
    // Batches of 50 texts, two calls in flight: calls 1–6 covered docs 0–299, appended per 100.
    expect(failing.stats.maxInFlight).toBe(2);
    expect(lines.filter((l) => /embedded \d+\/600 docs \(\d+ docs\/s, ETA \d+ s\)/.test(l))).toHaveLength(3);

    const ok = countingEmbedder();
    const resumedLines: string[] = [];
    const resumed = await openOrBuildLanceAnn(createMemoryDocumentSource(docs), ok.embedder, cfg(dir), { log: (l) => resumedLines.push(l) });
    expect(resumedLines[0]).toBe("lance ann: resuming " + resumed.tableName + ": 300/600 docs already embedded");
    expect(ok.stats.texts).toBe(300);
    expect(ok.stats.calls).toBe(6);
    expect(resumed.built).toBe(true);
    expect(resumed.index).toBe("ivf_pq");
    expect(resumed.docCount).toBe(600);
    expect(await resumed.table.countRows()).toBe(600);
    // Recall@10 vs exact measured on the sample and stored with the index.
    expect(resumed.meta.recallSample).toBe(50);
    expect(resumed.meta.recallAt10).toBeGreaterThan(0);
    expect(resumed.meta.recallAt10).toBeLessThanOrEqual(1);
    expect(resumedLines.some((l) => /ivf_pq recall@10 vs exact search = [01]\.\d{3} on 50 corpus vectors.*, refineFactor 10; target/.test(l))).toBe(true);

    const fresh = await openOrBuildLanceAnn(createMemoryDocumentSource(docs), countingEmbedder().embedder, cfg(mkdtempSync(join(tmpdir(), "medsynth-dense-fresh-"))), { log: () => {} });
    for (const q of ["aspirin stroke", "insulin glucose dialysis", "sepsis"]) {
      const v = hashVector(q);
      expect(await resumed.search(v, 10, { exact: true })).toEqual(await fresh.search(v, 10, { exact: true }));
    }
    // Reopened: nothing embedded, the stored recall read back.
    const again = countingEmbedder();
    const reopened = await openOrBuildLanceAnn(createMemoryDocumentSource(docs), again.embedder, cfg(dir), { log: () => {} });
    expect(reopened.built).toBe(false);
    expect(again.stats.calls).toBe(0);
    expect(reopened.meta.recallAt10).toBe(resumed.meta.recallAt10);
  }, 120_000);

  it("compacting while the vectors are written (every 200 rows here) survives a stop and a resume: same rows and vectors as an uncompacted build from scratch", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-dense-roll-"));
    const rolling = { ...cfg(dir), compactEveryRows: 200 };
    // Appends of 100 rows: compaction after rows 200; call 7 fails after rows 300 are appended.
    await expect(openOrBuildLanceAnn(createMemoryDocumentSource(docs), countingEmbedder(7).embedder, rolling, { log: () => {} })).rejects.toThrow(/endpoint down/);
    const lancedb = await import("@lancedb/lancedb");
    const db = await lancedb.connect(dir);
    const name = (await db.tableNames()).find((n) => /^ann_.*_ivf_pq$/.test(n))!;
    const partial = await db.openTable(name);
    expect(await partial.countRows()).toBe(300);
    // Rows 0–199 compacted into one fragment (their appends' versions dropped), rows 200–299 appended after it.
    expect((await partial.stats()).fragmentStats.numFragments).toBe(2);
    const ok = countingEmbedder();
    const lines: string[] = [];
    const resumed = await openOrBuildLanceAnn(createMemoryDocumentSource(docs), ok.embedder, rolling, { log: (l) => lines.push(l) });
    expect(lines[0]).toBe(`lance ann: resuming ${resumed.tableName}: 300/600 docs already embedded`);
    expect(ok.stats.texts).toBe(300);
    expect(await resumed.table.countRows()).toBe(600);
    const fresh = await openOrBuildLanceAnn(
      createMemoryDocumentSource(docs),
      countingEmbedder().embedder,
      { ...cfg(mkdtempSync(join(tmpdir(), "medsynth-dense-roll-fresh-"))), compactEveryRows: 10_000 },
      { log: () => {} },
    );
    const rowsOf = async (t: typeof resumed.table) =>
      ((await t.query().select(["id", "vector"]).toArray()) as { id: string; vector: { toArray(): Float32Array } }[])
        .map((r) => [String(r.id), Array.from(r.vector.toArray())] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    expect(await rowsOf(resumed.table)).toEqual(await rowsOf(fresh.table));
    // No superseded data is kept: one fragment; the versions left (LanceDB's optimize prunes before
    // it optimises the index, which adds one) all hold the same 600 rows in the same files.
    expect((await resumed.table.stats()).fragmentStats.numFragments).toBe(1);
    const versions = await resumed.table.listVersions();
    expect(versions.length).toBeLessThanOrEqual(2);
    for (const v of versions) expect([v.metadata.total_rows, v.metadata.total_data_files]).toEqual(["600", "1"]);
  }, 120_000);
});
