/**
 * medsynth's compact in-memory BM25 engine, built for query speed, with exact dynamic pruning.
 *
 * Layout (CSR inverted index): `offsets: Float64Array(V+1)` (64-bit-safe posting offsets, exact up
 * to 2⁵³), `postDocs: Int32Array(P)` (doc indices, ascending per term), `postTf: Float32Array(P)`
 * (field-weighted tf), per-doc lengths `docLen`. At build/load it derives `idf[t]`, per-doc length
 * norms `norm[d] = k1·(1 − b + b·dl/avgdl)`, a float32 impact per posting (`impact32`, 4 bytes per
 * posting: what pruning adds up, no BM25 arithmetic per posting at query time), each term's largest
 * impact `termMax[t]`, and a block-max index: per block of 64 postings its largest impact and last
 * doc (8 bytes per 64 postings).
 *
 * Queries ({@link FastBm25.searchSync}) run exact MaxScore (Turtle & Flood 1995), term-at-a-time,
 * lists sorted by upper bound `c·termMax[t]` (c = the term's count in the query), largest first:
 * - Phase 1 (essential lists) adds whole lists into a dense accumulator (reset through a touched
 *   list, never per query) while a document absent from all of them could still reach theta, the
 *   k-th best exact score so far. After each list, the k best partial scores among its documents
 *   are scored exactly and offered to a fixed-size binary heap of the top k, which raises theta.
 * - Phase 2 (non-essential lists) keeps only the touched documents whose partial score plus the
 *   per-window bound of the remaining lists reaches theta (window = 128 documents; the bound sums,
 *   over the remaining lists, the largest block maximum among blocks overlapping the window), and
 *   probes the remaining lists for them only (galloping over radix-sorted candidates, or one marked
 *   pass over a list when candidates are many), dropping candidates as the remaining bound shrinks.
 * - The survivors are scored exactly and offered to the heap.
 * Every pruning decision has a 1e-6 relative margin over the float32 sums, and only a bound
 * strictly below theta prunes (a tie may still win on corpus order).
 *
 * Exactness: every document offered to the heap is scored in float64 in query order — the same
 * expression and order as exhaustive scoring ({@link FastBm25.searchExhaustive}, the pre-pruning
 * algorithm) — so ids, order and scores are bit-identical to exhaustive scoring. Ties are broken
 * by corpus order (smaller internal doc index first). Scores equal {@link ./wink-engine.ts}'s to
 * ~1e-9 for the same analyzer and params; the formula is in {@link ./params.ts}.
 *
 * Works for any corpus size, including 0 or 1 document. Not safe for concurrent use from several
 * threads (scratch buffers per engine). Persisted as a folder of array files
 * ({@link FastBm25.writeTo}, {@link readFastBm25}), each split into parts so an index may exceed
 * 4 GiB.
 * @see Turtle & Flood (1995) "Query evaluation: strategies and optimizations", MaxScore.
 * @see Ding & Suel (2011) "Faster top-k document retrieval using block-max indexes" (block maxima).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { DEFAULT_PART_BYTES, packStrings, readArrayFile, unpackStrings, writeArrayFile, type ArrayFileEntry } from "./array-files.ts";
import { assertUniqueIds, Bm25ParamsSchema, type Bm25Engine, type Bm25Info, type Bm25Params } from "./params.ts";

/** Retriever id of the fast engine. */
export const FAST_BM25_ID = "bm25-fast";

/** Default {@link FastBm25.exhaustiveUpTo}: 2²⁰ postings (~8 MiB of Float64 impacts). */
export const EXHAUSTIVE_MAX_POSTINGS = 1 << 20;


/** Postings per block of the block-max index (each block keeps its largest impact and last doc). */
const BLOCK = 64;
/** log2 of the document window of the per-query window bounds (128 documents). */
const WINDOW_SHIFT = 7;
/** Phase 2 probes candidates by galloping when the list has more than this many postings per candidate, else scans the list. */
const GALLOP_RATIO = 32;

