/**
 * medsynth's compact in-memory BM25 engine, built for query speed, with exact dynamic pruning.
 *
 * Layout (CSR inverted index): `offsets: Float64Array(V+1)` (64-bit-safe posting offsets, exact up
 * to 2⁵³), `postDocs: Int32Array(P)` (doc indices, ascending per term), `postTf` (field-weighted
 * tf: Uint8 when every tf is an integer ≤ 255 — field weights 1 — else Float32), per-doc lengths
 * `docLen`, the ids and the vocabulary as UTF-8 string tables (ids decoded only for hits; terms
 * looked up in place by {@link ./term-table.ts}, no string or Map entry per term). At build/load it derives
 * `idf[t]`, per-doc length norms `norm[d] = k1·(1 − b + b·dl/avgdl)`, each term's largest impact,
 * and a block-max index: per block of 64 postings its largest impact (rounded up to float32) and
 * first and last doc (12 bytes per 64 postings). Impacts `idf·tf·(k1+1)/(tf + norm[d])` are
 * computed when a posting is read (norm[d] of the current window stays in cache), not stored: 5
 * bytes per posting resident (doc id + byte tf) plus ~24 per document.
 *
 * Queries ({@link FastBm25.searchSync}) run exact block-max MaxScore (Turtle & Flood 1995; windowed
 * as in Lucene's MaxScoreBulkScorer), document-at-a-time over windows of 2,048 documents:
 * - An initial threshold theta (the k-th best exact score so far): the k largest impacts of the
 *   list with the largest bound `c·max impact` (c = the term's count in the query; more lists while
 *   they hold fewer than k documents) are scored exactly (term by term, a block cursor per list
 *   galloping over the ascending seeds, an interpolated lookup inside the 64-posting block) and
 *   fill a binary heap of the top k.
 * - Per window, each list's bound is the largest block maximum among its blocks overlapping the
 *   window; a window whose bounds sum below theta is skipped. Lists sorted by bound: the longest
 *   prefix whose bounds sum below theta is non-essential (a document in those lists only cannot
 *   enter); the essential lists' postings in the window are added into a window accumulator
 *   (float64 sums, one bit per touched document).
 * - Touched documents whose partial score plus the non-essential bound reaches theta are the
 *   candidates; each non-essential list, largest bound first, adds its impacts for them (galloping
 *   to each candidate when they are few, else one pass over the window's postings that adds 0 for
 *   the others), and candidates that can no longer reach theta are dropped.
 * - The survivors, in document order, are scored exactly and offered to the heap, raising theta.
 * Every pruning decision has a 1e-6 relative margin (over float32 block maxima and sums computed in
 * another order than the exact score), and only a bound
 * strictly below theta prunes (a tie may still win on corpus order).
 *
 * Exactness: every document offered to the heap is scored in float64 in query order — the same
 * expression and order as exhaustive scoring ({@link FastBm25.searchExhaustive}, the pre-pruning
 * algorithm) — so ids, order and scores are bit-identical to exhaustive scoring. Ties are broken
 * by corpus order (smaller internal doc index first). Scores equal {@link ./wink-engine.ts}'s to
 * ~1e-9 for the same analyzer and params; the formula is in {@link ./params.ts}.
 *
 * Query path (issue 11, memory and JIT): each phase is its own small function (window bounds,
 * partition, essential lists, candidates, non-essential lists, survivors) — V8 compiled the one
 * large search function seven times in a 3-s run, ~1.3 s of CPU and a ~10 MiB peak of compiler
 * memory; now ~0.25 s in all. A query allocates nothing but its hits once the buffers have grown:
 * the analyzer's term-id form writes into a reused buffer, per-list state, heap and window are
 * typed arrays on the engine, posting and block cursors are int32 below 2³¹ postings. The modules
 * a query process loads (this file, {@link ../analyzer.ts}, {@link ./params-core.ts}) do not load
 * zod (~7.5 MiB per process).
 *
 * Works for any corpus size, including 0 or 1 document. Not safe for concurrent use from several
 * threads (scratch buffers per engine). Persisted as a folder of array files
 * ({@link FastBm25.writeTo}, {@link readFastBm25}), each split into parts so an index may exceed
 * 4 GiB.
 * @see Turtle & Flood (1995) "Query evaluation: strategies and optimizations", MaxScore.
 * @see Ding & Suel (2011) "Faster top-k document retrieval using block-max indexes" (block maxima).
 * @see Lucene `MaxScoreBulkScorer` (windowed MaxScore with per-window essential lists).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer, type TermIdAnalyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { DEFAULT_PART_BYTES, packStrings, readArrayFile, unpackStrings, writeArrayFile, type ArrayFileEntry } from "./array-files.ts";
import { TermTable } from "./term-table.ts";
import type { Bm25Engine, Bm25Info, Bm25Params } from "./params.ts";
import { assertUniqueIds, parseBm25Params } from "./params-core.ts";

/** Retriever id of the fast engine. */
export const FAST_BM25_ID = "bm25-fast";

/** Default {@link FastBm25.exhaustiveUpTo}: 2²⁰ postings (~8 MiB of Float64 impacts). */
export const EXHAUSTIVE_MAX_POSTINGS = 1 << 20;


/** Postings per block of the block-max index (each block keeps its largest impact and last doc). */
const BLOCK = 64;
/** Documents per window of the document-at-a-time search (a multiple of 32: one bit per document marks the touched ones). */
const WINDOW = 2048;
/** A non-essential list is probed by galloping when it has more than this many postings in the window per candidate, else scanned. */
const GALLOP_RATIO = 16;
/** The initial threshold scores the k largest impacts of this many lists (those with the largest bounds). */
const SEED_LISTS = 1;

/** Term id standing for a query token that is not in the vocabulary (ids are < 2³¹ − 1). */
const UNKNOWN_TERM = 0x7fffffff;

/** Format tag of the on-disk index folder (`header.json` field `format`). */
export const FAST_BM25_FORMAT = "medsynth-bm25-fast-v2";

/**
 * Relative safety margin of pruning decisions: partial sums are float64 impacts computed as
 * (count·idf·(k1+1))·tf/(tf + norm) and added in list order (a few ulps from the exact score's
 * expression and order), bounds are block maxima rounded up to float32; any decision is taken with
 * 1e-6 to spare and the final top k is rescored exactly.
 */
const BOUND_MARGIN = 1 + 1e-6;

/** Options of {@link buildFastBm25} and {@link readFastBm25}. */
export interface FastBm25Options {
  /** Analyzer for documents and queries (default {@link defaultAnalyzer}); a loaded index must match its id. */
  analyzer?: Analyzer;
  /** Content hash to record in `info` (see corpusContentHash); default null. */
  contentHash?: string | null;
}

interface FastBm25Data {
  params: Bm25Params;
  analyzerId: string;
  contentHash: string | null;
  /** Document ids as one UTF-8 string table: id i is bytes [idEnds[i-1], idEnds[i]) (decoded only for hits). */
  idBytes: Uint8Array;
  idEnds: Float64Array;
  /** The vocabulary as one UTF-8 string table: term t is bytes [termEnds[t-1], termEnds[t]). */
  termBytes: Uint8Array;
  termEnds: Float64Array;
  offsets: Float64Array;
  postDocs: Int32Array;
  /** Field-weighted term frequencies: Uint8 when all are integers ≤ 255 (field weights 1), else Float32. */
  postTf: Uint8Array | Float32Array;
  docLen: Float64Array;
}

