/**
 * Finalise a store after its files are ingested: read the small key columns of every row (in
 * batches), apply PubMed's update semantics and the kept-set cleaning rules ({@link resolveRows}),
 * delete every row that is not part of the final corpus, compact the table (`optimize`), index
 * `pmid` (B-tree) and record the counts in the store's metadata.
 *
 * Memory: the keys of every row (PMID, version, position, DOI, 16-hex title hash; ~150 bytes a row)
 * are held in the main thread during finalisation — never the records themselves.
 * Counts cover the rows present: after an earlier finalisation that is the kept corpus plus the
 * new files' rows (drops counted then are not counted again); a DOI/title duplicate deleted then
 * does not come back if the record that held the DOI/title is later replaced.
 * Deletions are one commit when the losers are few, else chunks that delete superseded records
 * before the delete markers, so a finalisation killed half-way gives the same result when re-run.
 */
import type * as LanceDb from "@lancedb/lancedb";
import { loadLancedb, STORE_TABLES, writeStoreMeta, type StoreMeta } from "../store/lance-store.ts";
import { resolveRows, type RowKeys, type RowKind } from "./rows.ts";
import type { DropReason } from "../clean.ts";

const KEY_COLUMNS = ["rowKey", "pmid", "version", "kind", "dropReason", "doiKey", "titleKey", "kwEmpty", "kwOverlong", "kwNonAscii", "kwDuplicate"];
/** Row keys per `IN (…)` delete predicate. */
const DELETE_CHUNK = 20_000;

/** Read the key columns of every row of the records table. */
export async function readRowKeys(table: LanceDb.Table): Promise<RowKeys[]> {
  const out: RowKeys[] = [];
  for await (const batch of table.query().select(KEY_COLUMNS)) {
    for (const r of batch.toArray() as Record<string, unknown>[]) {
      out.push({
        rowKey: Number(r.rowKey), pmid: String(r.pmid), version: Number(r.version), kind: r.kind as RowKind,
        dropReason: (r.dropReason as DropReason | null) ?? null, doiKey: (r.doiKey as string | null) ?? null, titleKey: (r.titleKey as string | null) ?? null,
        kwEmpty: Number(r.kwEmpty), kwOverlong: Number(r.kwOverlong), kwNonAscii: Number(r.kwNonAscii), kwDuplicate: Number(r.kwDuplicate),
      });
    }
  }
  return out;
}

/**
 * Finalise the store (see the module comment).
 * @param db - the store's connection.
 * @param meta - its current metadata (`clean` decides whether DOI/title de-duplication applies).
 * @returns the new metadata (finalised, with counts).
 */
export async function finalizeStore(db: LanceDb.Connection, meta: StoreMeta): Promise<StoreMeta> {
  const table = await db.openTable(STORE_TABLES.records);
  const rows = await readRowKeys(table);
  const res = resolveRows(rows, meta.clean !== null);
  const keep = new Uint8Array(rows.length);
  for (const i of res.kept) keep[i] = 1;
  const recordLosers: number[] = [];
  let markers = 0;
  for (let i = 0; i < rows.length; i++) {
    if (keep[i]) continue;
    if (rows[i].kind === "record") recordLosers.push(rows[i].rowKey);
    else markers++;
  }
  if (recordLosers.length + markers > 0) {
    if (recordLosers.length <= DELETE_CHUNK) {
      const inList = recordLosers.length ? ` OR rowKey IN (${recordLosers.join(", ")})` : "";
      await table.delete(`kind <> 'record'${inList}`);
    } else {
      for (let i = 0; i < recordLosers.length; i += DELETE_CHUNK) await table.delete(`rowKey IN (${recordLosers.slice(i, i + DELETE_CHUNK).join(", ")})`);
      if (markers) await table.delete("kind <> 'record'");
    }
  }
  await table.optimize();
  if (res.kept.length > 0) {
    const { Index } = await loadLancedb();
    await table.createIndex("pmid", { config: Index.btree(), replace: true });
  }
  const next: StoreMeta = { ...meta, finalized: true, counts: { kept: res.kept.length, dropped: res.dropped, keywordsDropped: res.keywordsDropped, seen: res.seen } };
  await writeStoreMeta(db, next);
  return next;
}
