import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { expandCells } from "../../experiments/cells.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { readResults } from "../../results/results-file.ts";
import { emptyShardNote, mergeShards, parseShard, selectShard, shardDir } from "../../experiments/shards.ts";
import { writeReport } from "../../experiments/report/build.ts";
import { fakeDeps } from "./fake-runner-deps.ts";

function config(out: string, k: number[] = [5, 10]) {
  return parseExperimentConfig({
    name: "t",
    output: out,
    datasets: [{ name: "fake" }],
    models: [{ id: "extractive:mmr" }],
    workflows: [{ id: "echo", params: { k } }],
    repeats: 2,
  });
}
const quiet = { log: () => {} };
const state = () => ({ calls: [] as string[], failOn: new Set<string>(), delayMs: 0 });

describe("shard i/n", () => {
  it("parses i/n and refuses anything else", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 1 / 1 ")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/3", "4/3", "a/b", "2", "1/0", "-1/2", "1.5/3"]) expect(() => parseShard(bad), bad).toThrow(/expected i\/n/);
  });

  it("partitions cover the matrix exactly once, sizes within one cell", () => {
    // 5 items × 2 models × k ∈ {5, 10, 20} × 2 repeats = 60 cells.
    const cells = expandCells([{ dataset: "d", taskKind: "synthesis", itemIds: ["a", "b", "c", "d", "e"] }], ["m1", "m2"], [{ id: "w", params: { k: [5, 10, 20] } } as never], 2, () => "synthesis");
    expect(cells).toHaveLength(60);
    for (const n of [1, 2, 3, 7, 60, 61]) {
      const parts = Array.from({ length: n }, (_, i) => selectShard(cells, { index: i + 1, count: n }));
      const all = parts.flat().map((c) => c.key);
      expect(all.length, `n = ${n}`).toBe(60);
      expect(new Set(all).size).toBe(60);
      expect(new Set(all)).toEqual(new Set(cells.map((c) => c.key)));
      const sizes = parts.map((p) => p.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
    // Deterministic: shard 2/3 is positions 1, 4, 7, …
    expect(selectShard(cells, { index: 2, count: 3 }).map((c) => c.key)).toEqual(cells.filter((_, p) => p % 3 === 1).map((c) => c.key));
  });

  it("a shard beyond the matrix's cells is named as empty, with the most shards that hold a cell", () => {
    const cells = Array.from({ length: 18 }, (_, i) => i);
    expect(selectShard(cells, { index: 19, count: 19 })).toEqual([]);
    expect(emptyShardNote(18, { index: 19, count: 19 })).toBe(
      "shard 19/19 holds no cell: the matrix has 18 cell(s), fewer than the 19 shards (shard i/n takes cells i, i+n, …); use at most 18 shard(s)",
    );
    expect(selectShard(cells, { index: 18, count: 19 })).toEqual([17]);
    expect(emptyShardNote(18, { index: 18, count: 19 })).toBeNull();
  });
});

