/**
 * medsynth's on-disk BM25 engine: the in-memory fast engine's scores and top-k, bit for bit, over
 * an index that lives on disk and is read in pages, so the query process stays bounded whatever
 * the corpus size. Format, build, pruning and segments: docs/bm25-on-disk.md.
 *
 * An index folder holds `index.json` (format, params, analyzer id, generation, segment list) and
 * segment folders `seg-NNNNNN/` ({@link ./disk-segment.ts}); a segment may carry a deletion mask
 * (`mask-<gen>.bits`: one bit per doc; `mask-<gen>.df`: per term, postings of masked docs).
 * - {@link buildDiskBm25}: one segment from a document stream (sorted runs merged on disk,
 *   resumable; {@link ./disk-build.ts}).
 * - {@link addDiskBm25Segment}: an update file's documents become a new segment; every earlier
 *   version of their ids, and every id listed as deleted, is masked in the older segments.
 * - {@link mergeDiskBm25Segments}: all segments → one, masked documents dropped.
 * - {@link openDiskBm25}: the query engine {@link DiskBm25}.
 *
 * Scores: the BM25 of {@link ./params.ts} over the LIVE documents, in index order (segment order,
 * then position): N, df, avgdl and the doc lengths' norms are those of the live corpus, computed
 * with the same expressions in the same order as {@link ./fast-engine.ts} — so a query gives the
 * same ids, order and scores (bit-identical float64) as `buildFastBm25(liveDocsInIndexOrder)`.
 * Ties are broken by index order.
 *
 * Queries run the fast engine's windowed block-max MaxScore (Turtle & Flood 1995; Lucene's
 * MaxScoreBulkScorer), per segment, with one top-k heap across segments: per window of
 * {@link WINDOW} documents each list's bound is count × idf × its largest block maximum overlapping
 * the window (× max(1, avgdl_live / avgdl_segment), see {@link ./disk-segment.ts}); windows whose
 * bounds sum below theta are skipped without reading a posting; lists whose bounds sum below theta
 * are non-essential: only blocks holding candidates are decoded for them. Every decision keeps a
 * 1e-6 relative margin and the survivors are scored with the exact expression in query order.
 * Long questions (≥ {@link DISK_TAAT_MIN_POSTINGS_PER_DOC} postings per document of a segment)
 * go term-at-a-time instead, over the segment's quantised impacts ({@link ./disk-taat.ts}; same
 * hits and scores), in segments that have them (built since round 10).
 *
 * Opening reads `index.json` and the segments' headers only (v2: the term hash table, per-term
 * arrays and live totals are persisted at build / update / merge); vocabulary, per-term arrays and
 * doc lengths are read on demand through the page cache. Resident memory: per document up to 8
 * bytes (norms, filled a page of 1,024 docs at a time as documents are scored) + 1 bit (mask, only
 * for masked segments, read at open with 4 bytes per term of masked postings); the page cache
 * (`pageCacheMiB`, default 256); per query the block records of its terms (16 bytes per 64
 * postings). Not safe for concurrent use from several threads.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { buildSegment, mergeSegments, writeJsonAtomic, type SegmentBuildOptions } from "./disk-build.ts";
import { collectWindowCandidates } from "./fast-query.ts";
import { DISK_TAAT_CHUNK, DiskTaat, firstBlockEndingAtOrAfter, taatWeights, type DiskTaatList } from "./disk-taat.ts";
import { BLOCK, diskIo, IMPACT_WINDOW, NORM_PAGE, NORM_SHIFT, PageCache, readRaw, SegmentReader, type TermBlocks } from "./disk-segment.ts";
import { parseBm25Params, type Bm25Params } from "./params-core.ts";
import { offerTopK, sortHeap } from "./topk-heap.ts";

/** Retriever id of the on-disk engine. */
export const DISK_BM25_ID = "bm25-disk";
/** Format tag of `index.json` (v2: live totals in the manifest, v2 segments; v1 indexes are refused). */
export const DISK_BM25_FORMAT = "medsynth-bm25-disk-v2";
/** Documents per window of the document-at-a-time search. */
const WINDOW = 4096;
/** Relative safety margin of every pruning decision (as the fast engine). */
const BOUND_MARGIN = 1 + 1e-6;
/** Default page cache of a query process, MiB. */
export const DEFAULT_PAGE_CACHE_MIB = 256;

/** One segment in `index.json`. */
export interface DiskSegmentEntry {
  name: string;
  docCount: number;
  /** Masked documents. */
  deleted: number;
  /** Stem of the mask files in the segment folder, or null. */
  mask: string | null;
}

/** `index.json`. */
export interface DiskIndexManifest {
  format: string;
  params: Bm25Params;
  analyzerId: string;
  /** Bumped by every update and merge (names new masks and segments). */
  generation: number;
  segments: DiskSegmentEntry[];
  /** Live documents (all segments, masks applied). */
  liveDocs: number;
  /** Sum of the live doc lengths in index order (float64; avgdl = liveLength / liveDocs at open). */
  liveLength: number;
}

/** Facts of an opened on-disk index. */
export interface DiskBm25Info {
  engine: "disk";
  /** Live documents. */
  docCount: number;
  avgDocLength: number;
  params: Bm25Params;
  analyzerId: string;
  dir: string;
  segments: number;
  /** Masked documents (all segments). */
  deleted: number;
  /** Generation of `index.json` opened (bumped by every update and merge). */
  generation: number;
  /** Segments without quantised impacts (built by an earlier medsynth): searched by block-max MaxScore only; a rebuild or a merge adds them. */
  segmentsWithoutImpacts: number;
}

/** Options shared by the build and update functions. */
export interface DiskBuildOptions {
  /** Partial BM25 params (defaults k1 1.5, b 0.75, weights 1/1); an existing index keeps its own. */
  params?: Partial<Bm25Params>;
  analyzer?: Analyzer;
  /** Postings per sorted run (memory of the build ≈ 17 B × this). */
  runPostings?: number;
  log?: (line: string) => void;
  /** @internal test hook (see {@link SegmentBuildOptions.afterRun}). */
  afterRun?: (runs: number) => void;
}

/** A document stream: an array, an async iterable of batches, or a source with `scanDocs`. */
export type DocStream = readonly CorpusDoc[] | AsyncIterable<readonly CorpusDoc[]> | { scanDocs(batchSize?: number): AsyncIterable<CorpusDoc[]> };

function asBatches(docs: DocStream, batch = 16_384): AsyncIterable<readonly CorpusDoc[]> {
  if (Array.isArray(docs)) {
    const arr = docs as readonly CorpusDoc[];
    return (async function* () {
      for (let i = 0; i < arr.length; i += batch) yield arr.slice(i, i + batch);
    })();
  }
  if (typeof (docs as { scanDocs?: unknown }).scanDocs === "function") return (docs as { scanDocs(b?: number): AsyncIterable<CorpusDoc[]> }).scanDocs(batch);
  return docs as AsyncIterable<readonly CorpusDoc[]>;
}