/** Work counters of the last {@link FastBm25.searchSync} call (for tests and benchmarks). */
export interface PruneStats {
  /** Postings in the lists of the query's known terms. */
  postings: number;
  /** Postings read for the initial threshold and added from essential lists, plus candidate probes / postings scanned for non-essential lists (exhaustive = `postings`). */
  work: number;
  /** Documents scored exactly (the initial threshold's and the survivors). */
  finalists: number;
}

/** The fast BM25 engine (build with {@link buildFastBm25}, load with {@link readFastBm25}). */
export class FastBm25 implements Bm25Engine {
  readonly id = FAST_BM25_ID;
  readonly info: Bm25Info;
  /** Counters of the last pruned search. */
  readonly lastStats: PruneStats = { postings: 0, work: 0, finalists: 0 };
  /**
   * Indexes with at most this many postings answer {@link searchSync} exhaustively (same results;
   * on small indexes pruning's bookkeeping costs more than it saves: 0.6–0.75× the exhaustive q/s
   * at 3.3k docs). Default {@link EXHAUSTIVE_MAX_POSTINGS}; 0 = always prune.
   */
  exhaustiveUpTo = EXHAUSTIVE_MAX_POSTINGS;
  /**
   * @internal Posting and block cursors as Float64 even below 2³¹ postings — the path an index with
   * 2³¹ postings or more takes (int32 otherwise, faster); for tests.
   */
  cursorsAsFloat64 = false;
  private readonly data: FastBm25Data;
  private readonly analyzer: Analyzer;
  /** Term → id over the vocabulary's string table. */
  private readonly vocab: TermTable;
  /** The analyzer's term-id form over {@link vocab} (unknown terms → {@link UNKNOWN_TERM}); made on the first query. */
  private termIdsOf: TermIdAnalyzer | null = null;
  /** Query analysis buffers, reused across queries: the term ids of the query's tokens, then its distinct known terms and their counts. */
  private qIds = new Int32Array(256);
  private qTerms = new Int32Array(32);
  private qCounts = new Float64Array(32);
  /** Number of indexed documents. */
  private readonly docCount: number;
  private readonly idf: Float64Array;
  private readonly norm: Float64Array;
  private readonly k1p1: number;
  /** Largest impact of each term, rounded up to float32 (picks the list of the initial threshold). */
  private readonly termMax: Float32Array;
  /** Per-posting impacts, materialised on the first exhaustive search only. */
  private impact: Float64Array | null = null;
  private acc: Float64Array | null = null;
  private touched: Int32Array | null = null;
  /**
   * Block-max index: term t's postings [offsets[t], offsets[t+1]) are cut into blocks of
   * {@link BLOCK} postings, numbered blockFirst[t] .. blockFirst[t+1]-1 (Float64: 64-bit safe);
   * blockMax[b] = largest float32 impact in block b, blockFirstDoc[b] / blockLast[b] = its first /
   * last doc index.
   */
  private readonly blockFirst: Float64Array;
  private readonly blockMax: Float32Array;
  private readonly blockFirstDoc: Int32Array;
  private readonly blockLast: Int32Array;
  /** The arrays {@link searchSync}'s helpers read. */
  private readonly ix: IndexView;
  private scratchBufs: Scratch | null = null;
  /** Attached documents by internal index (null: none attached). */
  private docs: (CorpusDoc | undefined)[] | null = null;
  /** The id string table as a Buffer (same memory), made on the first hit. */
  private idBuf: Buffer | null = null;
  /** Decoded ids, only when {@link ids} was asked for. */
  private idList: string[] | null = null;

  /** @internal use {@link buildFastBm25} or {@link readFastBm25}. */
  constructor(data: FastBm25Data, analyzer: Analyzer) {
    if (analyzer.id !== data.analyzerId) {
      throw new Error(`FastBm25: index was built with analyzer ${data.analyzerId} but ${analyzer.id} was given; rebuild the index`);
    }
    this.data = data;
    this.analyzer = analyzer;
    this.vocab = new TermTable(data.termBytes, data.termEnds);
    const n = (this.docCount = data.idEnds.length);
    const { k1, b } = data.params;
    let total = 0;
    for (let d = 0; d < n; d++) total += data.docLen[d];
    const avgdl = n > 0 ? total / n : 0;
    this.norm = new Float64Array(n);
    for (let d = 0; d < n; d++) this.norm[d] = k1 * (1 - b + (avgdl > 0 ? (b * data.docLen[d]) / avgdl : 0));
    const v = data.termEnds.length;
    this.idf = new Float64Array(v);
    this.termMax = new Float32Array(v);
    this.k1p1 = k1 + 1;
    const { offsets, postDocs, postTf } = data;
    const { norm, k1p1, termMax } = this;
    for (let t = 0; t < v; t++) {
      const df = offsets[t + 1] - offsets[t];
      this.idf[t] = Math.log((n - df + 0.5) / (df + 0.5) + 1);
    }
    this.blockFirst = new Float64Array(v + 1);
    for (let t = 0; t < v; t++) this.blockFirst[t + 1] = this.blockFirst[t] + Math.ceil((offsets[t + 1] - offsets[t]) / BLOCK);
    const nb = this.blockFirst[v];
    this.blockMax = new Float32Array(nb);
    this.blockFirstDoc = new Int32Array(nb);
    this.blockLast = new Int32Array(nb);
    fillBlockMax(offsets, postDocs, postTf, norm, this.idf, k1p1, this.blockFirst, this.blockMax, this.blockFirstDoc, this.blockLast, termMax);
    this.ix = { postDocs, postTf, norm, blockMax: this.blockMax, blockFirstDoc: this.blockFirstDoc, blockLast: this.blockLast, k1p1 };
    this.info = {
      engine: "fast",
      docCount: n,
      vocabSize: v,
      avgDocLength: avgdl,
      params: data.params,
      analyzerId: data.analyzerId,
      contentHash: data.contentHash,
    };
  }

  /** Id of internal document d (decoded from the string table). */
  private idAt(d: number): string {
    if (this.idList) return this.idList[d];
    const idEnds = this.data.idEnds;
    // Buffer#toString(encoding, start, end) decodes in place (no subarray view per hit).
    return (this.idBuf ??= Buffer.from(this.data.idBytes.buffer, this.data.idBytes.byteOffset, this.data.idBytes.byteLength)).toString("utf8", d > 0 ? idEnds[d - 1] : 0, idEnds[d]);
  }

