/**
 * The Lance corpus store: PubMed records in a LanceDB database at any URI LanceDB accepts — a local
 * folder, `s3://…`, `gs://…`, `az://…` — with storage options (credentials, endpoint, region)
 * passed through unchanged, so a team can share one corpus.
 *
 * Tables:
 * - `records` — one row per ingested entry (`corpus/ingest/rows.ts`: `rowKey`, `pmid`, `kind`,
 *   dedup keys, `sourceFile`, `title`, `year`, the record as JSON). After an ingest is finalised
 *   only the final corpus remains (kind `record`), with a B-tree index on `pmid`.
 * - `manifest` — one row per input file (`corpus/ingest/manifest.ts`).
 * - `store_meta` — one row: {@link StoreMeta} (cleaning options the store was built with, whether
 *   it is finalised, the cleaning counts).
 * Every write is one LanceDB commit (a new table version), so a killed writer never leaves a
 * half-written version.
 *
 * LanceDB and apache-arrow are imported on first use (~200 ms), not when this module loads.
 */
import type * as LanceDb from "@lancedb/lancedb";
import { createRequire } from "node:module";
import type { Schema } from "apache-arrow";
import type { CorpusDoc, PubmedRecord } from "../types.ts";
import { recordToCorpusDoc } from "../conclusion-task.ts";
import type { DropReason, CleanResult } from "../clean.ts";
import { DEFAULT_SCAN_BATCH, type RecordStore, type StoredRecord } from "./types.ts";

/** Where a store lives: a LanceDB URI plus storage options handed to LanceDB as they are. */
export interface StoreLocation {
  /** Local folder or object-storage URI (`s3://bucket/path`, `gs://…`, `az://…`). */
  uri: string;
  /** LanceDB storage options, e.g. `{aws_endpoint, aws_region, aws_access_key_id, …}`. */
  storageOptions?: Record<string, string>;
}

/** The connect function used (LanceDB's own unless a test injects one). */
export type ConnectFn = (uri: string, options: { storageOptions?: Record<string, string> }) => Promise<LanceDb.Connection>;

/** Table names. */
export const STORE_TABLES = { records: "records", manifest: "manifest", meta: "store_meta" } as const;

/** Format version written in {@link StoreMeta}. */
export const STORE_FORMAT = 1;

/** Metadata of a store. */
export interface StoreMeta {
  format: number;
  /** Cleaning options the store was built with (parsed, defaults filled), or null: not cleaned. */
  clean: Record<string, unknown> | null;
  /** True when the records table holds only the final corpus (no pending update rows). */
  finalized: boolean;
  /**
   * Counts of the last finalisation (same meaning as {@link CleanResult}; `deleteEntries` and
   * `deleteOfUnknown` count DeleteCitation entries and those that found no record — absent in
   * stores finalised before they were recorded), or null.
   */
  counts: { kept: number; dropped: Record<DropReason, number>; keywordsDropped: CleanResult["keywordsDropped"]; seen: number; deleteEntries?: number; deleteOfUnknown?: number } | null;
}

/**
 * Import LanceDB (lazily). Unless `LANCEDB_LOG` is set, its native log level is set to "error"
 * first, so routine notices ("No existing dataset … it will be created") stay off stderr.
 */
export async function loadLancedb(): Promise<typeof LanceDb> {
  process.env.LANCEDB_LOG ??= "error";
  return import("@lancedb/lancedb");
}

/**
 * Connect to a store's database.
 * @param loc - URI and storage options (passed through to LanceDB unchanged).
 * @param connect - injected connect function (tests); default LanceDB's `connect`.
 */
export async function connectStore(loc: StoreLocation, connect?: ConnectFn): Promise<LanceDb.Connection> {
  const fn = connect ?? (await loadLancedb()).connect;
  return fn(loc.uri, loc.storageOptions ? { storageOptions: { ...loc.storageOptions } } : {});
}

/**
 * The `apache-arrow` module instance LanceDB itself uses (its CommonJS build, loaded through
 * `require`): Arrow tables built with it pass LanceDB's `instanceof` checks as they are, while
 * tables built with the ESM instance are re-assembled by LanceDB's sanitiser (slow, and it
 * rejects tables assembled from raw `makeData` buffers).
 */
