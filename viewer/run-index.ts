/**
 * The viewer's index of one or more run folders. Each run's `results.jsonl` has an on-disk SQLite
 * index (results/cell-index.ts: built once, extended when the file grew, rebuilt when it changed)
 * holding what the cell table sorts, filters and searches on, and each record's byte offset; the
 * viewer attaches those index files to one connection and asks it for one page at a time, and
 * reads full records back from the results file by offset. Nothing holds a run's records in
 * memory, so a run of 10⁶ cells opens as fast as its index.
 */
import type Database from "better-sqlite3";
import { openSqlite } from "../results/sqlite.ts";
import { closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { cellCost, judgeState, openCellIndex, paramsLabel, recordScores, scoreColumnsOf, sqlId, type JudgeState, type Prices } from "../results/cell-index.ts";
import { latestRecords, newScanStats, readRecordAt } from "../results/results-file.ts";
import type { RunRecord } from "../results/run-record.ts";

export { cellCost, judgeState, paramsLabel, recordScores, type Prices };

/** One run folder with all its latest records in memory (rating studies, which sample cells). */
export interface LoadedRun {
  /** Index of the run in the viewer (0-based, in command-line order). */
  index: number;
  dir: string;
  /** Display name: the config's `name` from spec.json, else the folder name. */
  name: string;
  records: RunRecord[];
  /** 1-based numbers of malformed lines of results.jsonl that were skipped. */
  malformedLines: number[];
  /** True when a torn (unterminated) last line was left out. */
  truncatedTail: boolean;
  prices: Prices;
}

/** One run folder as the explorer sees it: its index, not its records. */
export interface IndexedRun {
  index: number;
  dir: string;
  name: string;
  resultsPath: string;
  /** The run's index file (attached as schema `r<index>`). */
  indexPath: string;
  /** Cells (latest record per key). */
  cells: number;
  malformedLines: number[];
  truncatedTail: boolean;
  prices: Prices;
  /** Changes whenever the index is rebuilt or extended. */
  buildId: string;
  scoreColumns: string[];
  /** How the index was obtained at the last (re)open, and in how many seconds. */
  action: "built" | "extended" | "reused";
  seconds: number;
  /** Why the index build read the file in the server's thread instead of worker threads (a worker died), or null. */
  workersFailed: string | null;
}

/** One cell of the table: the fields filters and sorting read. */
export interface CellRow {
  /** Row id: run × 2³² + the cell's id in its run's index (stable while the index is not rebuilt). */
  id: number;
  run: number;
  key: string;
  itemId: string;
  dataset: string;
  model: string;
  workflow: string;
  /** Parameters as `k=5 fraction=0.5` (sorted keys); empty when none. */
  params: string;
  repeat: number;
  status: RunRecord["status"];
  judge: JudgeState;
  /** Generator tokens spent; null when unknown (calls answered without usage), never 0 for unknown. */
  inputTokens: number | null;
  outputTokens: number | null;
  /** Generator calls whose answer came without usage (the token counts are then a lower bound, or null). */
  unknownUsageCalls: number;
  latencyMs: number;
  /** Generator cost in USD from the run's prices; null when the model has no price. */
  costUsd: number | null;
  /** Score columns: `panel:<rubric>.<dimension>` (panel aggregate) and `metric:<id>`. */
  scores: Record<string, number | null>;
}

/** Loaded runs, the connection their indexes are attached to, facets and score columns. */
export interface RunIndex {
  runs: IndexedRun[];
  /** In-memory connection with each run's index attached as `r0`, `r1`, …. */
  db: Database.Database;
  /** Sorted distinct values per filterable column. */
  facets: { run: string[]; dataset: string[]; model: string[]; workflow: string[]; params: string[]; status: string[]; judge: string[] };
  /** Sorted score column names present in any run. */
  scoreColumns: string[];
  totalCells: number;
  /** A new connection with the same indexes attached (for a long read, e.g. an export, that must not hold `db`); close it after use. */
  connect(): Database.Database;
  /** Re-check every results file; extend or rebuild indexes that are behind. @returns true when one changed */
  refresh(): boolean;
  close(): void;
}

/** Row id of cell `id` of run `run`. */
export const rowIdOf = (run: number, id: number): number => run * 2 ** 32 + id;
/** Run and in-run id of a row id. */
export const splitRowId = (rowId: number): { run: number; id: number } => ({ run: Math.floor(rowId / 2 ** 32), id: rowId % 2 ** 32 });

/** Name and prices of a run folder from its spec.json (folder name and no prices when absent). */
export function runSpec(abs: string): { name: string; prices: Prices } {
  let name = basename(abs);
  let prices: Prices = {};
  const specPath = join(abs, "spec.json");
  if (existsSync(specPath)) {
    try {
      const spec = JSON.parse(readFileSync(specPath, "utf8")) as { config?: { name?: string; prices?: Prices } };
      if (typeof spec.config?.name === "string") name = spec.config.name;
      if (spec.config?.prices && typeof spec.config.prices === "object") prices = spec.config.prices;
    } catch {
      // an unreadable spec.json only costs the name and prices; the results are what matter
    }
  }
  return { name, prices };
}

function resultsFileOf(dir: string): { abs: string; file: string } {
  const abs = resolve(dir);
  const file = join(abs, "results.jsonl");
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${abs}: no results.jsonl in this folder (is it a run folder?)`);
  return { abs, file };
}

/**
 * Read one run folder with its latest records in memory (streamed; for rating studies, not the
 * explorer): `results.jsonl` (malformed lines skipped and counted) and, when present, `spec.json`
 * for the run name and prices.
 * @throws Error when the folder has no results.jsonl
 */
export function loadRun(dir: string, index = 0): LoadedRun {
  const { abs, file } = resultsFileOf(dir);
  const stats = newScanStats();
  const records: RunRecord[] = [];
  for (const r of latestRecords(file, stats)) records.push(r.record);
  return { index, dir: abs, ...runSpec(abs), records, malformedLines: stats.malformedLines, truncatedTail: stats.truncatedTail };
}

/**
 * Open (build, extend or reuse) the index of one run folder.
 * @throws Error when the folder has no results.jsonl
 */
export function indexRun(dir: string, index = 0, onProgress?: (cells: number, bytes: number) => void): IndexedRun {
  const { abs, file } = resultsFileOf(dir);
  const spec = runSpec(abs);
  const info = openCellIndex(file, { prices: spec.prices, onProgress });
  return {
    index,
    dir: abs,
    name: spec.name,
    resultsPath: file,
    indexPath: info.path,
    cells: info.cells,
    malformedLines: info.malformedLines,
    truncatedTail: info.truncatedTail,
    prices: spec.prices,
    buildId: info.buildId,
    scoreColumns: info.scoreColumns,
    action: info.action,
    seconds: info.seconds,
    workersFailed: info.workersFailed,
  };
}

function facetsOf(db: Database.Database, runs: readonly IndexedRun[]): RunIndex["facets"] {
  const distinct = (col: string) => {
    const s = new Set<string>();
    for (const r of runs) for (const row of db.prepare(`SELECT DISTINCT ${sqlId(col)} AS v FROM r${r.index}.cells`).all() as { v: string }[]) s.add(row.v);
    return [...s].sort();
  };
  return {
    run: runs.map((r) => String(r.index)),
    dataset: distinct("dataset"),
    model: distinct("model"),
    workflow: distinct("workflow"),
    params: distinct("params"),
    status: distinct("status"),
    judge: distinct("judge"),
  };
}

/**
 * Open run folders' indexes (building them on first use) and attach them to one connection.
 * @param dirs run folders (each with results.jsonl)
 * @param opts.onProgress progress of an index build (run, cells, bytes read)
 * @throws Error naming the folder when one has no results.jsonl
 */
export function buildRunIndex(dirs: readonly string[], opts: { onProgress?: (run: number, cells: number, bytes: number) => void } = {}): RunIndex {
  const runs = dirs.map((d, i) => indexRun(d, i, opts.onProgress && ((c, b) => opts.onProgress?.(i, c, b))));
  const connect = () => {
    const c = openSqlite(":memory:");
    for (const r of runs) c.prepare(`ATTACH DATABASE ? AS r${r.index}`).run(r.indexPath);
    return c;
  };
  const db = connect();
  const attach = (r: IndexedRun) => db.prepare(`ATTACH DATABASE ? AS r${r.index}`).run(r.indexPath);
  const index: RunIndex = {
    runs,
    db,
    facets: facetsOf(db, runs),
    scoreColumns: [...new Set(runs.flatMap((r) => scoreColumnsOf(db, `r${r.index}`)))].sort(),
    totalCells: runs.reduce((a, r) => a + r.cells, 0),
    connect,
    refresh() {
      let changed = false;
      for (const r of runs) {
        const before = r.buildId;
        db.exec(`DETACH DATABASE r${r.index}`);
        try {
          Object.assign(r, indexRun(r.dir, r.index));
        } finally {
          attach(r);
        }
        if (r.buildId !== before) changed = true;
      }
      if (changed) {
        index.facets = facetsOf(db, runs);
        index.scoreColumns = [...new Set(runs.flatMap((r) => scoreColumnsOf(db, `r${r.index}`)))].sort();
        index.totalCells = runs.reduce((a, r) => a + r.cells, 0);
      }
      return changed;
    },
    close: () => db.close(),
  };
  return index;
}

/**
 * The full records of rows, read back from each run's results file by byte offset.
 * @throws Error when a results file changed since it was indexed
 */
export function recordsOf(index: RunIndex, rows: readonly { run: number; id: number }[]): RunRecord[] {
  const fds = new Map<number, number>();
  try {
    return rows.map(({ run, id }) => {
      const local = splitRowId(id).id;
      const at = index.db.prepare(`SELECT off, len FROM r${run}.cells WHERE id = ?`).get(local) as { off: number; len: number } | undefined;
      if (!at) throw new Error(`no cell ${id} in run ${run}`);
      let fd = fds.get(run);
      if (fd === undefined) fds.set(run, (fd = openSync(index.runs[run].resultsPath, "r")));
      return readRecordAt(fd, at.off, at.len);
    });
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
}