  /** {@inheritDoc Bm25Engine.attachDocs} */
  attachDocs(docs: readonly CorpusDoc[]): void {
    const n = this.docCount;
    const arr: (CorpusDoc | undefined)[] = new Array(n);
    // Usual case: the same documents in the same order (no id table needed); else match by id.
    let inOrder = docs.length === n;
    for (let i = 0; inOrder && i < n; i++) inOrder = docs[i].id === this.idAt(i);
    if (inOrder) for (let i = 0; i < n; i++) arr[i] = docs[i];
    else {
      const index = new Map<string, number>();
      for (let i = 0; i < n; i++) index.set(this.idAt(i), i);
      for (const d of docs) {
        const i = index.get(d.id);
        if (i !== undefined) arr[i] = d;
      }
    }
    this.docs = arr;
  }

  /** Per-query scratch arrays (reused; grown to the largest query and k seen). */
  private scratch(m: number, k: number): Scratch {
    let s = this.scratchBufs;
    const wide = this.cursorsAsFloat64 || this.data.postDocs.length >= 2 ** 31;
    if (!s || s.lc.length < m || s.heapDoc.length < k || s.pc instanceof Float64Array !== wide) {
      const cm = Math.max(m, s?.lc.length ?? 0, 16);
      // Posting and block positions as int32 (faster loops) unless an index has 2³¹ postings or more.
      const Cursor = wide ? Float64Array : Int32Array;
      const ck = Math.max(k, s?.heapDoc.length ?? 0, 16);
      s = this.scratchBufs = {
        order: new Int32Array(cm),
        lc: new Float64Array(cm),
        lw: new Float64Array(cm),
        lStart: new Cursor(cm),
        lEnd: new Cursor(cm),
        lBlock0: new Cursor(cm),
        lBlock: new Cursor(cm),
        lBlockEnd: new Cursor(cm),
        pc: new Cursor(cm),
        eb: new Cursor(cm),
        wb: new Float64Array(cm),
        wp: new Cursor(cm),
        pre: new Float64Array(cm + 1),
        heapDoc: new Int32Array(ck),
        heapScore: new Float64Array(ck),
        seeded: new Int32Array(ck * (SEED_LISTS + 1) + cm * ck),
        seedScore: new Float64Array(ck * (SEED_LISTS + 1) + cm * ck),
        lidf: new Float64Array(cm),
        st: new Float64Array(3),
        sti: new Int32Array(2),
        partDoc: new Int32Array(ck),
        partVal: new Float64Array(ck),
        acc: s?.acc ?? new Float64Array(WINDOW),
        bits: s?.bits ?? new Int32Array(WINDOW >>> 5),
        cand: s?.cand ?? new Int32Array(WINDOW),
      };
    }
    return s;
  }

  /**
   * The query's distinct known terms in query order into {@link qTerms}, with their multiplicities
   * in {@link qCounts} (a term occurring c times adds c × its impact, as wink does). Allocates
   * nothing once the buffers have grown to the longest query.
   * @returns the number of distinct known terms.
   */
  private queryTerms(query: string): number {
    if (this.qIds.length < query.length) this.qIds = new Int32Array(Math.max(query.length, 2 * this.qIds.length));
    const ids = this.qIds;
    const vocab = this.vocab;
    const analyzer = (this.termIdsOf ??= this.analyzer.termIds((term) => {
      const t = vocab.get(term);
      return t >= 0 ? t : UNKNOWN_TERM;
    }));
    const n = analyzer.analyzeInto(query, ids);
    if (this.qTerms.length < n) {
      this.qTerms = new Int32Array(n);
      this.qCounts = new Float64Array(n);
    }
    const terms = this.qTerms;
    const counts = this.qCounts;
    let m = 0;
    for (let j = 0; j < n; j++) {
      const t = ids[j];
      if (t === UNKNOWN_TERM) continue;
      let at = 0;
      while (at < m && terms[at] !== t) at++; // a query has few terms: a scan beats a hash
      if (at < m) counts[at]++;
      else {
        terms[m] = t;
        counts[m++] = 1;
      }
    }
    return m;
  }

  private toHits(docIdx: ArrayLike<number>, scores: ArrayLike<number>, size: number): SearchHit[] {
    const hits: SearchHit[] = [];
    for (let i = 0; i < size; i++) {
      const d = docIdx[i];
      const hit: SearchHit = { id: this.idAt(d), score: scores[i], rank: i + 1, scores: { bm25: scores[i] } };
      const doc = this.docs?.[d];
      if (doc) hit.doc = doc;
      hits.push(hit);
    }
    return hits;
  }

  /**
   * Top-k by exact block-max MaxScore, document-at-a-time over windows of `WINDOW` documents
   * (see the file header): the same hits, order and scores as {@link searchExhaustive}.
   * @param query free text; analyzed like the documents.
   * @param k hits wanted (≥ 1; fractional k is floored).
   * @returns ≤ k hits, best first, ties by corpus order; [] for an empty or unknown-terms query or k < 1.
   */
  searchSync(query: string, k: number): SearchHit[] {
    const stats = this.lastStats;
    stats.postings = 0;
    stats.work = 0;
    stats.finalists = 0;
    if (!(k >= 1) || typeof query !== "string") return [];
    const n = this.docCount;
    if (n === 0) return [];
    if (this.data.postDocs.length <= this.exhaustiveUpTo) return this.searchExhaustive(query, k);
    const m = this.queryTerms(query);
    if (m === 0) return [];
    const terms = this.qTerms;
    const counts = this.qCounts;
    const kk = Math.min(Math.floor(k), n);
    const s = this.scratch(m, kk);
    const ix = this.ix;
    const { offsets } = this.data;
    const { termMax, blockFirst, idf, k1p1 } = this;
    const { order, lc, lw, lidf, lStart, lEnd, lBlock0, lBlock, lBlockEnd, pc, eb, wb, st, sti } = s;
    let postings = 0;
    for (let i = 0; i < m; i++) {
      const t = terms[i];
      lc[i] = counts[i];
      lidf[i] = idf[t];
      lw[i] = counts[i] * idf[t] * k1p1;
      lStart[i] = pc[i] = offsets[t];
      lEnd[i] = offsets[t + 1];
      lBlock0[i] = lBlock[i] = eb[i] = blockFirst[t];
      lBlockEnd[i] = blockFirst[t + 1];
      postings += offsets[t + 1] - offsets[t];
      // Lists by bound, largest first, for the initial threshold.
      order[i] = i;
      wb[i] = -lc[i] * termMax[t];
    }
    stats.postings = postings;
    st[THETA] = -Infinity;
    st[WORK] = 0;
    st[FINALISTS] = 0;
    sti[SIZE] = 0;
    sti[SEED_POS] = 0;
    sortByKey(order, m, wb);
    const ns = selectSeeds(s, ix, m, kk);
    scoreSeeds(s, ix, m, ns, kk);
    for (let base = 0; base < n; base += WINDOW) {
      const theta = st[THETA];
      if (windowBounds(s, ix, m, base) * BOUND_MARGIN < theta) continue;
      const ne = partition(s, m, theta);
      if (!addEssential(s, ix, m, ne, base)) continue;
      let nc = collectCandidates(s, s.pre[ne], theta);
      if (nc > 0 && ne > 0) nc = addNonEssential(s, ix, ne, nc, base, theta);
      if (nc > 0) scoreSurvivors(s, ix, m, nc, base, ns, kk);
    }
    stats.work = st[WORK];
    stats.finalists = st[FINALISTS];
    const size = sti[SIZE];
    sortHeap(s.heapDoc, s.heapScore, size);
    return this.toHits(s.heapDoc, s.heapScore, size);
  }
  /**
   * Exhaustive top-k: adds every posting of every query term into a score accumulator and keeps
   * the k best touched documents (the engine's pre-pruning algorithm, kept as the reference
   * {@link searchSync} is tested against, and as the benchmark baseline). The first call
   * materialises per-posting Float64 impacts (8 bytes per posting) and two N-sized scratch arrays.
   * @returns the same as {@link searchSync}.
   */
  searchExhaustive(query: string, k: number): SearchHit[] {
    if (!(k >= 1) || typeof query !== "string") return [];
    const n = this.docCount;
    if (n === 0) return [];
    const m = this.queryTerms(query);
    if (m === 0) return [];
    const terms = this.qTerms;
    const counts = this.qCounts;
    const { offsets, postDocs } = this.data;
    const impact = this.materialiseImpacts();
    const acc = (this.acc ??= new Float64Array(n));
    const touched = (this.touched ??= new Int32Array(n));
    // acc is all-zero between queries (reset below through `touched`); impacts are > 0, so
    // acc[d] === 0 means "first touch".
    let nt = 0;
    for (let q = 0; q < m; q++) {
      const t = terms[q];
      const c = counts[q];
      const stop = offsets[t + 1];
      if (c === 1) {
        for (let p = offsets[t]; p < stop; p++) {
          const d = postDocs[p];
          if (acc[d] === 0) touched[nt++] = d;
          acc[d] += impact[p];
        }
      } else {
        for (let p = offsets[t]; p < stop; p++) {
          const d = postDocs[p];
          if (acc[d] === 0) touched[nt++] = d;
          acc[d] += c * impact[p];
        }
      }
    }
    if (nt === 0) return [];
    const kk = Math.min(Math.floor(k), nt);
    const { heapDoc, heapScore } = this.scratch(m, kk);
    let size = 0;
    for (let i = 0; i < nt; i++) {
      const d = touched[i];
      const s = acc[d];
      if (size < kk) heapPush(heapDoc, heapScore, size++, d, s);
      else if (s > heapScore[0] || (s === heapScore[0] && d < heapDoc[0])) heapReplaceTop(heapDoc, heapScore, size, d, s);
    }
    for (let i = 0; i < nt; i++) acc[touched[i]] = 0;
    sortHeap(heapDoc, heapScore, size);
    return this.toHits(heapDoc, heapScore, size);
  }

