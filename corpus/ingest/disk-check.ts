/**
 * Free-disk check before finalisation compacts a local store's `records` table.
 *
 * An ingest appends one small fragment per batch (≈ 12,000 at 24 M entries); finalisation's
 * compaction (`table.optimize()`, corpus/ingest/finalize.ts) rewrites them into ~1 M-row fragments
 * and only then are the superseded files removed, so while it runs the table needs up to its own
 * size again on disk. Measured at 24 M synthetic entries (zstd pages): the file system's use rose
 * from 60.6 to 94.6 GB during finalisation, for a 34.8 GB store (docs/scale.md). A store whose disk
 * cannot hold that fails with ENOSPC deep inside LanceDB; this check says so beforehand, naming
 * the folder and both sizes. Object-storage URIs are not checked.
 */
import { readdirSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";

/** Room kept beyond the table's data bytes (manifests, indexes, the deletion files), bytes. */
export const COMPACTION_DISK_SLACK = 256 * 2 ** 20;

/** Bytes of the data files of a Lance table folder (`<table>.lance/data`); 0 when it has none. */
export function tableDataBytes(tableDir: string): number {
  const data = join(tableDir, "data");
  let entries: string[];
  try {
    entries = readdirSync(data);
  } catch {
    return 0;
  }
  let bytes = 0;
  for (const f of entries) bytes += statSync(join(data, f)).size;
  return bytes;
}

/**
 * The warning to print when `freeBytes` cannot hold a rewrite of `dataBytes` (plus
 * {@link COMPACTION_DISK_SLACK}), else null.
 * @param dataBytes - the records table's data files, bytes; @param freeBytes - free bytes on its file system;
 * @param folder - the store folder, named in the text.
 */
export function compactionDiskWarning(dataBytes: number, freeBytes: number, folder: string): string | null {
  if (freeBytes >= dataBytes + COMPACTION_DISK_SLACK) return null;
  const gb = (b: number) => `${(b / 1e9).toFixed(1)} GB`;
  return (
    `warning: finalising ${folder} compacts its records table, which writes up to ${gb(dataBytes)} more before the superseded files are removed, ` +
    `but only ${gb(freeBytes)} are free there. If it stops for lack of space, free some (the XML files already ingested are no longer read) ` +
    `and run the same command again: the ingested files are kept and only finalisation runs.`
  );
}

/**
 * {@link compactionDiskWarning} for a store folder (its `records.lance` table and file system);
 * null for object-storage URIs, a missing table or when statfs is unavailable.
 */
export function storeCompactionDiskWarning(storeUri: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(storeUri)) return null;
  const dataBytes = tableDataBytes(join(storeUri, "records.lance"));
  if (dataBytes === 0) return null;
  let free: number;
  try {
    const s = statfsSync(storeUri);
    free = s.bavail * s.bsize;
  } catch {
    return null;
  }
  return compactionDiskWarning(dataBytes, free, storeUri);
}
