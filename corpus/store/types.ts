/**
 * The corpus store interface: what every layer above `corpus/` reads documents through.
 *
 * Two levels: a {@link DocumentSource} gives retrieval documents ({@link CorpusDoc}) — get by ids,
 * scan in batches, count — and a {@link RecordStore} adds the parsed PubMed records behind them
 * (for task views such as MedConclusion's). The Lance store (`lance-store.ts`) and the in-memory
 * store (`memory-store.ts`) implement both, so they are interchangeable in tests.
 *
 * Order: `scan*` yields items in the store's canonical order (for the Lance store: input file
 * order, then position in the file), the same on every call; `ids()` follows it too.
 */
import type { CorpusDoc, PubmedRecord } from "../types.ts";

/** A PubMed record as kept in a store: the record plus the input file it came from. */
export interface StoredRecord {
  record: PubmedRecord;
  /** Base name of the input file the kept version came from (e.g. "pubmed25n1290.xml.gz"). */
  sourceFile: string;
}

/** Read access to retrieval documents. */
export interface DocumentSource {
  /** Number of documents. */
  count(): Promise<number>;
  /**
   * Documents by id; ids not present are absent from the map (never an error).
   * @param ids - document ids (PMIDs for PubMed stores); repeats are fetched once.
   */
  getDocs(ids: readonly string[]): Promise<Map<string, CorpusDoc>>;
  /**
   * Every document, in canonical order, in batches of at most `batchSize` (default 1,000); a store
   * may end a batch earlier to bound its memory ({@link SCAN_BATCH_CHARS}).
   */
  scanDocs(batchSize?: number): AsyncIterable<CorpusDoc[]>;
  /** Every id, in canonical order, in batches (reads only the id column where the store can). */
  ids(batchSize?: number): AsyncIterable<string[]>;
  /**
   * A digest that changes whenever the documents may have changed, computed WITHOUT reading them
   * (the Lance store: from its manifest, counts and table version). Index caches are keyed by it;
   * a source without it is fingerprinted by hashing every document (`fingerprintSource`).
   */
  fingerprint?(): Promise<string>;
}

/** A {@link DocumentSource} whose documents come from PubMed records. */
export interface RecordStore extends DocumentSource {
  /** Records by PMID; absent PMIDs are absent from the map. */
  getRecords(pmids: readonly string[]): Promise<Map<string, StoredRecord>>;
  /** Every record, in canonical order, in batches of at most `batchSize` (default 1,000). */
  scanRecords(batchSize?: number): AsyncIterable<StoredRecord[]>;
}

/** Default batch size of the `scan*` methods. */
export const DEFAULT_SCAN_BATCH = 1000;

/**
 * A store's `scan*` batch also ends once its rows hold this many characters of text (record JSON
 * or document text): 8 Mi chars, so a batch of long abstracts stays a few tens of MB whatever
 * `batchSize` a caller asks for (batches may be shorter than `batchSize`, never longer).
 */
export const SCAN_BATCH_CHARS = 8 * 2 ** 20;