  private materialiseImpacts(): Float64Array {
    if (this.impact) return this.impact;
    const { offsets, postDocs, postTf } = this.data;
    const impact = new Float64Array(postDocs.length);
    const { idf, norm, k1p1 } = this;
    for (let t = 0; t < this.data.termEnds.length; t++) {
      for (let p = offsets[t], end = offsets[t + 1]; p < end; p++) {
        const tf = postTf[p];
        impact[p] = (idf[t] * (tf * k1p1)) / (tf + norm[postDocs[p]]);
      }
    }
    return (this.impact = impact);
  }

  /** {@inheritDoc Retriever.search} */
  async search(query: string, k: number): Promise<SearchHit[]> {
    return this.searchSync(query, k);
  }

  /** Indexed ids in internal order (the tie-break order). */
  get ids(): readonly string[] {
    if (!this.idList) {
      const { idBytes, idEnds } = this.data;
      this.idList = unpackStrings(idBytes, idEnds);
    }
    return this.idList;
  }

  /** Number of postings (Σ document frequencies). */
  get postingCount(): number {
    return this.data.postDocs.length;
  }

  /**
   * Writes the index into folder `dir` (created if missing): `header.json` (format, params,
   * analyzer id, content hash, counts, array manifest) and array part files — ids and terms as
   * UTF-8 blobs with Float64 end offsets, `offsets` (Float64), `postDocs` (Int32), `postTf`
   * (Uint8 when every tf is an integer ≤ 255, else Float32), `docLen` (Float64) — each split into parts of ≤ `partBytes` bytes.
   * `header.json` is written last, so a folder without it is an interrupted write.
   * @param opts.partBytes maximum bytes per part file (default 1 GiB; tests use a few bytes).
   * @returns total bytes written.
   */
  writeTo(dir: string, opts: { partBytes?: number } = {}): number {
    mkdirSync(dir, { recursive: true });
    const part = opts.partBytes ?? DEFAULT_PART_BYTES;
    const { params, analyzerId, contentHash, idBytes, idEnds, termBytes, termEnds, offsets, postDocs, postTf, docLen } = this.data;
    const arrays: [string, Int32Array | Float32Array | Float64Array | Uint8Array][] = [
      ["ids-utf8", idBytes],
      ["ids-ends", idEnds],
      ["terms-utf8", termBytes],
      ["terms-ends", termEnds],
      ["offsets", offsets],
      ["post-docs", postDocs],
      ["post-tf", postTf],
      ["doc-len", docLen],
    ];
    const manifest = arrays.map(([name, a]) => writeArrayFile(dir, name, a, part));
    const bytes = arrays.reduce((s, [, a]) => s + a.byteLength, 0);
    const header = { format: FAST_BM25_FORMAT, params, analyzerId, contentHash, docCount: idEnds.length, vocabSize: termEnds.length, postings: postDocs.length, arrays: manifest };
    writeFileSync(join(dir, "header.json"), JSON.stringify(header, null, 1) + "\n");
    return bytes;
  }
}

/**
 * Fills the block-max index (see {@link FastBm25}'s fields) and each term's largest impact, both
 * rounded up to float32. A function of its own so V8 compiles this loop once, apart from the
 * constructor.
 */
function fillBlockMax(
  offsets: Float64Array,
  postDocs: Int32Array,
  postTf: Uint8Array | Float32Array,
  norm: Float64Array,
  idf: Float64Array,
  k1p1: number,
  blockFirst: Float64Array,
  blockMax: Float32Array,
  blockFirstDoc: Int32Array,
  blockLast: Int32Array,
  termMax: Float32Array,
): void {
  const v = idf.length;
  for (let t = 0; t < v; t++) {
    const end = offsets[t + 1];
    const it = idf[t];
    let tmax = 0;
    for (let b = blockFirst[t], p = offsets[t]; p < end; b++) {
      const stop = Math.min(p + BLOCK, end);
      blockFirstDoc[b] = postDocs[p];
      let max = 0;
      for (; p < stop; p++) {
        const tf = postTf[p];
        const s = (it * (tf * k1p1)) / (tf + norm[postDocs[p]]);
        if (s > max) max = s;
      }
      // Rounded up to float32 (Math.fround may round down by ≤ 2⁻²⁴ relative).
      blockMax[b] = Math.fround(max * (1 + 2 ** -23));
      if (max > tmax) tmax = max;
      blockLast[b] = postDocs[stop - 1];
    }
    termMax[t] = Math.fround(tmax * (1 + 2 ** -23));
  }
}

/** Posting / block positions of the query's lists: Int32Array while the index has < 2³¹ postings, else Float64Array. */
type Cursors = Int32Array | Float64Array;

