/**
 * The per-file manifest of an ingest, kept in the store's `manifest` table (one row per input
 * file, keyed by its base name): whether the file is done or failed, its SHA-256 and size, and its
 * counts (entries, records, DeleteCitation PMIDs, per-record drop reasons, warnings). An ingest
 * skips files marked done and retries the others, so a killed or failed ingest resumes at the first
 * unfinished file.
 */
import type * as LanceDb from "@lancedb/lancedb";
import type { DropReason } from "../clean.ts";
import { STORE_TABLES } from "../store/lance-store.ts";

/** What one input file gave (or why it failed). */
export interface ManifestEntry {
  /** Base name of the file (its identity in the store). */
  file: string;
  /** Path as given in the run that processed it. */
  path: string;
  /** Position of the file in the store's input order (its rows' `rowKey` prefix). */
  fileIndex: number;
  status: "done" | "failed";
  /** SHA-256 (hex) of the file's bytes as read. */
  sha256: string;
  /** File size in bytes. */
  bytes: number;
  /** Entries read: records plus DeleteCitation PMIDs. */
  entries: number;
  /** Records read (not counting deletions). */
  records: number;
  /** PMIDs listed in DeleteCitation elements. */
  deletes: number;
  /** Records that failed a per-record cleaning rule, per reason (before version resolution). */
  dropped: Partial<Record<DropReason, number>>;
  /** Entries skipped with a parser warning (malformed records; books are counted apart). */
  warnings: number;
  /** `PubmedBookArticle` records skipped (absent in manifests written before it was counted). */
  books?: number;
  /** PMIDs of the skipped book records. */
  bookPmids?: string[];
  /** Why the file failed (names the file and the byte offset), null when done. */
  error: string | null;
  /** Byte offset of the failure in the decompressed XML (or bytes read from disk when unknown), null when done. */
  byteOffset: number | null;
}

/**
 * Read every manifest entry of a store.
 * @returns entries sorted by `fileIndex` (empty when the table does not exist yet).
 */
export async function readManifest(db: LanceDb.Connection): Promise<ManifestEntry[]> {
  if (!(await db.tableNames()).includes(STORE_TABLES.manifest)) return [];
  const rows = (await (await db.openTable(STORE_TABLES.manifest)).query().toArray()) as { file: string; json: string }[];
  return rows.map((r) => JSON.parse(r.json) as ManifestEntry).sort((a, b) => a.fileIndex - b.fileIndex);
}

/**
 * Insert or replace manifest entries (one commit).
 * @param db - the store's connection.
 * @param entries - entries to upsert, keyed by `file`.
 */
export async function writeManifestEntries(db: LanceDb.Connection, entries: readonly ManifestEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e) => ({ file: e.file, json: JSON.stringify(e) }));
  if (!(await db.tableNames()).includes(STORE_TABLES.manifest)) {
    await db.createTable(STORE_TABLES.manifest, rows);
    return;
  }
  await (await db.openTable(STORE_TABLES.manifest)).mergeInsert("file").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
}

/**
 * Remove manifest entries by file name (one commit).
 * @param files - base names.
 */
export async function deleteManifestEntries(db: LanceDb.Connection, files: readonly string[]): Promise<void> {
  if (files.length === 0 || !(await db.tableNames()).includes(STORE_TABLES.manifest)) return;
  await (await db.openTable(STORE_TABLES.manifest)).delete(`file IN (${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(", ")})`);
}
