/**
 * The on-disk index of a results file (SQLite through better-sqlite3) that the viewer sorts,
 * filters, searches and pages on, so a run of 10⁶ cells is never held in memory: one row per cell
 * key (the latest record for that key) with the table's columns — item, dataset, model, workflow,
 * parameters, repeat, status, judge state, tokens, latency, cost, one column per score
 * (`panel:<rubric>.<dimension>`, `metric:<id>`) — plus the byte offset and length of the record's
 * line, so an item page reads full records back from the results file by offset, and a hash of the
 * whitespace-normalised output (compare's "identical"). Lower-cased outputs (search, compare's
 * word difference) sit in a side table.
 *
 * The index lives next to the results (`<run>/.medsynth-index/cells.sqlite`; in the system's
 * temporary folder when the run folder is read-only). Opening it checks it against the file: same
 * file (inode), the first and last 64 KiB of the indexed part unchanged → reused, or extended from
 * where it stopped when the file grew (appended cells); anything else (rewritten by `medsynth
 * judge`/`metrics`, truncated, other prices) → rebuilt. The file is read once, streamed.
 */
import type Database from "better-sqlite3";
import { openSqlite } from "./sqlite.ts";
import { createHash, randomUUID } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { newScanStats, parseRecordLine, resultLines, resultRecords, type ScanStats } from "./results-file.ts";
import type { RunRecord } from "./run-record.ts";

/** Schema version of the index; an index of another version is rebuilt. */
export const CELL_INDEX_VERSION = 3;

/** Price per 1M tokens (USD) by model id, as in a run config's `prices`. */
export type Prices = Record<string, { input: number; output: number }>;

/** Judge state of a cell: "ok" every verdict usable, "missing" at least one answer missing, "none" not judged. */
export type JudgeState = "ok" | "missing" | "none";

/** Fixed columns of the cell table (SQL column = name), in export order after `run`. */
export const CELL_COLUMNS = ["key", "itemId", "dataset", "model", "workflow", "params", "repeat", "status", "judge", "inputTokens", "outputTokens", "latencyMs", "costUsd"] as const;

/** Columns that get a B-tree index (sorting, filtering, the item page). */
const INDEXED = ["itemId", "dataset", "model", "workflow", "params", "status", "judge", "inputTokens", "outputTokens", "latencyMs", "costUsd"] as const;

/** `k=5 fraction=0.5`: the parameters with sorted keys (values JSON-encoded when not scalar). */
export function paramsLabel(params: Record<string, unknown> | undefined): string {
  if (!params) return "";
  return Object.keys(params)
    .sort()
    .map((k) => {
      const v = params[k];
      return `${k}=${typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v)}`;
    })
    .join(" ");
}

/** Judge state of a record: see {@link JudgeState}. */
export function judgeState(r: RunRecord): JudgeState {
  if (!r.judgeScores || r.judgeScores.length === 0) return "none";
  return r.judgeScores.some((j) => j.status !== "ok") ? "missing" : "ok";
}

/**
 * Generator cost in USD of one record under `prices` (per 1M tokens): null without a price or when
 * its tokens are unknown (null, or 0 with calls that reported no usage), 0 when cached; a lower
 * bound when some calls' usage is unknown (`generator.unknownUsageCalls`).
 */
export function cellCost(r: RunRecord, prices: Prices): number | null {
  const p = prices[r.model];
  if (!p) return null;
  if (r.generator?.cached) return 0;
  const i = r.generator?.inputTokens;
  const o = r.generator?.outputTokens;
  if (typeof i !== "number" || typeof o !== "number" || ((r.generator?.unknownUsageCalls ?? 0) > 0 && i + o === 0)) return null;
  return (i * p.input + o * p.output) / 1e6;
}

/** The score columns of one record: panel aggregates and metrics (non-finite → null). */
export function recordScores(r: RunRecord): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [rubric, dims] of Object.entries(r.panel?.scores ?? {})) {
    for (const [dim, v] of Object.entries(dims ?? {})) out[`panel:${rubric}.${dim}`] = typeof v?.value === "number" && Number.isFinite(v.value) ? v.value : null;
  }
  for (const [m, v] of Object.entries(r.metrics ?? {})) out[`metric:${m}`] = typeof v === "number" && Number.isFinite(v) ? v : null;
  return out;
}

