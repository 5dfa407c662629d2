/**
 * Sharded runs: `medsynth run <config> --shard i/n` runs a deterministic 1/n of the matrix's cells
 * into `<output>/shard-<i>-of-<n>/`; `medsynth merge` combines the n shard folders into one run
 * folder that `medsynth report` reads like any other.
 *
 * Partition: the matrix is expanded in its deterministic order (`expandCells`); shard i
 * (1-based) takes the cells at positions p with p mod n = i − 1. Every cell lands in exactly one
 * shard, shards differ in size by at most one cell, and cells of one item spread across shards.
 *
 * Merge refuses shards of different configs (their `spec.json` config hashes differ), a shard
 * count that differs, a shard given twice, and — unless `allowMissing` — a missing shard. The
 * merged folder gets `spec.json` (the shared config), `cells.json` (all cells in matrix order),
 * `results.jsonl` (the latest record per cell from its shard), `env.json` (the first shard's,
 * plus each shard's environment under `shards`) and `retrieval-eval.json` when a shard has one.
 */
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AtomicResultsWriter, latestLineOffsets, newScanStats } from "../results/results-file.ts";
import { medsynthCommand } from "../corpus/paths.ts";

/** One shard of a run: `index` in 1..`count`. */
export interface ShardSpec {
  index: number;
  count: number;
}

/**
 * Parses `"i/n"` (1 ≤ i ≤ n, integers).
 * @throws Error with the expected form on anything else (`"0/3"`, `"4/3"`, `"a/b"`, `"2"`).
 */
export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new Error(`--shard: expected i/n with 1 ≤ i ≤ n (e.g. 2/4), got ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/**
 * The cells of one shard, in matrix order.
 * @param cells the whole matrix in its deterministic order.
 * @returns cells at positions p with p mod count = index − 1.
 */
export function selectShard<T>(cells: readonly T[], shard: ShardSpec): T[] {
  return cells.filter((_, p) => p % shard.count === shard.index - 1);
}

/**
 * The cells of the run: the whole matrix, or one shard of it — logging {@link emptyShardNote}
 * when that shard holds no cell.
 */
export function runCells<T>(matrix: T[], shard: ShardSpec | undefined, log: (line: string) => void): T[] {
  if (!shard) return matrix;
  const note = emptyShardNote(matrix.length, shard);
  if (note) log(note);
  return selectShard(matrix, shard);
}

/**
 * The note a run prints for a shard that holds no cell (the matrix has fewer cells than shards).
 * @param matrixCells cells of the whole matrix.
 * @returns the note, or null when the shard holds a cell.
 */
export function emptyShardNote(matrixCells: number, shard: ShardSpec): string | null {
  if (shard.index <= matrixCells) return null;
  return `shard ${shard.index}/${shard.count} holds no cell: the matrix has ${matrixCells} cell(s), fewer than the ${shard.count} shards (shard i/n takes cells i, i+n, …); use at most ${Math.max(matrixCells, 1)} shard(s)`;
}

/** Folder of a shard inside the run's output folder: `<output>/shard-<i>-of-<n>`. */
export function shardDir(output: string, shard: ShardSpec): string {
  return join(output, `shard-${shard.index}-of-${shard.count}`);
}

/** What {@link mergeShards} did. */
export interface MergeSummary {
  outputDir: string;
  configHash: string;
  /** Cells of the whole matrix (as recorded by the shards). */
  totalCells: number;
  /** Records written (latest per cell). */
  records: number;
  /** Cells of the matrix without any record (unfinished or missing shards). */
  missingCells: number;
  /** Shard indices merged, ascending. */
  shards: number[];
}

interface ShardFolder {
  dir: string;
  configHash: string;
  config: unknown;
  shard: ShardSpec;
  keys: string[];
  /** Cells of the whole matrix, as this shard expanded it. */
  matrixCells: number;
  /** The results file and, per cell key, where its latest record lies (one streamed pass). */
  resultsPath: string;
  latest: Map<string, { offset: number; length: number }>;
  env: Record<string, unknown> | null;
}

function readJson(path: string, what: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`merge: ${what} ${path} cannot be read (${(e as Error).message}); is this a shard folder written by \`${medsynthCommand()} run --shard\`?`);
  }
}