export function loadArrow(): typeof import("apache-arrow") {
  return createRequire(import.meta.url)("apache-arrow") as typeof import("apache-arrow");
}

/**
 * Page compression of a new `records` table's columns (Lance field metadata
 * `lance-encoding:compression`): `none` (the ingest's default: cheapest to write and to compact —
 * measured on 60,500 bench entries, append + compaction CPU 2.0 s vs 3.6 s with Lance's default,
 * data 86 MB vs 51 MB), `lz4` / `zstd` (smallest: 36 / 35 MB, same CPU as the default), or
 * `lance-default` (no metadata: Lance's own choice).
 */
export type StoreCompression = "none" | "lz4" | "zstd" | "lance-default";

/** The values {@link StoreCompression} takes. */
export const STORE_COMPRESSIONS: readonly StoreCompression[] = ["none", "lz4", "zstd", "lance-default"];

/**
 * Arrow schema of the `records` table (built with {@link loadArrow}'s instance).
 * @param compression - page compression written as field metadata (default: none, i.e. Lance's own default).
 */
export async function recordsSchema(compression: StoreCompression = "lance-default"): Promise<Schema> {
  const { Field, Float64, Int32, Schema, Utf8 } = loadArrow();
  const meta = compression === "lance-default" ? undefined : new Map([["lance-encoding:compression", compression]]);
  const f = (name: string, type: InstanceType<typeof Utf8> | InstanceType<typeof Float64> | InstanceType<typeof Int32>, nullable = false) => new Field(name, type, nullable, meta);
  return new Schema([
    f("rowKey", new Float64()), f("fileIndex", new Int32()), f("pmid", new Utf8()), f("version", new Float64()),
    f("kind", new Utf8()), f("dropReason", new Utf8(), true), f("doiKey", new Utf8(), true), f("titleKey", new Utf8(), true),
    f("kwEmpty", new Int32()), f("kwOverlong", new Int32()), f("kwNonAscii", new Int32()), f("kwDuplicate", new Int32()),
    f("sourceFile", new Utf8()), f("title", new Utf8()), f("year", new Int32(), true), f("record", new Utf8()),
  ]);
}

async function tableNames(db: LanceDb.Connection): Promise<Set<string>> {
  return new Set(await db.tableNames());
}

/**
 * Read a store's metadata.
 * @returns the metadata, or null when the database has no store yet.
 */
export async function readStoreMeta(db: LanceDb.Connection): Promise<StoreMeta | null> {
  if (!(await tableNames(db)).has(STORE_TABLES.meta)) return null;
  const rows = (await (await db.openTable(STORE_TABLES.meta)).query().toArray()) as { key: string; json: string }[];
  const row = rows.find((r) => r.key === "meta");
  return row ? (JSON.parse(row.json) as StoreMeta) : null;
}

/** Write a store's metadata (one commit replacing the previous version). */
export async function writeStoreMeta(db: LanceDb.Connection, meta: StoreMeta): Promise<void> {
  await db.createTable(STORE_TABLES.meta, [{ key: "meta", json: JSON.stringify(meta) }], { mode: "overwrite" });
}

/**
 * The differences between two sets of cleaning options, as text ("language: eng → null"), or
 * null when they are equal. Null options mean "not cleaned".
 */
