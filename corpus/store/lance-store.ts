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
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Schema } from "apache-arrow";
import type { CorpusDoc, PubmedRecord } from "../types.ts";
import { recordToCorpusDoc } from "../conclusion-task.ts";
import type { DropReason, CleanResult } from "../clean.ts";
import { DEFAULT_SCAN_BATCH, SCAN_BATCH_CHARS, type RecordStore, type StoredRecord } from "./types.ts";
import { medsynthCommand } from "../paths.ts";

/** Where a store lives: a LanceDB URI plus storage options handed to LanceDB as they are. */
export interface StoreLocation {
  /** Local folder or object-storage URI (`s3://bucket/path`, `gs://…`, `az://…`). */
  uri: string;
  /** LanceDB storage options, e.g. `{aws_endpoint, aws_region, aws_access_key_id, …}`. */
  storageOptions?: Record<string, string>;
  /** LanceDB caches of a store opened for reading, MiB (default {@link STORE_READ_CACHE_MIB}). */
  readCacheMiB?: { index: number; metadata: number };
}

/** The connect function used (LanceDB's own unless a test injects one). */
export type ConnectFn = (uri: string, options: { storageOptions?: Record<string, string>; session?: LanceDb.Session }) => Promise<LanceDb.Connection>;

/**
 * LanceDB caches of a store opened for reading (`openLanceRecordStore`), MiB. LanceDB's own
 * defaults are 6 GB (index) + 1 GB (metadata); they grow with every PMID looked up. Measured at
 * 24 M records (zstd store), 600 `getDocs` of 10 random PMIDs in one process: default caches
 * 0.61 GB RSS, p50 9.1 ms; index 16 + metadata 128 MiB 0.30 GB, 7.6 ms; 16 + 16 MiB 0.23 GB,
 * 23.6 ms (the metadata cache holds the data files' page tables: too small and every lookup
 * re-reads them); 64 + 64 MiB 0.34 GB, 13.7 ms.
 */
export const STORE_READ_CACHE_MIB = { index: 16, metadata: 128 } as const;

/** Table names (`rag`: the lean RAG corpus written by `corpus rag-export`, `rag-table.ts`). */
export const STORE_TABLES = { records: "records", manifest: "manifest", meta: "store_meta", rag: "rag" } as const;

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
  /**
   * The lean RAG table (`rag`), when `corpus rag-export` wrote one: the store fingerprint it was
   * written from (it is used only while that still is the store's fingerprint and the table holds
   * `docs` rows) and its row count; `unfinished` while `rag-export` writes it (an export killed
   * midway leaves it so: the table is then never used).
   */
  rag?: { fingerprint: string; docs: number; unfinished?: boolean } | null;
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
 * @param session - a LanceDB session bounding its index and metadata caches (default: LanceDB's own,
 *   6 GB + 1 GB); handed over in the options, where LanceDB reads it.
 */
export async function connectStore(loc: StoreLocation, connect?: ConnectFn, session?: LanceDb.Session): Promise<LanceDb.Connection> {
  const fn = connect ?? (await loadLancedb()).connect;
  // The session goes in the options: LanceDB 0.31's `connect(uri, options, session)` drops a third argument.
  return fn(loc.uri, { ...(loc.storageOptions ? { storageOptions: { ...loc.storageOptions } } : {}), ...(session ? { session } : {}) });
}

/**
 * A LanceDB session whose caches are bounded for reading a store ({@link STORE_READ_CACHE_MIB}
 * unless `loc.readCacheMiB` says otherwise).
 * @throws Error naming the store and the field when a cache size is missing, not a finite
 *   number, or under one byte.
 */