/** Per-query scratch of {@link FastBm25.searchSync}: per-list state (index = query position), the top-k heap, the window accumulator. */
interface Scratch {
  /** List indices sorted by window bound. */
  order: Int32Array;
  /** Term count in the query (multiplies impacts and bounds). */
  lc: Float64Array;
  /** count × idf × (k1 + 1): a posting adds lw·tf/(tf + norm[d]) (the impact, computed on the fly). */
  lw: Float64Array;
  /** Posting range and block range of each list. */
  lStart: Cursors;
  lEnd: Cursors;
  lBlock0: Cursors;
  /** First block of the list whose last doc is ≥ the current window's start. */
  lBlock: Cursors;
  lBlockEnd: Cursors;
  /** Posting cursor for adding and probing; block cursor for exact scoring; both only move forward. */
  pc: Cursors;
  eb: Cursors;
  /** Window bound of each list; pre[r] = Σ of the r smallest. */
  wb: Float64Array;
  /** Postings (upper estimate: blocks × BLOCK) of each list overlapping the window. */
  wp: Cursors;
  pre: Float64Array;
  heapDoc: Int32Array;
  heapScore: Float64Array;
  /** Documents of the initial threshold (ascending), and a min-heap selecting one list's k largest impacts. */
  seeded: Int32Array;
  /** Exact scores of the seeds. */
  seedScore: Float64Array;
  /** idf of each list's term. */
  lidf: Float64Array;
  /** theta, work and finalists (slots {@link THETA}, {@link WORK}, {@link FINALISTS}). */
  st: Float64Array;
  /** heap size and seed cursor (slots {@link SIZE}, {@link SEED_POS}). */
  sti: Int32Array;
  partDoc: Int32Array;
  partVal: Float64Array;
  /** Window accumulator (zero between windows) and its touched-document bits. */
  acc: Float64Array;
  bits: Int32Array;
  /** The window's candidates (offsets from the window start, ascending). */
  cand: Int32Array;
}

/** Slots of {@link Scratch.st}: the heap's k-th score (theta; -Infinity until k are kept), work and finalist counters. */
const THETA = 0;
const WORK = 1;
const FINALISTS = 2;
/** Slots of {@link Scratch.sti}: documents in the top-k heap; position of the next seed at or after the current document. */
const SIZE = 0;
const SEED_POS = 1;

/** The index arrays the query path reads (one object, so the search's helpers take one argument for them). */
interface IndexView {
  postDocs: Int32Array;
  postTf: Uint8Array | Float32Array;
  /** k1·(1 − b + b·dl/avgdl) per document. */
  norm: Float64Array;
  blockMax: Float32Array;
  blockFirstDoc: Int32Array;
  blockLast: Int32Array;
  k1p1: number;
}

/** Offers (d, score) to the exact top-k heap of `s` (k = kk) and raises theta when it is full. */
function offer(s: Scratch, kk: number, d: number, score: number): void {
  const { heapDoc, heapScore, st, sti } = s;
  const size = sti[SIZE];
  if (size < kk) {
    heapPush(heapDoc, heapScore, size, d, score);
    sti[SIZE] = size + 1;
    if (size + 1 === kk) st[THETA] = heapScore[0];
  } else if (score > heapScore[0] || (score === heapScore[0] && d < heapDoc[0])) {
    heapReplaceTop(heapDoc, heapScore, size, d, score);
    st[THETA] = heapScore[0];
  }
}

/**
 * Seeds of the initial threshold: the k largest impacts of each of the {@link SEED_LISTS} lists
 * with the largest bounds (`order`, largest first; more lists while they hold fewer than k
 * documents), into `seeded` ascending and distinct.
 * @returns the number of seeds.
 */
function selectSeeds(s: Scratch, ix: IndexView, m: number, kk: number): number {
  const { order, lStart, lEnd, lidf, seeded, partDoc, partVal, st } = s;
  const { postDocs, postTf, norm, k1p1 } = ix;
  let ns = 0;
  for (let r = 0; r < m && (r < SEED_LISTS || ns < kk); r++) {
    const i = order[r];
    let np = 0;
    const w = lidf[i] * k1p1;
    const end = lEnd[i];
    for (let p = lStart[i]; p < end; p++) {
      const tf = postTf[p];
      const v = (w * tf) / (tf + norm[postDocs[p]]);
      if (np < kk) partPush(partDoc, partVal, np++, postDocs[p], v);
      else if (v > partVal[0]) partReplaceTop(partDoc, partVal, np, postDocs[p], v);
    }
    st[WORK] += end - lStart[i];
    for (let q = 0; q < np; q++) seeded[ns++] = partDoc[q];
  }
  // Ascending and distinct (insertion sort: a few k documents).
  for (let q = 1; q < ns; q++) {
    const x = seeded[q];
    let j = q - 1;
    while (j >= 0 && seeded[j] > x) {
      seeded[j + 1] = seeded[j];
      j--;
    }
    seeded[j + 1] = x;
  }
  let u = 0;
  for (let q = 0; q < ns; q++) if (u === 0 || seeded[q] !== seeded[u - 1]) seeded[u++] = seeded[q];
  return u;
}

/**
 * Scores the `ns` seeds exactly and offers them to the heap: list by list in query order (each
 * seed's sum still runs in query order, the exhaustive expression), a block cursor per list moving
 * forward over the ascending seeds.
 */
function scoreSeeds(s: Scratch, ix: IndexView, m: number, ns: number, kk: number): void {
  const { lidf, lc, lStart, lEnd, lBlock0, lBlockEnd, seeded, seedScore, st } = s;
  const { postDocs, postTf, norm, blockFirstDoc, blockLast, k1p1 } = ix;
  for (let q = 0; q < ns; q++) seedScore[q] = 0;
  for (let i = 0; i < m; i++) {
    const it = lidf[i];
    const c = lc[i];
    const bEnd = lBlockEnd[i];
    const b0 = lBlock0[i];
    const start = lStart[i];
    const end = lEnd[i];
    let b = b0;
    for (let q = 0; q < ns; q++) {
      const d = seeded[q];
      b = seek(blockLast, b, bEnd, d);
      if (b >= bEnd) break;
      if (blockFirstDoc[b] > d) continue;
      const bs = start + (b - b0) * BLOCK;
      const p = findInBlock(postDocs, bs, bs + BLOCK < end ? bs + BLOCK : end, d);
      if (p >= 0) {
        const tf = postTf[p];
        const imp = (it * (tf * k1p1)) / (tf + norm[d]);
        seedScore[q] += c === 1 ? imp : c * imp;
      }
    }
  }
  for (let q = 0; q < ns; q++) offer(s, kk, seeded[q], seedScore[q]);
  st[FINALISTS] += ns;
}

/**
 * Window bound of each list (`wb`): the largest block maximum among its blocks overlapping
 * [base, base + WINDOW), times its query count; moves `lBlock` to the list's first block ending at
 * or after base and sets `wp` (an upper estimate of its postings in the window).
 * @returns the sum of the bounds.
 */