const segName = (gen: number) => `seg-${String(gen).padStart(6, "0")}`;

/** Reads `index.json` of `dir`, or null when absent. @throws Error naming the file when unreadable or of another format. */
export function readDiskManifest(dir: string): DiskIndexManifest | null {
  const path = join(dir, "index.json");
  if (!existsSync(path)) return null;
  let m: DiskIndexManifest;
  try {
    const text = readFileSync(path, "utf8");
    diskIo.bytesRead += Buffer.byteLength(text);
    m = JSON.parse(text);
  } catch (e) {
    throw new Error(`on-disk BM25: cannot read ${path} (${(e as Error).message}); delete the folder to rebuild`);
  }
  if (m.format !== DISK_BM25_FORMAT)
    throw new Error(`on-disk BM25: the index in ${dir} has format ${JSON.stringify(m.format)}, expected ${DISK_BM25_FORMAT}; delete the folder ${dir} and rebuild the index`);
  return m;
}

/**
 * Builds an on-disk index in `dir` from a document stream (one segment), resuming an interrupted
 * build in the same folder; a folder already holding an index is left as it is.
 * @returns the manifest.
 * @throws Error on a document whose title/text is not a string, or bad params (naming the field).
 */
export async function buildDiskBm25(dir: string, docs: DocStream, opts: DiskBuildOptions = {}): Promise<DiskIndexManifest> {
  const existing = readDiskManifest(dir);
  if (existing) return existing;
  const params = parseBm25Params(opts.params ?? {});
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  const name = segName(0);
  const header = await buildSegment(join(dir, name), asBatches(docs), { params, analyzer, runPostings: opts.runPostings, log: opts.log, afterRun: opts.afterRun });
  const manifest: DiskIndexManifest = {
    format: DISK_BM25_FORMAT,
    params,
    analyzerId: analyzer.id,
    generation: 0,
    segments: [{ name, docCount: header.docCount, deleted: 0, mask: null }],
    liveDocs: header.docCount,
    liveLength: header.totalLen,
  };
  writeJsonAtomic(join(dir, "index.json"), manifest);
  return manifest;
}

/** Reads a segment's mask (bits and per-term masked postings) or null. */
function readMask(dir: string, entry: DiskSegmentEntry, vocab: number): { bits: Uint8Array; df: Int32Array } | null {
  if (!entry.mask) return null;
  const seg = join(dir, entry.name);
  return { bits: readRaw(join(seg, `${entry.mask}.bits`), Uint8Array, Math.ceil(entry.docCount / 8)), df: readRaw(join(seg, `${entry.mask}.df`), Int32Array, vocab) };
}

/**
 * Adds an update: `docs` become a new segment; in the older segments every document whose id is
 * in `docs` (replaced) or in `deleteIds` (deleted) is masked. Masks are new files named by the
 * new generation and `index.json` is replaced atomically last, so a crash leaves the old index.
 * Cost beyond building the segment: one pass over the older segments' ids, and decoding the
 * blocks that hold a newly masked document (to count masked postings per term).
 * @param dir an existing index folder.
 * @param docs the update's documents (may be empty: a deletions-only update adds no segment).
 * @param deleteIds ids to delete (e.g. PubMed `DeleteCitation` PMIDs).
 * @returns the new manifest.
 * @throws Error when `dir` holds no index.
 */
export async function addDiskBm25Segment(dir: string, docs: DocStream, deleteIds: readonly string[] = [], opts: DiskBuildOptions = {}): Promise<DiskIndexManifest> {
  const m = readDiskManifest(dir);
  if (!m) throw new Error(`on-disk BM25: no index in ${dir} (build one first)`);
  const gen = m.generation + 1;
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  if (analyzer.id !== m.analyzerId) throw new Error(`on-disk BM25: ${dir} was built with analyzer ${m.analyzerId}, not ${analyzer.id}`);
  const name = segName(gen);
  const header = await buildSegment(join(dir, name), asBatches(docs), { params: m.params, analyzer, runPostings: opts.runPostings, log: opts.log });
  const cache = new PageCache(64 << 20);
  const gone = new Set(deleteIds);
  const added = new SegmentReader(join(dir, name), cache);
  for (const batch of added.scanIds()) for (const id of batch) gone.add(id);
  const segments: DiskSegmentEntry[] = [];
  for (const entry of m.segments) {
    const seg = new SegmentReader(join(dir, entry.name), cache);
    const old = readMask(dir, entry, seg.header.vocabSize);
    const bits = old ? old.bits.slice() : new Uint8Array(Math.ceil(entry.docCount / 8));
    const fresh: number[] = [];
    let d = 0;
    for (const batch of seg.scanIds()) {
      for (const id of batch) {
        if (gone.has(id) && (bits[d >>> 3] & (1 << (d & 7))) === 0) {
          bits[d >>> 3] |= 1 << (d & 7);
          fresh.push(d);
        }
        d++;
      }
    }
    if (fresh.length === 0) {
      segments.push(entry);
      seg.close();
      continue;
    }
    const df = old ? old.df.slice() : new Int32Array(seg.header.vocabSize);
    countMaskedPostings(seg, Int32Array.from(fresh), df);
    const stem = `mask-${String(gen).padStart(6, "0")}`;
    writeFileSync(join(dir, entry.name, `${stem}.bits`), bits);
    writeFileSync(join(dir, entry.name, `${stem}.df`), new Uint8Array(df.buffer));
    segments.push({ ...entry, deleted: entry.deleted + fresh.length, mask: stem });
    seg.close();
  }
  added.close();
  if (header.docCount > 0) segments.push({ name, docCount: header.docCount, deleted: 0, mask: null });
  else rmSync(join(dir, name), { recursive: true, force: true });
  const live = liveTotals(dir, segments, cache);
  cache.close();
  const next: DiskIndexManifest = { ...m, generation: gen, segments, liveDocs: live.docs, liveLength: live.length };
  writeJsonAtomic(join(dir, "index.json"), next);
  removeStaleFiles(dir, next);
  return next;
}

/**
 * Live documents and the sum of their lengths in index order (segment order, then doc order;
 * masked docs skipped) — the expression and order of the fast engine's avgdl. Reads every
 * segment's lengths (8 bytes per doc): run at update time so that opening does not.
 */
function liveTotals(dir: string, segments: readonly DiskSegmentEntry[], cache: PageCache): { docs: number; length: number } {
  let docs = 0;
  let length = 0;
  for (const e of segments) {
    const seg = new SegmentReader(join(dir, e.name), cache);
    const mask = e.mask ? readRaw(join(dir, e.name, `${e.mask}.bits`), Uint8Array, Math.ceil(e.docCount / 8)) : null;
    const dl = seg.readDocLen();
    for (let d = 0; d < dl.length; d++) {
      if (mask && (mask[d >>> 3] & (1 << (d & 7))) !== 0) continue;
      length += dl[d];
      docs++;
    }
    seg.close();
  }
  return { docs, length };
}