export function describeCleanDifference(stored: Record<string, unknown> | null, wanted: Record<string, unknown> | null): string | null {
  if (stored === null && wanted === null) return null;
  if (stored === null) return "the store was built without cleaning; this run asks for cleaning";
  if (wanted === null) return "the store was built with cleaning; this run asks for none";
  const keys = [...new Set([...Object.keys(stored), ...Object.keys(wanted)])].sort();
  const diffs = keys.filter((k) => JSON.stringify(stored[k]) !== JSON.stringify(wanted[k])).map((k) => `${k}: store ${JSON.stringify(stored[k])}, this run ${JSON.stringify(wanted[k])}`);
  return diffs.length ? diffs.join("; ") : null;
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A finalised Lance store opened for reading, with a counter of records fetched. */
export interface LanceRecordStore extends RecordStore {
  readonly meta: StoreMeta;
  /** Records (or documents) read from the table by `get*` and `scan*` calls. */
  readonly counters: { fetched: number };
}

type Row = { pmid: string; sourceFile: string; record: string };

function rowToStored(r: Row): StoredRecord {
  return { record: JSON.parse(r.record) as PubmedRecord, sourceFile: r.sourceFile };
}

/**
 * Open a finalised store for reading (documents by id, batched scans, count).
 * @param loc - URI and storage options.
 * @param connect - injected connect function (tests).
 * @throws Error naming the URI when there is no store there or its ingest is not finalised.
 */
export async function openLanceRecordStore(loc: StoreLocation, connect?: ConnectFn): Promise<LanceRecordStore> {
  const db = await connectStore(loc, connect);
  const meta = await readStoreMeta(db);
  if (!meta) throw new Error(`${loc.uri}: no medsynth corpus store here (build one with \`medsynth corpus ingest <files> --store ${loc.uri}\`)`);
  if (!meta.finalized) throw new Error(`${loc.uri}: the corpus store's ingest is unfinished (files failed or an ingest was interrupted); re-run \`medsynth corpus ingest … --store ${loc.uri}\` to finish it`);
  const table = await db.openTable(STORE_TABLES.records);
  const counters = { fetched: 0 };
  const getRows = async (ids: readonly string[]): Promise<Map<string, StoredRecord>> => {
    const unique = [...new Set(ids)];
    const out = new Map<string, StoredRecord>();
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = (await table.query().where(`kind = 'record' AND pmid IN (${chunk.map(sqlString).join(", ")})`).select(["pmid", "sourceFile", "record"]).toArray()) as Row[];
      for (const r of rows) out.set(r.pmid, rowToStored(r));
    }
    counters.fetched += out.size;
    return out;
  };
  async function* scanColumns(cols: string[], batchSize: number): AsyncGenerator<Record<string, unknown>[]> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
    let pending: Record<string, unknown>[] = [];
    for await (const batch of table.query().where("kind = 'record'").select(cols)) {
      for (const r of batch.toArray() as Record<string, unknown>[]) {
        pending.push(r);
        if (pending.length >= batchSize) {
          yield pending;
          pending = [];
        }
      }
    }
    if (pending.length) yield pending;
  }
  return {
    meta,
    counters,
    async count() {
      return table.countRows("kind = 'record'");
    },
    getRecords: getRows,
    async getDocs(ids) {
      const recs = await getRows(ids);
      return new Map<string, CorpusDoc>([...recs].map(([id, r]) => [id, recordToCorpusDoc(r.record)]));
    },
    async *scanRecords(batchSize = DEFAULT_SCAN_BATCH) {
      for await (const rows of scanColumns(["pmid", "sourceFile", "record"], batchSize)) {
        counters.fetched += rows.length;
        yield rows.map((r) => rowToStored(r as Row));
      }
    },
    async *scanDocs(batchSize = DEFAULT_SCAN_BATCH) {
      for await (const rows of scanColumns(["pmid", "sourceFile", "record"], batchSize)) {
        counters.fetched += rows.length;
        yield rows.map((r) => recordToCorpusDoc(rowToStored(r as Row).record));
      }
    },
    async *ids(batchSize = DEFAULT_SCAN_BATCH) {
      for await (const rows of scanColumns(["pmid"], batchSize)) yield rows.map((r) => String(r.pmid));
    },
  };
}

/**
 * Whether a `--corpus`-style argument names a Lance store: `lance:<uri>` or an object-storage URI
 * (`s3://`, `gs://`, `az://`).
 * @returns the store URI, or null for anything else (a JSONL path, "bundled").
 */
export function storeUriOf(arg: string): string | null {
  if (arg.startsWith("lance:")) return arg.slice("lance:".length);
  if (/^(s3|s3\+ddb|gs|az|abfss?):\/\//.test(arg)) return arg;
  return null;
}