function windowBounds(s: Scratch, ix: IndexView, m: number, base: number): number {
  const { lBlock, lBlockEnd, lc, wb, wp } = s;
  const { blockFirstDoc, blockLast, blockMax } = ix;
  const lim = base + WINDOW;
  let total = 0;
  for (let i = 0; i < m; i++) {
    let b = lBlock[i];
    const bEnd = lBlockEnd[i];
    while (b < bEnd && blockLast[b] < base) b++;
    lBlock[i] = b;
    let mx = 0;
    const b0 = b;
    while (b < bEnd && blockFirstDoc[b] < lim) {
      if (blockMax[b] > mx) mx = blockMax[b];
      if (blockLast[b] >= lim) {
        b++;
        break;
      }
      b++;
    }
    wp[i] = (b - b0) * BLOCK;
    const v = lc[i] * mx;
    wb[i] = v;
    total += v;
  }
  return total;
}

/**
 * Sorts the lists by window bound ascending into `order` with prefix sums `pre`; the longest
 * prefix whose bounds sum below theta is non-essential (a document only in those lists cannot
 * enter), the rest are essential.
 * @returns the number of non-essential lists.
 */
function partition(s: Scratch, m: number, theta: number): number {
  const { order, wb, pre } = s;
  for (let i = 0; i < m; i++) order[i] = i;
  for (let i = 1; i < m; i++) {
    const x = order[i];
    const v = wb[x];
    let j = i - 1;
    while (j >= 0 && wb[order[j]] > v) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = x;
  }
  pre[0] = 0;
  let ne = 0;
  for (let r = 0; r < m; r++) {
    pre[r + 1] = pre[r] + wb[order[r]];
    if (pre[r + 1] * BOUND_MARGIN < theta) ne = r + 1;
  }
  return ne;
}

/**
 * Adds the essential lists' (order[ne..m)) postings in the window into the window accumulator
 * and marks the touched documents.
 * @returns false when no essential list has postings in the window.
 */
function addEssential(s: Scratch, ix: IndexView, m: number, ne: number, base: number): boolean {
  const { order, wb, lw, lStart, lEnd, lBlock, lBlock0, pc, acc, bits, st } = s;
  const { postDocs, postTf, norm } = ix;
  let any = false;
  let work = 0;
  for (let r = ne; r < m; r++) {
    const i = order[r];
    if (wb[i] === 0) continue;
    const w = lw[i];
    const end = lEnd[i];
    let p = pc[i];
    const bs = lStart[i] + (lBlock[i] - lBlock0[i]) * BLOCK;
    if (p < bs) p = bs;
    while (p < end && postDocs[p] < base) p++;
    const p0 = p;
    for (; p < end; p++) {
      const d = postDocs[p];
      const x = d - base;
      if (x >= WINDOW) break;
      const tf = postTf[p];
      acc[x] += (w * tf) / (tf + norm[d]);
      bits[x >>> 5] |= 1 << (x & 31);
    }
    work += p - p0;
    pc[i] = p;
    any = true;
  }
  st[WORK] += work;
  return any;
}

/**
 * Candidates (ascending, into `cand`): touched documents whose partial score plus the
 * non-essential bound beats theta; the others are dropped (accumulator reset to 0, bit cleared).
 * @returns the number of candidates.
 */
function collectCandidates(s: Scratch, neBound: number, theta: number): number {
  const { bits, acc, cand } = s;
  let nc = 0;
  for (let w = 0; w < WINDOW >>> 5; w++) {
    let word = bits[w];
    if (word === 0) continue;
    let keep = 0;
    while (word !== 0) {
      const low = word & -word;
      word ^= low;
      const x = (w << 5) | (31 - Math.clz32(low));
      // Branch-free (about a third of the touched documents are dropped, unpredictably): k = 1 keeps x.
      const v = acc[x];
      const k = +!((v + neBound) * BOUND_MARGIN < theta);
      acc[x] = v * k;
      cand[nc] = x;
      nc += k;
      keep |= low & -k;
    }
    bits[w] = keep;
  }
  return nc;
}

/**
 * Non-essential lists, largest window bound first: adds their postings for the candidates
 * (galloping to each candidate when they are few, else one pass over the window's postings adding
 * 0 for non-candidates), then drops candidates that can no longer beat theta.
 * @returns the number of candidates left (still ascending in `cand`).
 */
function addNonEssential(s: Scratch, ix: IndexView, ne: number, nc: number, base: number, theta: number): number {
  const { order, wb, lw, lStart, lEnd, lBlock, lBlock0, pc, wp, pre, acc, bits, cand, st } = s;
  const { postDocs, postTf, norm } = ix;
  let work = 0;
  for (let r = ne - 1; r >= 0 && nc > 0; r--) {
    const i = order[r];
    if (wb[i] === 0) break;
    const w = lw[i];
    const end = lEnd[i];
    let p = pc[i];
    const bs = lStart[i] + (lBlock[i] - lBlock0[i]) * BLOCK;
    if (p < bs) p = bs;
    if (nc * GALLOP_RATIO < wp[i]) {
      for (let q = 0; q < nc; q++) {
        const d = base + cand[q];
        p = seek(postDocs, p, end, d);
        if (p < end && postDocs[p] === d) {
          const tf = postTf[p];
          acc[cand[q]] += (w * tf) / (tf + norm[d]);
        }
      }
      work += nc;
    } else {
      while (p < end && postDocs[p] < base) p++;
      const p0 = p;
      for (; p < end; p++) {
        const d = postDocs[p];
        const x = d - base;
        if (x >= WINDOW) break;
        const tf = postTf[p];
        acc[x] += ((w * tf) / (tf + norm[d])) * ((bits[x >>> 5] >>> (x & 31)) & 1);
      }
      work += p - p0;
    }
    pc[i] = p;
    const rest = pre[r];
    let kept = 0;
    for (let q = 0; q < nc; q++) {
      // Branch-free, as in collectCandidates: k = 1 keeps x; a dropped x has its accumulator and bit cleared.
      const x = cand[q];
      const v = acc[x];
      const k = +!((v + rest) * BOUND_MARGIN < theta);
      acc[x] = v * k;
      bits[x >>> 5] &= ~((1 - k) << (x & 31));
      cand[kept] = x;
      kept += k;
    }
    nc = kept;
  }
  st[WORK] += work;
  return nc;
}

/**
 * The window's surviving candidates in document order: exact score (Σ in query order of count ×
 * float64 impact, the exhaustive expression; seeds skipped, they were offered already), offered
 * to the heap; clears the accumulator and the bits.
 */
