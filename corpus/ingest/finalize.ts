/**
 * Finalise a store after its files are ingested: read the small key columns of every row (in
 * batches, straight from the Arrow buffers into fixed-size typed arrays, `dedup.ts`), apply
 * PubMed's update semantics and the kept-set cleaning rules ({@link resolveKeyColumns}, same
 * result as `resolveRows`), delete every row that is not part of the final corpus, compact the
 * table (`optimize`), index `pmid` (B-tree), record the counts in the store's metadata and remove
 * the superseded versions of every table (all but the last, or those inside a retention window).
 *
 * Memory: ~47 B per row plus ≤ 36 B per de-duplicated record, held in the main thread during
 * finalisation (~80 MB at 1 M rows, ~2 GB at the 38 M-entry baseline; see `dedup.ts`) — never the
 * records or their key strings.
 * Counts cover the rows present: after an earlier finalisation that is the kept corpus plus the
 * new files' rows (drops counted then are not counted again); a DOI/title duplicate deleted then
 * does not come back if the record that held the DOI/title is later replaced.
 * Deletions are one commit when the losers are few, else chunks that delete superseded records
 * before the delete markers, so a finalisation killed half-way gives the same result when re-run.
 * LanceDB copies a delete's filter into the scan of every fragment, so an `IN (…)` list costs
 * memory ∝ its length × the table's fragments (measured here: 5,700 row keys × 1,500 fragments
 * → +1.9 GB; an ingest appends one fragment per batch, ~2,800 at 5.7 M records); {@link deletePlan}
 * keeps that product under {@link DELETE_FILTER_BUDGET} by compacting the table first (a few
 * fragments of ~1 M rows) when the losers are many, and by shorter lists.
 */
import type * as LanceDb from "@lancedb/lancedb";
import { cleanupOldVersions, loadLancedb, STORE_TABLES, writeStoreMeta, type StoreMeta } from "../store/lance-store.ts";
import type { RowKeys, RowKind } from "./rows.ts";
import type { DropReason, UpdateReport } from "../clean.ts";
import { dropReasonIndex, hashUtf8, pmidNumber, resolveKeyColumns, RowKeyColumns } from "./dedup.ts";

const KEY_COLUMNS = ["rowKey", "pmid", "version", "kind", "dropReason", "doiKey", "titleKey", "kwEmpty", "kwOverlong", "kwNonAscii", "kwDuplicate"];
/** Row keys per `IN (…)` delete predicate (at most). */
const DELETE_CHUNK = 20_000;
/**
 * Row keys × fragments one delete filter may reach: LanceDB copies the filter per fragment,
 * ≈ 330–450 B per listed key per fragment measured here, so this bounds a delete's extra memory to
 * ≈ 200–270 MB.
 */
export const DELETE_FILTER_BUDGET = 600_000;
/** Delete calls {@link deletePlan} accepts before it compacts the table first. */
export const DELETE_CALLS_BEFORE_COMPACTION = 8;

/**
 * How to delete `losers` row keys from a table of `fragments` fragments within
 * {@link DELETE_FILTER_BUDGET}: lists of ≤ budget / fragments keys (≥ 1, ≤ {@link DELETE_CHUNK}),
 * and compaction first when that would take more than {@link DELETE_CALLS_BEFORE_COMPACTION}
 * delete calls (each scans the table's key columns; compaction leaves ~1 fragment per million
 * rows, and finalisation compacts anyway). The caller re-plans with the fragments left.
 * @returns `compactFirst` and the list length for a table of `fragments` fragments.
 */
export function deletePlan(losers: number, fragments: number, budget: number = DELETE_FILTER_BUDGET): { compactFirst: boolean; chunk: number } {
  const f = Math.max(1, fragments);
  const chunk = Math.max(1, Math.min(DELETE_CHUNK, Math.floor(budget / f)));
  return { compactFirst: losers > DELETE_CALLS_BEFORE_COMPACTION * chunk, chunk };
}

/** Read the key columns of every row of the records table as row objects (small stores, tests). */
export async function readRowKeys(table: LanceDb.Table): Promise<RowKeys[]> {
  const out: RowKeys[] = [];
  for await (const batch of table.query().select(KEY_COLUMNS)) {
    for (const r of batch.toArray() as Record<string, unknown>[]) {
      out.push({
        rowKey: Number(r.rowKey),
        pmid: String(r.pmid),
        version: Number(r.version),
        kind: r.kind as RowKind,
        dropReason: (r.dropReason as DropReason | null) ?? null,
        doiKey: (r.doiKey as string | null) ?? null,
        titleKey: (r.titleKey as string | null) ?? null,
        kwEmpty: Number(r.kwEmpty),
        kwOverlong: Number(r.kwOverlong),
        kwNonAscii: Number(r.kwNonAscii),
        kwDuplicate: Number(r.kwDuplicate),
      });
    }
  }
  return out;
}