describe("sharded run + merge", () => {
  it("three shards merged equal one unsharded run (same cells, order and outputs)", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-shards-"));
    const whole = join(root, "whole");
    await runExperiment(config(whole), fakeDeps(5, state()), quiet);
    const sharded = join(root, "sharded");
    const calls: string[][] = [];
    for (let i = 1; i <= 3; i++) {
      const s = state();
      const sum = await runExperiment(config(sharded), fakeDeps(5, s), { ...quiet, shard: { index: i, count: 3 } });
      expect(sum.outputDir).toBe(shardDir(sharded, { index: i, count: 3 }));
      expect(sum.totalCells).toBe([7, 7, 6][i - 1]); // 5 items × k ∈ {5, 10} × 2 repeats = 20 cells
      calls.push(s.calls);
    }
    // No cell ran twice across shards.
    expect(new Set(calls.flat()).size).toBe(20);
    const merged = mergeShards(
      [3, 1, 2].map((i) => shardDir(sharded, { index: i, count: 3 })),
      sharded,
    );
    expect(merged).toMatchObject({ totalCells: 20, records: 20, missingCells: 0, shards: [1, 2, 3] });
    const cellsOf = (dir: string) => JSON.parse(readFileSync(join(dir, "cells.json"), "utf8"));
    expect(cellsOf(sharded).keys).toEqual(cellsOf(whole).keys);
    expect(cellsOf(sharded).configHash).toBe(cellsOf(whole).configHash);
    const out = (dir: string) =>
      readResults(join(dir, "results.jsonl"))
        .records.map((r) => [r.key, r.output, r.metrics])
        .sort();
    expect(out(sharded)).toEqual(out(whole));
  });

  it("refuses shards of different configs, repeated or missing shards, and non-shard folders", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-shards-bad-"));
    const a = join(root, "a");
    const b = join(root, "b");
    await runExperiment(config(a), fakeDeps(2, state()), { ...quiet, shard: { index: 1, count: 2 } });
    await runExperiment(config(a), fakeDeps(2, state()), { ...quiet, shard: { index: 2, count: 2 } });
    await runExperiment(config(b, [5, 20]), fakeDeps(2, state()), { ...quiet, shard: { index: 2, count: 2 } });
    const a1 = shardDir(a, { index: 1, count: 2 });
    const a2 = shardDir(a, { index: 2, count: 2 });
    const b2 = shardDir(b, { index: 2, count: 2 });
    const out = join(root, "out");
    expect(() => mergeShards([a1, b2], out)).toThrow(/ran another config/);
    expect(() => mergeShards([a1, a1], out)).toThrow(/shard 1\/2 given twice/);
    expect(() => mergeShards([a1], out)).toThrow(/shard\(s\) 2\/2 missing; pass them too, or merge without them with --allow-missing/);
    // A shard folder that does not exist is named with the way round (--allow-missing), and skipped with it.
    expect(() => mergeShards([a1, join(root, "nope")], out)).toThrow(new RegExp(`${join(root, "nope")}: no such folder .*; merge the shards you have with --allow-missing`));
    expect(mergeShards([a1, join(root, "nope")], out, { allowMissing: true })).toMatchObject({ shards: [1], missingCells: 4 });
    await runExperiment(config(join(root, "plain")), fakeDeps(1, state()), quiet);
    expect(() => mergeShards([join(root, "plain")], out)).toThrow(/no shard i\/n/);
    // A partial merge is allowed on request and counts the cells still to run.
    expect(mergeShards([a1], out, { allowMissing: true })).toMatchObject({ totalCells: 8, records: 4, missingCells: 4, shards: [1] });
    // … and records the matrix's size, so its report says how many cells have no record.
    expect(JSON.parse(readFileSync(join(out, "cells.json"), "utf8")).matrixCells).toBe(8);
    const partial = await writeReport(out);
    expect(readFileSync(partial.markdown, "utf8")).toContain("4 of the 8 cells of the run's matrix (cells.json) have no record");
    expect(JSON.parse(readFileSync(partial.json, "utf8")).missingCells).toEqual({ matrixCells: 8, withRecord: 4, missing: 4 });
    expect(mergeShards([a2, a1], out)).toMatchObject({ totalCells: 8, records: 8, missingCells: 0 });
    expect(Object.keys(JSON.parse(readFileSync(join(out, "cells.json"), "utf8")))).toEqual(["configHash", "keys"]);
    expect(readFileSync((await writeReport(out)).markdown, "utf8")).not.toContain("have no record");
    // A shard stopped mid-write (its last line torn) is refused, naming the way to finish it; merged with --allow-missing its torn cell stays unrun.
    const a2Results = join(a2, "results.jsonl");
    const lines = readFileSync(a2Results, "utf8").split("\n").filter(Boolean);
    writeFileSync(a2Results, `${lines.slice(0, -1).join("\n")}\n${lines.at(-1)!.slice(0, 40)}`);
    expect(() => mergeShards([a1, a2], out)).toThrow(
      new RegExp(`${a2}/results.jsonl ends in a torn line after line 3 \\(the shard was stopped mid-write\\): finish the shard by re-running .*run --shard.* or merge as it is with --allow-missing`),
    );
    expect(mergeShards([a1, a2], out, { allowMissing: true })).toMatchObject({ totalCells: 8, records: 7, missingCells: 1 });
    // A shard folder without results.jsonl (it holds no cell, or stopped before its first cell finished) has no records.
    rmSync(a2Results);
    expect(mergeShards([a1, a2], out)).toMatchObject({ totalCells: 8, records: 4, missingCells: 4, shards: [1, 2] });
  });
});
