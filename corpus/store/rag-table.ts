/**
 * The lean RAG corpus of a store (`medsynth corpus rag-export`): one snippet per PMID — title +
 * abstract — in MedRAG's PubMed corpus fields (Xiong et al. 2024, MedRAG / MIRAGE; the dataset
 * card of `MedRAG/pubmed`): `id`, `title`, `content` (the abstract) and `contents` (title and
 * content joined, what MedRAG's BM25 indexes).
 *
 * Written as a Lance table `rag` inside the store (`id`, `title`, `content`, plus `year` and
 * `retraction` so documents read back from it equal those parsed from the full records; `contents`
 * is derived, not stored — {@link ragSchema}), and/or as JSONL with exactly MedRAG's four fields. While the table is current (written from the store's present fingerprint, see
 * `storeFingerprint`), the store reads documents from it — `scanDocs` for index builds and
 * `getDocs` for hits — instead of parsing each record's JSON; the full records stay in `records`.
 */
import type * as LanceDb from "@lancedb/lancedb";
import type { CorpusDoc } from "../types.ts";
import { recordToCorpusDoc } from "../conclusion-task.ts";
import { createJsonlWriter, type JsonlWriter } from "../jsonl.ts";
import { cleanupOldVersions, connectStore, loadArrow, loadLancedb, openLanceRecordStore, readStoreMeta, STORE_TABLES, writeStoreMeta, type StoreLocation } from "./lance-store.ts";
import { withStoreWriterLock } from "./writer-lock.ts";

/** A line of MedRAG's corpus format. */
export interface MedragLine {
  id: string;
  title: string;
  content: string;
  contents: string;
}

/**
 * MedRAG's `contents`: the title and the content joined as MedRAG's corpus scripts do — a space
 * after a title that ends in `.`, `?` or `!`, else ". " — or the content alone when the title is
 * empty (and the title alone when the content is).
 */
export function medragContents(title: string, content: string): string {
  const t = title.trim();
  if (t === "") return content;
  if (content === "") return t;
  return /[.?!]$/.test(t) ? `${t} ${content}` : `${t}. ${content}`;
}

/** The MedRAG line of a document: `id` = PMID, `content` = its abstract text. */
export function medragLineOf(doc: Pick<CorpusDoc, "id" | "title" | "text">): MedragLine {
  return { id: doc.id, title: doc.title, content: doc.text, contents: medragContents(doc.title, doc.text) };
}

/** Options of {@link ragExport}. */
export interface RagExportOptions {
  /** Write the lean `rag` table into the store (default true). */
  table?: boolean;
  /** Also write MedRAG JSONL here (`.jsonl` or `.jsonl.gz`). */
  jsonl?: string;
  /** Superseded versions of the `rag` and `store_meta` tables kept this long, seconds (default 0). */
  retentionSeconds?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What {@link ragExport} wrote. */
export interface RagExportReport {
  docs: number;
  /** True when the `rag` table was written. */
  table: boolean;
  jsonl: string | null;
  /** Store fingerprint the table was written from. */
  fingerprint: string;
  seconds: number;
}

/** Pending rows of the `rag` table, by column. */
interface RagColumns {
  id: string[];
  title: string[];
  content: string[];
  year: (number | null)[];
  retraction: (string | null)[];
}

function emptyColumns(): RagColumns {
  return { id: [], title: [], content: [], year: [], retraction: [] };
}

/**
 * Arrow schema of the `rag` table (LanceDB's own apache-arrow instance): `id`, `title`, `content`,
 * `year`, `retraction`, zstd page compression on the text. MedRAG's `contents` is not stored —
 * it is `medragContents(title, content)`, derived when a JSONL is written — so the lean table
 * holds each abstract once.
 */
export function ragSchema() {
  const { Field, Int32, Schema, Utf8 } = loadArrow();
  const zstd = new Map([["lance-encoding:compression", "zstd"]]);
  return new Schema([
    new Field("id", new Utf8(), false, zstd),
    new Field("title", new Utf8(), false, zstd),
    new Field("content", new Utf8(), false, zstd),
    new Field("year", new Int32(), true),
    new Field("retraction", new Utf8(), true),
  ]);
}

/** An Arrow table of pending columns (appended as is: no per-row conversion by LanceDB). */
function columnsToArrow(c: RagColumns) {
  const { Int32, makeData, RecordBatch, Struct, Table, Utf8, vectorFromArray } = loadArrow();
  const schema = ragSchema();
  const children = [
    vectorFromArray(c.id, new Utf8()),
    vectorFromArray(c.title, new Utf8()),
    vectorFromArray(c.content, new Utf8()),
    vectorFromArray(c.year, new Int32()),
    vectorFromArray(c.retraction, new Utf8()),
  ].map((v) => v.data[0]);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: c.id.length, nullCount: 0, children }));
  return new Table(schema, [batch]);
}

