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
 * Queries ({@link FastBm25.searchSync}) with at least half as many postings in their lists as the
 * corpus has documents (long questions) run quantised term-at-a-time with exact rescoring
 * (fast-taat.ts: 4 more bytes per posting, made on the first such query); the others run exact
 * block-max MaxScore (Turtle & Flood 1995; windowed
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
 *   to each candidate when they are few, else one pass over the window's postings that adds only
 *   at candidates' bits), and candidates that can no longer reach theta are dropped.
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
 * Files: this one (the engine: state, query analysis, strategy, hits, exhaustive reference), fast-query.ts
 * (the pruned search's phases and the block-max fill), fast-taat.ts (term-at-a-time), fast-build.ts (build), fast-persist.ts
 * (index folder), topk-heap.ts (top-k heap, shared with the on-disk engine).
 * @see Turtle & Flood (1995) "Query evaluation: strategies and optimizations", MaxScore.
 * @see Ding & Suel (2011) "Faster top-k document retrieval using block-max indexes" (block maxima).
 * @see Lucene `MaxScoreBulkScorer` (windowed MaxScore with per-window essential lists).
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer, type TermIdAnalyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { DEFAULT_PART_BYTES, unpackStrings } from "./array-files.ts";
import { buildFastBm25Data, type FastBm25Data } from "./fast-build.ts";
import { readFastBm25Data, writeFastBm25Data } from "./fast-persist.ts";
import { BLOCK, ensureScratch, fillBlockMax, prunedTopK, type IndexView, type Scratch } from "./fast-query.ts";
import { createTaatState, TAAT_MAX_COUNT, TAAT_MIN_POSTINGS_PER_DOC, taatTopK, type TaatState } from "./fast-taat.ts";
import { TermTable } from "./term-table.ts";
import type { Bm25Engine, Bm25Info, Bm25Params } from "./params.ts";
import { heapPush, heapReplaceTop, sortHeap } from "./topk-heap.ts";

export { FAST_BM25_FORMAT } from "./fast-persist.ts";

/** Retriever id of the fast engine. */
export const FAST_BM25_ID = "bm25-fast";

/**
 * How {@link FastBm25.searchSync} answers a query: `auto` (default) = quantised term-at-a-time
 * (fast-taat.ts) when the query's lists hold ≥ `TAAT_MIN_POSTINGS_PER_DOC` (0.5) postings per
 * document, else block-max MaxScore; `pruned` / `taat` force one (`taat` falls back to `pruned`
 * for a query whose term counts sum to 2¹⁵ or more). Every strategy returns the same hits and
 * scores.
 */
export type FastBm25Strategy = "auto" | "pruned" | "taat";

/** Term id standing for a query token that is not in the vocabulary (ids are < 2³¹ − 1). */
const UNKNOWN_TERM = 0x7fffffff;

/** Options of {@link buildFastBm25} and {@link readFastBm25}. */
export interface FastBm25Options {
  /** Analyzer for documents and queries (default {@link defaultAnalyzer}); a loaded index must match its id. */
  analyzer?: Analyzer;
  /** Content hash to record in `info` (see corpusContentHash); default null. */
  contentHash?: string | null;
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
  /** Query strategy (see {@link FastBm25Strategy}); tests and benches force one. */
  strategy: FastBm25Strategy = "auto";
  /** Strategy the last {@link searchSync} call took. */
  lastStrategy: "pruned" | "taat" | null = null;
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
  private seen: Uint8Array | null = null;
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
  /** Quantised impacts and accumulators of the TAAT strategy, made on its first query. */
  private taat: TaatState | null = null;
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
    this.ix = { postDocs, postTf, norm, blockMax: this.blockMax, blockFirstDoc: this.blockFirstDoc, blockLast: this.blockLast, k1p1, offsets, termMax, blockFirst: this.blockFirst, idf: this.idf };
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
    return (this.scratchBufs = ensureScratch(this.scratchBufs, m, k, this.cursorsAsFloat64 || this.data.postDocs.length >= 2 ** 31));
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
   * Exact top-k: quantised term-at-a-time for queries with many postings per document (fast-taat.ts),
   * else block-max MaxScore, document-at-a-time over windows of `WINDOW` documents (see the file
   * header and {@link strategy}); either way the same hits, order and scores as {@link searchExhaustive}.
   * @param query free text; analyzed like the documents.
   * @param k hits wanted (≥ 1; fractional k is floored).
   * @returns ≤ k hits, best first, ties by corpus order; [] for an empty or unknown-terms query or k < 1.
   */
  searchSync(query: string, k: number): SearchHit[] {
    const stats = this.lastStats;
    stats.postings = 0;
    stats.work = 0;
    stats.finalists = 0;
    this.lastStrategy = null;
    if (!(k >= 1) || typeof query !== "string") return [];
    const n = this.docCount;
    if (n === 0) return [];
    const m = this.queryTerms(query);
    if (m === 0) return [];
    const kk = Math.min(Math.floor(k), n);
    if (this.useTaat(m)) {
      this.lastStrategy = "taat";
      const st = (this.taat ??= createTaatState(this.ix));
      const size = taatTopK(st, this.ix, this.qTerms, this.qCounts, m, kk, stats);
      return this.toHits(st.heapDoc, st.heapScore, size);
    }
    this.lastStrategy = "pruned";
    const s = this.scratch(m, kk);
    const size = prunedTopK(s, this.ix, this.qTerms, this.qCounts, m, kk, n, stats);
    return this.toHits(s.heapDoc, s.heapScore, size);
  }

  /** Whether the query in {@link qTerms} (m terms) is answered term-at-a-time (see {@link strategy}). */
  private useTaat(m: number): boolean {
    if (this.strategy === "pruned") return false;
    const { offsets } = this.data;
    let count = 0;
    let postings = 0;
    for (let i = 0; i < m; i++) {
      const t = this.qTerms[i];
      count += this.qCounts[i];
      postings += offsets[t + 1] - offsets[t];
    }
    if (count >= TAAT_MAX_COUNT || this.data.postDocs.length >= 2 ** 31) return false;
    return this.strategy === "taat" || postings >= TAAT_MIN_POSTINGS_PER_DOC * this.docCount;
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
    // acc and seen are all-zero between queries (reset below through `touched`). An impact can be
    // 0 (a field weight so small that the stored tf is 0), so acc[d] === 0 cannot mark "first touch".
    const seen = (this.seen ??= new Uint8Array(n));
    let nt = 0;
    for (let q = 0; q < m; q++) {
      const t = terms[q];
      const c = counts[q];
      const stop = offsets[t + 1];
      if (c === 1) {
        for (let p = offsets[t]; p < stop; p++) {
          const d = postDocs[p];
          if (seen[d] === 0) {
            seen[d] = 1;
            touched[nt++] = d;
          }
          acc[d] += impact[p];
        }
      } else {
        for (let p = offsets[t]; p < stop; p++) {
          const d = postDocs[p];
          if (seen[d] === 0) {
            seen[d] = 1;
            touched[nt++] = d;
          }
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
    for (let i = 0; i < nt; i++) {
      acc[touched[i]] = 0;
      seen[touched[i]] = 0;
    }
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

  /**
   * How term-at-a-time adds postings: `wasm` (the WebAssembly kernel, taat-kernel.ts), `js` (no
   * kernel could be made: no WebAssembly, no address space, or over 1.07 × 10⁹ postings), or null
   * before the first term-at-a-time query.
   */
  get taatAccumulator(): "wasm" | "js" | null {
    return this.taat ? (this.taat.kernel ? "wasm" : "js") : null;
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
    return writeFastBm25Data(dir, this.data, opts.partBytes ?? DEFAULT_PART_BYTES);
  }
}

/**
 * Builds a {@link FastBm25} index over `docs` (fields `title` and `text`); the build itself is
 * `buildFastBm25Data` (fast-build.ts).
 * @param docs corpus documents, unique non-empty ids; any count (0 allowed).
 * @param params partial {@link Bm25Params} (defaults k1 1.5, b 0.75, weights 1/1).
 * @param opts analyzer and content hash to record.
 * @returns the engine, with `docs` attached.
 * @throws Error on a duplicate or empty id, a doc whose title/text is not a string, or bad params (naming the field).
 */
export function buildFastBm25(docs: readonly CorpusDoc[], params: Partial<Bm25Params> = {}, opts: FastBm25Options = {}): FastBm25 {
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  const engine = new FastBm25(buildFastBm25Data(docs, params, analyzer, opts.contentHash ?? null), analyzer);
  engine.attachDocs(docs);
  return engine;
}

/**
 * Loads an index folder written by {@link FastBm25.writeTo} (reading and checks:
 * `readFastBm25Data`, fast-persist.ts).
 * @param dir the index folder.
 * @param opts analyzer (must have the id the index was built with).
 * @throws Error naming the folder or file when `header.json` is missing or unreadable, the format
 *   differs, an array file is missing, short or long, or the arrays disagree with the header; Error
 *   when the analyzer differs from the index's. A cache that cannot be read is never silently
 *   rebuilt: delete the folder to rebuild it.
 */
export function readFastBm25(dir: string, opts: { analyzer?: Analyzer } = {}): FastBm25 {
  return new FastBm25(readFastBm25Data(dir), opts.analyzer ?? defaultAnalyzer);
}
