/**
 * Two builds of the same index at once (two first searches on one store and cache, as a fresh
 * user ran them): one builds, the other waits and opens what it built. Without the build lock the
 * dense table held every document twice and the on-disk BM25 index was left corrupt. The lock
 * is per process ID, so two calls in one process take turns as two processes do.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryDocumentSource } from "../../corpus/store/memory-store.ts";
import { withLock } from "../../corpus/file-lock.ts";
import { openOrBuildDiskBm25 } from "../../retrieval/bm25/disk-retriever.ts";
import { openOrBuildLanceAnn, openOrBuildLanceBm25 } from "../../retrieval/lance/disk-engines.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Embedder } from "../../retrieval/types.ts";
import { ZipfWords, zipfDocs } from "../helpers/zipf-docs.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "medsynth-concurrent-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const docs: CorpusDoc[] = [...zipfDocs(new ZipfWords(), 1500, 4)];

/** A deterministic 8-d embedding from letter counts (enough for a real IVF table). */
const letters: Embedder = {
  id: "letters8",
  dims: 8,
  async embed(texts) {
    await new Promise((r) => setTimeout(r, 2)); // let the other build run between calls
    return texts.map((t) => {
      const v = new Float32Array(8);
      for (let i = 0; i < t.length; i++) v[t.charCodeAt(i) % 8] += 1;
      return v;
    });
  },
};

describe("concurrent first builds of one index take turns", () => {
  it("on-disk BM25: one builds, the other waits (saying for which process) and opens the same index", async () => {
    const dir = tmp();
    const logs: string[][] = [[], []];
    const open = (i: number) => openOrBuildDiskBm25(createMemoryDocumentSource(docs), { dir, runPostings: 20_000, threads: 1 }, { fingerprint: "f".repeat(64), log: (l) => logs[i].push(l) });
    const [a, b] = await Promise.all([open(0), open(1)]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    const waiter = a.built ? logs[1] : logs[0];
    expect(waiter.some((l) => l.includes(`bm25-disk: waiting for process ${process.pid}, which is building ${a.dir}`))).toBe(true);
    expect(a.engine.info.docCount).toBe(docs.length);
    expect(b.engine.info.docCount).toBe(docs.length);
    const q = `${docs[3].title} ${docs[700].title}`;
    expect(b.engine.searchSync(q, 10)).toEqual(a.engine.searchSync(q, 10));
  }, 120_000);

  it("LanceDB vector table: one table of each document once, and the second call opens it", async () => {
    const dir = tmp();
    const logs: string[] = [];
    const source = createMemoryDocumentSource(docs);
    const open = () =>
      openOrBuildLanceAnn(source, letters, { dir, scanBatch: 200, writeRows: 200, ann: { index: "ivf_flat", embedBatch: 100 } }, { fingerprint: "a".repeat(64), log: (l) => logs.push(l) });
    const [a, b] = await Promise.all([open(), open()]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    expect(await a.table.countRows()).toBe(docs.length);
    expect(logs.filter((l) => /^lance ann: waiting for process \d+, which is building ann_a{16}_letters8_ivf_flat in /.test(l))).toHaveLength(1);
    expect(b.meta.nprobes).toBe(a.meta.nprobes); // the waiter opened a finished (tuned) index
  }, 120_000);

  it("LanceDB full-text table: one build, both engines answer alike", async () => {
    const dir = tmp();
    const source = createMemoryDocumentSource(docs);
    const open = () => openOrBuildLanceBm25(source, { dir, scanBatch: 200, writeRows: 200 }, { fingerprint: "b".repeat(64), log: () => {} });
    const [a, b] = await Promise.all([open(), open()]);
    expect([a.info.built, b.info.built].sort()).toEqual([false, true]);
    expect(b.info.docCount).toBe(docs.length);
    expect(await b.searchIds(docs[5].title, 5)).toEqual(await a.searchIds(docs[5].title, 5));
  }, 120_000);

  it("withLock: a lock held by a live process is waited for (one note), a dead one's is taken over; released on a throw", async () => {
    const dir = tmp();
    const path = join(dir, "x.lock");
    writeFileSync(path, "999999999"); // no such process: taken over at once
    const waits: (number | null)[] = [];
    const takenFrom: number[] = [];
    expect(await withLock(path, async () => 1, { onWait: (p) => waits.push(p), onTakeOver: (p) => takenFrom.push(p) })).toBe(1);
    expect(waits).toEqual([]);
    expect(takenFrom).toEqual([999999999]);
    const order: string[] = [];
    const first = withLock(
      path,
      async () => {
        order.push("first in");
        await new Promise((r) => setTimeout(r, 300));
        order.push("first out");
        throw new Error("build failed");
      },
      { pollMs: 20 },
    );
    const second = withLock(path, async () => order.push("second in"), { onWait: (p) => waits.push(p), onTakeOver: (p) => takenFrom.push(p), pollMs: 20 });
    await expect(first).rejects.toThrow("build failed");
    await second;
    expect(order).toEqual(["first in", "first out", "second in"]);
    expect(waits).toEqual([process.pid]);
    expect(takenFrom).toEqual([999999999]); // a lock its live holder released is not "taken over"
  });
});

describe("a damaged on-disk BM25 index", () => {
  it("is an error naming the file and the command that rebuilds it; mode rebuild then builds it again", async () => {
    const dir = tmp();
    const open = (mode: "open-or-build" | "rebuild") => openOrBuildDiskBm25(createMemoryDocumentSource(docs), { dir, threads: 1, mode }, { fingerprint: "c".repeat(64) });
    const first = await open("open-or-build");
    const seg = readdirSync(first.dir).find((f) => f.startsWith("seg-"));
    truncateSync(join(first.dir, seg!, "doc-len.f64"), 8);
    await expect(open("open-or-build")).rejects.toThrow(
      new RegExp(
        `doc-len\\.f64 has 8 bytes, expected ${docs.length * 8}; the index is corrupt: rebuild the index: \`node .*medsynth\\.js index build --corpus <the same corpus> --mode bm25 --rebuild\``,
      ),
    );
    const again = await open("rebuild");
    expect(again.built).toBe(true);
    expect(again.engine.info.docCount).toBe(docs.length);
  });

  it("truncated id or term strings are caught at open (they gave hits with empty PMIDs and no error)", async () => {
    const dir = tmp();
    const open = (mode: "open-or-build" | "rebuild") => openOrBuildDiskBm25(createMemoryDocumentSource(docs), { dir, threads: 1, mode }, { fingerprint: "d".repeat(64) });
    const first = await open("open-or-build");
    const segDir = join(first.dir, readdirSync(first.dir).find((f) => f.startsWith("seg-"))!);
    const idBytes = statSync(join(segDir, "ids.utf8")).size;
    for (const [file, keep, want] of [
      ["ids.utf8", 100, `ids\\.utf8 has 100 bytes, expected ${idBytes}`],
      ["ids.ends", 0, `ids\\.ends has 0 bytes, expected ${docs.length * 8}`],
      ["terms.utf8", 10, "terms\\.utf8 has 10 bytes, expected \\d+"],
    ] as const) {
      truncateSync(join(segDir, file), keep);
      await expect(open("open-or-build"), file).rejects.toThrow(new RegExp(`${want}; the index is corrupt: rebuild the index`));
      await open("rebuild");
    }
  });
});