function readShardFolder(dir: string, allowMissing: boolean): ShardFolder {
  const spec = readJson(join(dir, "spec.json"), "spec");
  const cells = readJson(join(dir, "cells.json"), "cell list");
  const shard = spec.shard as ShardSpec | undefined;
  if (!shard || !Number.isInteger(shard.index) || !Number.isInteger(shard.count)) {
    throw new Error(`merge: ${dir}/spec.json has no shard i/n; only folders written by \`${medsynthCommand()} run --shard i/n\` can be merged`);
  }
  if (typeof spec.configHash !== "string" || cells.configHash !== spec.configHash || !Array.isArray(cells.keys)) {
    throw new Error(`merge: ${dir}: spec.json and cells.json disagree (config changed mid-run?); re-run the shard`);
  }
  const resultsPath = join(dir, "results.jsonl");
  const stats = newScanStats();
  // No results file: a shard that holds no cell, or one stopped before its first cell finished.
  const latest = existsSync(resultsPath) ? latestLineOffsets(resultsPath, stats) : new Map<string, { offset: number; length: number }>();
  if (stats.malformedLines.length) throw new Error(`merge: ${dir}/results.jsonl has malformed lines ${stats.malformedLines.slice(0, 20).join(", ")}${stats.malformedLines.length > 20 ? ", …" : ""}`);
  // A last line without its newline: the shard was stopped while writing a record (its cell is unrun).
  if (stats.truncatedTail && !allowMissing)
    throw new Error(
      `merge: ${dir}/results.jsonl ends in a torn line after line ${stats.lines} (the shard was stopped mid-write): finish the shard by re-running its \`${medsynthCommand()} run --shard\` command (it resumes), or merge as it is with --allow-missing (that cell stays unrun)`,
    );
  const envPath = join(dir, "env.json");
  return {
    dir,
    configHash: spec.configHash,
    config: spec.config,
    shard,
    keys: cells.keys as string[],
    matrixCells: typeof cells.matrixCells === "number" ? cells.matrixCells : NaN,
    resultsPath,
    latest,
    env: existsSync(envPath) ? readJson(envPath, "environment") : null,
  };
}

/**
 * Reads byte ranges of one file through a 4 MiB window: a range inside the window is served from
 * memory, else the window is refilled from the range's start. A shard's lines are asked for in
 * matrix order, which is mostly the order they were written, so the file is read sequentially in
 * large reads rather than one read per line.
 */
class WindowReader {
  private buf = Buffer.allocUnsafe(4 << 20);
  private start = 0;
  private end = 0;

  constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {}