export async function storeReadSession(loc: StoreLocation): Promise<LanceDb.Session> {
  const mib = loc.readCacheMiB ?? STORE_READ_CACHE_MIB;
  const bytes = (["index", "metadata"] as const).map((k) => {
    const v: unknown = (mib as Record<string, unknown>)[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v * 2 ** 20 < 1)
      throw new Error(`corpus store ${loc.uri}: readCacheMiB.${k} must be a finite positive number of MiB (at least 1 byte), got ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
    return BigInt(Math.round(v * 2 ** 20));
  });
  const { Session } = await loadLancedb();
  return new Session(bytes[0], bytes[1]);
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
    f("rowKey", new Float64()),
    f("fileIndex", new Int32()),
    f("pmid", new Utf8()),
    f("version", new Float64()),
    f("kind", new Utf8()),
    f("dropReason", new Utf8(), true),
    f("doiKey", new Utf8(), true),
    f("titleKey", new Utf8(), true),
    f("kwEmpty", new Int32()),
    f("kwOverlong", new Int32()),
    f("kwNonAscii", new Int32()),
    f("kwDuplicate", new Int32()),
    f("sourceFile", new Utf8()),
    f("title", new Utf8()),
    f("year", new Int32(), true),
    f("record", new Utf8()),
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
 * Parse a version-retention window: seconds as a number, or a number with a unit `s`, `m`, `h`,
 * `d` (`"0"`, `"90s"`, `"30m"`, `"2h"`, `"7d"`).
 * @returns seconds (≥ 0).
 * @throws Error naming `label` on anything else.
 */
export function parseRetention(s: string, label = "--version-retention"): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(s);
  if (!m) throw new Error(`${label}: expected seconds or a duration such as 0, 90s, 30m, 2h, 7d (got "${s}")`);
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as "" | "s" | "m" | "h" | "d"];
  return Number(m[1]) * unit;
}

/**
 * Remove the superseded versions of every table of a store's database (LanceDB `optimize` with
 * `cleanupOlderThan` = now − `retentionSeconds`): every append, delete, merge and overwrite
 * leaves a version whose data files stay on disk until cleaned (issue 26 measured 8.7 GB on disk
 * for 4.5 GB of data after an ingest). The current version of each table is always kept; with
 * `retentionSeconds` 0 it is the only one left, so disk ≈ data. Files of unfinished transactions
 * younger than 7 days are left (LanceDB's `deleteUnverified: false`), so a concurrent writer is
 * never broken.
 * @param db - the store's connection.
 * @param retentionSeconds - versions younger than this are kept (default 0).
 * @param tables - tables to clean (default: all of the database).
 * @returns versions removed, per table.
 */
export async function cleanupOldVersions(db: LanceDb.Connection, retentionSeconds = 0, tables?: readonly string[]): Promise<Record<string, number>> {
  if (!(retentionSeconds >= 0)) throw new Error(`version retention must be ≥ 0 seconds, got ${retentionSeconds}`);
  const names = tables ?? (await db.tableNames());
  const out: Record<string, number> = {};
  const olderThan = new Date(Date.now() - retentionSeconds * 1000);
  for (const name of names) {
    const table = await db.openTable(name);
    const stats = await table.optimize({ cleanupOlderThan: olderThan });
    out[name] = Number(stats.prune?.oldVersionsRemoved ?? 0);
  }
  return out;
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
  /** The store's fingerprint ({@link storeFingerprint}: manifest, counts, table version; no document is read). */
  fingerprint(): Promise<string>;
  /** True when documents are read from the lean `rag` table (current for this store) rather than parsed from the records. */
  readonly docsFromRagTable: boolean;
  /** Bytes held now by the LanceDB caches of this store's connection (bounded by {@link STORE_READ_CACHE_MIB}). */
  cacheBytes(): number;
}

/**
 * Fingerprint of a finalised store from what it records about itself, without reading a
 * document: SHA-256 (hex) over the format, the cleaning options, the finalisation counts, every
 * manifest entry (file, SHA-256 and size of the input, status, entries, records, deletions, in
 * input order) and the version of the `records` table. Equal stores built from the same input
 * files agree; any ingest that changes the records commits a new table version and so changes it.
 * Cost: one read of the manifest table (one row per input file) — the same at 10 k or 38 M
 * records, where hashing every document's text (`fingerprintSource`) grows with the corpus
 * (issue 26: 46 s at 990 k docs).
 * @param db - the store's connection.
 * @param meta - its metadata.
 */
export async function storeFingerprint(db: LanceDb.Connection, meta: StoreMeta): Promise<string> {
  const names = await tableNames(db);
  const manifest = names.has(STORE_TABLES.manifest) ? ((await (await db.openTable(STORE_TABLES.manifest)).query().select(["json"]).toArray()) as { json: string }[]) : [];
  const entries = manifest
    .map((r) => JSON.parse(r.json) as { file: string; fileIndex: number; sha256: string; bytes: number; status: string; entries: number; records: number; deletes: number })
    .sort((a, b) => a.fileIndex - b.fileIndex)
    .map((e) => [e.file, e.fileIndex, e.sha256, e.bytes, e.status, e.entries, e.records, e.deletes]);
  const version = names.has(STORE_TABLES.records) ? await (await db.openTable(STORE_TABLES.records)).version() : null;
  const { createHash } = await import("node:crypto");
  return createHash("sha256")
    .update(JSON.stringify({ kind: "medsynth-store-fingerprint-v1", format: meta.format, clean: meta.clean, counts: meta.counts, entries, version }))
    .digest("hex");
}

type Row = { pmid: string; sourceFile: string; record: string };

/** Columns of the lean `rag` table read back as documents. */
export const RAG_DOC_COLUMNS = ["id", "title", "content", "year", "retraction"] as const;

/** A row of the lean `rag` table as read (see `rag-table.ts`). */
export interface RagRow {
  id: string;
  title: string;
  content: string;
  year: number | null;
  retraction: string | null;
}

/** The {@link CorpusDoc} of a `rag` row: equal to `recordToCorpusDoc` of the record it was written from. */
export function ragRowToDoc(r: RagRow): CorpusDoc {
  const doc: CorpusDoc = { id: String(r.id), title: r.title, text: r.content, year: r.year ?? null, source: "pubmed" };
  if (r.retraction === "retracted" || r.retraction === "notice") doc.retraction = r.retraction;
  return doc;
}

function rowToStored(r: Row): StoredRecord {
  return { record: JSON.parse(r.record) as PubmedRecord, sourceFile: r.sourceFile };
}

/**
 * The store's lean RAG table when it is current: written to the end (not `unfinished`), from this
 * very store state (fingerprint), and holding the rows it was written with; otherwise null (the
 * full records serve the documents).
 */
async function currentRagTable(db: LanceDb.Connection, meta: StoreMeta, fingerprint: () => Promise<string>): Promise<LanceDb.Table | null> {
  const r = meta.rag;
  if (!r || r.unfinished || !(await tableNames(db)).has(STORE_TABLES.rag) || r.fingerprint !== (await fingerprint())) return null;
  const table = await db.openTable(STORE_TABLES.rag);
  return (await table.countRows()) === r.docs ? table : null;
}

/**
 * Connect to a store and read its meta row. A store on object storage that cannot be reached
 * (no such bucket, no credentials) fails inside LanceDB with a multi-line error quoting Rust
 * sources; it is turned into one line naming the URI and what LanceDB said first.
 */
async function connectForRead(loc: StoreLocation, connect: ConnectFn | undefined, session: LanceDb.Session): Promise<{ db: LanceDb.Connection; meta: StoreMeta | null }> {
  try {
    const db = await connectStore(loc, connect, session);
    return { db, meta: await readStoreMeta(db) };
  } catch (e) {
    if (localStorePath(loc.uri) !== null) throw e;
    const first = ((e as Error).message.split("\n")[0] ?? "").replace(/,\s*\/\S+\.rs:\d+:\d+.*$/, "").trim();
    throw new Error(`corpus store ${loc.uri}: cannot be read (${first}); check the URI and its storage options or credentials (docs/pubmed-store.md)`);
  }
}

/**
 * Open a finalised store for reading (documents by id, batched scans, count).
 * @param loc - URI and storage options.
 * @param connect - injected connect function (tests).
 * @throws Error naming the URI when there is no store there or its ingest is not finalised.
 */
export async function openLanceRecordStore(loc: StoreLocation, connect?: ConnectFn): Promise<LanceRecordStore> {
  // Reading never creates anything: LanceDB's connect writes a `__manifest` folder wherever it is
  // pointed, so a mistyped local path is refused before connecting.
  const problem = localStoreProblem(loc.uri);
  if (problem) throw new Error(problem);
  const session = await storeReadSession(loc);
  const { db, meta } = await connectForRead(loc, connect, session);
  if (!meta) throw new Error(noStoreMessage(loc.uri));
  if (!meta.finalized)
    throw new Error(`${loc.uri}: the corpus store's ingest is unfinished (files failed or an ingest was interrupted); re-run \`${medsynthCommand()} corpus ingest … --store ${loc.uri}\` to finish it`);
  const table = await db.openTable(STORE_TABLES.records);
  const counters = { fetched: 0 };
  let fingerprint: string | null = null;
  const fingerprintOnce = async () => (fingerprint ??= await storeFingerprint(db, meta));
  // The lean RAG table serves documents when it was written from this very store state.
  const rag = await currentRagTable(db, meta, fingerprintOnce);
  const getRows = async (ids: readonly string[]): Promise<Map<string, StoredRecord>> => {
    const unique = [...new Set(ids)];
    const out = new Map<string, StoredRecord>();
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = (await table
        .query()
        .where(`kind = 'record' AND pmid IN (${chunk.map(sqlString).join(", ")})`)
        .select(["pmid", "sourceFile", "record"])
        .toArray()) as Row[];
      for (const r of rows) out.set(r.pmid, rowToStored(r));
    }
    counters.fetched += out.size;
    return out;
  };
  async function* scanColumns(cols: string[], batchSize: number): AsyncGenerator<Record<string, unknown>[]> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
    let pending: Record<string, unknown>[] = [];
    let chars = 0;
    for await (const batch of table.query().where("kind = 'record'").select(cols)) {
      for (const r of batch.toArray() as Record<string, unknown>[]) {
        pending.push(r);
        if (typeof r.record === "string") chars += r.record.length;
        if (pending.length >= batchSize || chars >= SCAN_BATCH_CHARS) {
          yield pending;
          pending = [];
          chars = 0;
        }
      }
    }
    if (pending.length) yield pending;
  }
  async function* scanRag(batchSize: number): AsyncGenerator<CorpusDoc[]> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
    let pending: CorpusDoc[] = [];
    let chars = 0;
    for await (const batch of rag!.query().select([...RAG_DOC_COLUMNS])) {
      for (const r of batch.toArray() as unknown as RagRow[]) {
        const d = ragRowToDoc(r);
        pending.push(d);
        chars += d.text.length + d.title.length;
        if (pending.length >= batchSize || chars >= SCAN_BATCH_CHARS) {
          yield pending;
          pending = [];
          chars = 0;
        }
      }
    }
    if (pending.length) yield pending;
  }
  return {
    meta,
    counters,
    fingerprint: fingerprintOnce,
    docsFromRagTable: rag !== null,
    cacheBytes: () => Number(session.sizeBytes()),
    async count() {
      // A finalised store holds records only (finalisation deleted every delete marker, dropped
      // entry and superseded version), so the unfiltered count — read from the fragments' metadata —
      // is the number of records. Filtering on `kind` scanned the column: 0.8 s of CPU at 24 M
      // rows, on every reopen.
      return table.countRows();
    },
    getRecords: getRows,
    async getDocs(ids) {
      if (rag) {
        const unique = [...new Set(ids)];
        const out = new Map<string, CorpusDoc>();
        for (let i = 0; i < unique.length; i += 500) {
          const rows = (await rag
            .query()
            .where(
              `id IN (${unique
                .slice(i, i + 500)
                .map(sqlString)
                .join(", ")})`,
            )
            .select([...RAG_DOC_COLUMNS])
            .toArray()) as RagRow[];
          for (const r of rows) out.set(r.id, ragRowToDoc(r));
        }
        counters.fetched += out.size;
        return out;
      }
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
      if (rag) {
        for await (const docs of scanRag(batchSize)) {
          counters.fetched += docs.length;
          yield docs;
        }
        return;
      }
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

function noStoreMessage(uri: string): string {
  return `${uri}: no medsynth corpus store here (build one with \`${medsynthCommand()} corpus ingest <files> --store ${uri}\`)`;
}

/**
 * The local folder a store URI names: a plain path, or a `file://` URL as a path; null for an
 * object-storage URI (`s3://…`, `gs://…`, `az://…`: checked by LanceDB itself).
 */
export function localStorePath(uri: string): string | null {
  if (/^file:\/\//i.test(uri)) return fileURLToPath(uri);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? null : uri;
}

/**
 * What is wrong with a store URI before anything connects to it (reads must never create a
 * database): an empty URI, or a local folder that does not exist or holds no store (no
 * `store_meta` table, {@link STORE_TABLES}). Only the file system is looked at; object-storage
 * URIs pass (their store is checked after connecting).
 * @returns one line naming the URI, or null when the URI may hold a store.
 */
export function localStoreProblem(uri: string): string | null {
  if (uri.trim() === "") return "the corpus store location is empty; expected a store folder or URI (lance:<store folder>, s3://…, gs://…, az://…)";
  const path = localStorePath(uri);
  if (path === null) return null;
  if (existsSync(path) && !statSync(path).isDirectory())
    return `${uri} is a file, not a corpus store (a store is a folder made by \`${medsynthCommand()} corpus ingest <files> --store <folder>\`); a JSONL corpus file is given without \`lance:\``;
  return existsSync(join(path, `${STORE_TABLES.meta}.lance`)) ? null : noStoreMessage(uri);
}