function scoreSurvivors(s: Scratch, ix: IndexView, m: number, nc: number, base: number, ns: number, kk: number): void {
  const { cand, acc, bits, seeded, eb, lBlock, lBlockEnd, lStart, lEnd, lBlock0, lidf, lc, st, sti } = s;
  const { postDocs, postTf, norm, blockFirstDoc, blockLast, k1p1 } = ix;
  let si = sti[SEED_POS];
  let finalists = 0;
  for (let q = 0; q < nc; q++) {
    const x = cand[q];
    const sc = acc[x];
    acc[x] = 0;
    bits[x >>> 5] = 0;
    if (sc * BOUND_MARGIN < st[THETA]) continue;
    const d = base + x;
    while (si < ns && seeded[si] < d) si++;
    if (si < ns && seeded[si] === d) continue;
    finalists++;
    const nd = norm[d];
    let score = 0;
    for (let i = 0; i < m; i++) {
      let b = eb[i];
      if (b < lBlock[i]) b = lBlock[i];
      const bEnd = lBlockEnd[i];
      while (b < bEnd && blockLast[b] < d) b++;
      eb[i] = b;
      if (b < bEnd && blockFirstDoc[b] <= d) {
        const bs = lStart[i] + (b - lBlock0[i]) * BLOCK;
        const be = bs + BLOCK < lEnd[i] ? bs + BLOCK : lEnd[i];
        const p = findInBlock(postDocs, bs, be, d);
        if (p >= 0) {
          const tf = postTf[p];
          const imp = (lidf[i] * (tf * k1p1)) / (tf + nd);
          score += lc[i] === 1 ? imp : lc[i] * imp;
        }
      }
    }
    offer(s, kk, d, score);
  }
  sti[SEED_POS] = si;
  st[FINALISTS] += finalists;
}

/** First position p in [from, to) with postDocs[p] ≥ d (galloping then binary search); `to` if none. */
function seek(postDocs: Int32Array, from: number, to: number, d: number): number {
  if (from >= to || postDocs[from] >= d) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < to && postDocs[hi] < d) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > to) hi = to;
  // postDocs[lo] < d; answer in (lo, hi]
  while (lo + 1 < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (postDocs[mid] < d) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Sorts order[0..m) by key[order[i]] ascending, ties by index (insertion sort: m is a query's term count). */
function sortByKey(order: Int32Array, m: number, key: Float64Array): void {
  for (let i = 1; i < m; i++) {
    const x = order[i];
    const kx = key[x];
    let j = i - 1;
    while (j >= 0 && (key[order[j]] > kx || (key[order[j]] === kx && order[j] > x))) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = x;
  }
}

/** Pushes (d, v) onto the value min-heap docs/vals of `size` entries. */
function partPush(docs: Int32Array, vals: Float64Array, size: number, d: number, v: number): void {
  let i = size;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (vals[p] <= v) break;
    docs[i] = docs[p];
    vals[i] = vals[p];
    i = p;
  }
  docs[i] = d;
  vals[i] = v;
}

/** Replaces the root of the value min-heap docs/vals (`size` entries) by (d, v), v > vals[0]. */
function partReplaceTop(docs: Int32Array, vals: Float64Array, size: number, d: number, v: number): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) break;
    const r = l + 1;
    const c = r < size && vals[r] < vals[l] ? r : l;
    if (vals[c] >= v) break;
    docs[i] = docs[c];
    vals[i] = vals[c];
    i = c;
  }
  docs[i] = d;
  vals[i] = v;
}

/**
 * Position of doc d among postDocs[from, to) (ascending, distinct, ≤ {@link BLOCK} entries), or -1:
 * interpolated from the block's first and last doc, then a linear step to it (doc ids within a
 * block are spread fairly evenly, so this is usually one or two loads).
 */
function findInBlock(postDocs: Int32Array, from: number, to: number, d: number): number {
  const first = postDocs[from];
  const last = postDocs[to - 1];
  if (d < first || d > last) return -1;
  let p = last > first ? from + Math.floor(((d - first) * (to - 1 - from)) / (last - first)) : from;
  if (postDocs[p] < d) {
    do p++;
    while (postDocs[p] < d);
  } else while (postDocs[p] > d) p--;
  return postDocs[p] === d ? p : -1;
}

/* Min-heap on (score, -doc): the root is the worst kept hit — lowest score, larger doc index on ties. */
function worse(sa: number, da: number, sb: number, db: number): boolean {
  return sa < sb || (sa === sb && da > db);
}

function heapPush(docs: Int32Array, scores: Float64Array, size: number, d: number, s: number): void {
  let i = size;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!worse(s, d, scores[p], docs[p])) break;
    docs[i] = docs[p];
    scores[i] = scores[p];
    i = p;
  }
  docs[i] = d;
  scores[i] = s;
}

function heapReplaceTop(docs: Int32Array, scores: Float64Array, size: number, d: number, s: number): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) break;
    const r = l + 1;
    const c = r < size && worse(scores[r], docs[r], scores[l], docs[l]) ? r : l;
    if (!worse(scores[c], docs[c], s, d)) break;
    docs[i] = docs[c];
    scores[i] = scores[c];
    i = c;
  }
  docs[i] = d;
  scores[i] = s;
}

/** Sorts the heap's `size` entries in place, best first (score descending, doc index ascending). */
function sortHeap(d: Int32Array, s: Float64Array, size: number): void {
  for (let i = 1; i < size; i++) {
    const x = d[i];
    const v = s[i];
    let j = i - 1;
    while (j >= 0 && worse(s[j], d[j], v, x)) {
      d[j + 1] = d[j];
      s[j + 1] = s[j];
      j--;
    }
    d[j + 1] = x;
    s[j + 1] = v;
  }
}


/**
 * Builds a {@link FastBm25} index over `docs` (fields `title` and `text`).
 * @param docs corpus documents, unique non-empty ids; any count (0 allowed).
 * @param params partial {@link Bm25Params} (defaults k1 1.5, b 0.75, weights 1/1).
 * @param opts analyzer and content hash to record.
 * @returns the engine, with `docs` attached.
 * @throws Error on a duplicate or empty id, a doc whose title/text is not a string, or bad params (naming the field).
 */