/** Format tag of the on-disk index folder (`header.json` field `format`). */
export const FAST_BM25_FORMAT = "medsynth-bm25-fast-v2";

/**
 * Relative safety margin of pruning decisions: partial sums run over Float32 impacts (relative
 * error ≤ 2⁻²⁴ ≈ 6e-8 each, summed in float64), so any decision is taken with 1e-6 to spare and the
 * final top k is rescored exactly.
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
  ids: string[];
  terms: string[];
  offsets: Float64Array;
  postDocs: Int32Array;
  postTf: Float32Array;
  docLen: Float64Array;
}

/** Work counters of the last {@link FastBm25.searchSync} call (for tests and benchmarks). */
export interface PruneStats {
  /** Postings in the lists of the query's known terms. */
  postings: number;
  /** Postings added in the OR phase plus candidate probes in the second phase (exhaustive = `postings`). */
  work: number;
  /** Documents rescored in query order at the end (≥ k unless fewer match). */
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
   * on small indexes pruning's bookkeeping costs more than it saves: ~0.55× the exhaustive q/s at
   * 3.3k docs). Default {@link EXHAUSTIVE_MAX_POSTINGS}; 0 = always prune.
   */
  exhaustiveUpTo = EXHAUSTIVE_MAX_POSTINGS;
  private readonly data: FastBm25Data;
  private readonly analyzer: Analyzer;
  private readonly vocab = new Map<string, number>();
  private readonly idf: Float64Array;
  private readonly norm: Float64Array;
  private readonly k1p1: number;
  /** Largest impact of each term's postings (MaxScore upper bound). */
  private readonly termMax: Float64Array;
  /** Per-posting impacts rounded to float32 (4 bytes per posting): what pruning adds up. */
  private readonly impact32: Float32Array;
  /** Per-posting impacts, materialised on the first exhaustive search only. */
  private impact: Float64Array | null = null;
  private acc: Float64Array | null = null;
  private touched: Int32Array | null = null;
  /**
   * Block-max index: term t's postings [offsets[t], offsets[t+1]) are cut into blocks of
   * {@link BLOCK} postings, numbered blockFirst[t] .. blockFirst[t+1]-1 (Float64: 64-bit safe);
   * blockMax[b] = largest float32 impact in block b, blockLast[b] = its last (largest) doc index.
   */
  private readonly blockFirst: Float64Array;
  private readonly blockMax: Float32Array;
  private readonly blockLast: Int32Array;
  /** Per-document marks of a search (values are per-query generations), allocated on first use. */
  private mark: Uint32Array | null = null;
  private markGen = 0;
  private scratchBufs: Scratch | null = null;
  /** Per-window bounds of the non-essential lists (see {@link windowBounds}), allocated on first use. */
  private winBound: Float64Array | null = null;
  private docs: (CorpusDoc | undefined)[] | null = null;

  /** @internal use {@link buildFastBm25} or {@link readFastBm25}. */
  constructor(data: FastBm25Data, analyzer: Analyzer) {
    if (analyzer.id !== data.analyzerId) {
      throw new Error(`FastBm25: index was built with analyzer ${data.analyzerId} but ${analyzer.id} was given; rebuild the index`);
    }
    this.data = data;
    this.analyzer = analyzer;
    data.terms.forEach((t, i) => this.vocab.set(t, i));
    const n = data.ids.length;
    const { k1, b } = data.params;
    let total = 0;
    for (let d = 0; d < n; d++) total += data.docLen[d];
    const avgdl = n > 0 ? total / n : 0;
    this.norm = new Float64Array(n);
    for (let d = 0; d < n; d++) this.norm[d] = k1 * (1 - b + (avgdl > 0 ? (b * data.docLen[d]) / avgdl : 0));
    const v = data.terms.length;
    this.idf = new Float64Array(v);
    this.termMax = new Float64Array(v);
    this.impact32 = new Float32Array(data.postDocs.length);
    this.k1p1 = k1 + 1;
    const { offsets, postDocs, postTf } = data;
    const { norm, k1p1 } = this;
    for (let t = 0; t < v; t++) {
      const df = offsets[t + 1] - offsets[t];
      const idf = Math.log((n - df + 0.5) / (df + 0.5) + 1);
      this.idf[t] = idf;
      let max = 0;
      for (let p = offsets[t], end = offsets[t + 1]; p < end; p++) {
        const tf = postTf[p];
        const s = (idf * (tf * k1p1)) / (tf + norm[postDocs[p]]);
        this.impact32[p] = s;
        if (s > max) max = s;
      }
      // Bound of the float32 impacts too (rounding may go up by ≤ 2⁻²⁴ relative).
      this.termMax[t] = max * (1 + 2 ** -23);
    }
    this.blockFirst = new Float64Array(v + 1);
    for (let t = 0; t < v; t++) this.blockFirst[t + 1] = this.blockFirst[t] + Math.ceil((offsets[t + 1] - offsets[t]) / BLOCK);
    const nb = this.blockFirst[v];
    this.blockMax = new Float32Array(nb);
    this.blockLast = new Int32Array(nb);
    const { impact32, blockMax, blockLast } = this;
    for (let t = 0; t < v; t++) {
      const end = offsets[t + 1];
      for (let b = this.blockFirst[t], p = offsets[t]; p < end; b++) {
        const stop = Math.min(p + BLOCK, end);
        let max = 0;
        for (; p < stop; p++) if (impact32[p] > max) max = impact32[p];
        blockMax[b] = max;
        blockLast[b] = postDocs[stop - 1];
      }
    }
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

  /** {@inheritDoc Bm25Engine.attachDocs} */
  attachDocs(docs: readonly CorpusDoc[]): void {
    const index = new Map<string, number>();
    this.data.ids.forEach((id, i) => index.set(id, i));
    const arr: (CorpusDoc | undefined)[] = new Array(this.data.ids.length);
    for (const d of docs) {
      const i = index.get(d.id);
      if (i !== undefined) arr[i] = d;
    }
    this.docs = arr;
  }

  /** Per-query scratch arrays (reused; grown to the largest query and k seen). */
  private scratch(m: number, k: number): Scratch {
    let s = this.scratchBufs;
    if (!s || s.lt.length < m || s.heapDoc.length < k) {
      const cm = Math.max(m, s?.lt.length ?? 0, 16);
      const ck = Math.max(k, s?.heapDoc.length ?? 0, 16);
      s = this.scratchBufs = {
        order: new Int32Array(cm),
        ub: new Float64Array(cm),
        lt: new Int32Array(cm),
        lc: new Float64Array(cm),
        rem: new Float64Array(cm + 1),
        heapDoc: new Int32Array(ck),
        heapScore: new Float64Array(ck),
        partDoc: new Int32Array(ck),
        partVal: new Float64Array(ck),
        cands: s?.cands ?? new Int32Array(1024),
        radixTmp: s?.radixTmp ?? new Int32Array(1024),
        radixCount: new Int32Array(257),
      };
    }
    return s;
  }

  /** Known query terms in query order with their multiplicities (a term occurring c times adds c × its impact, as wink does). */
  private queryTerms(query: string): { terms: number[]; counts: number[] } {
    const counts = new Map<number, number>();
    for (const term of this.analyzer.analyze(query)) {
      const t = this.vocab.get(term);
      if (t !== undefined) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return { terms: [...counts.keys()], counts: [...counts.values()] };
  }

  private toHits(docIdx: ArrayLike<number>, scores: ArrayLike<number>, size: number): SearchHit[] {
    const hits: SearchHit[] = [];
    for (let i = 0; i < size; i++) {
      const d = docIdx[i];
      const hit: SearchHit = { id: this.data.ids[d], score: scores[i], rank: i + 1, scores: { bm25: scores[i] } };
      const doc = this.docs?.[d];
      if (doc) hit.doc = doc;
      hits.push(hit);
    }
    return hits;
  }

  /**
   * Top-k by exact MaxScore, term-at-a-time (see the file header): the same hits, order and
   * scores as {@link searchExhaustive}.
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
    const n = this.data.ids.length;
    if (n === 0) return [];
    if (this.data.postDocs.length <= this.exhaustiveUpTo) return this.searchExhaustive(query, k);
    const { terms, counts } = this.queryTerms(query);
    const m = terms.length;
    if (m === 0) return [];
    const kk = Math.min(Math.floor(k), n);
    const { offsets, postDocs } = this.data;
    const { termMax, impact32 } = this;
    const s = this.scratch(m, kk);
    const { order, ub, lt, lc, rem, heapDoc, heapScore, partDoc, partVal } = s;
    const acc = (this.acc ??= new Float64Array(n));
    const touched = (this.touched ??= new Int32Array(n));
    const mark = (this.mark ??= new Uint32Array(n));
    if (this.markGen >= 0xfffffff0) {
      mark.fill(0);
      this.markGen = 0;
    }
    /** mark[d] === scored: d's exact score was offered to the top-k heap. */
    const scored = ++this.markGen;
    // Lists by descending upper bound (ties by query position); rem[j] = Σ bounds of lists j..m-1.
    for (let i = 0; i < m; i++) {
      order[i] = i;
      ub[i] = -counts[i] * termMax[terms[i]];
      stats.postings += offsets[terms[i] + 1] - offsets[terms[i]];
    }
    insertionSortBy(order, m, ub);
    for (let j = 0; j < m; j++) {
      lt[j] = terms[order[j]];
      lc[j] = counts[order[j]];
    }
    rem[m] = 0;
    for (let j = m - 1; j >= 0; j--) rem[j] = rem[j + 1] - ub[order[j]];
    let size = 0; // documents in the exact top-k heap
    let theta = -Infinity; // its k-th score once full: a doc whose bound is below it cannot enter
    let finalists = 0;
    const offer = (d: number): void => {
      mark[d] = scored;
      finalists++;
      const score = this.exactScore(terms, counts, d);
      if (size < kk) {
        heapPush(heapDoc, heapScore, size++, d, score);
        if (size === kk) theta = heapScore[0];
      } else if (score > heapScore[0] || (score === heapScore[0] && d < heapDoc[0])) {
        heapReplaceTop(heapDoc, heapScore, size, d, score);
        theta = heapScore[0];
      }
    };
    // Phase 1 (essential lists): add whole lists, largest bound first, while a document missing
    // from all of them could still reach theta. After each list, the k best partial scores among
    // its documents are scored exactly and offered to the heap, which raises theta.
    let nt = 0;
    let work = 0;
    let j = 0;
    for (; j < m; j++) {
      if (rem[j] * BOUND_MARGIN < theta) break;
      const c = lc[j];
      const t = lt[j];
      const end = offsets[t + 1];
      work += end - offsets[t];
      let np = 0;
      for (let p = offsets[t]; p < end; p++) {
        const d = postDocs[p];
        if (acc[d] === 0) touched[nt++] = d;
        const v = (acc[d] += c * impact32[p]);
        if (np < kk) partPush(partDoc, partVal, np++, d, v);
        else if (v > partVal[0]) partReplaceTop(partDoc, partVal, np, d, v);
      }
      const r = rem[j + 1];
      for (let q = 0; q < np; q++) {
        const d = partDoc[q];
        if (mark[d] !== scored && (partVal[q] + r) * BOUND_MARGIN >= theta) offer(d);
      }
    }
    // Phase 2 (non-essential lists): only touched documents can still enter; keep those whose
    // partial score plus the remaining bounds reaches theta, probe the remaining lists for them,
    // dropping candidates as the bounds shrink.
    if (s.cands.length < nt) {
      s.cands = new Int32Array(Math.min(n, Math.max(nt, 2 * s.cands.length)));
      s.radixTmp = new Int32Array(s.cands.length);
    }
    const cands = s.cands;
    let nc = 0;
    if (j < m) {
      // Bound of the non-essential lists per window of 2^WINDOW_SHIFT documents: Σ over lists of
      // the largest block maximum among the list's blocks overlapping the window.
      const win = this.windowBounds(lt, lc, j, m);
      for (let q = 0; q < nt; q++) {
        const d = touched[q];
        if (mark[d] !== scored && (acc[d] + win[d >>> WINDOW_SHIFT]) * BOUND_MARGIN >= theta) cands[nc++] = d;
      }
    } else {
      for (let q = 0; q < nt; q++) {
        const d = touched[q];
        if (mark[d] !== scored && acc[d] * BOUND_MARGIN >= theta) cands[nc++] = d;
      }
    }
    if (nc > 0 && j < m) {
      // Phase 2 (non-essential lists j..m-1, largest bound first): probe the candidates (in doc
      // order: galloping) or, when they are many for the list, one pass adding for marked
      // candidates; after each list drop those whose partial score plus the remaining bounds
      // falls below theta.
      const cand = ++this.markGen;
      for (let q = 0; q < nc; q++) mark[cands[q]] = cand;
      let sorted = false;
      for (; j < m && nc > 0; j++) {
        const c = lc[j];
        const t = lt[j];
        const start = offsets[t];
        const end = offsets[t + 1];
        if (nc * GALLOP_RATIO < end - start) {
          if (!sorted) {
            radixSort(cands, nc, n, s);
            sorted = true;
          }
          work += nc;
          let p = start;
          for (let q = 0; q < nc && p < end; q++) {
            const d = cands[q];
            p = seek(postDocs, p, end, d);
            if (p < end && postDocs[p] === d) acc[d] += c * impact32[p++];
          }
        } else {
          work += end - start;
          for (let p = start; p < end; p++) {
            const d = postDocs[p];
            if (mark[d] === cand) acc[d] += c * impact32[p];
          }
        }
        const r = rem[j + 1];
        let kept = 0;
        for (let q = 0; q < nc; q++) {
          const d = cands[q];
          if ((acc[d] + r) * BOUND_MARGIN >= theta) cands[kept++] = d;
          else mark[d] = 0;
        }
        nc = kept;
      }
    }
    for (let q = 0; q < nc; q++) if (acc[cands[q]] * BOUND_MARGIN >= theta) offer(cands[q]);
    for (let q = 0; q < nt; q++) acc[touched[q]] = 0;
    stats.work = work;
    stats.finalists = finalists;
    return this.toHits(...sortHeap(heapDoc, heapScore, size), size);
  }

  /**
   * Per-window upper bounds of lists j0..m-1: win[w] = Σ_j c_j × max{blockMax[b] : block b of
   * list j overlaps documents [w·W, (w+1)·W)}, W = 2^WINDOW_SHIFT. Reuses one array of ⌈n/W⌉.
   */
  private windowBounds(lt: Int32Array, lc: Float64Array, j0: number, m: number): Float64Array {
    const nw = (this.data.ids.length >>> WINDOW_SHIFT) + 1;
    const win = (this.winBound ??= new Float64Array(nw));
    win.fill(0);
    const { offsets, postDocs } = this.data;
    const { blockFirst, blockMax, blockLast } = this;
    for (let jj = j0; jj < m; jj++) {
      const t = lt[jj];
      const c = lc[jj];
      const b0 = blockFirst[t];
      const b1 = blockFirst[t + 1];
      const p0 = offsets[t];
      let cw = -1;
      let cmax = 0;
      for (let b = b0; b < b1; b++) {
        const v = c * blockMax[b];
        const w0 = postDocs[p0 + (b - b0) * BLOCK] >>> WINDOW_SHIFT;
        const w1 = blockLast[b] >>> WINDOW_SHIFT;
        for (let w = w0; w <= w1; w++) {
          if (w === cw) {
            if (v > cmax) cmax = v;
          } else {
            if (cw >= 0) win[cw] += cmax;
            cw = w;
            cmax = v;
          }
        }
      }
      if (cw >= 0) win[cw] += cmax;
    }
    return win;
  }

  /** Exact score of doc d: Σ over query terms in query order of count × impact (float64), the exhaustive expression. */
  private exactScore(terms: readonly number[], counts: readonly number[], d: number): number {
    const { offsets, postDocs, postTf } = this.data;
    const { idf, k1p1 } = this;
    const nd = this.norm[d];
    let score = 0;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      const end = offsets[t + 1];
      const p = lowerBound(postDocs, offsets[t], end, d);
      if (p < end && postDocs[p] === d) {
        const tf = postTf[p];
        const imp = (idf[t] * (tf * k1p1)) / (tf + nd);
        score += counts[i] === 1 ? imp : counts[i] * imp;
      }
    }
    return score;
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
    const n = this.data.ids.length;
    if (n === 0) return [];
    const { terms, counts } = this.queryTerms(query);
    if (terms.length === 0) return [];
    const { offsets, postDocs } = this.data;
    const impact = this.materialiseImpacts();
    const acc = (this.acc ??= new Float64Array(n));
    const touched = (this.touched ??= new Int32Array(n));
    // acc is all-zero between queries (reset below through `touched`); impacts are > 0, so
    // acc[d] === 0 means "first touch".
    let nt = 0;
    for (let q = 0; q < terms.length; q++) {
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
    const heapDoc = new Int32Array(kk);
    const heapScore = new Float64Array(kk);
    let size = 0;
    for (let i = 0; i < nt; i++) {
      const d = touched[i];
      const s = acc[d];
      if (size < kk) heapPush(heapDoc, heapScore, size++, d, s);
      else if (s > heapScore[0] || (s === heapScore[0] && d < heapDoc[0])) heapReplaceTop(heapDoc, heapScore, size, d, s);
    }
    for (let i = 0; i < nt; i++) acc[touched[i]] = 0;
    return this.toHits(...sortHeap(heapDoc, heapScore, size), size);
  }

  private materialiseImpacts(): Float64Array {
    if (this.impact) return this.impact;
    const { offsets, postDocs, postTf } = this.data;
    const impact = new Float64Array(postDocs.length);
    const { idf, norm, k1p1 } = this;
    for (let t = 0; t < this.data.terms.length; t++) {
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
    return this.data.ids;
  }

  /** Number of postings (Σ document frequencies). */
  get postingCount(): number {
    return this.data.postDocs.length;
  }

  /**
   * Writes the index into folder `dir` (created if missing): `header.json` (format, params,
   * analyzer id, content hash, counts, array manifest) and array part files — ids and terms as
   * UTF-8 blobs with Float64 end offsets, `offsets` (Float64), `postDocs` (Int32), `postTf`
   * (Float32), `docLen` (Float64) — each split into parts of ≤ `partBytes` bytes.
   * `header.json` is written last, so a folder without it is an interrupted write.
   * @param opts.partBytes maximum bytes per part file (default 1 GiB; tests use a few bytes).
   * @returns total bytes written.
   */
  writeTo(dir: string, opts: { partBytes?: number } = {}): number {
    mkdirSync(dir, { recursive: true });
    const part = opts.partBytes ?? DEFAULT_PART_BYTES;
    const { params, analyzerId, contentHash, ids, terms, offsets, postDocs, postTf, docLen } = this.data;
    const idBlob = packStrings(ids);
    const termBlob = packStrings(terms);
    const arrays: [string, Int32Array | Float32Array | Float64Array | Uint8Array][] = [
      ["ids-utf8", idBlob.bytes],
      ["ids-ends", idBlob.ends],
      ["terms-utf8", termBlob.bytes],
      ["terms-ends", termBlob.ends],
      ["offsets", offsets],
      ["post-docs", postDocs],
      ["post-tf", postTf],
      ["doc-len", docLen],
    ];
    const manifest = arrays.map(([name, a]) => writeArrayFile(dir, name, a, part));
    const bytes = arrays.reduce((s, [, a]) => s + a.byteLength, 0);
    const header = { format: FAST_BM25_FORMAT, params, analyzerId, contentHash, docCount: ids.length, vocabSize: terms.length, postings: postDocs.length, arrays: manifest };
    writeFileSync(join(dir, "header.json"), JSON.stringify(header, null, 1) + "\n");
    return bytes;
  }
}

/** Per-query scratch of {@link FastBm25.searchSync}: per-list arrays (index = list rank by upper bound), the top-k heaps, candidates. */
interface Scratch {
  order: Int32Array;
  ub: Float64Array;
  lt: Int32Array;
  lc: Float64Array;
  rem: Float64Array;
  heapDoc: Int32Array;
  heapScore: Float64Array;
  partDoc: Int32Array;
  partVal: Float64Array;
  cands: Int32Array;
  radixTmp: Int32Array;
  radixCount: Int32Array;
}

/** Sorts a[0..len) (doc indices in [0, n)) ascending: LSD radix sort, 8 bits per pass, as many passes as n needs. */
function radixSort(a: Int32Array, len: number, n: number, s: { radixTmp: Int32Array; radixCount: Int32Array }): void {
  if (len < 64) {
    for (let i = 1; i < len; i++) {
      const x = a[i];
      let j = i - 1;
      while (j >= 0 && a[j] > x) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = x;
    }
    return;
  }
  let src = a;
  let dst = s.radixTmp;
  const count = s.radixCount;
  for (let shift = 0; shift < 32 && n - 1 >>> shift > 0; shift += 8) {
    count.fill(0);
    for (let i = 0; i < len; i++) count[((src[i] >>> shift) & 255) + 1]++;
    for (let i = 1; i < 257; i++) count[i] += count[i - 1];
    for (let i = 0; i < len; i++) dst[count[(src[i] >>> shift) & 255]++] = src[i];
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== a) a.set(src.subarray(0, len));
}

/** Sorts order[0..m) by key[order[i]] ascending, ties by index ascending (insertion sort: m is a query's term count). */
function insertionSortBy(order: Int32Array, m: number, key: Float64Array): void {
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

/** First position p in [from, to) with postDocs[p] ≥ d (binary search); `to` if none. */
function lowerBound(postDocs: Int32Array, from: number, to: number, d: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (postDocs[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

/** Heap contents best first (score descending, doc index ascending). */
function sortHeap(docs: Int32Array, scores: Float64Array, size: number): [Int32Array, Float64Array] {
  const idx = Array.from({ length: size }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || docs[a] - docs[b]);
  return [Int32Array.from(idx, (i) => docs[i]), Float64Array.from(idx, (i) => scores[i])];
}

/**
 * Builds a {@link FastBm25} index over `docs` (fields `title` and `text`).
 * @param docs corpus documents, unique non-empty ids; any count (0 allowed).
 * @param params partial {@link Bm25Params} (defaults k1 1.5, b 0.75, weights 1/1).
 * @param opts analyzer and content hash to record.
 * @returns the engine, with `docs` attached.
 * @throws Error on a duplicate or empty id, or a doc whose title/text is not a string; ZodError on bad params.
 */
export function buildFastBm25(docs: readonly CorpusDoc[], params: Partial<Bm25Params> = {}, opts: FastBm25Options = {}): FastBm25 {
  const p = Bm25ParamsSchema.parse(params);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  assertUniqueIds(docs, "buildFastBm25");
  const vocab = new Map<string, number>();
  const terms: string[] = [];
  const df: number[] = [];
  const docTerms: Int32Array[] = [];
  const docTfs: Float32Array[] = [];
  const docLen = new Float64Array(docs.length);
  const fields: ["title" | "text", number][] = [
    ["title", p.fieldWeights.title],
    ["text", p.fieldWeights.text],
  ];
  const tf = new Map<number, number>();
  docs.forEach((doc, di) => {
    tf.clear();
    let len = 0;
    for (const [field, w] of fields) {
      const value = doc[field];
      if (typeof value !== "string") throw new Error(`buildFastBm25: doc ${JSON.stringify(doc.id)} (#${di}) field "${field}" is not a string`);
      const toks = analyzer.analyze(value);
      len += toks.length * w;
      for (const tok of toks) {
        let t = vocab.get(tok);
        if (t === undefined) {
          t = terms.length;
          vocab.set(tok, t);
          terms.push(tok);
          df.push(0);
        }
        tf.set(t, (tf.get(t) ?? 0) + w);
      }
    }
    docLen[di] = len;
    const ts = new Int32Array(tf.size);
    const fs = new Float32Array(tf.size);
    let j = 0;
    for (const [t, f] of tf) {
      ts[j] = t;
      fs[j] = f;
      df[t] += 1;
      j++;
    }
    docTerms.push(ts);
    docTfs.push(fs);
  });
  const v = terms.length;
  const offsets = new Float64Array(v + 1);
  for (let t = 0; t < v; t++) offsets[t + 1] = offsets[t] + df[t];
  const fill = offsets.slice(0, v);
  const postDocs = new Int32Array(offsets[v]);
  const postTf = new Float32Array(offsets[v]);
  for (let d = 0; d < docs.length; d++) {
    const ts = docTerms[d];
    const fs = docTfs[d];
    for (let j = 0; j < ts.length; j++) {
      const pos = fill[ts[j]]++;
      postDocs[pos] = d;
      postTf[pos] = fs[j];
    }
  }
  const engine = new FastBm25(
    { params: p, analyzerId: analyzer.id, contentHash: opts.contentHash ?? null, ids: docs.map((d) => d.id), terms, offsets, postDocs, postTf, docLen },
    analyzer,
  );
  engine.attachDocs(docs);
  return engine;
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
  const ids = unpackStrings(load<Uint8Array>("ids-utf8"), load<Float64Array>("ids-ends"));
  const terms = unpackStrings(load<Uint8Array>("terms-utf8"), load<Float64Array>("terms-ends"));
  const offsets = load<Float64Array>("offsets");
  const postDocs = load<Int32Array>("post-docs");
  const postTf = load<Float32Array>("post-tf");
  const docLen = load<Float64Array>("doc-len");
  if (ids.length !== header.docCount || docLen.length !== header.docCount) throw new Error(`readFastBm25: ${dir} is corrupt (doc count ${header.docCount} vs ${ids.length} ids, ${docLen.length} lengths)`);
  if (terms.length !== header.vocabSize || offsets.length !== terms.length + 1) throw new Error(`readFastBm25: ${dir} is corrupt (vocabulary/offsets sizes disagree)`);
  if (offsets[terms.length] !== header.postings || postDocs.length !== header.postings || postTf.length !== header.postings) {
    throw new Error(`readFastBm25: ${dir} is corrupt (postings count mismatch)`);
  }
  return new FastBm25(
    { params: Bm25ParamsSchema.parse(header.params), analyzerId: header.analyzerId, contentHash: header.contentHash, ids, terms, offsets, postDocs, postTf, docLen },
    opts.analyzer ?? defaultAnalyzer,
  );
}