/**
 * A key that sorts item ids in natural order as plain strings: every run of digits is written as
 * its length (2 digits) then the digits without leading zeros, so `medevidence:13` sorts before
 * `medevidence:125` and `item:9` before `item:10`.
 */
export function naturalKey(s: string): string {
  return s.replace(/\d+/g, (d) => {
    const t = d.replace(/^0+(?=\d)/, "");
    return String(t.length).padStart(2, "0") + t;
  });
}

/** True for the characters JavaScript's `\\s` matches. */
const isSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * Hash of an output after whitespace normalisation — the hash of `output.replace(/\s+/g, " ")
 * .trim()`, computed in one pass without building that string — or null when there is no text
 * output. Two 53-bit cyrb53 hashes (bryc, public domain) with different seeds: 106 bits, so a
 * chance collision between the two outputs of a compared pair is ~2⁻¹⁰⁶. Not cryptographic: a
 * crypto hash per cell cost several times more at 10⁶ cells.
 */
export function outputHash(output: unknown): string | null {
  if (typeof output !== "string") return null;
  let a1 = 0xdeadbeef ^ 1;
  let a2 = 0x41c6ce57 ^ 1;
  let b1 = 0xdeadbeef ^ 2;
  let b2 = 0x41c6ce57 ^ 2;
  let started = false;
  let space = false;
  const mix = (ch: number) => {
    a1 = Math.imul(a1 ^ ch, 2654435761);
    a2 = Math.imul(a2 ^ ch, 1597334677);
    b1 = Math.imul(b1 ^ ch, 2654435761);
    b2 = Math.imul(b2 ^ ch, 1597334677);
  };
  for (let i = 0; i < output.length; i++) {
    const ch = output.charCodeAt(i);
    if (isSpace(ch)) {
      space = started;
      continue;
    }
    if (space) mix(32);
    space = false;
    started = true;
    mix(ch);
  }
  const fin = (h1: number, h2: number) => {
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  };
  return `${fin(a1, a2)}.${fin(b1, b2)}`;
}

/** Double-quoted SQL identifier. */
export const sqlId = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** What {@link openCellIndex} found and did. */
export interface CellIndexInfo {
  /** The index file. */
  path: string;
  action: "built" | "extended" | "reused";
  /** Cells (distinct keys) in the index. */
  cells: number;
  /** 1-based numbers of malformed lines of the results file (skipped). */
  malformedLines: number[];
  /** True when the file's last line is unterminated (left out until it is finished). */
  truncatedTail: boolean;
  /** Score columns present, sorted. */
  scoreColumns: string[];
  /** Changes at every build or extension (compare caches key on it). */
  buildId: string;
  /** Seconds spent building or extending. */
  seconds: number;
  /** Worker threads that read and parsed the file (0: read in this thread, or nothing to read). */
  workers: number;
  /**
   * Why the worker threads were abandoned and the file read in this thread instead (a worker died
   * or stopped answering: see {@link OpenCellIndexOptions.stallMs}); null when they were not.
   */
  workersFailed: string | null;
}

interface Meta {
  version: number;
  ino: number;
  endOffset: number;
  lines: number;
  head: string;
  tail: string;
  prices: string;
  malformed: number[];
  truncatedTail: boolean;
  buildId: string;
}

const EDGE_BYTES = 64 * 1024;