export function buildFastBm25(docs: readonly CorpusDoc[], params: Partial<Bm25Params> = {}, opts: FastBm25Options = {}): FastBm25 {
  const p = parseBm25Params(params);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  assertUniqueIds(docs, "buildFastBm25");
  const vocab = new Map<string, number>();
  const terms: string[] = [];
  let df: Int32Array = new Int32Array(1024);
  // All documents' (term, tf) pairs in one growable pair of arrays (no per-document objects);
  // document d's pairs are [docEnd[d-1], docEnd[d]).
  let pairTerm: Int32Array = new Int32Array(1 << 16);
  let pairTf: Float32Array = new Float32Array(1 << 16);
  let np = 0;
  const docEnd = new Float64Array(docs.length);
  const docLen = new Float64Array(docs.length);
  const fields: ["title" | "text", number][] = [
    ["title", p.fieldWeights.title],
    ["text", p.fieldWeights.text],
  ];
  // Per-document term counts in a dense array indexed by term id (reset through the doc's term list).
  let tfAcc: Float64Array = new Float64Array(1024);
  let docTerms: Int32Array = new Int32Array(1024);
  const termIdOf = (tok: string): number => {
    let t = vocab.get(tok);
    if (t === undefined) {
      t = terms.length;
      vocab.set(tok, t);
      terms.push(tok);
      if (t === df.length) {
        df = growI32(df, 2 * t);
        const wider = new Float64Array(2 * t);
        wider.set(tfAcc);
        tfAcc = wider;
      }
    }
    return t;
  };
  // Analyzers with a term-id form write ids into a buffer (no term strings per token).
  const ids = (analyzer as Partial<TermIdSource>).termIds?.(termIdOf) ?? null;
  let buf: Int32Array = new Int32Array(1024);
  for (let di = 0; di < docs.length; di++) {
    const doc = docs[di];
    let nd = 0;
    let len = 0;
    for (const [field, w] of fields) {
      const value = doc[field];
      if (typeof value !== "string") throw new Error(`buildFastBm25: doc ${JSON.stringify(doc.id)} (#${di}) field "${field}" is not a string`);
      let cnt: number;
      if (ids) {
        if (buf.length < value.length) buf = new Int32Array(value.length * 2);
        cnt = ids.analyzeInto(value, buf);
      } else {
        const toks = analyzer.analyze(value);
        cnt = toks.length;
        if (buf.length < cnt) buf = new Int32Array(cnt * 2);
        for (let j = 0; j < cnt; j++) buf[j] = termIdOf(toks[j]);
      }
      len += cnt * w;
      if (docTerms.length < nd + cnt) docTerms = growI32(docTerms, 2 * (nd + cnt));
      for (let j = 0; j < cnt; j++) {
        const t = buf[j];
        if (tfAcc[t] === 0) docTerms[nd++] = t;
        tfAcc[t] += w;
      }
    }
    docLen[di] = len;
    if (np + nd > pairTerm.length) {
      const cap = Math.max(np + nd, Math.ceil(pairTerm.length * 1.5));
      pairTerm = growI32(pairTerm, cap);
      pairTf = growF32(pairTf, cap);
    }
    for (let j = 0; j < nd; j++) {
      const t = docTerms[j];
      pairTerm[np] = t;
      pairTf[np++] = tfAcc[t];
      tfAcc[t] = 0;
      df[t]++;
    }
    docEnd[di] = np;
  }
  const v = terms.length;
  const offsets = new Float64Array(v + 1);
  for (let t = 0; t < v; t++) offsets[t + 1] = offsets[t] + df[t];
  const fill = offsets.slice(0, v);
  const postDocs = new Int32Array(np);
  let integral = true;
  for (let i = 0; i < np && integral; i++) integral = Number.isInteger(pairTf[i]) && pairTf[i] <= 255;
  const postTf = integral ? new Uint8Array(np) : new Float32Array(np);
  for (let d = 0, i = 0; d < docs.length; d++) {
    for (const end = docEnd[d]; i < end; i++) {
      const pos = fill[pairTerm[i]]++;
      postDocs[pos] = d;
      postTf[pos] = pairTf[i];
    }
  }
  const idBlob = packStrings(docs.map((d) => d.id));
  const termBlob = packStrings(terms);
  const engine = new FastBm25(
    { params: p, analyzerId: analyzer.id, contentHash: opts.contentHash ?? null, idBytes: idBlob.bytes, idEnds: idBlob.ends, termBytes: termBlob.bytes, termEnds: termBlob.ends, offsets, postDocs, postTf, docLen },
    analyzer,
  );
  engine.attachDocs(docs);
  return engine;
}

/** The term-id form of an analyzer (`termIds(termIdOf).analyzeInto(text, out)`), used by the build when the analyzer has it. */
interface TermIdSource {
  termIds(termIdOf: (term: string) => number): { analyzeInto(text: string, out: Int32Array): number };
}

/** A copy of `a` with capacity `cap` (≥ a.length). */
function growI32(a: Int32Array, cap: number): Int32Array {
  const out = new Int32Array(cap);
  out.set(a);
  return out;
}

/** A copy of `a` with capacity `cap` (≥ a.length). */
function growF32(a: Float32Array, cap: number): Float32Array {
  const out = new Float32Array(cap);
  out.set(a);
  return out;
}

/**
 * Loads an index folder written by {@link FastBm25.writeTo}.
 * @param dir the index folder.
 * @param opts analyzer (must have the id the index was built with).
 * @throws Error naming the folder or file when `header.json` is missing or unreadable, the format
 *   differs, an array file is missing, short or long, or the arrays disagree with the header. A
 *   cache that cannot be read is never silently rebuilt: delete the folder to rebuild it.
 */
export function readFastBm25(dir: string, opts: { analyzer?: Analyzer } = {}): FastBm25 {
  const headerPath = join(dir, "header.json");
  let header: {
    format: string;
    params: unknown;
    analyzerId: string;
    contentHash: string | null;
    docCount: number;
    vocabSize: number;
    postings: number;
    arrays: ArrayFileEntry[];
  };
  try {
    header = JSON.parse(readFileSync(headerPath, "utf8"));
  } catch (e) {
    throw new Error(`readFastBm25: cannot read ${headerPath}: ${(e as Error).message}`);
  }
  if (header.format !== FAST_BM25_FORMAT) throw new Error(`readFastBm25: ${dir} has format ${JSON.stringify(header.format)}, expected ${FAST_BM25_FORMAT}`);
  const byName = new Map((header.arrays ?? []).map((a) => [a.name, a]));
  const load = <T>(name: string): T => {
    const entry = byName.get(name);
    if (!entry) throw new Error(`readFastBm25: ${headerPath} lists no array "${name}"`);
    return readArrayFile(dir, entry) as T;
  };
  const idBytes = load<Uint8Array>("ids-utf8");
  const idEnds = load<Float64Array>("ids-ends");
  const termBytes = load<Uint8Array>("terms-utf8");
  const termEnds = load<Float64Array>("terms-ends");
  const offsets = load<Float64Array>("offsets");
  const postDocs = load<Int32Array>("post-docs");
  const postTf = load<Uint8Array | Float32Array>("post-tf");
  if (!(postTf instanceof Uint8Array || postTf instanceof Float32Array)) throw new Error(`readFastBm25: ${dir} is corrupt (post-tf must be uint8 or float32)`);
  const docLen = load<Float64Array>("doc-len");
  if (idEnds.length !== header.docCount || docLen.length !== header.docCount || (idEnds.length > 0 && idEnds[idEnds.length - 1] !== idBytes.length)) {
    throw new Error(`readFastBm25: ${dir} is corrupt (doc count ${header.docCount} vs ${idEnds.length} ids, ${docLen.length} lengths)`);
  }
  const v = termEnds.length;
  if (v !== header.vocabSize || offsets.length !== v + 1 || (v > 0 && termEnds[v - 1] !== termBytes.length)) throw new Error(`readFastBm25: ${dir} is corrupt (vocabulary/offsets sizes disagree)`);
  if (offsets[v] !== header.postings || postDocs.length !== header.postings || postTf.length !== header.postings) {
    throw new Error(`readFastBm25: ${dir} is corrupt (postings count mismatch)`);
  }
  let params: Bm25Params;
  try {
    params = parseBm25Params(header.params);
  } catch (e) {
    throw new Error(`readFastBm25: ${headerPath} is corrupt (${(e as Error).message})`);
  }
  return new FastBm25(
    { params, analyzerId: header.analyzerId, contentHash: header.contentHash, idBytes, idEnds, termBytes, termEnds, offsets, postDocs, postTf, docLen },
    opts.analyzer ?? defaultAnalyzer,
  );
}
