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
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { newScanStats, resultRecords, type ScanStats } from "./results-file.ts";
import type { RunRecord } from "./run-record.ts";

/** Schema version of the index; an index of another version is rebuilt. */
export const CELL_INDEX_VERSION = 2;

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

/** Generator cost in USD of one record under `prices` (per 1M tokens); null without a price, 0 when cached. */
export function cellCost(r: RunRecord, prices: Prices): number | null {
  const p = prices[r.model];
  if (!p) return null;
  if (r.generator?.cached) return 0;
  return ((r.generator?.inputTokens ?? 0) * p.input + (r.generator?.outputTokens ?? 0) * p.output) / 1e6;
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
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

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
  return cols.map((c) => c.name).filter((n) => n.startsWith("panel:") || n.startsWith("metric:")).sort();
}

function createSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
    CREATE TABLE cells (
      id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, itemId TEXT NOT NULL, natItem TEXT NOT NULL,
      dataset TEXT NOT NULL, model TEXT NOT NULL, workflow TEXT NOT NULL, params TEXT NOT NULL,
      repeat INTEGER NOT NULL, status TEXT NOT NULL, judge TEXT NOT NULL, inputTokens INTEGER NOT NULL,
      outputTokens INTEGER NOT NULL, latencyMs REAL NOT NULL, costUsd REAL, off INTEGER NOT NULL,
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

/**
 * Step of {@link openCellIndex}: stream records from `from` into the index, one transaction per
 * 20,000 records; a later record for a key replaces the row's values and keeps its id (table order
 * = order of first appearance). New score columns are added as they appear.
 */
function ingest(db: Database.Database, resultsPath: string, prices: Prices, stats: ScanStats, from: number, linesBefore: number, onProgress?: (cells: number, bytes: number) => void): void {
  const known = new Set(scoreColumnsOf(db));
  let cols = [...known];
  const fixed = ["key", "itemId", "natItem", "dataset", "model", "workflow", "params", "repeat", "status", "judge", "inputTokens", "outputTokens", "latencyMs", "costUsd", "off", "len", "outHash"];
  const prepare = () => {
    const all = [...fixed, ...cols];
    return db.prepare(`INSERT INTO cells (${all.map(sqlId).join(", ")}) VALUES (${all.map(() => "?").join(", ")}) ON CONFLICT(key) DO UPDATE SET ${all.slice(1).map((c) => `${sqlId(c)} = excluded.${sqlId(c)}`).join(", ")} RETURNING id`);
  };
  let upsert = prepare();
  const text = db.prepare("INSERT OR REPLACE INTO texts (id, search) VALUES (?, ?)");
  let n = 0;
  let inTx = false;
  const begin = () => {
    db.exec("BEGIN");
    inTx = true;
  };
  try {
    begin();
    for (const { record: r, offset, length } of resultRecords(resultsPath, stats, { from, linesBefore })) {
      const scores = recordScores(r);
      let added = false;
      for (const c of Object.keys(scores)) {
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
      const itemId = String(r.itemId);
      const values: unknown[] = [r.key, itemId, naturalKey(itemId), String(r.dataset), String(r.model), String(r.workflow), paramsLabel(r.params), r.repeat ?? 0, r.status, judgeState(r), r.generator?.inputTokens ?? 0, r.generator?.outputTokens ?? 0, r.generator?.latencyMs ?? 0, cellCost(r, prices), offset, length, outputHash(r.output)];
      for (const c of cols) values.push(scores[c] ?? null);
      const { id } = upsert.get(...values) as { id: number };
      text.run(id, typeof r.output === "string" ? r.output.toLowerCase() : "");
      if (++n % 20000 === 0) {
        db.exec("COMMIT");
        inTx = false;
        onProgress?.(n, stats.endOffset);
        begin();
      }
    }
    db.exec("COMMIT");
    inTx = false;
  } finally {
    if (inTx) db.exec("ROLLBACK");
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
}

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
  if (!db || !meta || !sameFile(meta)) {
    db?.close();
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
    db = openSqlite(path);
    createSchema(db);
    meta = null;
    action = "built";
  }
  try {
    db.pragma("synchronous = OFF");
    db.pragma("cache_size = -65536");
    const from = meta?.endOffset ?? 0;
    if (!meta || st.size > meta.endOffset) {
      const stats = newScanStats();
      ingest(db, resultsPath, opts.prices ?? {}, stats, from, meta?.lines ?? 0, opts.onProgress);
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
    return { path, action, cells, malformedLines: meta.malformed, truncatedTail: meta.truncatedTail, scoreColumns: scoreColumnsOf(db), buildId: meta.buildId, seconds: (performance.now() - t0) / 1000 };
  } finally {
    db.close();
  }
}

/** Open an index file for reading only (e.g. in a worker thread). */
export function openCellIndexReadOnly(path: string): Database.Database {
  return openSqlite(path, { readonly: true, fileMustExist: true });
}