/** Characters of pending rows appended to the table at once. */
const APPEND_CHARS = 16 * 2 ** 20;

/**
 * Write the lean RAG corpus of a finalised store (see the module comment), streaming the records
 * in batches (memory: one batch plus the pending rows, ≤ ~16 M characters).
 * @throws Error naming the URI when no finalised store is there; Error when neither output is asked for.
 */
export async function ragExport(loc: StoreLocation, opts: RagExportOptions = {}): Promise<RagExportReport> {
  const wantTable = opts.table ?? true;
  if (!wantTable && !opts.jsonl) throw new Error("rag-export: nothing to write (give --out <file.jsonl> or keep the table)");
  const log = opts.log ?? (() => {});
  // Writing the table makes this process a writer of the store: one at a time (an ingest waits).
  return wantTable ? withStoreWriterLock(loc.uri, log, () => ragExportUnlocked(loc, opts, log)) : ragExportUnlocked(loc, opts, log);
}

/** {@link ragExport}'s work (under the store's writer lock when it writes the table). */
async function ragExportUnlocked(loc: StoreLocation, opts: RagExportOptions, log: (line: string) => void): Promise<RagExportReport> {
  const wantTable = opts.table ?? true;
  const t0 = performance.now();
  const store = await openLanceRecordStore(loc);
  const fingerprint = await store.fingerprint();
  const db = await connectStore(loc);
  const total = await store.count();
  let table: LanceDb.Table | null = null;
  if (wantTable) {
    // Marked unfinished before the table is replaced: an export killed midway leaves a table no
    // reader uses (it would otherwise pass for the complete one of an earlier export).
    await writeStoreMeta(db, { ...(await readStoreMeta(db))!, rag: { fingerprint, docs: 0, unfinished: true } });
    table = await db.createEmptyTable(STORE_TABLES.rag, ragSchema(), { mode: "overwrite" });
  }
  const writer: JsonlWriter | null = opts.jsonl ? createJsonlWriter(opts.jsonl) : null;
  let pending: RagColumns = emptyColumns();
  let chars = 0;
  let n = 0;
  const flush = async () => {
    if (table && pending.id.length) await table.add(columnsToArrow(pending));
    pending = emptyColumns();
    chars = 0;
  };
  // Read the full records (not a possibly stale rag table) and derive each document once.
  for await (const batch of store.scanRecords(4096)) {
    for (const r of batch) {
      const doc = recordToCorpusDoc(r.record);
      const line = medragLineOf(doc);
      if (writer) await writer.write(line);
      if (table) {
        pending.id.push(line.id);
        pending.title.push(line.title);
        pending.content.push(line.content);
        pending.year.push(doc.year ?? null);
        pending.retraction.push(doc.retraction ?? null);
        chars += line.title.length + line.content.length;
      }
    }
    n += batch.length;
    if (chars >= APPEND_CHARS) await flush();
    if (n % 100_000 < batch.length) log(`rag-export: ${n.toLocaleString("en-US")}/${total.toLocaleString("en-US")} docs`);
  }
  await flush();
  if (writer) await writer.close();
  if (table) {
    await table.optimize();
    const { Index } = await loadLancedb();
    if (n > 0) await table.createIndex("id", { config: Index.btree(), replace: true });
    const meta = await readStoreMeta(db);
    await writeStoreMeta(db, { ...meta!, rag: { fingerprint, docs: n } });
    await cleanupOldVersions(db, opts.retentionSeconds ?? 0, [STORE_TABLES.rag, STORE_TABLES.meta]);
  }
  return { docs: n, table: wantTable, jsonl: opts.jsonl ?? null, fingerprint, seconds: (performance.now() - t0) / 1000 };
}
