/**
 * The on-disk index of a results file: built once (latest record per key, malformed lines
 * numbered, byte offsets that read the record back), reused while the file is unchanged, extended
 * when the file grew (existing rows keep their ids), rebuilt when it was rewritten or the prices
 * changed; natural order of item ids.
 */
import Database from "better-sqlite3";
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { naturalKey, openCellIndex, outputHash } from "../../results/cell-index.ts";
import { readRecordAt } from "../../results/results-file.ts";
import type { RunRecord } from "../../results/run-record.ts";

const rec = (key: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  key,
  itemId: `item:${key}`,
  dataset: "d",
  taskKind: "synthesis",
  model: "m1",
  workflow: "pzs",
  params: { k: 5 },
  repeat: 0,
  status: "ok",
  output: `Output ${key}`,
  reference: null,
  itemMeta: {},
  intermediate: {},
  generator: { calls: 1, inputTokens: 1000, outputTokens: 500, latencyMs: 10, cached: false },
  metrics: { rougeL: 0.5 },
  startedAt: "",
  finishedAt: "",
  ...extra,
});
const line = (r: RunRecord) => JSON.stringify(r) + "\n";

function rows(path: string): { id: number; key: string; status: string; off: number; len: number; costUsd: number | null; [c: string]: unknown }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT * FROM cells ORDER BY id").all() as ReturnType<typeof rows>;
  } finally {
    db.close();
  }
}

