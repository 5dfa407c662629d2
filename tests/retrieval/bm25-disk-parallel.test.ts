/**
 * Intra-query parallel search of the on-disk BM25 index gives the single-threaded engine's top k
 * bit for bit: slices merged in the calling thread (2–5 slices, k = 1, 10, 100, one segment and
 * after an update segment; with and without thresholds shared between the slices), and the
 * worker-thread pool (3 threads) on the same queries. A worker that dies mid-run costs nothing but
 * its thread; idle workers stop and restart on demand; `threads: "auto"` picks 1 below 500,000 docs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer } from "../../retrieval/analyzer.ts";
import { addDiskBm25Segment, buildDiskBm25, mergeSliceHits, openDiskBm25, sharedThetaBuffer, sliceBounds, type DiskBm25 } from "../../retrieval/bm25/disk-engine.ts";
import { openDiskBm25Pool, searchThreads } from "../../retrieval/bm25/disk-parallel.ts";
import { mulberry32, ZipfWords, zipfDocs, zipfQuery } from "../helpers/zipf-docs.ts";

let root = "";
const words = new ZipfWords();
// 20,000 docs = 5 windows of 4,096: enough for slices of whole windows.
const docs: CorpusDoc[] = [...zipfDocs(words, 20_000, 21)];
const rnd = mulberry32(8);
const queries = Array.from({ length: 300 }, () => zipfQuery(words, rnd, 20_000));
const idsAndScores = (hits: { id: string; score: number }[]) => hits.map((h) => [h.id, h.score]);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "medsynth-bm25-par-"));
  await buildDiskBm25(join(root, "one"), docs, { runPostings: 400_000 });
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sameSliced(disk: DiskBm25, qs: readonly string[], parts: number, k: number, share = false): void {
  for (const q of qs) {
    const shared = share ? sharedThetaBuffer(parts) : undefined;
    const slices = Array.from({ length: parts }, (_, p) => disk.searchSlice(q, k, p, parts, shared));
    expect(idsAndScores(mergeSliceHits(slices, k)), `query ${JSON.stringify(q)} parts ${parts} k ${k}`).toEqual(idsAndScores(disk.searchSync(q, k)));
  }
}

describe("on-disk BM25 in slices = the whole index", () => {
  it("slice bounds: window multiples nearest n·part/parts, covering [0, n) without overlap", () => {
    expect([0, 1, 2].map((p) => sliceBounds(20_000, p, 3))).toEqual([
      [0, 8192],
      [8192, 12288],
      [12288, 20000],
    ]);
    expect(sliceBounds(3000, 0, 2)).toEqual([0, 0]); // a small segment: one slice holds it all
    expect(sliceBounds(3000, 1, 2)).toEqual([0, 3000]);
    expect(() => openDiskBm25(join(root, "one")).searchSlice("x", 10, 2, 2)).toThrow("slice 2 of 2");
  });

  it("2, 3 and 5 slices merged: the same ids and float64 scores as searchSync (k = 1, 10, 100)", () => {
    // The pruned path, whose decoded postings measure the work below (term-at-a-time slices: bm25-disk-taat.test.ts).
    const disk = openDiskBm25(join(root, "one"), { strategy: "pruned" });
    for (const parts of [2, 3, 5]) sameSliced(disk, queries.slice(0, 120), parts, 10);
    // Slices do split the work: one slice alone misses hits of the other and decodes less.
    const q = queries.find((x) => disk.searchSync(x, 10).length === 10)!;
    disk.searchSync(q, 10);
    const whole = disk.lastStats.decoded;
    const first = disk.searchSlice(q, 10, 0, 2);
    expect(disk.lastStats.decoded).toBeLessThan(whole);
    expect(idsAndScores(mergeSliceHits([first], 10))).not.toEqual(idsAndScores(disk.searchSync(q, 10)));
    sameSliced(disk, queries.slice(120, 200), 2, 1);
    sameSliced(disk, queries.slice(200, 260), 3, 100);
    // With thresholds shared between the slices (each later slice starts from the earlier ones' k-th scores).
    for (const parts of [2, 3]) sameSliced(disk, queries.slice(0, 150), parts, 10, true);
    sameSliced(disk, queries.slice(150, 200), 3, 100, true);
    // Sharing saves work: the second slice decodes less when the first one's threshold is known.
    let alone = 0;
    let helped = 0;
    for (const q of queries.slice(0, 100)) {
      disk.searchSlice(q, 10, 1, 2);
      alone += disk.lastStats.decoded;
      const shared = sharedThetaBuffer(2);
      disk.searchSlice(q, 10, 0, 2, shared);
      disk.searchSlice(q, 10, 1, 2, shared);
      helped += disk.lastStats.decoded;
    }
    expect(helped).toBeLessThan(alone);
    disk.close();
  }, 60_000);

  it("after an update segment (replaced and deleted docs): slices of every segment merge to the same top k", async () => {
    const dir = join(root, "upd");
    await buildDiskBm25(dir, docs.slice(0, 14_000), { runPostings: 400_000 });
    const update = [...zipfDocs(words, 9000, 77, 14_000), { id: "Z5", title: "replaced", text: words.text(mulberry32(3), 90) }];
    await addDiskBm25Segment(dir, update, ["Z1", "Z9000"]);
    const disk = openDiskBm25(dir);
    expect(disk.info.segments).toBe(2);
    sameSliced(disk, queries.slice(0, 150), 2, 10);
    sameSliced(disk, queries.slice(0, 60), 3, 100);
    sameSliced(disk, queries.slice(0, 100), 3, 10, true);
    disk.close();
  }, 60_000);
});

describe("worker-thread pool", () => {
  it("3 threads answer every query as the single-threaded engine; a killed worker's slices go to the calling thread", async () => {
    const dir = join(root, "one");
    const engine = openDiskBm25(dir, { pageCacheMiB: 32 });
    const single = openDiskBm25(dir);
    const lines: string[] = [];
    const pool = await openDiskBm25Pool(engine, { threads: 3, pageCacheMiB: 96, analyzerConfig: defaultAnalyzer.config, log: (l) => lines.push(l) });
    expect(pool.threads).toBe(3);
    for (const q of queries.slice(0, 150)) expect(idsAndScores(await pool.search(q, 10)), q).toEqual(idsAndScores(single.searchSync(q, 10)));
    // Concurrent queries are answered independently.
    const many = await Promise.all(queries.slice(150, 190).map((q) => pool.search(q, 5)));
    many.forEach((hits, i) => expect(idsAndScores(hits)).toEqual(idsAndScores(single.searchSync(queries[150 + i], 5))));
    // A worker dies: the query in flight and later ones are still exact, on fewer threads.
    const inFlight = pool.search(queries[0], 10);
    await (pool as unknown as { workers: { worker: { terminate(): Promise<number> } }[] }).workers[0].worker.terminate();
    expect(idsAndScores(await inFlight)).toEqual(idsAndScores(single.searchSync(queries[0], 10)));
    expect(pool.threads).toBe(2);
    expect(lines.join("\n")).toMatch(/a search thread stopped \(exit code \d+\); searching with 2 thread\(s\)/);
    for (const q of queries.slice(200, 240)) expect(idsAndScores(await pool.search(q, 10))).toEqual(idsAndScores(single.searchSync(q, 10)));
    await pool.close();
    expect(idsAndScores(await pool.search(queries[1], 10))).toEqual(idsAndScores(single.searchSync(queries[1], 10)));
    engine.close();
    single.close();
  }, 60_000);

  it("idle workers stop after idleMs and the next query starts them again (same hits)", async () => {
    const dir = join(root, "one");
    const engine = openDiskBm25(dir, { pageCacheMiB: 16 });
    const single = openDiskBm25(dir);
    const pool = await openDiskBm25Pool(engine, { threads: 2, pageCacheMiB: 32, analyzerConfig: defaultAnalyzer.config, idleMs: 100 });
    expect(pool.running).toBe(1);
    expect(idsAndScores(await pool.search(queries[3], 10))).toEqual(idsAndScores(single.searchSync(queries[3], 10)));
    await new Promise((r) => setTimeout(r, 400));
    expect(pool.running).toBe(0);
    expect(pool.threads).toBe(2);
    expect(idsAndScores(await pool.search(queries[4], 10))).toEqual(idsAndScores(single.searchSync(queries[4], 10)));
    expect(pool.running).toBe(1);
    await pool.close();
    expect(pool.running).toBe(0);
    engine.close();
    single.close();
  }, 60_000);

  it("an index updated by another process while the workers were stopped: restarted workers refuse the new generation (no mixed results)", async () => {
    const dir = join(root, "gen");
    await buildDiskBm25(dir, docs, { runPostings: 400_000 });
    const engine = openDiskBm25(dir, { pageCacheMiB: 16 });
    const before = openDiskBm25(dir);
    const lines: string[] = [];
    const pool = await openDiskBm25Pool(engine, { threads: 2, pageCacheMiB: 32, analyzerConfig: defaultAnalyzer.config, idleMs: 100, log: (l) => lines.push(l) });
    const q = queries[7];
    const first = await pool.search(q, 5);
    await addDiskBm25Segment(
      dir,
      [{ id: "NEW0", title: q, text: `${q} ${q}` }],
      first.map((h) => h.id),
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(pool.running).toBe(0);
    // The calling thread still has the generation it opened; so does the answer.
    expect(idsAndScores(await pool.search(q, 5))).toEqual(idsAndScores(before.searchSync(q, 5)));
    expect(lines.join("\n")).toMatch(/could not start \(the index in .* changed since it was opened \(generation 0 → 1\); reopen the retriever/);
    expect(pool.threads).toBe(1);
    await pool.close();
    engine.close();
    before.close();
  }, 60_000);

  it("threads auto: 1 below 500,000 live docs, min(cores, 4) from there; a number is taken as given", () => {
    expect(searchThreads("auto", 499_999, 8)).toBe(1);
    expect(searchThreads("auto", 500_000, 2)).toBe(2);
    expect(searchThreads("auto", 5_700_000, 16)).toBe(4);
    expect(searchThreads("auto", 5_700_000, 1)).toBe(1);
    expect(searchThreads(3, 10, 1)).toBe(3);
  });
});