/** Adds to df[t] the postings of the docs `fresh` (ascending) in each term t's list (blocks not spanning one of them are skipped). */
function countMaskedPostings(seg: SegmentReader, fresh: Int32Array, df: Int32Array): void {
  const docs = new Int32Array(BLOCK);
  const tfs = new Float64Array(BLOCK);
  const lowerBound = (x: number) => {
    let lo = 0;
    let hi = fresh.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (fresh[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (let t = 0; t < seg.header.vocabSize; t++) {
    const tb = seg.termBlocks(t);
    for (let j = 0; j < tb.nb; j++) {
      let f = lowerBound(tb.first[j]);
      if (f >= fresh.length || fresh[f] > tb.last[j]) continue;
      const n = seg.decode(tb, j, docs, tfs);
      for (let p = 0; p < n && f < fresh.length; p++) {
        while (f < fresh.length && fresh[f] < docs[p]) f++;
        if (f < fresh.length && fresh[f] === docs[p]) df[t]++;
      }
    }
  }
}

/** Removes segment folders and mask files the manifest no longer names. */
function removeStaleFiles(dir: string, m: DiskIndexManifest): void {
  const live = new Map(m.segments.map((s) => [s.name, s.mask]));
  for (const f of readdirSync(dir)) {
    if (!f.startsWith("seg-") || f.endsWith(".partial")) continue;
    if (!live.has(f)) {
      rmSync(join(dir, f), { recursive: true, force: true });
      continue;
    }
    const mask = live.get(f);
    for (const g of readdirSync(join(dir, f))) if (g.startsWith("mask-") && !g.startsWith(`${mask}.`)) rmSync(join(dir, f, g), { force: true });
  }
}

/**
 * Merges every segment of the index into one (masked documents dropped, index order kept), then
 * replaces `index.json` and removes the old segments. Scores are unchanged (same live corpus).
 * @returns the new manifest (unchanged when the index has one segment without a mask).
 */
export function mergeDiskBm25Segments(dir: string): DiskIndexManifest {
  const m = readDiskManifest(dir);
  if (!m) throw new Error(`on-disk BM25: no index in ${dir}`);
  if (m.segments.length === 1 && !m.segments[0].mask) return m;
  const gen = m.generation + 1;
  const name = segName(gen);
  const cache = new PageCache(64 << 20);
  const inputs = m.segments.map((e) => {
    const seg = new SegmentReader(join(dir, e.name), cache);
    return { seg, mask: readMask(dir, e, seg.header.vocabSize)?.bits ?? null };
  });
  const header = mergeSegments(join(dir, name), inputs, m.params, m.analyzerId);
  for (const i of inputs) i.seg.close();
  cache.close();
  const next: DiskIndexManifest = {
    ...m,
    generation: gen,
    segments: header.docCount > 0 ? [{ name, docCount: header.docCount, deleted: 0, mask: null }] : [],
    liveDocs: header.docCount,
    liveLength: header.docCount > 0 ? header.totalLen : 0,
  };
  writeJsonAtomic(join(dir, "index.json"), next);
  removeStaleFiles(dir, next);
  return next;
}

/** Options of {@link openDiskBm25}. */
export interface DiskOpenOptions {
  analyzer?: Analyzer;
  /** Page cache for postings and block records, MiB (default {@link DEFAULT_PAGE_CACHE_MIB}). */
  pageCacheMiB?: number;
  /** How a segment is searched; every choice gives the same hits and scores (default `auto`: {@link DiskBm25Strategy}). */
  strategy?: DiskBm25Strategy;
  /** Documents per chunk of the term-at-a-time path (default {@link DISK_TAAT_CHUNK}; a multiple of 65,536; tests use one window). */
  taatChunkDocs?: number;
  /** How the term-at-a-time path adds postings: `wasm` (default; JavaScript when the kernel cannot be made) or `js` (tests compare both). */
  taatAccumulator?: "wasm" | "js";
}

/**
 * `taat`: quantised term-at-a-time (disk-taat.ts) in every segment that has impacts; `pruned`:
 * windowed block-max MaxScore everywhere; `auto`: TAAT in a segment with impacts when the query's
 * lists hold at least {@link DISK_TAAT_MIN_POSTINGS_PER_DOC} postings per document of it, else pruned.
 */
export type DiskBm25Strategy = "auto" | "pruned" | "taat";

/**
 * `auto` answers a segment term-at-a-time from this many postings per document of the query's
 * lists (the MedEvidence questions: ~2 at 5.7 M synthetic docs; short keyword queries: ~0.01).
 * Measured at 5.7 M docs (MedEvidence questions cut to 2–8 words, each way timed per query):
 * below 0.1 the pruned search wins (median 0.3 vs 2.9 ms), from 0.2 to 0.5 the two split the
 * queries but term-at-a-time has the lower median (3.8–4.8 vs 4.3–8.7 ms) and no long tail, from
 * 0.5 it wins 58 of 62 (6.4 vs 29 ms).
 */
export const DISK_TAAT_MIN_POSTINGS_PER_DOC = 0.2;

/** `auto` answers term-at-a-time only queries of at most this many distinct known terms (weights then average ≥ ~60 of the 32,767 budget: see {@link ./disk-taat.ts}). */
export const DISK_TAAT_MAX_TERMS = 512;

/**
 * Opens the index in `dir` for queries.
 * @throws Error naming the folder when it holds no index, the analyzer differs, or a file is corrupt.
 */
export function openDiskBm25(dir: string, opts: DiskOpenOptions = {}): DiskBm25 {
  const m = readDiskManifest(dir);
  if (!m) throw new Error(`on-disk BM25: no index in ${dir} (index.json missing)`);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  if (analyzer.id !== m.analyzerId) throw new Error(`on-disk BM25: ${dir} was built with analyzer ${m.analyzerId} but ${analyzer.id} was given; rebuild the index`);
  const chunk = opts.taatChunkDocs ?? DISK_TAAT_CHUNK;
  if (!Number.isInteger(chunk / IMPACT_WINDOW) || chunk < IMPACT_WINDOW) throw new RangeError(`on-disk BM25: taatChunkDocs ${chunk} is not a positive multiple of ${IMPACT_WINDOW}`);
  return new DiskBm25(dir, m, analyzer, new PageCache((opts.pageCacheMiB ?? DEFAULT_PAGE_CACHE_MIB) * 2 ** 20), opts.strategy ?? "auto", chunk, opts.taatAccumulator ?? "wasm");
}

interface OpenSegment {
  seg: SegmentReader;
  /** Index-order number of its doc 0. */
  base: number;
  mask: Uint8Array | null;
  maskDf: Int32Array | null;
  /** k1·(1 − b + b·dl/avgdl) per doc, filled a page of {@link NORM_PAGE} docs at a time ({@link ensureNorm}). */
  norm: Float64Array;
  /** normPage[p] = 1 when docs [p·NORM_PAGE, (p+1)·NORM_PAGE) have their norms. */
  normPage: Uint8Array;
  /** max(1, avgdl_live / avgdl_segment): scales its stored block maxima into bounds. */
  scale: number;
}

/** The query engine over an on-disk index (open with {@link openDiskBm25}). */
export class DiskBm25 {
  readonly id = DISK_BM25_ID;
  readonly info: DiskBm25Info;
  /**
   * Work counters of the last search: postings in the query's lists, postings decoded, windows
   * scored / skipped (pruned path); segments searched term-at-a-time, their candidates and the
   * documents scored exactly.
   */
  readonly lastStats = { postings: 0, decoded: 0, windows: 0, skipped: 0, taatSegments: 0, candidates: 0, finalists: 0 };
  /** Term-at-a-time searcher (kernel and buffers, made on first use). */
  private taatSearcher: DiskTaat | null = null;
  readonly cache: PageCache;
  private readonly segs: OpenSegment[];
  private readonly n: number;
  private readonly k1p1: number;
  private readonly k1: number;
  private readonly b: number;
  private readonly avgdl: number;
  private readonly dlBuf = new Float64Array(NORM_PAGE);
  /** Window buffers, reused across queries (see {@link QueryState}). */
  private readonly acc = new Float64Array(WINDOW);
  private readonly bits = new Int32Array(WINDOW >>> 5);
  private readonly cand = new Int32Array(WINDOW);

  /** @internal use {@link openDiskBm25}. */
  constructor(
    readonly dir: string,
    manifest: DiskIndexManifest,
    private readonly analyzer: Analyzer,
    cache: PageCache,
    /** How segments are searched ({@link DiskBm25Strategy}). */
    readonly strategy: DiskBm25Strategy = "auto",
    /** Documents per chunk of the term-at-a-time path ({@link DiskOpenOptions.taatChunkDocs}). */
    readonly taatChunkDocs = DISK_TAAT_CHUNK,
    /** How the term-at-a-time path adds postings ({@link DiskOpenOptions.taatAccumulator}). */
    readonly taatAccumulatorKind: "wasm" | "js" = "wasm",
  ) {
    this.cache = cache;
    const { k1, b } = manifest.params;
    this.k1p1 = k1 + 1;
    // Live count and total length in index order: persisted by build / update / merge, so that
    // opening reads no per-document data; norms are computed per page on first use.
    const segs: OpenSegment[] = [];
    let base = 0;
    let deleted = 0;
    const n = manifest.liveDocs;
    const avgdl = n > 0 ? manifest.liveLength / n : 0;
    for (const e of manifest.segments) {
      const seg = new SegmentReader(join(dir, e.name), cache);
      if (seg.header.analyzerId !== manifest.analyzerId) throw new Error(`on-disk BM25: segment ${e.name} of ${dir} has analyzer ${seg.header.analyzerId}`);
      const mask = readMask(dir, e, seg.header.vocabSize);
      const scale = seg.header.avgdl > 0 ? Math.max(1, avgdl / seg.header.avgdl) : 1;
      segs.push({ seg, base, mask: mask?.bits ?? null, maskDf: mask?.df ?? null, norm: new Float64Array(seg.docCount), normPage: new Uint8Array(Math.ceil(seg.docCount / NORM_PAGE)), scale });
      base += seg.docCount;
      deleted += e.deleted;
    }
    this.k1 = k1;
    this.b = b;
    this.avgdl = avgdl;
    this.segs = segs;
    this.n = n;
    this.info = {
      engine: "disk",
      docCount: n,
      avgDocLength: avgdl,
      params: manifest.params,
      analyzerId: manifest.analyzerId,
      dir,
      segments: segs.length,
      deleted,
      generation: manifest.generation,
      segmentsWithoutImpacts: segs.filter((o) => !o.seg.hasImpacts).length,
    };
  }

  /** The norm k1·(1 − b + b·dl/avgdl) of a doc of length `dl`: the fast engine's expression (same bits as a loaded norm page). */
  private normOf(dl: number): number {
    const { k1, b, avgdl } = this;
    return k1 * (1 - b + (avgdl > 0 ? (b * dl) / avgdl : 0));
  }

  /** Fills the norms of page p of segment os: {@link normOf} over its doc lengths. */
  private loadNormPage(os: OpenSegment, p: number): void {
    const from = p * NORM_PAGE;
    const cnt = Math.min(NORM_PAGE, os.seg.docCount - from);
    const dl = this.dlBuf;
    os.seg.readDocLens(from, cnt, dl);
    const norm = os.norm;
    for (let i = 0; i < cnt; i++) norm[from + i] = this.normOf(dl[i]);
    os.normPage[p] = 1;
  }

  /** Makes sure the norms of docs [from, to) of segment os are loaded. */
  private loadNormRange(os: OpenSegment, from: number, to: number): void {
    const last = (to - 1) >>> NORM_SHIFT;
    for (let p = from >>> NORM_SHIFT; p <= last; p++) if (os.normPage[p] === 0) this.loadNormPage(os, p);
  }

  /** Makes sure the norms of the docs of docs[0..n) are loaded (docs ascending). */
  private ensureNorm(os: OpenSegment, docs: Int32Array, n: number): void {
    const pages = os.normPage;
    let last = -1;
    for (let i = 0; i < n; i++) {
      const p = docs[i] >>> NORM_SHIFT;
      if (p !== last) {
        if (pages[p] === 0) this.loadNormPage(os, p);
        last = p;
      }
    }
  }

  /** The query's distinct terms (order of first occurrence) with their counts. */
  private queryTerms(query: string): { terms: string[]; counts: number[] } {
    const terms: string[] = [];
    const counts: number[] = [];
    for (const t of this.analyzer.analyze(query)) {
      const at = terms.indexOf(t);
      if (at >= 0) counts[at]++;
      else {
        terms.push(t);
        counts.push(1);
      }
    }
    return { terms, counts };
  }

  /**
   * Top-k BM25 hits (see the module doc): the same ids, order and scores as the in-memory fast
   * engine over the live documents in index order.
   * @param query free text.
   * @param k hits wanted (fractional k floored).
   * @returns ≤ k hits (`id`, `score` = `scores.bm25`, `rank`; no `doc`), best first, ties by index
   *   order; [] for an empty / unknown-terms query or k < 1.
   */
  searchSync(query: string, k: number): SearchHit[] {
    const r = this.searchSlice(query, k, 0, 1);
    return r.ids.map((id, i) => ({ id, score: r.scores[i], rank: i + 1, scores: { bm25: r.scores[i] } }));
  }

  /**
   * The exact top-k of part `part` of `parts` of the index (each segment cut into `parts`
   * contiguous doc ranges at window boundaries, {@link sliceBounds}): what {@link searchSync}
   * returns when `parts` is 1. Documents outside the slice may appear (the seeds of the initial
   * threshold come from a whole list), with exact scores; merging the slices' hits by score
   * (ties by index order) and dropping repeats gives the whole index's top k
   * ({@link mergeSliceHits}), as {@link ./disk-parallel.ts} does across worker threads.
   * @param query free text.
   * @param k hits wanted (fractional k floored).
   * @param part slice number in [0, parts).
   * @param parts number of slices (≥ 1).
   * @param shared optional {@link sharedThetaBuffer} of `parts` slots used by every slice of this
   *   query (and no other): each slice publishes its k-th score there and prunes against the
   *   largest — less work, the same result.
   * @returns hits best first: index-order numbers `g`, ids and scores (parallel arrays).
   * @throws RangeError when part/parts are not integers with 0 ≤ part < parts.
   */
  searchSlice(query: string, k: number, part: number, parts: number, shared?: SharedArrayBuffer): DiskSliceHits {
    if (!Number.isInteger(parts) || parts < 1 || !Number.isInteger(part) || part < 0 || part >= parts) throw new RangeError(`on-disk BM25: slice ${part} of ${parts} (want integers 0 ≤ part < parts)`);
    const st = this.lastStats;
    st.postings = st.decoded = st.windows = st.skipped = st.taatSegments = st.candidates = st.finalists = 0;
    const empty: DiskSliceHits = { g: [], ids: [], scores: [] };
    if (!(k >= 1) || typeof query !== "string" || this.n === 0) return empty;
    const known = this.knownTerms(query);
    if (known.ids.length === 0) return empty;
    const kk = Math.min(Math.floor(k), this.n);
    const heap: Heap = { docs: new Int32Array(kk), scores: new Float64Array(kk), size: 0, k: kk };
    const q: QueryState = {
      m: known.ids.length,
      idf: Float64Array.from(known.idf),
      count: Float64Array.from(known.count),
      acc: this.acc,
      bits: this.bits,
      cand: this.cand,
      seeded: new Set(),
      shared: shared ? new SharedTheta(shared, part) : null,
    };
    for (let si = 0; si < this.segs.length; si++) {
      const lists: List[] = [];
      const termIds: number[] = [];
      for (let i = 0; i < q.m; i++) {
        const t = known.ids[i][si];
        if (t < 0) continue;
        lists.push(newList(i, this.segs[si].seg.termBlocks(t), known.count[i] * known.idf[i] * this.segs[si].scale));
        termIds.push(t);
        st.postings += this.segs[si].seg.termDf(t);
      }
      const [lo, hi] = sliceBounds(this.segs[si].seg.docCount, part, parts);
      if (!lists.length || lo >= hi) continue;
      if (!(this.useTaat(this.segs[si], lists) && this.taatSegment(this.segs[si], lists, termIds, q, heap, lo, hi))) this.searchSegment(this.segs[si], lists, q, heap, lo, hi);
    }
    sortHeap(heap.docs, heap.scores, heap.size);
    const out: DiskSliceHits = { g: Array.from(heap.docs.subarray(0, heap.size)), ids: [], scores: Array.from(heap.scores.subarray(0, heap.size)) };
    for (const g of out.g) {
      let s = this.segs.length - 1;
      while (this.segs[s].base > g) s--;
      out.ids.push(this.segs[s].seg.idAt(g - this.segs[s].base));
    }
    return out;
  }

  /** The query's known terms (live df > 0): their ids per segment, idf over the live N, counts. */
  private knownTerms(query: string): { ids: number[][]; idf: number[]; count: number[] } {
    const { terms, counts } = this.queryTerms(query);
    const out: { ids: number[][]; idf: number[]; count: number[] } = { ids: [], idf: [], count: [] };
    for (let i = 0; i < terms.length; i++) {
      const ids: number[] = [];
      let df = 0;
      for (const s of this.segs) {
        const t = s.seg.termId(terms[i]);
        ids.push(t);
        if (t >= 0) df += s.seg.termDf(t) - (s.maskDf ? s.maskDf[t] : 0);
      }
      if (df === 0) continue;
      out.ids.push(ids);
      out.idf.push(Math.log((this.n - df + 0.5) / (df + 0.5) + 1));
      out.count.push(counts[i]);
    }
    return out;
  }

  /** Whether segment os is searched term-at-a-time for these lists ({@link DiskBm25Strategy}). */
  private useTaat(os: OpenSegment, lists: List[]): boolean {
    if (this.strategy === "pruned" || !os.seg.hasImpacts) return false;
    if (this.strategy === "taat") return true;
    // Hundreds of terms leave each a small integer weight, whose rounding widens the final band
    // towards the whole corpus (same hits, slower): such queries stay pruned.
    if (lists.length > DISK_TAAT_MAX_TERMS) return false;
    let postings = 0;
    for (const L of lists) postings += L.tb.df;
    return postings >= DISK_TAAT_MIN_POSTINGS_PER_DOC * os.seg.docCount;
  }

  /**
   * Docs [lo, hi) of segment os term-at-a-time (disk-taat.ts): its finalists' exact scores go to
   * the heap. @returns false when the query's terms exceed the weight budget (not searched).
   */
  private taatSegment(os: OpenSegment, lists: List[], termIds: number[], q: QueryState, heap: Heap, lo: number, hi: number): boolean {
    const w = taatWeights(lists.map((L) => q.count[L.qi] * q.idf[L.qi]));
    if (!w) return false;
    const tl: DiskTaatList[] = lists.map((L, i) => ({ tb: L.tb, start: os.seg.impactStart(termIds[i]), weight: w.weights[i] }));
    const segAvgdl = os.seg.header.avgdl;
    const r = segAvgdl > 0 && this.avgdl > 0 ? this.avgdl / segAvgdl : 1;
    const taat = (this.taatSearcher ??= new DiskTaat(this.taatChunkDocs, this.taatAccumulatorKind));
    taat.search({
      seg: os.seg,
      mask: os.mask,
      lists: tl,
      margin: w.margin,
      ratio: Math.min(r, 1 / r),
      lo,
      hi,
      k: heap.k,
      exact: (d) => this.exactScore(os, lists, q, d),
      offer: (d, s) => offer(heap, os.base + d, s),
    });
    const st = this.lastStats;
    st.taatSegments++;
    st.candidates += taat.stats.candidates;
    st.finalists += taat.stats.finalists;
    return true;
  }

  /**
   * Exact score of segment doc d: every list probed at d (query order: lists are made per known
   * term in query order), the fast engine's expression `Σ c === 1 ? v : c·v`.
   */
  private exactScore(os: OpenSegment, lists: List[], q: QueryState, d: number): number {
    const k1p1 = this.k1p1;
    // A finalist's norm from its own length (through the page cache) unless its page is loaded:
    // filling a 1,024-doc norm page per finalist grew the query process by the whole norm array
    // over a few hundred questions (183 MiB at 24 M docs).
    const nd = os.normPage[d >>> NORM_SHIFT] !== 0 ? os.norm[d] : this.normOf(os.seg.docLenAt(d));
    let score = 0;
    for (const L of lists) {
      const j = firstBlockEndingAtOrAfter(L.tb, d);
      if (j >= L.tb.nb || L.tb.first[j] > d) continue;
      const cnt = decodeInto(os.seg, L, j, this.lastStats);
      const p = findDoc(L.docs, cnt, d);
      if (p < 0) continue;
      const tf = L.tfs[p];
      const v = (q.idf[L.qi] * (tf * k1p1)) / (tf + nd);
      const c = q.count[L.qi];
      score += c === 1 ? v : c * v;
    }
    return score;
  }

  /** Pages of {@link NORM_PAGE} norms loaded so far, over all segments (8 KiB each; for tests and benches). */
  normPagesLoaded(): number {
    let n = 0;
    for (const os of this.segs) for (const p of os.normPage) n += p;
    return n;
  }

  /** "wasm" or "js": how the last term-at-a-time search added postings (null before one ran). */
  get taatAccumulator(): "wasm" | "js" | null {
    return this.taatSearcher?.accumulator ?? null;
  }

  /** Windowed block-max MaxScore over docs [lo, hi) of one segment (lo a multiple of {@link WINDOW}; see the module doc). */
  private searchSegment(os: OpenSegment, lists: List[], q: QueryState, heap: Heap, lo: number, hi: number): void {
    const { acc, bits, cand } = q;
    const nl = lists.length;
    const order = new Int32Array(nl);
    const ub = new Float64Array(nl);
    const pre = new Float64Array(nl + 1);
    const st = this.lastStats;
    this.seedSegment(os, lists, q, heap);
    if (lo > 0) for (const L of lists) L.cb = firstBlockEndingAtOrAfter(L.tb, lo);
    for (let base = lo; base < hi; base += WINDOW) {
      // Jump to the first window holding a block of some list (rare terms: most windows are empty).
      let next = Infinity;
      for (let l = 0; l < nl; l++) {
        const L = lists[l];
        let j = L.cb;
        while (j < L.tb.nb && L.tb.last[j] < base) j++;
        L.cb = j;
        if (j < L.tb.nb && L.tb.first[j] < next) next = L.tb.first[j];
      }
      if (next >= hi) break;
      if (next >= base + WINDOW) base = next - (next % WINDOW);
      const wend = base + WINDOW;
      const theta = q.shared ? q.shared.theta(heap) : heap.size < heap.k ? -Infinity : heap.scores[0];
      let total = 0;
      for (let l = 0; l < nl; l++) {
        const L = lists[l];
        const tb = L.tb;
        let j = L.cb;
        while (j < tb.nb && tb.last[j] < base) j++;
        L.cb = j;
        let mx = 0;
        while (j < tb.nb && tb.first[j] < wend) {
          if (tb.max[j] > mx) mx = tb.max[j];
          j++;
        }
        L.wEnd = j;
        ub[l] = L.bw * mx;
        total += ub[l];
        order[l] = l;
      }
      if (total === 0) continue;
      if (total * BOUND_MARGIN < theta) {
        st.skipped++;
        continue;
      }
      st.windows++;
      // Lists by window bound ascending; the longest prefix summing below theta is non-essential.
      for (let i = 1; i < nl; i++) {
        const x = order[i];
        let j = i - 1;
        while (j >= 0 && ub[order[j]] > ub[x]) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = x;
      }
      let ne = 0;
      pre[0] = 0;
      while (ne < nl && (pre[ne] + ub[order[ne]]) * BOUND_MARGIN < theta) {
        pre[ne + 1] = pre[ne] + ub[order[ne]];
        ne++;
      }
      // Essential lists: every posting in the window.
      if (!this.addEssential(os, lists, order, ne, nl, total, ub, base, theta, q)) continue;
      let nc = collectWindowCandidates(acc, bits, cand, WINDOW >>> 5, pre[ne], theta);
      nc = this.probeNonEssential(os, lists, order, ne, nc, base, pre, theta, q);
      this.scoreSurvivors(os, lists, nc, base, q, heap);
    }
  }

  /**
   * Adds the essential lists' (order[ne..nl)) live postings in the window [base, base + WINDOW)
   * into the window accumulator `acc` (offsets from base) and marks the touched documents in
   * `bits`. A block whose maximum plus every other list's window bound stays below theta is
   * skipped unread (such a document, if another list makes it a candidate, scores below theta
   * whatever its partial sum). Loads the norms of the whole window first (every later step of the
   * window reads them).
   * @returns false when no document was touched.
   */
  private addEssential(os: OpenSegment, lists: List[], order: Int32Array, ne: number, nl: number, total: number, ub: Float64Array, base: number, theta: number, q: QueryState): boolean {
    const { seg, norm, mask } = os;
    const { idf, count, acc, bits } = q;
    const k1p1 = this.k1p1;
    const st = this.lastStats;
    const wend = base + WINDOW;
    this.loadNormRange(os, base, Math.min(wend, seg.docCount));
    let any = false;
    for (let r = ne; r < nl; r++) {
      const L = lists[order[r]];
      // c·v = v exactly when c = 1: the fast engine's `c === 1 ? v : c·v`, bit for bit.
      const w = idf[L.qi];
      const c = count[L.qi];
      const others = total - ub[order[r]];
      const bw = L.bw;
      const tb = L.tb;
      for (let j = L.cb; j < L.wEnd; j++) {
        if ((bw * tb.max[j] + others) * BOUND_MARGIN < theta) continue;
        const cnt = decodeInto(seg, L, j, st);
        const dd = L.docs;
        const tt = L.tfs;
        // Only a window's first and last blocks of a list straddle its edges.
        const from = tb.first[j] < base ? lowerBound(dd, cnt, base) : 0;
        const to = tb.last[j] >= wend ? lowerBound(dd, cnt, wend) : cnt;
        if (from < to) any = true;
        for (let p = from; p < to; p++) {
          const d = dd[p];
          if (mask !== null && (mask[d >>> 3] & (1 << (d & 7))) !== 0) continue;
          const x = d - base;
          const tf = tt[p];
          acc[x] += c * ((w * (tf * k1p1)) / (tf + norm[d]));
          bits[x >>> 5] |= 1 << (x & 31);
        }
      }
    }
    return any;
  }

  /**
   * Non-essential lists (order[0..ne)), largest bound first: adds their impacts for the `nc`
   * candidates (ascending in `cand`) — per candidate, decoding only blocks that hold one, or, when
   * the candidates are at least as many as the list's blocks in the window, by one pass over
   * those blocks' postings that adds the candidates' impacts (`scatterToCandidates`) — then drops
   * candidates that can no longer reach theta (accumulator and bit cleared).
   * @returns the number of candidates left (still ascending).
   */
  private probeNonEssential(os: OpenSegment, lists: List[], order: Int32Array, ne: number, nc: number, base: number, pre: Float64Array, theta: number, q: QueryState): number {
    const { seg, norm } = os;
    const { idf, count, acc, bits, cand } = q;
    const k1p1 = this.k1p1;
    const st = this.lastStats;
    for (let r = ne - 1; r >= 0 && nc > 0; r--) {
      const L = lists[order[r]];
      const left = pre[r];
      if (nc >= L.wEnd - L.cb) this.scatterToCandidates(os, L, base, q);
      else {
        const w = idf[L.qi];
        const c = count[L.qi];
        const tb = L.tb;
        let j = L.cb;
        let p = 0;
        let cnt = 0;
        let decodedJ = -1;
        const bw = L.bw;
        for (let ci = 0; ci < nc; ci++) {
          const x = cand[ci];
          const d = base + x;
          while (j < L.wEnd && tb.last[j] < d) j++;
          if (j >= L.wEnd) break;
          if (tb.first[j] > d) continue;
          // Even this block's maximum cannot lift the candidate to theta: it is dropped below, unprobed.
          if ((acc[x] + bw * tb.max[j] + left) * BOUND_MARGIN < theta) continue;
          if (decodedJ !== j) {
            cnt = decodeInto(seg, L, j, st);
            decodedJ = j;
            p = 0;
          }
          if (os.normPage[d >>> NORM_SHIFT] === 0) this.loadNormPage(os, d >>> NORM_SHIFT);
          const dd = L.docs;
          while (p < cnt && dd[p] < d) p++;
          if (p < cnt && dd[p] === d) {
            const tf = L.tfs[p];
            const v = (w * (tf * k1p1)) / (tf + norm[d]);
            acc[x] += c === 1 ? v : c * v;
          }
        }
      }
      let kept = 0;
      for (let ci = 0; ci < nc; ci++) {
        const x = cand[ci];
        if (!((acc[x] + left) * BOUND_MARGIN < theta)) cand[kept++] = x;
        else {
          acc[x] = 0;
          bits[x >>> 5] &= ~(1 << (x & 31));
        }
      }
      nc = kept;
    }
    return nc;
  }

  /**
   * One pass over list L's blocks in the window [base, base + WINDOW): adds the impact of each
   * posting whose document is a candidate (its bit set in `bits`). Cheaper than probing per
   * candidate when candidates are dense (no cursor per candidate; a block with no candidate is
   * still decoded). The window's norms are loaded: `addEssential` runs first in a window.
   */
  private scatterToCandidates(os: OpenSegment, L: List, base: number, q: QueryState): void {
    const { seg, norm } = os;
    const { acc, bits } = q;
    const w = q.idf[L.qi];
    const c = q.count[L.qi];
    const k1p1 = this.k1p1;
    const wend = base + WINDOW;
    for (let j = L.cb; j < L.wEnd; j++) {
      const cnt = decodeInto(seg, L, j, this.lastStats);
      const dd = L.docs;
      const tt = L.tfs;
      for (let p = 0; p < cnt; p++) {
        const d = dd[p];
        if (d < base) continue;
        if (d >= wend) break;
        const x = d - base;
        if ((bits[x >>> 5] & (1 << (x & 31))) === 0) continue;
        const tf = tt[p];
        acc[x] += c * ((w * (tf * k1p1)) / (tf + norm[d]));
      }
    }
  }

  /**
   * The window's surviving candidates (ascending): exact score — every list probed in query
   * order, the fast engine's expression and summation order — offered to the heap (documents
   * seeded already are skipped); clears their accumulator and bits.
   */
  private scoreSurvivors(os: OpenSegment, lists: List[], nc: number, base: number, q: QueryState, heap: Heap): void {
    const { seg, norm, base: gbase } = os;
    const { idf, count, acc, bits, cand, seeded } = q;
    const k1p1 = this.k1p1;
    const st = this.lastStats;
    const nl = lists.length;
    for (let l = 0; l < nl; l++) lists[l].pb = lists[l].cb;
    for (let ci = 0; ci < nc; ci++) {
      const x = cand[ci];
      const upper = acc[x];
      acc[x] = 0;
      bits[x >>> 5] = 0;
      // Every list has added its impact: a sum below the heap's current k-th score cannot enter.
      if (heap.size === heap.k && upper * BOUND_MARGIN < heap.scores[0]) continue;
      const d = base + x;
      if (seeded.size > 0 && seeded.has(gbase + d)) continue;
      if (os.normPage[d >>> NORM_SHIFT] === 0) this.loadNormPage(os, d >>> NORM_SHIFT);
      let score = 0;
      // lists are in query order (newList per known term, query position ascending).
      for (let l = 0; l < nl; l++) {
        const L = lists[l];
        const tb = L.tb;
        let j = L.pb;
        while (j < L.wEnd && tb.last[j] < d) j++;
        L.pb = j;
        if (j >= L.wEnd || tb.first[j] > d) continue;
        const cnt = decodeInto(seg, L, j, st);
        const p = findDoc(L.docs, cnt, d);
        if (p < 0) continue;
        const tf = L.tfs[p];
        const v = (idf[L.qi] * (tf * k1p1)) / (tf + norm[d]);
        const c = count[L.qi];
        score += c === 1 ? v : c * v;
      }
      offer(heap, gbase + d, score);
    }
  }

  /**
   * Initial threshold (as the fast engine's): the list with the largest bound gives its k blocks
   * with the largest maxima; their live postings with the k largest impacts are scored exactly
   * (every list probed) and offered to the heap, so theta starts near its final value and the
   * window pass prunes from its first window. Seeded documents are not offered again.
   */
  private seedSegment(os: OpenSegment, lists: List[], q: QueryState, heap: Heap): void {
    const { seg, norm, mask, base: gbase } = os;
    const k = heap.k;
    let best = -1;
    let bestUb = 0;
    for (let l = 0; l < lists.length; l++) {
      const mx = lists[l].tb.max;
      let t = 0;
      for (let j = 0; j < mx.length; j++) if (mx[j] > t) t = mx[j];
      if (lists[l].bw * t > bestUb) {
        bestUb = lists[l].bw * t;
        best = l;
      }
    }
    if (best < 0) return;
    const L = lists[best];
    const tb = L.tb;
    // The k blocks with the largest maxima (a min-heap on max over block numbers).
    const nbk = Math.min(k, tb.nb);
    const hb = new Int32Array(nbk);
    let hs = 0;
    for (let j = 0; j < tb.nb; j++) {
      const v = tb.max[j];
      if (hs < nbk) {
        let i = hs++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (tb.max[hb[p]] <= v) break;
          hb[i] = hb[p];
          i = p;
        }
        hb[i] = j;
      } else if (v > tb.max[hb[0]]) {
        let i = 0;
        for (;;) {
          const a = 2 * i + 1;
          if (a >= hs) break;
          const c = a + 1 < hs && tb.max[hb[a + 1]] < tb.max[hb[a]] ? a + 1 : a;
          if (tb.max[hb[c]] >= v) break;
          hb[i] = hb[c];
          i = c;
        }
        hb[i] = j;
      }
    }
    // Their live postings by this term's impact; the k best become seeds.
    const w = q.idf[L.qi];
    const k1p1 = this.k1p1;
    const docs = new Int32Array(BLOCK);
    const tfs = new Float64Array(BLOCK);
    const cands: { d: number; v: number }[] = [];
    for (let h = 0; h < hs; h++) {
      const cnt = seg.decode(tb, hb[h], docs, tfs);
      this.ensureNorm(os, docs, cnt);
      for (let p = 0; p < cnt; p++) {
        const d = docs[p];
        if (mask !== null && (mask[d >>> 3] & (1 << (d & 7))) !== 0) continue;
        cands.push({ d, v: (w * (tfs[p] * k1p1)) / (tfs[p] + norm[d]) });
      }
    }
    cands.sort((a, b) => b.v - a.v || a.d - b.d);
    const seeds = cands
      .slice(0, k)
      .map((c) => c.d)
      .sort((a, b) => a - b);
    // Exact scores: every list probed (query order), the fast engine's expression.
    for (const d of seeds) {
      const g = gbase + d;
      if (q.seeded.has(g)) continue;
      q.seeded.add(g);
      offer(heap, g, this.exactScore(os, lists, q, d));
    }
  }

  /** {@inheritDoc Retriever.search} */
  async search(query: string, k: number): Promise<SearchHit[]> {
    return this.searchSync(query, k);
  }

  /** Closes the files. */
  close(): void {
    for (const s of this.segs) s.seg.close();
    this.cache.close();
  }
}

/** Per-query buffers. */
interface QueryState {
  m: number;
  idf: Float64Array;
  count: Float64Array;
  acc: Float64Array;
  bits: Int32Array;
  cand: Int32Array;
  /** Index-order numbers of the documents already offered by {@link seedSegment}. */
  seeded: Set<number>;
  /** Thresholds shared with the other slices of the same query (parallel search), or null. */
  shared: SharedTheta | null;
}

/**
 * The k-th best scores of the slices of one query, shared between threads: slot i holds slice i's
 * current k-th score (its heap is full: k real documents with exact scores, so the whole index's
 * k-th score is at least that). A slice prunes against the largest slot and its own heap — never
 * above the global k-th score, so the merged top k is still exact. Slots only rise. Float64 bits
 * go through Atomics on a BigInt64Array (a plain Float64Array read could tear across threads).
 */
class SharedTheta {
  private readonly slots: BigInt64Array;
  private readonly f = new Float64Array(1);
  private readonly b = new BigInt64Array(this.f.buffer);
  private published = -Infinity;
  constructor(
    buf: SharedArrayBuffer,
    private readonly part: number,
  ) {
    this.slots = new BigInt64Array(buf);
  }
  /** Publishes this slice's k-th score when its heap is full; returns the largest threshold known. */
  theta(heap: Heap): number {
    let t = -Infinity;
    if (heap.size === heap.k) {
      t = heap.scores[0];
      if (t > this.published) {
        this.published = t;
        this.f[0] = t;
        Atomics.store(this.slots, this.part, this.b[0]);
      }
    }
    for (let i = 0; i < this.slots.length; i++) {
      if (i === this.part) continue;
      this.b[0] = Atomics.load(this.slots, i);
      if (this.f[0] > t) t = this.f[0];
    }
    return t;
  }
}

/** A buffer for {@link DiskBm25.searchSlice}'s shared thresholds of `parts` slices (every slot −∞). */
export function sharedThetaBuffer(parts: number): SharedArrayBuffer {
  const buf = new SharedArrayBuffer(8 * parts);
  new Float64Array(buf).fill(-Infinity);
  return buf;
}

/** One query term's list in one segment. */
interface List {
  /** Position of the term in the query. */
  qi: number;
  tb: TermBlocks;
  /** count × idf × segment scale: bound = bw × block maximum. */
  bw: number;
  /** First block with last doc ≥ the window start; first block past the window. */
  cb: number;
  wEnd: number;
  /** Block cursor of the survivors' exact scoring (from cb, forward within a window). */
  pb: number;
  /** The last decoded block and its postings. */
  decoded: number;
  n: number;
  docs: Int32Array;
  tfs: Float64Array;
}

function newList(qi: number, tb: TermBlocks, bw: number): List {
  return { qi, tb, bw, cb: 0, wEnd: 0, pb: 0, decoded: -1, n: 0, docs: new Int32Array(BLOCK), tfs: new Float64Array(BLOCK) };
}

/** First position among docs[0..n) (ascending) whose doc is ≥ d (n when none). */
function lowerBound(docs: Int32Array, n: number, d: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Docs [lo, hi) of a segment of n docs that slice `part` of `parts` searches: cut points are
 * multiples of the window (4,096 docs) nearest to n·part/parts, so no window straddles two
 * slices; the last slice ends at n. Slices of a small segment may be empty (lo = hi).
 */
export function sliceBounds(n: number, part: number, parts: number): [number, number] {
  const cut = (i: number) => (i >= parts ? n : Math.min(n, Math.round((n * i) / parts / WINDOW) * WINDOW));
  return [cut(part), cut(part + 1)];
}

/** Hits of {@link DiskBm25.searchSlice}, best first: index-order numbers, ids and scores. */
export interface DiskSliceHits {
  g: number[];
  ids: string[];
  scores: number[];
}

/**
 * The top k of several slices' hits ({@link DiskBm25.searchSlice} over the same index and query):
 * by score descending, ties by index order, each document once — the whole index's top k, the
 * same ids and scores as {@link DiskBm25.searchSync}.
 */
export function mergeSliceHits(slices: readonly DiskSliceHits[], k: number): SearchHit[] {
  const all: { g: number; id: string; score: number }[] = [];
  const seen = new Set<number>();
  for (const s of slices)
    for (let i = 0; i < s.g.length; i++) {
      if (seen.has(s.g[i])) continue;
      seen.add(s.g[i]);
      all.push({ g: s.g[i], id: s.ids[i], score: s.scores[i] });
    }
  all.sort((a, b) => b.score - a.score || a.g - b.g);
  return all.slice(0, Math.max(0, Math.floor(k))).map((h, i) => ({ id: h.id, score: h.score, rank: i + 1, scores: { bm25: h.score } }));
}

/** Position of doc d among docs[0..n) (ascending), or -1. */
function findDoc(docs: Int32Array, n: number, d: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && docs[lo] === d ? lo : -1;
}

/** Decodes block j of the list unless it is the one decoded last; returns its posting count. */
function decodeInto(seg: SegmentReader, L: List, j: number, st: { decoded: number }): number {
  if (L.decoded !== j) {
    L.n = seg.decode(L.tb, j, L.docs, L.tfs);
    L.decoded = j;
    st.decoded += L.n;
  }
  return L.n;
}

/** The top-k heap of a query (arrays and size; order and helpers shared with the fast engine, topk-heap.ts). */
interface Heap {
  docs: Int32Array;
  scores: Float64Array;
  size: number;
  k: number;
}

/** Offers (d, s) to the heap (the fast engine's order: score, then corpus order). */
function offer(h: Heap, d: number, s: number): void {
  h.size = offerTopK(h.docs, h.scores, h.size, h.k, d, s);
}