type ArrowData = { length: number; nullCount: number; values: Uint8Array; valueOffsets: Int32Array | BigInt64Array; getValid(i: number): boolean };
type ArrowVector = { data: ArrowData[]; toArray(): ArrayLike<number> };
type ArrowBatch = { numRows: number; getChild(name: string): ArrowVector | null };

function child(batch: ArrowBatch, name: string): ArrowVector {
  const v = batch.getChild(name);
  if (!v) throw new Error(`records table has no ${name} column`);
  return v;
}

/** Call `f(rowInBatch, bytes, start, end)` for each non-null value of a UTF-8 column (no string decoding). */
function eachUtf8(v: ArrowVector, f: (j: number, bytes: Uint8Array, start: number, end: number) => void): void {
  let base = 0;
  for (const d of v.data) {
    const off = d.valueOffsets;
    for (let j = 0; j < d.length; j++) {
      if (d.nullCount > 0 && !d.getValid(j)) continue;
      f(base + j, d.values, Number(off[j]), Number(off[j + 1]));
    }
    base += d.length;
  }
}

const decoder = new TextDecoder();

/**
 * Read the key columns of every row into {@link RowKeyColumns} (one scan, Arrow buffers read
 * directly; see the module comment for the memory).
 */
export async function readKeyColumns(table: LanceDb.Table): Promise<RowKeyColumns> {
  const n = await table.countRows();
  const c = new RowKeyColumns(n);
  for await (const raw of table.query().select(["rowKey", "pmid", "version", "kind", "dropReason", "doiKey", "titleKey"])) {
    const batch = raw as unknown as ArrowBatch;
    const at = c.length;
    const m = batch.numRows;
    if (at + m > n) throw new Error(`records table grew while being finalised (${n} rows counted)`);
    c.rowKey.set(child(batch, "rowKey").toArray(), at);
    c.version.set(child(batch, "version").toArray(), at);
    eachUtf8(child(batch, "pmid"), (j, b, s, e) => {
      c.pmid[at + j] = pmidNumber(decoder.decode(b.subarray(s, e)));
    });
    eachUtf8(child(batch, "kind"), (j, b, s) => {
      // "record" | "dropped" | "delete"
      c.kind[at + j] = b[s] === 0x72 ? 0 : b[s + 1] === 0x72 ? 1 : 2;
    });
    eachUtf8(child(batch, "dropReason"), (j, b, s, e) => {
      c.reason[at + j] = dropReasonIndex(decoder.decode(b.subarray(s, e)));
    });
    eachUtf8(child(batch, "doiKey"), (j, b, s, e) => {
      if (e === s) return;
      c.flags[at + j] |= 1;
      hashUtf8(b, s, e, c.doi, 2 * (at + j));
    });
    eachUtf8(child(batch, "titleKey"), (j, b, s, e) => {
      if (e - s !== 16) throw new Error(`title key is not 16 hex digits: ${JSON.stringify(decoder.decode(b.subarray(s, e)))}`);
      c.flags[at + j] |= 2;
      c.title[2 * (at + j)] = parseInt(decoder.decode(b.subarray(s, s + 8)), 16);
      c.title[2 * (at + j) + 1] = parseInt(decoder.decode(b.subarray(s + 8, e)), 16);
    });
    c.length = at + m;
  }
  if (c.length !== n) throw new Error(`records table changed while being finalised (${n} rows counted, ${c.length} read)`);
  return c;
}

/** Sum the keyword-drop counts of the kept rows (a second scan, in the same order as {@link readKeyColumns}). */
async function keptKeywordDrops(table: LanceDb.Table, c: RowKeyColumns, keep: Uint8Array): Promise<StoreMeta["counts"] extends infer T ? (T extends { keywordsDropped: infer K } ? K : never) : never> {
  const out = { empty: 0, overlong: 0, nonAscii: 0, duplicate: 0 };
  let at = 0;
  for await (const raw of table.query().select(["rowKey", "kwEmpty", "kwOverlong", "kwNonAscii", "kwDuplicate"])) {
    const batch = raw as unknown as ArrowBatch;
    const keys = child(batch, "rowKey").toArray();
    const e = child(batch, "kwEmpty").toArray();
    const o = child(batch, "kwOverlong").toArray();
    const a = child(batch, "kwNonAscii").toArray();
    const d = child(batch, "kwDuplicate").toArray();
    for (let j = 0; j < batch.numRows; j++, at++) {
      if (c.rowKey[at] !== keys[j]) throw new Error("records table scan order changed during finalisation");
      if (!keep[at]) continue;
      out.empty += e[j];
      out.overlong += o[j];
      out.nonAscii += a[j];
      out.duplicate += d[j];
    }
  }
  return out;
}

