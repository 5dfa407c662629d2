/**
 * No reader loads a whole results file. Reading a results.jsonl larger than V8's longest string
 * (0x1fffffe8 characters ≈ 512 MiB) into one string throws "Cannot create a string longer than
 * 0x1fffffe8 characters" — what every reader did before results were streamed.
 *
 * By default (fast: written and read in a few seconds): a 520 MiB file made of a few real records
 * around one 520 MiB line of junk (one buffer written again and again). Every reader — the
 * streaming reader, the runner's resume scan, the report, the viewer's index and pages, metrics,
 * merge — gets through it, skipping the over-long line unread and naming it (merge refuses it,
 * naming it), and keeps the records. A reader that read the file into one string would throw.
 *
 * With MEDSYNTH_LARGE_TESTS=1 also the realistic case (~1 min on 2 busy cores, too slow for every
 * CI run): 135 records of ~4 MiB each (540 MiB), read by the same readers; the report keeps slim
 * records (the 4 MiB pads are not held).
 *
 * Structural: no product source outside results/ calls readResults (for tests and small files)
 * or reads results.jsonl with readFileSync.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readReportRecords } from "../../experiments/report/read-records.ts";
import { mergeShards } from "../../experiments/shards.ts";
import { latestEntries, newScanStats, resultRecords } from "../../results/results-file.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { runMetricsCommand } from "../../experiments/cli/judge-commands.ts";
import { queryCells, parseCellQuery } from "../../viewer/cell-query.ts";
import { buildItemView } from "../../viewer/item-view.ts";
import { buildRunIndex } from "../../viewer/run-index.ts";

const V8_MAX_STRING = 0x1fffffe8;
const PAD = 4 * 1024 * 1024;
const LINES = 135;
const ROOT = join(fileURLToPath(import.meta.url), "..", "..", "..");

const record = (i: number): RunRecord => ({
  key: `big${i}`,
  itemId: `item:${i % 9}`,
  dataset: "d",
  taskKind: "synthesis",
  model: `m${i % 3}`,
  workflow: "standard-rag",
  params: { k: 5 },
  repeat: 0,
  status: i % 10 === 0 ? "failed" : "ok",
  output: `Output number ${i}.`,
  reference: "Reference.",
  itemMeta: { question: "Q?" },
  intermediate: { pad: "@PAD@", goldenRecall: 0.5 },
  generator: { calls: 1, inputTokens: 10, outputTokens: 5, latencyMs: i, cached: false },
  metrics: { rougeL: (i % 7) / 7 },
  startedAt: "",
  finishedAt: "",
});

const shardFiles = (shard: string, keys: string[]) => {
  writeFileSync(join(shard, "spec.json"), JSON.stringify({ configHash: "h", config: { name: "big" }, shard: { index: 1, count: 1 } }));
  writeFileSync(join(shard, "cells.json"), JSON.stringify({ configHash: "h", keys, shard: { index: 1, count: 1 }, matrixCells: keys.length }));
};

describe("a results file past V8's string limit, one over-long junk line in it", () => {
  let dir: string;
  let shard: string;
  let file: string;
  const JUNK = 520 * 1024 * 1024;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "large-results-"));
    shard = join(dir, "shard-1-of-1");
    mkdirSync(shard);
    file = join(shard, "results.jsonl");
    const fd = openSync(file, "w");
    const small = (i: number) => JSON.stringify({ ...record(i), intermediate: { goldenRecall: 0.5 } }) + "\n";
    writeSync(fd, small(0) + small(1));
    const junk = Buffer.alloc(16 * 1024 * 1024, "x");
    for (let w = 0; w < JUNK; w += junk.length) writeSync(fd, junk);
    writeSync(fd, "\n" + small(2) + small(3));
    closeSync(fd);
    shardFiles(shard, ["big0", "big1", "big2", "big3"]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is past the limit, and every reader gets through it", async () => {
    expect(statSync(file).size).toBeGreaterThan(V8_MAX_STRING);
    const stats = newScanStats();
    expect([...resultRecords(file, stats)].map((r) => r.record.key)).toEqual(["big0", "big1", "big2", "big3"]);
    expect(stats.malformedLines).toEqual([3]);
    expect(latestEntries(file).size).toBe(4);
    expect(readReportRecords(file, null).records.map((r) => r.key)).toEqual(["big0", "big1", "big2", "big3"]);
    const index = buildRunIndex([shard]);
    try {
      expect(index.runs[0]).toMatchObject({ cells: 4, malformedLines: [3] });
      expect(queryCells(index, parseCellQuery(new URLSearchParams("sort=latencyMs&dir=desc"))).rows.map((r) => r.key)).toEqual(["big3", "big2", "big1", "big0"]);
      expect(buildItemView(index, "item:2")?.cells[0].output).toBe("Output number 2.");
    } finally {
      index.close();
    }
    const m = await runMetricsCommand(file, { metrics: ["count-ratios"], out: join(dir, "scored.jsonl"), log: () => {} });
    expect(m).toMatchObject({ records: 4, scored: 4 });
    expect(() => mergeShards([shard], join(dir, "merged"))).toThrow(/results\.jsonl has malformed lines 3/);
  });
});

describe.runIf(process.env.MEDSYNTH_LARGE_TESTS === "1")("135 records of 4 MiB (540 MiB; MEDSYNTH_LARGE_TESTS=1)", () => {
  let dir: string;
  let shard: string;
  let file: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "large-results-"));
    shard = join(dir, "shard-1-of-1");
    mkdirSync(shard);
    file = join(shard, "results.jsonl");
    const pad = Buffer.alloc(PAD, "a");
    const fd = openSync(file, "w");
    for (let i = 0; i < LINES; i++) {
      const [before, after] = JSON.stringify(record(i)).split("@PAD@");
      writeSync(fd, before);
      writeSync(fd, pad);
      writeSync(fd, after + "\n");
    }
    closeSync(fd);
    shardFiles(
      shard,
      Array.from({ length: LINES }, (_, i) => `big${i}`),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is past the limit (so no reader could hold it as one string)", () => {
    expect(statSync(file).size).toBeGreaterThan(V8_MAX_STRING);
  });

  it("streams through the reader and the runner's resume scan", () => {
    const stats = newScanStats();
    let n = 0;
    for (const r of resultRecords(file, stats)) n += r.record.intermediate.pad === undefined ? 0 : 1;
    expect(n).toBe(LINES);
    expect(stats.malformedLines).toEqual([]);
    const latest = latestEntries(file);
    expect(latest.size).toBe(LINES);
    expect([...latest.values()].filter((e) => e.status === "failed").length).toBe(14);
  });

  it("is reported from slim records (the pads are not kept)", () => {
    const { records, spent } = readReportRecords(file, null);
    expect(records.length).toBe(LINES);
    expect(spent.length).toBe(LINES);
    expect(records[3].intermediate).toEqual({ goldenRecall: 0.5 });
    expect(records.every((r) => r.intermediate.pad === undefined)).toBe(true);
  });

  it("opens in the viewer: index, a sorted page, an item page read by offset", async () => {
    const index = buildRunIndex([shard]);
    try {
      expect(index.totalCells).toBe(LINES);
      const page = queryCells(index, parseCellQuery(new URLSearchParams("sort=latencyMs&dir=desc&size=3")));
      expect(page.rows.map((r) => r.key)).toEqual(["big134", "big133", "big132"]);
      const item = buildItemView(index, "item:4");
      expect(item?.cells.length).toBe(15);
      expect(item?.cells[0].output).toBe("Output number 4.");
    } finally {
      index.close();
    }
  });

  it("merges (lines copied as they are)", () => {
    const out = join(dir, "merged");
    const s = mergeShards([shard], out);
    expect(s.records).toBe(LINES);
    expect(statSync(join(out, "results.jsonl")).size).toBe(statSync(file).size);
  });
});

describe("no product source reads a results file whole", () => {
  it("calls readResults only in results/ (it is for tests and small files)", () => {
    const offenders: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, name.name);
        if (name.isDirectory()) {
          if (name.name !== "node_modules" && name.name !== "bench") walk(p);
        } else if (p.endsWith(".ts")) {
          const text = readFileSync(p, "utf8");
          if (/\breadResults\(/.test(text) && !p.endsWith(join("results", "results-file.ts"))) offenders.push(relative(ROOT, p));
          if (/readFileSync\([^)]*results\.jsonl/.test(text)) offenders.push(`${relative(ROOT, p)} (readFileSync of results.jsonl)`);
        }
      }
    };
    for (const room of ["corpus", "retrieval", "models", "results", "graphs", "judges", "experiments", "viewer", "bin"]) walk(join(ROOT, room));
    expect(offenders).toEqual([]);
  });
});