  /**
   * The bytes at `offset` (a view into the window, valid until the next call).
   * @throws Error naming the file when it is shorter than that (it changed since it was read)
   */
  bytesAt(offset: number, length: number): Buffer {
    if (offset < this.start || offset + length > this.end) {
      if (length > this.buf.length) this.buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < this.buf.length) {
        const n = readSync(this.fd, this.buf, got, this.buf.length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      this.start = offset;
      this.end = offset + got;
      if (got < length) throw new Error(`merge: ${this.path}: no line at byte ${offset} (${length} bytes); the file changed while merging`);
    }
    return this.buf.subarray(offset - this.start, offset - this.start + length);
  }
}

/**
 * Step of {@link mergeShards}: stream the merged `results.jsonl` in matrix order — for each key,
 * the latest line of the shard that owns it, copied as is (read back by offset, never parsed
 * again), through a temporary file renamed into place.
 * @returns the number of records written
 */
function writeMergedResults(path: string, shards: readonly ShardFolder[], keys: readonly string[]): number {
  const owner = new Map<string, ShardFolder>();
  for (const s of shards) for (const k of s.keys) if (s.latest.has(k)) owner.set(k, s);
  const withRecords = shards.filter((s) => s.latest.size > 0); // a shard without results.jsonl has none
  const fds = new Map(withRecords.map((s) => [s, openSync(s.resultsPath, "r")]));
  const readers = new Map(withRecords.map((s) => [s, new WindowReader(fds.get(s) as number, s.resultsPath)]));
  const out = new AtomicResultsWriter(path);
  try {
    for (const k of keys) {
      const s = owner.get(k);
      if (!s) continue;
      const e = s.latest.get(k) as { offset: number; length: number };
      out.writeLineBytes((readers.get(s) as WindowReader).bytesAt(e.offset, e.length));
    }
    out.commit();
    return out.count;
  } catch (err) {
    out.abort();
    throw err;
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
}

/**
 * Combines shard folders into one run folder.
 * @param shardDirs folders written by `medsynth run --shard i/n` (any order).
 * @param outputDir the merged run folder (created; an existing `results.jsonl` there is replaced).
 * @param opts `allowMissing`: merge even when some shard of 1..n is absent (its cells stay unrun).
 * @returns counts of the merge.
 * @throws Error naming the folders when configs or shard counts differ, a shard index repeats, a
 *   shard is missing or a shard's results end in a torn line (unless `allowMissing`), a results
 *   line is malformed, or a folder is not a shard folder; nothing is written then.
 */
export function mergeShards(shardDirs: readonly string[], outputDir: string, opts: { allowMissing?: boolean } = {}): MergeSummary {
  if (shardDirs.length === 0) throw new Error("merge: no shard folders given");
  // A shard folder that does not exist (a shard not run, or not copied here) is skipped with
  // --allow-missing, else named with that option.
  const absent = shardDirs.filter((d) => !existsSync(d));
  if (absent.length && !opts.allowMissing)
    throw new Error(`merge: ${absent.join(", ")}: no such folder (a shard not run yet, or not copied here?); merge the shards you have with --allow-missing (the missing shards' cells stay unrun)`);
  const present = shardDirs.filter((d) => existsSync(d));
  if (present.length === 0) throw new Error(`merge: none of the shard folders exists (${shardDirs.join(", ")})`);
  const shards = present.map((d) => readShardFolder(d, opts.allowMissing === true));
  const first = shards[0];
  for (const s of shards.slice(1)) {
    if (s.configHash !== first.configHash) {
      throw new Error(`merge: ${s.dir} ran another config (hash ${s.configHash.slice(0, 12)}) than ${first.dir} (hash ${first.configHash.slice(0, 12)}); shards of one run must share one config`);
    }
    if (s.shard.count !== first.shard.count)
      throw new Error(`merge: ${s.dir} is shard ${s.shard.index}/${s.shard.count} but ${first.dir} is ${first.shard.index}/${first.shard.count}; shard counts differ`);
  }
  const n = first.shard.count;
  const byIndex = new Map<number, ShardFolder>();
  for (const s of shards) {
    const prev = byIndex.get(s.shard.index);
    if (prev) throw new Error(`merge: shard ${s.shard.index}/${n} given twice (${prev.dir} and ${s.dir})`);
    byIndex.set(s.shard.index, s);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length && !opts.allowMissing)
    throw new Error(`merge: shard(s) ${missing.map((i) => `${i}/${n}`).join(", ")} missing; pass them too, or merge without them with --allow-missing (their cells stay unrun)`);
  // Matrix order: shard i holds positions i−1, i−1+n, …; interleave them back.
  const sizes = Array.from({ length: n }, (_, i) => byIndex.get(i + 1)?.keys.length ?? -1);
  const longest = Math.max(...sizes);
  const keys: string[] = [];
  for (let row = 0; row < longest; row++) {
    for (let i = 1; i <= n; i++) {
      const s = byIndex.get(i);
      if (s && row < s.keys.length) keys.push(s.keys[row]);
    }
  }
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(join(outputDir, "spec.json"), JSON.stringify({ configHash: first.configHash, config: first.config, mergedFrom: shards.map((s) => `${s.shard.index}/${n}`).sort() }, null, 2) + "\n");
  // A partial merge (--allow-missing) also records the matrix's size, so the report can say how
  // many cells have no record; a complete merge's cells.json is the keys alone.
  const partial = Number.isFinite(first.matrixCells) && first.matrixCells !== keys.length;
  writeFileSync(join(outputDir, "cells.json"), JSON.stringify({ configHash: first.configHash, keys, ...(partial ? { matrixCells: first.matrixCells } : {}) }) + "\n");
  const records = writeMergedResults(join(outputDir, "results.jsonl"), shards, keys);
  const env = { ...(first.env ?? {}), configHash: first.configHash, shards: shards.map((s) => ({ shard: `${s.shard.index}/${n}`, ...(s.env ?? {}) })) };
  writeFileSync(join(outputDir, "env.json"), JSON.stringify(env, null, 2) + "\n");
  const withEval = shards.find((s) => existsSync(join(s.dir, "retrieval-eval.json")));
  if (withEval) copyFileSync(join(withEval.dir, "retrieval-eval.json"), join(outputDir, "retrieval-eval.json"));
  return {
    outputDir,
    configHash: first.configHash,
    totalCells: Number.isFinite(first.matrixCells) ? first.matrixCells : keys.length,
    records,
    missingCells: (Number.isFinite(first.matrixCells) ? first.matrixCells : keys.length) - records,
    shards: [...byIndex.keys()].sort((a, b) => a - b),
  };
}
