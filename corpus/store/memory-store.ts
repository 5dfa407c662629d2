/**
 * In-memory corpus stores: the same interface as the Lance store over arrays already in memory
 * (the bundled corpus, a JSONL corpus, test fixtures). Each store counts what it hands out
 * (`fetched`), so a test can assert that a consumer never materialised the whole corpus.
 */
import type { CorpusDoc, PubmedRecord } from "../types.ts";
import { recordToCorpusDoc } from "../conclusion-task.ts";
import { DEFAULT_SCAN_BATCH, type DocumentSource, type RecordStore, type StoredRecord } from "./types.ts";

/** Counters of what a memory store handed out. */
export interface FetchCounters {
  /** Documents or records returned by `getDocs`/`getRecords`/`scanDocs`/`scanRecords`. */
  fetched: number;
  /** Ids returned by `ids()`. */
  idsListed: number;
}

/** A memory store with its counters. */
export type CountingSource<S> = S & { readonly counters: FetchCounters };

function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  if (!Number.isInteger(size) || size < 1) throw new Error(`batchSize must be a positive integer, got ${size}`);
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * A document source over an array (first occurrence of a repeated id wins, later ones are ignored).
 * @param docs - the documents, in canonical order.
 * @returns the source, with `counters` of documents and ids handed out.
 */
export function createMemoryDocumentSource(docs: readonly CorpusDoc[]): CountingSource<DocumentSource> {
  const byId = new Map<string, CorpusDoc>();
  for (const d of docs) if (!byId.has(d.id)) byId.set(d.id, d);
  const ordered = [...byId.values()];
  const counters: FetchCounters = { fetched: 0, idsListed: 0 };
  return {
    counters,
    async count() {
      return ordered.length;
    },
    async getDocs(ids) {
      const out = new Map<string, CorpusDoc>();
      for (const id of ids) {
        const d = byId.get(id);
        if (d && !out.has(id)) out.set(id, d);
      }
      counters.fetched += out.size;
      return out;
    },
    async *scanDocs(batchSize = DEFAULT_SCAN_BATCH) {
      for (const b of batches(ordered, batchSize)) {
        counters.fetched += b.length;
        yield b;
      }
    },
    async *ids(batchSize = DEFAULT_SCAN_BATCH) {
      for (const b of batches(ordered, batchSize)) {
        counters.idsListed += b.length;
        yield b.map((d) => d.id);
      }
    },
  };
}

/**
 * A record store over an array of records (deleted-citation entries left out; a repeated PMID
 * keeps its last occurrence, in that occurrence's position — what an update would leave).
 * @param records - parsed records in canonical order; `sourceFile` defaults to "memory".
 */
export function createMemoryRecordStore(records: readonly (PubmedRecord | StoredRecord)[]): CountingSource<RecordStore> {
  const byPmid = new Map<string, StoredRecord>();
  for (const r of records) {
    const stored: StoredRecord = "record" in r ? r : { record: r, sourceFile: "memory" };
    if (stored.record.flags.deleted) continue;
    byPmid.delete(stored.record.pmid);
    byPmid.set(stored.record.pmid, stored);
  }
  const ordered = [...byPmid.values()];
  const counters: FetchCounters = { fetched: 0, idsListed: 0 };
  const pick = (pmids: readonly string[]) => {
    const out = new Map<string, StoredRecord>();
    for (const id of pmids) {
      const r = byPmid.get(id);
      if (r && !out.has(id)) out.set(id, r);
    }
    counters.fetched += out.size;
    return out;
  };
  return {
    counters,
    async count() {
      return ordered.length;
    },
    async getRecords(pmids) {
      return pick(pmids);
    },
    async getDocs(ids) {
      return new Map([...pick(ids)].map(([id, r]) => [id, recordToCorpusDoc(r.record)]));
    },
    async *scanRecords(batchSize = DEFAULT_SCAN_BATCH) {
      for (const b of batches(ordered, batchSize)) {
        counters.fetched += b.length;
        yield b;
      }
    },
    async *scanDocs(batchSize = DEFAULT_SCAN_BATCH) {
      for (const b of batches(ordered, batchSize)) {
        counters.fetched += b.length;
        yield b.map((r) => recordToCorpusDoc(r.record));
      }
    },
    async *ids(batchSize = DEFAULT_SCAN_BATCH) {
      for (const b of batches(ordered, batchSize)) {
        counters.idsListed += b.length;
        yield b.map((r) => r.record.pmid);
      }
    },
  };
}