/**
 * Deletes the rows whose keys are `recordLosers` and, when `markers`, every non-record row (delete
 * markers), within {@link DELETE_FILTER_BUDGET} ({@link deletePlan}): one commit when one list
 * holds them all, else superseded records first, then the markers (a re-run after a kill gives the
 * same result).
 */
async function deleteLosers(table: LanceDb.Table, recordLosers: number[], markers: boolean, phase: (name: string) => void, budget: number): Promise<void> {
  let plan = deletePlan(recordLosers.length, (await table.stats()).fragmentStats.numFragments, budget);
  if (plan.compactFirst) {
    await table.optimize();
    phase("finalize: compact before delete");
    plan = deletePlan(recordLosers.length, (await table.stats()).fragmentStats.numFragments, budget);
  }
  if (recordLosers.length <= plan.chunk) {
    const inList = recordLosers.length ? ` OR rowKey IN (${recordLosers.join(", ")})` : "";
    await table.delete(`kind <> 'record'${inList}`);
    return;
  }
  for (let i = 0; i < recordLosers.length; i += plan.chunk) await table.delete(`rowKey IN (${recordLosers.slice(i, i + plan.chunk).join(", ")})`);
  if (markers) await table.delete("kind <> 'record'");
}

/**
 * Finalise the store (see the module comment).
 * @param db - the store's connection.
 * @param meta - its current metadata (`clean` decides whether DOI/title de-duplication applies).
 * @param onMemory - receives the bytes of the typed arrays the resolution used (benches).
 * @param onPhase - receives each phase's wall seconds.
 * @param onUpdates - receives what the update semantics did over the rows present, PMIDs named
 *   (deleted records, deletes of unknown PMIDs, superseded entries).
 * @param retentionSeconds - superseded versions of the store's tables younger than this are kept
 *   (default 0: only the final version is left, so the store's disk ≈ its data;
 *   {@link cleanupOldVersions}).
 * @param deleteFilterBudget - row keys × fragments one delete may reach ({@link deletePlan}).
 * @returns the new metadata (finalised, with counts).
 */
export async function finalizeStore(
  db: LanceDb.Connection,
  meta: StoreMeta,
  onMemory?: (bytes: number) => void,
  onPhase?: (phase: string, seconds: number) => void,
  onUpdates?: (updates: UpdateReport) => void,
  retentionSeconds = 0,
  deleteFilterBudget: number = DELETE_FILTER_BUDGET,
): Promise<StoreMeta> {
  let t = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    onPhase?.(name, (now - t) / 1000);
    t = now;
  };
  const table = await db.openTable(STORE_TABLES.records);
  const cols = await readKeyColumns(table);
  phase("finalize: read keys");
  const res = resolveKeyColumns(cols, meta.clean !== null);
  phase("finalize: resolve");
  onMemory?.(res.bytes);
  onUpdates?.(res.updates);
  const keep = res.keep;
  const keywordsDropped = meta.clean !== null ? await keptKeywordDrops(table, cols, keep) : { empty: 0, overlong: 0, nonAscii: 0, duplicate: 0 };
  phase("finalize: keyword counts");
  const recordLosers: number[] = [];
  let markers = 0;
  for (let i = 0; i < cols.length; i++) {
    if (keep[i]) continue;
    if (cols.kind[i] === 0) recordLosers.push(cols.rowKey[i]);
    else markers++;
  }
  if (recordLosers.length + markers > 0) await deleteLosers(table, recordLosers, markers > 0, phase, deleteFilterBudget);
  phase("finalize: delete");
  await table.optimize();
  phase("finalize: optimize");
  if (res.kept > 0) {
    const { Index } = await loadLancedb();
    await table.createIndex("pmid", { config: Index.btree(), replace: true });
  }
  phase("finalize: pmid index");
  const next: StoreMeta = {
    ...meta,
    finalized: true,
    counts: { kept: res.kept, dropped: res.dropped, keywordsDropped, seen: res.seen, deleteEntries: res.updates.deleteEntries, deleteOfUnknown: res.updates.deleteOfUnknown.length },
  };
  await writeStoreMeta(db, next);
  phase("finalize: meta");
  await cleanupOldVersions(db, retentionSeconds);
  phase("finalize: cleanup versions");
  return next;
}