function edgeHashes(path: string, end: number): { head: string; tail: string } {
  const fd = openSync(path, "r");
  try {
    const read = (from: number, len: number) => {
      const b = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = readSync(fd, b, got, len - got, from + got);
        if (n === 0) break;
        got += n;
      }
      return createHash("sha1").update(b.subarray(0, got)).digest("hex");
    };
    return { head: read(0, Math.min(EDGE_BYTES, end)), tail: read(Math.max(0, end - EDGE_BYTES), Math.min(EDGE_BYTES, end)) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Where the index of a results file lives: `<folder>/.medsynth-index/cells.sqlite`, or (when that
 * folder cannot be created) `<tmp>/medsynth-index/<sha1 of the file's path>/cells.sqlite`.
 */
export function cellIndexPath(resultsPath: string): string {
  const abs = resolve(resultsPath);
  const near = join(dirname(abs), ".medsynth-index");
  try {
    mkdirSync(near, { recursive: true });
    return join(near, "cells.sqlite");
  } catch {
    const far = join(tmpdir(), "medsynth-index", createHash("sha1").update(abs).digest("hex").slice(0, 16));
    mkdirSync(far, { recursive: true });
    return join(far, "cells.sqlite");
  }
}

function readMeta(db: Database.Database): Meta | null {
  try {
    const row = db.prepare("SELECT v FROM meta WHERE k = 'state'").get() as { v: string } | undefined;
    return row ? (JSON.parse(row.v) as Meta) : null;
  } catch {
    return null;
  }
}

function writeMeta(db: Database.Database, m: Meta): void {
  db.prepare("INSERT INTO meta (k, v) VALUES ('state', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v").run(JSON.stringify(m));
}

/** The score columns of an index (its columns beyond the fixed ones). */
export function scoreColumnsOf(db: Database.Database, schema = "main"): string[] {
  const cols = db.prepare(`SELECT name FROM ${sqlId(schema)}.pragma_table_info('cells')`).all() as { name: string }[];
  return cols
    .map((c) => c.name)
    .filter((n) => n.startsWith("panel:") || n.startsWith("metric:"))
    .sort();
}

function createSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
    CREATE TABLE cells (
      id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, itemId TEXT NOT NULL, natItem TEXT NOT NULL,
      dataset TEXT NOT NULL, model TEXT NOT NULL, workflow TEXT NOT NULL, params TEXT NOT NULL,
      repeat INTEGER NOT NULL, status TEXT NOT NULL, judge TEXT NOT NULL, inputTokens INTEGER,
      outputTokens INTEGER, unknownUsageCalls INTEGER NOT NULL, latencyMs REAL NOT NULL, costUsd REAL, off INTEGER NOT NULL,
      len INTEGER NOT NULL, outHash TEXT);
    CREATE TABLE texts (id INTEGER PRIMARY KEY, search TEXT NOT NULL);
  `);
}

/** Rows per distinct value above which a column also gets a (column DESC, id) index. */
const LOW_CARDINALITY_ROWS = 256;

/**
 * Step of {@link openCellIndex}: the B-tree indexes, then table statistics (ANALYZE). A plain
 * index on a column serves ascending sorts with ties in table order (its entries are (value,
 * id)); a descending sort with ties still in table order needs (value DESC, id), made for the
 * columns whose values repeat a lot (status, model, integer scores …) — elsewhere ties are few and
 * SQLite orders them cheaply.
 */
function createIndexes(db: Database.Database, scoreColumns: readonly string[]): void {
  const cols = [...INDEXED, ...scoreColumns];
  for (const c of cols) db.exec(`CREATE INDEX IF NOT EXISTS ${sqlId(`ix_${c}`)} ON cells (${sqlId(c)})`);
  db.exec(`CREATE INDEX IF NOT EXISTS ix_pair ON cells (natItem, itemId, model, workflow, params, repeat)`);
  // covering index of the table's filters: counts under any mix of them never visit the table
  db.exec(`CREATE INDEX IF NOT EXISTS ix_filters ON cells (workflow, model, status, judge, dataset, params)`);
  // statistics from a sample of each index (a full ANALYZE reads every index: tens of seconds at 10⁶ cells)
  db.pragma("analysis_limit = 2000");
  db.exec("ANALYZE");
  const stat = new Map((db.prepare("SELECT idx, stat FROM sqlite_stat1").all() as { idx: string; stat: string }[]).map((r) => [r.idx, r.stat]));
  let added = false;
  for (const c of cols) {
    const perValue = Number(stat.get(`ix_${c}`)?.split(" ")[1] ?? 0);
    if (perValue > LOW_CARDINALITY_ROWS) {
      db.exec(`CREATE INDEX IF NOT EXISTS ${sqlId(`ixd_${c}`)} ON cells (${sqlId(c)} DESC, id)`);
      added = true;
    }
  }
  if (added) db.exec("ANALYZE");
}

/** Fixed columns written per cell, in insert order (then the score columns). */
const INSERT_COLUMNS = [
  "key",
  "itemId",
  "natItem",
  "dataset",
  "model",
  "workflow",
  "params",
  "repeat",
  "status",
  "judge",
  "inputTokens",
  "outputTokens",
  "unknownUsageCalls",
  "latencyMs",
  "costUsd",
  "off",
  "len",
  "outHash",
] as const;

/** What one record contributes to the index: its fixed column values, score columns and lower-cased output. */
export interface CellValues {
  /** Values of {@link INSERT_COLUMNS}, in order. */
  values: unknown[];
  scores: Record<string, number | null>;
  /** Lower-cased output ("" without one), for search and compare's word difference. */
  text: string;
}

/**
 * The index row of one record whose line lies at `offset` (`length` bytes): fixed columns, scores,
 * search text. Unknown token counts stay null (never 0).
 */
export function cellValues(r: RunRecord, prices: Prices, offset: number, length: number): CellValues {
  const itemId = String(r.itemId);
  const g = r.generator;
  const unknownCalls = typeof g?.unknownUsageCalls === "number" ? g.unknownUsageCalls : 0;
  const tokens = (v: unknown) => (typeof v === "number" && !(v === 0 && unknownCalls > 0) ? v : null);
  const values = [
    r.key,
    itemId,
    naturalKey(itemId),
    String(r.dataset),
    String(r.model),
    String(r.workflow),
    paramsLabel(r.params),
    r.repeat ?? 0,
    r.status,
    judgeState(r),
    tokens(g?.inputTokens),
    tokens(g?.outputTokens),
    unknownCalls,
    g?.latencyMs ?? 0,
    cellCost(r, prices),
    offset,
    length,
    outputHash(r.output),
  ];
  return { values, scores: recordScores(r), text: typeof r.output === "string" ? r.output.toLowerCase() : "" };
}

/** Where cell rows go: the upsert of {@link ingest}, new score columns added as they appear. */
interface RowSink {
  add(row: CellValues): void;
  /** Rows added. */
  count(): number;
}

/**
 * A later record for a key replaces the row's values and keeps its id (table order = order of first
 * appearance); new score columns are added as they appear.
 */
function rowSink(db: Database.Database): RowSink {
  const known = new Set(scoreColumnsOf(db));
  let cols = [...known];
  const prepare = () => {
    const all = [...INSERT_COLUMNS, ...cols];
    return db
      .prepare(
        `INSERT INTO cells (${all.map(sqlId).join(", ")}) VALUES (${all.map(() => "?").join(", ")}) ON CONFLICT(key) DO UPDATE SET ${all
          .slice(1)
          .map((c) => `${sqlId(c)} = excluded.${sqlId(c)}`)
          .join(", ")} RETURNING id`,
      )
      .pluck();
  };
  let upsert = prepare();
  const text = db.prepare("INSERT OR REPLACE INTO texts (id, search) VALUES (?, ?)");
  let n = 0;
  return {
    add({ values, scores, text: search }) {
      let added = false;
      for (const c in scores) {
        if (!known.has(c)) {
          known.add(c);
          db.exec(`ALTER TABLE cells ADD COLUMN ${sqlId(c)} REAL`);
          added = true;
        }
      }
      if (added) {
        cols = [...known];
        upsert = prepare();
      }
      for (const c of cols) values.push(scores[c] ?? null);
      text.run(upsert.get(...values) as number, search);
      n++;
    },
    count: () => n,
  };
}

/** Cells per transaction while ingesting (and per progress call). */
const TX_CELLS = 20000;

/**
 * Step of {@link openCellIndex}: records from `from` on into the index, one transaction per
 * {@link TX_CELLS} cells; lines are read and parsed in worker threads when `workers` > 0 (see
 * {@link parallelRows}), in this thread otherwise.
 */
function ingest(
  db: Database.Database,
  resultsPath: string,
  prices: Prices,
  stats: ScanStats,
  from: number,
  linesBefore: number,
  opts: ParallelOptions & { onProgress?: (cells: number, bytes: number) => void },
): void {
  const sink = rowSink(db);
  let inTx = false;
  try {
    db.exec("BEGIN");
    inTx = true;
    const each = (row: CellValues, bytes: number) => {
      sink.add(row);
      if (sink.count() % TX_CELLS === 0) {
        db.exec("COMMIT");
        inTx = false;
        opts.onProgress?.(sink.count(), bytes);
        db.exec("BEGIN");
        inTx = true;
      }
    };
    if (opts.workers > 0) parallelRows(resultsPath, prices, stats, from, linesBefore, opts, each);
    else for (const { record, offset, length } of resultRecords(resultsPath, stats, { from, linesBefore })) each(cellValues(record, prices, offset, length), stats.endOffset);
    db.exec("COMMIT");
    inTx = false;
  } finally {
    if (inTx) db.exec("ROLLBACK");
  }
}

/** One block's rows as a worker thread sends them (see {@link blockRows}). */
export interface BlockResult {
  block: number;
  rows: CellValues[];
  /** Complete lines that start in the block (blank and malformed ones included). */
  lines: number;
  /** Block-relative 1-based numbers of its malformed lines. */
  malformed: number[];
  /** Offset past the block's last complete line; null when no line starts in it. */
  end: number | null;
  /** The block's last line is unterminated (the file's torn tail). */
  truncatedTail: boolean;
  /** Set instead of the above when the worker failed. */
  error?: string;
}

/** Offset of the first line starting at or after `at` (`at` itself when a line ends just before it); -1 when none does. */
function lineStartAtOrAfter(fd: number, at: number): number {
  if (at === 0) return 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  let pos = at - 1;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) return -1;
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl >= 0) return pos + nl + 1;
    pos += n;
  }
}

/**
 * Worker side of {@link parallelRows}: the rows of the lines that start in bytes [`from`, `to`) of
 * a results file (`from` is a line start when `exact`, else the block starts at the first line
 * after it); the last line of a block is read to its end, wherever that is.
 */
export function blockRows(path: string, prices: Prices, block: number, from: number, to: number, exact: boolean): BlockResult {
  const fd = openSync(path, "r");
  let start: number;
  try {
    start = exact ? from : lineStartAtOrAfter(fd, from);
  } finally {
    closeSync(fd);
  }
  const out: BlockResult = { block, rows: [], lines: 0, malformed: [], end: null, truncatedTail: false };
  if (start < 0 || start >= to) return out;
  const stats = newScanStats();
  let stopped = false;
  for (const l of resultLines(path, stats, { from: start })) {
    if (l.offset >= to) {
      out.lines = l.line - 1;
      out.end = l.offset;
      stopped = true;
      break;
    }
    if (!l.text.trim()) continue;
    const r = parseRecordLine(l.text);
    if (r) out.rows.push(cellValues(r, prices, l.offset, l.length));
    else stats.malformedLines.push(l.line);
  }
  if (!stopped) {
    out.lines = stats.lines;
    out.end = stats.endOffset > start ? stats.endOffset : null;
    out.truncatedTail = stats.truncatedTail;
  }
  out.malformed = stats.malformedLines.filter((n) => n <= out.lines).sort((a, b) => a - b);
  return out;
}

/** How {@link parallelRows} reads: worker threads, bytes per block, stall limit, worker script. */
interface ParallelOptions {
  workers: number;
  blockBytes: number;
  stallMs: number;
  workerUrl?: URL;
}

function indexWorkerUrl(): URL {
  return import.meta.url.endsWith(".js") ? new URL("./cell-index-worker.js", import.meta.url) : new URL("./cell-index-worker-entry.mjs", import.meta.url);
}

/**
 * Read and parse the file from `from` on in `workers` worker threads, block by block
 * (`blockBytes` each, cut at line starts), while this thread hands each row to `each` in file
 * order. The caller stays synchronous: it blocks on a shared counter (Atomics.wait) and takes the
 * workers' messages with receiveMessageOnPort. At most two blocks per worker are in flight.
 * @throws Error naming the file when a worker fails
 */
function parallelRows(path: string, prices: Prices, stats: ScanStats, from: number, linesBefore: number, pw: ParallelOptions, each: (row: CellValues, bytes: number) => void): void {
  const { workers, blockBytes, stallMs } = pw;
  const size = statSync(path).size;
  const blocks = Math.max(1, Math.ceil((size - from) / blockBytes));
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const pool = Array.from({ length: Math.min(workers, blocks) }, () => {
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(pw.workerUrl ?? indexWorkerUrl(), { workerData: { path, prices, signal, port: port2 }, transferList: [port2] });
    worker.unref();
    return { worker, port: port1 };
  });
  let nextToSend = 0;
  const send = (w: (typeof pool)[number]) => {
    if (nextToSend >= blocks) return;
    const b = nextToSend++;
    w.port.postMessage({ block: b, from: from + b * blockBytes, to: b === blocks - 1 ? Number.MAX_SAFE_INTEGER : from + (b + 1) * blockBytes, exact: b === 0 });
  };
  const owner = new Map<number, (typeof pool)[number]>();
  for (const w of pool)
    for (let k = 0; k < 2; k++) {
      owner.set(nextToSend, w);
      send(w);
    }
  const done = new Map<number, BlockResult>();
  let lines = linesBefore;
  stats.endOffset = from;
  let lastAnswer = performance.now();
  try {
    for (let b = 0; b < blocks; b++) {
      while (!done.has(b)) {
        const seen = Atomics.load(signal, 0);
        let got = false;
        for (const w of pool) {
          for (let m = receiveMessageOnPort(w.port); m; m = receiveMessageOnPort(w.port)) {
            const r = m.message as BlockResult;
            if (r.error) throw new Error(`results file ${path}: ${r.error}`);
            done.set(r.block, r);
            got = true;
          }
        }
        if (got) lastAnswer = performance.now();
        else if (performance.now() - lastAnswer > stallMs) throw new WorkersStalled(`no block of ${path} answered by the index worker threads for ${(stallMs / 1000).toFixed(1)} s (a worker died?)`);
        else Atomics.wait(signal, 0, seen, 200);
      }
      const r = done.get(b) as BlockResult;
      done.delete(b);
      const w = owner.get(b) as (typeof pool)[number];
      owner.delete(b);
      owner.set(nextToSend, w);
      send(w);
      for (const n of r.malformed) stats.malformedLines.push(lines + n);
      lines += r.lines;
      if (r.end !== null) stats.endOffset = r.end;
      if (r.truncatedTail) stats.truncatedTail = true;
      for (const row of r.rows) each(row, stats.endOffset);
    }
    stats.lines = lines - linesBefore;
  } finally {
    for (const w of pool) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}

/** Options of {@link openCellIndex}. */
export interface OpenCellIndexOptions {
  /** Prices for the cost column; a change of prices rebuilds the index. */
  prices?: Prices;
  /** Index file (default {@link cellIndexPath}). */
  indexPath?: string;
  /** Called every 20,000 cells while building or extending. */
  onProgress?: (cells: number, bytes: number) => void;
  /**
   * Worker threads that read and parse the file while this thread writes the index (0: all in
   * this thread). Default: the machine's parallelism (at most 4) when ≥ 64 MiB are to be read, else 0.
   */
  workers?: number;
  /** Bytes per block handed to a worker (default 8 MiB; tests use small ones). */
  blockBytes?: number;
  /**
   * Milliseconds without any block answered by the worker threads after which they are taken for
   * dead (a thread killed by its heap limit never answers) and the file is read in this thread
   * (rows are upserted by cell key, so the rows already written are not doubled). Default
   * {@link WORKER_STALL_MS}.
   */
  stallMs?: number;
  /** @internal worker script (tests: one that dies). */
  workerUrl?: URL;
}

/** Bytes to read from which the index build uses worker threads by default. */
const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;
/** Bytes per worker block. */
const BLOCK_BYTES = 8 * 1024 * 1024;
/** Default {@link OpenCellIndexOptions.stallMs}: 2 minutes (a block of 8 MiB parses in about a second). */
export const WORKER_STALL_MS = 120_000;

/** The index build's worker threads stopped answering (see {@link OpenCellIndexOptions.stallMs}). */
class WorkersStalled extends Error {}

/**
 * Open the index of a results file, building, extending or reusing it (see the module comment),
 * and close it again; query it with {@link openCellIndexReadOnly} or by attaching its file.
 * @throws Error naming the file when it cannot be read or the index cannot be written
 */
export function openCellIndex(resultsPath: string, opts: OpenCellIndexOptions = {}): CellIndexInfo {
  const t0 = performance.now();
  const path = opts.indexPath ?? cellIndexPath(resultsPath);
  const st = statSync(resultsPath);
  const pricesKey = JSON.stringify(opts.prices ?? {});
  let db: Database.Database | null = existsSync(path) ? openSqlite(path) : null;
  let meta = db ? readMeta(db) : null;
  let action: CellIndexInfo["action"] = "reused";
  const sameFile = (m: Meta) => {
    if (m.version !== CELL_INDEX_VERSION || m.ino !== st.ino || m.prices !== pricesKey || st.size < m.endOffset) return false;
    const h = edgeHashes(resultsPath, m.endOffset);
    return h.head === m.head && h.tail === m.tail;
  };
  // A new index is built in a temporary file with a bulk load's settings (journal in memory, no syncs:
  // a crash leaves only that file) and renamed into place once complete.
  let buildPath: string | null = null;
  if (!db || !meta || !sameFile(meta)) {
    db?.close();
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
    buildPath = `${path}.build-${process.pid}`;
    rmSync(buildPath, { force: true });
    db = openSqlite(buildPath);
    db.pragma("journal_mode = MEMORY");
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("temp_store = MEMORY");
    createSchema(db);
    meta = null;
    action = "built";
  }
  try {
    db.pragma("synchronous = OFF");
    db.pragma(`cache_size = ${buildPath ? -262144 : -65536}`);
    db.pragma("threads = 2");
    const from = meta?.endOffset ?? 0;
    let workers = 0;
    let workersFailed: string | null = null;
    if (!meta || st.size > meta.endOffset) {
      let stats = newScanStats();
      workers = opts.workers ?? (st.size - from >= PARALLEL_MIN_BYTES ? Math.min(availableParallelism(), 4) : 0);
      const run = (w: number) =>
        ingest(db as Database.Database, resultsPath, opts.prices ?? {}, stats, from, meta?.lines ?? 0, {
          workers: w,
          blockBytes: opts.blockBytes ?? BLOCK_BYTES,
          stallMs: opts.stallMs ?? WORKER_STALL_MS,
          workerUrl: opts.workerUrl,
          onProgress: opts.onProgress,
        });
      try {
        run(workers);
      } catch (err) {
        if (!(err instanceof WorkersStalled)) throw err;
        // Read again in this thread: rows are upserted by cell key, so those already written stay single.
        workersFailed = err.message;
        workers = 0;
        stats = newScanStats();
        run(0);
      }
      if (meta) action = "extended";
      createIndexes(db, scoreColumnsOf(db));
      const edges = edgeHashes(resultsPath, stats.endOffset);
      meta = {
        version: CELL_INDEX_VERSION,
        ino: st.ino,
        endOffset: stats.endOffset,
        lines: (meta?.lines ?? 0) + stats.lines,
        head: edges.head,
        tail: edges.tail,
        prices: pricesKey,
        malformed: [...(meta?.malformed ?? []), ...stats.malformedLines],
        truncatedTail: stats.truncatedTail,
        buildId: randomUUID(),
      };
      writeMeta(db, meta);
    }
    const cells = (db.prepare("SELECT count(*) AS n FROM cells").get() as { n: number }).n;
    const scoreColumns = scoreColumnsOf(db);
    db.close();
    if (buildPath) renameSync(buildPath, path);
    return {
      path,
      action,
      cells,
      malformedLines: meta.malformed,
      truncatedTail: meta.truncatedTail,
      scoreColumns,
      buildId: meta.buildId,
      seconds: (performance.now() - t0) / 1000,
      workers,
      workersFailed,
    };
  } finally {
    if (db.open) db.close();
    if (buildPath) rmSync(buildPath, { force: true });
  }
}

/** Open an index file for reading only (e.g. in a worker thread). */
export function openCellIndexReadOnly(path: string): Database.Database {
  return openSqlite(path, { readonly: true, fileMustExist: true });
}