describe("openCellIndex", () => {
  it("builds, reuses, extends and rebuilds", () => {
    const dir = mkdtempSync(join(tmpdir(), "cell-index-"));
    const file = join(dir, "results.jsonl");
    writeFileSync(file, line(rec("a", { status: "failed", output: null })) + "{broken\n" + line(rec("b")) + line(rec("a")));
    const prices = { m1: { input: 2, output: 10 } };
    const built = openCellIndex(file, { prices });
    expect(built).toMatchObject({ action: "built", cells: 2, malformedLines: [2], truncatedTail: false, scoreColumns: ["metric:rougeL"] });
    expect(built.path).toBe(join(dir, ".medsynth-index", "cells.sqlite"));
    let r = rows(built.path);
    // a later line for key "a" replaced its row and kept its id (table order = first appearance)
    expect(r.map((x) => [x.id, x.key, x.status])).toEqual([
      [1, "a", "ok"],
      [2, "b", "ok"],
    ]);
    expect(r[0].costUsd).toBeCloseTo((1000 * 2 + 500 * 10) / 1e6, 12);
    expect(r[0]["metric:rougeL"]).toBe(0.5);
    expect(readRecordAt(file, r[0].off, r[0].len)).toEqual(rec("a"));

    const again = openCellIndex(file, { prices });
    expect(again).toMatchObject({ action: "reused", cells: 2, buildId: built.buildId, malformedLines: [2] });

    appendFileSync(file, line(rec("c", { metrics: { rougeL: 0.25, bleu: 0.1 } })) + "nope\n" + line(rec("b", { status: "failed" })) + '{"key":"d"');
    const grown = openCellIndex(file, { prices });
    expect(grown).toMatchObject({ action: "extended", cells: 3, malformedLines: [2, 6], truncatedTail: true, scoreColumns: ["metric:bleu", "metric:rougeL"] });
    expect(grown.buildId).not.toBe(built.buildId);
    r = rows(grown.path);
    expect(r.map((x) => [x.id, x.key, x.status])).toEqual([
      [1, "a", "ok"],
      [2, "b", "failed"],
      [3, "c", "ok"],
    ]);
    expect(r[2]["metric:bleu"]).toBe(0.1);
    expect(r[1]["metric:bleu"]).toBeNull();

    // rewritten by rename (as `medsynth judge`/`metrics` do): another file → rebuilt from scratch
    writeFileSync(join(dir, "new.jsonl"), line(rec("z")) + line(rec("y")));
    renameSync(join(dir, "new.jsonl"), file);
    const rebuilt = openCellIndex(file, { prices });
    expect(rebuilt).toMatchObject({ action: "built", cells: 2, malformedLines: [] });
    expect(rows(rebuilt.path).map((x) => x.key)).toEqual(["z", "y"]);

    // other prices → the cost column is stale → rebuilt
    expect(openCellIndex(file, { prices: { m1: { input: 1, output: 1 } } }).action).toBe("built");
    // same length, other bytes in place (edited in place): rebuilt
    const text = line(rec("z")) + line(rec("y"));
    writeFileSync(file, text.replace("Output z", "Output Z"));
    expect(openCellIndex(file, { prices: { m1: { input: 1, output: 1 } } }).action).toBe("built");
  });

  it("keeps unknown token usage unknown: null tokens and cost, never 0; a lower bound with some calls unknown", () => {
    const dir = mkdtempSync(join(tmpdir(), "cell-index-usage-"));
    const file = join(dir, "results.jsonl");
    const gen = (g: Partial<RunRecord["generator"]>) => ({ generator: { calls: 2, inputTokens: 1000, outputTokens: 500, latencyMs: 10, cached: false, ...g } });
    writeFileSync(
      file,
      line(rec("none", gen({ inputTokens: null, outputTokens: null, unknownUsageCalls: 2 }))) +
        line(rec("zero", gen({ inputTokens: 0, outputTokens: 0, unknownUsageCalls: 2 }))) +
        line(rec("some", gen({ inputTokens: 400, outputTokens: 100, unknownUsageCalls: 1 }))) +
        line(rec("all", gen({}))),
    );
    const built = openCellIndex(file, { prices: { m1: { input: 2, output: 10 } } });
    const r = rows(built.path).map((x) => [x.key, x.inputTokens, x.outputTokens, x.unknownUsageCalls, x.costUsd]);
    expect(r).toEqual([
      ["none", null, null, 2, null],
      ["zero", null, null, 2, null],
      // (400 · 2 + 100 · 10) / 1e6, a lower bound (1 call unknown)
      ["some", 400, 100, 1, 0.0018],
      ["all", 1000, 500, 0, 0.007],
    ]);
  });

  it("reads and parses in worker threads, block by block, to the same index as in one thread", () => {
    const dir = mkdtempSync(join(tmpdir(), "cell-index-workers-"));
    const file = join(dir, "results.jsonl");
    let text = "";
    for (let i = 0; i < 60; i++) {
      text += line(
        rec(`k${i % 45}`, { status: i % 7 === 0 ? "failed" : "ok", metrics: i % 5 === 0 ? { rougeL: i / 100, bleu: i / 200 } : { rougeL: i / 100 }, output: `Output ${i} ${"x".repeat(i * 7)}` }),
      );
      if (i === 10) text += "{broken\n";
      if (i === 20) text += "\n";
      if (i === 30) text += "nope\n";
    }
    writeFileSync(file, text + '{"key":"torn"');
    const inline = openCellIndex(file, { indexPath: join(dir, "inline.sqlite"), workers: 0 });
    // blocks of 300 bytes: most lines (~400 bytes) start in one block and end in the next; some blocks hold no line start
    const parallel = openCellIndex(file, { indexPath: join(dir, "parallel.sqlite"), workers: 2, blockBytes: 300 });
    expect(inline).toMatchObject({ cells: 45, malformedLines: [12, 34], truncatedTail: true, scoreColumns: ["metric:bleu", "metric:rougeL"] });
    expect(inline.workers).toBe(0);
    expect(parallel).toMatchObject({ workers: 2, cells: inline.cells, malformedLines: inline.malformedLines, truncatedTail: true, scoreColumns: inline.scoreColumns });
    const all = (p: string) => {
      const db = new Database(p, { readonly: true });
      try {
        return {
          cells: db.prepare("SELECT * FROM cells ORDER BY id").all(),
          texts: db.prepare("SELECT * FROM texts ORDER BY id").all(),
          meta: JSON.parse((db.prepare("SELECT v FROM meta").get() as { v: string }).v),
        };
      } finally {
        db.close();
      }
    };
    const a = all(inline.path);
    const b = all(parallel.path);
    expect(b.cells).toEqual(a.cells);
    expect(b.texts).toEqual(a.texts);
    expect({ ...b.meta, buildId: "" }).toEqual({ ...a.meta, buildId: "" });
    // k3's latest line is line 49 (i = 48): its row holds that record
    const k3 = (b.cells as { key: string; off: number; len: number }[]).find((c) => c.key === "k3")!;
    expect(readRecordAt(file, k3.off, k3.len).output).toBe(`Output 48 ${"x".repeat(48 * 7)}`);
    // the torn line completed (malformed, line 64), "bad" (65), a new cell (66): extending in workers continues the line numbers and offsets
    appendFileSync(file, "\nbad\n" + line(rec("new")));
    const grownInline = openCellIndex(file, { indexPath: join(dir, "inline.sqlite"), workers: 0 });
    const grownParallel = openCellIndex(file, { indexPath: join(dir, "parallel.sqlite"), workers: 1, blockBytes: 300 });
    expect(grownInline).toMatchObject({ action: "extended", cells: 46, malformedLines: [12, 34, 64, 65], truncatedTail: false });
    expect(grownParallel).toMatchObject({ workers: 1, action: "extended", cells: 46, malformedLines: grownInline.malformedLines, truncatedTail: false });
    expect(all(grownParallel.path).cells).toEqual(all(grownInline.path).cells);
  });

  it("takes worker threads that stop answering for dead and reads the file in this thread: the same index, rows written once", () => {
    const dir = mkdtempSync(join(tmpdir(), "cell-index-dying-"));
    const file = join(dir, "results.jsonl");
    let text = "";
    for (let i = 0; i < 40; i++) text += line(rec(`k${i}`, { metrics: { rougeL: i / 100 }, output: `Output ${i} ${"x".repeat(200)}` }));
    writeFileSync(file, text);
    const inline = openCellIndex(file, { indexPath: join(dir, "inline.sqlite"), workers: 0 });
    // each worker answers one 600-byte block (its rows are written), then dies without a word
    const dying = new URL("../fixtures/workers/dying-index-worker.mjs", import.meta.url);
    const t0 = performance.now();
    const fallback = openCellIndex(file, { indexPath: join(dir, "fallback.sqlite"), workers: 2, blockBytes: 600, stallMs: 1500, workerUrl: dying });
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(fallback.workers).toBe(0);
    expect(fallback.workersFailed).toMatch(/no block of .*results\.jsonl answered by the index worker threads for 1\.5 s/);
    expect(inline.workersFailed).toBeNull();
    expect(fallback).toMatchObject({ cells: 40, malformedLines: [], truncatedTail: false });
    const rows = (p: string) => {
      const db = new Database(p, { readonly: true });
      try {
        return db.prepare("SELECT key, off, len FROM cells ORDER BY key").all();
      } finally {
        db.close();
      }
    };
    expect(rows(fallback.path)).toEqual(rows(inline.path));
  }, 60_000);

  it("keys item ids in natural order", () => {
    const ids = ["medevidence:125", "medevidence:13", "medevidence:2", "item:10", "item:9", "item:009", "a1b10", "a1b9"];
    expect([...ids].sort((x, y) => (naturalKey(x) < naturalKey(y) ? -1 : naturalKey(x) > naturalKey(y) ? 1 : 0))).toEqual([
      "a1b9",
      "a1b10",
      "item:9",
      "item:009",
      "item:10",
      "medevidence:2",
      "medevidence:13",
      "medevidence:125",
    ]);
  });
});

describe("outputHash", () => {
  it("is the hash of the whitespace-normalised text (equal iff normalised texts are equal, on these)", () => {
    const texts = ["A  b\tc\n", " A b c", "A b c", "A b  c ", "A\u00a0b\u2003c", "a b c", "A bc", "", "   ", "Ab c"];
    const norm = (t: string) => t.replace(/\s+/g, " ").trim();
    for (const x of texts) for (const y of texts) expect(outputHash(x) === outputHash(y), `${JSON.stringify(x)} vs ${JSON.stringify(y)}`).toBe(norm(x) === norm(y));
    expect(outputHash(null)).toBeNull();
  });
});
