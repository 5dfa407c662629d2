/**
 * Quantised term-at-a-time (TAAT) top-k for medsynth's in-memory BM25 engine (fast-engine.ts),
 * exact: the strategy for queries whose lists hold about as many postings as the corpus has
 * documents (long questions — the MedEvidence questions average ~15 distinct terms and 2 postings
 * per document at 100 k docs), where block-max MaxScore reads ~40 % of the postings at ~10× the
 * cost of a plain accumulation loop (docs/bm25-performance.md).
 *
 * 1. Every posting's impact `idf·tf·(k1+1)/(tf + norm[d])` is quantised once (on the first TAAT
 *    query; packed with the document's offset in its window: 4 bytes per posting) to
 *    `q = ⌈impact / scale⌉` ∈ [1, 65535], one `scale` for the whole index (`scale` = the largest
 *    possible impact, `max idf · (k1+1)`, / 65535), so that
 *    `scale·(q − 2) < impact ≤ scale·q` (the extra unit absorbs floating-point rounding).
 * 2. A query adds `c·q` (c = the term's count in the query) of every posting of its terms into an
 *    Int32 accumulator `U[d]` — one load, one add per posting, no division.
 * 3. The k-th largest block maximum of U (blocks of {@link TAAT_BLOCK} documents) is a lower bound L
 *    of the k-th largest U (k blocks each hold a document ≥ it); only blocks whose maximum reaches
 *    `L − 2C − 1` are read again, collecting the documents with `U ≥ L − 2C − 1` (C = Σ counts).
 * 4. With `A_k` the k-th largest U among them, every document of the exact top k has
 *    `U ≥ A_k − 2C − 1`: each of the k documents with `U ≥ A_k` scores more than `scale·(A_k − 2C)`,
 *    so the k-th best exact score θ does too, and a document scoring ≥ θ has `scale·U ≥ θ`. Those
 *    candidates (≈ k for real questions) are scored exactly — float64, in query order, the same
 *    expression as {@link FastBm25.searchExhaustive}, each list probed by binary search — and the
 *    best k kept, ties by corpus order: ids, order and scores are bit-identical to exhaustive
 *    scoring.
 * Cost ≈ 2 ns per posting + ~1–2 ns per document on this machine (the block-max pass and a fill),
 * so short queries (few postings per document) stay with the pruned search; the engine chooses
 * ({@link TAAT_MIN_POSTINGS_PER_DOC}). Needs Σ counts < 2¹⁵ (so U fits in int32); the engine
 * falls back to the pruned search beyond.
 * No zod, no I/O: a query process loads this file.
 * @see Anh, de Kretser & Moffat (2001) "Vector-space ranking with effective early termination"
 *   (impact quantisation); Crane et al. (2017) "A comparison of document-at-a-time and
 *   score-at-a-time query evaluation" (quantised accumulation).
 */
import { heapPush, heapReplaceTop, sortHeap } from "./topk-heap.ts";

/** Documents per accumulator window (256 KiB of int32: stays in a 512 KiB L2 cache). */
export const TAAT_WINDOW = 1 << 16;
/** Documents per block of the accumulator's block maxima (step 3). */
export const TAAT_BLOCK = 64;
/** Largest quantised impact (16 bits). */
export const TAAT_LEVELS = 65535;
/**
 * The engine answers a query term-at-a-time when its lists hold at least this many postings per
 * indexed document (measured per question at 25 k and 100 k docs: TAAT was faster for every
 * question above ~1, the pruned search for most below ~0.3).
 */
export const TAAT_MIN_POSTINGS_PER_DOC = 0.5;
/** Largest Σ of query-term counts TAAT accepts (65535 · 2¹⁵ < 2³¹). */
export const TAAT_MAX_COUNT = 1 << 15;

/** The index arrays TAAT reads (the engine's; see fast-engine.ts). */
export interface TaatIndex {
  offsets: Float64Array;
  postDocs: Int32Array;
  postTf: Uint8Array | Float32Array;
  norm: Float64Array;
  idf: Float64Array;
  k1p1: number;
}

/** Quantised impacts and per-query buffers (made by {@link createTaatState}). */
export interface TaatState {
  /** `q[p]` per posting, see the file header. */
  /**
   * Per posting, its document's offset in its accumulator window (high 16 bits) and its quantised
   * impact q (low 16 bits): one 4-byte load per posting (1.5× faster than reading the doc id and
   * q from two arrays here). Windows start at multiples of {@link TAAT_WINDOW}, so the offset is
   * `d mod 65536`.
   */
  packed: Int32Array;
  /** Score units per quantisation level. */
  scale: number;
  /** Accumulator U of one window (all zero between queries). */
  acc: Int32Array;
  /** Block maxima of the window's U. */
  blockMax: Int32Array;
  /** Per query term: next posting, end of its postings. */
  cur: Int32Array;
  stop: Int32Array;
  /** Candidate documents and their U (grown by doubling). */
  cand: Int32Array;
  candU: Int32Array;
  /** Top-k heap over block maxima, then over candidates' U. */
  heapU: Int32Array;
  /** Top-k heap of exact scores. */
  heapDoc: Int32Array;
  heapScore: Float64Array;
}

/**
 * Quantises every posting's impact (step 1 of the file header) and allocates the accumulators.
 * @param ix the index arrays; N = `norm.length` documents.
 * @param levels quantisation levels (default {@link TAAT_LEVELS}; tests use a few, which makes the
 *   candidate margin decide the result — results stay exact, only slower).
 * @returns the state; 4 bytes per posting + ~260 KiB.
 */
export function createTaatState(ix: TaatIndex, levels = TAAT_LEVELS): TaatState {
  const { offsets, postDocs, postTf, norm, idf, k1p1 } = ix;
  let idfMax = 0;
  for (let t = 0; t < idf.length; t++) if (idf[t] > idfMax) idfMax = idf[t];
  // tf·(k1+1)/(tf + norm) < k1+1, so every impact is below idfMax·(k1+1).
  const scale = (idfMax * k1p1) / levels || 1;
  const packed = new Int32Array(postDocs.length);
  for (let t = 0; t < idf.length; t++) {
    const it = idf[t];
    for (let p = offsets[t], end = offsets[t + 1]; p < end; p++) {
      const tf = postTf[p];
      const imp = (it * (tf * k1p1)) / (tf + norm[postDocs[p]]);
      let q = Math.ceil(imp / scale);
      if (q * scale < imp) q++;
      packed[p] = ((postDocs[p] & (TAAT_WINDOW - 1)) << 16) | (q < 1 ? 1 : q > levels ? levels : q);
    }
  }
  const w = Math.min(norm.length, TAAT_WINDOW);
  return {
    packed,
    scale,
    acc: new Int32Array(w),
    blockMax: new Int32Array(Math.ceil(w / TAAT_BLOCK)),
    cur: new Int32Array(32),
    stop: new Int32Array(32),
    cand: new Int32Array(4096),
    candU: new Int32Array(4096),
    heapU: new Int32Array(16),
    heapDoc: new Int32Array(16),
    heapScore: new Float64Array(16),
  };
}

/**
 * Exact top-k of a query by quantised TAAT (steps 2–4 of the file header), one window of
 * {@link TAAT_WINDOW} documents at a time (the window's accumulator stays in the CPU's L2 cache):
 * each list adds its postings in the window, then the window's block maxima raise the running
 * lower bound L and the window's documents with `U ≥ L − 2C − 1` are collected.
 * @param st state from {@link createTaatState} for this index.
 * @param ix the index arrays.
 * @param terms the query's distinct known term ids, in query order (first `m`).
 * @param counts each term's count in the query (first `m`; Σ < {@link TAAT_MAX_COUNT}).
 * @param k hits wanted (≥ 1, integer).
 * @param stats counters: `postings`/`work` = postings accumulated, `finalists` = documents scored exactly.
 * @returns the number of hits; hits are `st.heapDoc[0..size)` / `st.heapScore`, best first, ties by corpus order.
 */
export function taatTopK(st: TaatState, ix: TaatIndex, terms: Int32Array, counts: Float64Array, m: number, k: number, stats: { postings: number; work: number; finalists: number }): number {
  const n = ix.norm.length;
  const c2 = startCursors(st, ix, terms, counts, m, stats);
  ensureHeaps(st, k);
  let nc = 0;
  let heapSize = 0;
  for (let base = 0; base < n; base += TAAT_WINDOW) {
    const end = base + TAAT_WINDOW < n ? base + TAAT_WINDOW : n;
    for (let i = 0; i < m; i++) st.cur[i] = accumulate(st.acc, ix.postDocs, st.packed, st.cur[i], st.stop[i], counts[i], end);
    const nb = fillBlockMaxima(st.acc, end - base, st.blockMax);
    heapSize = offerAll(st.blockMax, nb, st.heapU, heapSize, k);
    const lower = heapSize === k && st.heapU[0] > 0 ? st.heapU[0] : 1;
    nc = collect(st, end - base, base, nb, Math.max(1, lower - c2 - 1), nc);
    st.acc.fill(0, 0, end - base);
  }
  const ak = kthLargest(st.candU, nc, st.heapU, k);
  // Float margin: exact sums may exceed scale·U by a few ulps.
  const floor = ak - c2 - 1 - Math.ceil(ak * 1e-9);
  return scoreCandidates(st, ix, terms, counts, m, k, nc, floor, stats);
}

/** Cursors at each list's first posting; counts postings; @returns 2·Σ counts (the candidate margin 2C). */
function startCursors(st: TaatState, ix: TaatIndex, terms: Int32Array, counts: Float64Array, m: number, stats: { postings: number; work: number }): number {
  if (st.cur.length < m) {
    st.cur = new Int32Array(m);
    st.stop = new Int32Array(m);
  }
  let c2 = 0;
  let postings = 0;
  for (let i = 0; i < m; i++) {
    const t = terms[i];
    st.cur[i] = ix.offsets[t];
    st.stop[i] = ix.offsets[t + 1];
    postings += st.stop[i] - st.cur[i];
    c2 += 2 * counts[i];
  }
  stats.postings = stats.work = postings;
  return c2;
}

/** Step 2 in one window: adds the postings from p on whose documents are below `end`; @returns the first posting past the window. */
function accumulate(acc: Int32Array, postDocs: Int32Array, packed: Int32Array, p: number, stop: number, c: number, end: number): number {
  const e = p < stop && postDocs[stop - 1] < end ? stop : firstAtOrAbove(postDocs, p, stop, end);
  if (c === 1) addRange(acc, packed, p, e);
  else addRangeTimes(acc, packed, p, e, c);
  return e;
}

/** First posting in [from, stop) whose document is ≥ d (binary search; `stop` if none). */
function firstAtOrAbove(postDocs: Int32Array, from: number, stop: number, d: number): number {
  let lo = from;
  let hi = stop;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (postDocs[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `acc[offset] += q` for the packed postings [from, stop), four per step (loads grouped before
 * the stores: 1.3× the plain loop here — V8 reloads array state after each store).
 */
function addRange(acc: Int32Array, packed: Int32Array, from: number, stop: number): void {
  let p = from;
  for (; p + 4 <= stop; p += 4) {
    const v0 = packed[p];
    const v1 = packed[p + 1];
    const v2 = packed[p + 2];
    const v3 = packed[p + 3];
    acc[v0 >>> 16] += v0 & 0xffff;
    acc[v1 >>> 16] += v1 & 0xffff;
    acc[v2 >>> 16] += v2 & 0xffff;
    acc[v3 >>> 16] += v3 & 0xffff;
  }
  for (; p < stop; p++) {
    const v = packed[p];
    acc[v >>> 16] += v & 0xffff;
  }
}

/** {@link addRange} for a term counted c > 1 times in the query: adds `c·q`. */
function addRangeTimes(acc: Int32Array, packed: Int32Array, from: number, stop: number, c: number): void {
  let p = from;
  for (; p + 4 <= stop; p += 4) {
    const v0 = packed[p];
    const v1 = packed[p + 1];
    const v2 = packed[p + 2];
    const v3 = packed[p + 3];
    acc[v0 >>> 16] += c * (v0 & 0xffff);
    acc[v1 >>> 16] += c * (v1 & 0xffff);
    acc[v2 >>> 16] += c * (v2 & 0xffff);
    acc[v3 >>> 16] += c * (v3 & 0xffff);
  }
  for (; p < stop; p++) {
    const v = packed[p];
    acc[v >>> 16] += c * (v & 0xffff);
  }
}

function ensureHeaps(st: TaatState, k: number): void {
  if (st.heapU.length >= k) return;
  st.heapU = new Int32Array(k);
  st.heapDoc = new Int32Array(k);
  st.heapScore = new Float64Array(k);
}

/** `blockMax[b]` = max of `acc` over window documents [b·TAAT_BLOCK, (b+1)·TAAT_BLOCK) below `len`; @returns the block count. */
function fillBlockMaxima(acc: Int32Array, len: number, blockMax: Int32Array): number {
  let b = 0;
  for (let d = 0; d < len; b++) {
    const end = d + TAAT_BLOCK < len ? d + TAAT_BLOCK : len;
    // Four running maxima (loads grouped, as in addRange).
    let m0 = 0;
    let m1 = 0;
    let m2 = 0;
    let m3 = 0;
    for (; d + 4 <= end; d += 4) {
      const a0 = acc[d];
      const a1 = acc[d + 1];
      const a2 = acc[d + 2];
      const a3 = acc[d + 3];
      if (a0 > m0) m0 = a0;
      if (a1 > m1) m1 = a1;
      if (a2 > m2) m2 = a2;
      if (a3 > m3) m3 = a3;
    }
    for (; d < end; d++) if (acc[d] > m0) m0 = acc[d];
    if (m1 > m0) m0 = m1;
    if (m3 > m2) m2 = m3;
    blockMax[b] = m2 > m0 ? m2 : m0;
  }
  return b;
}

/** Offers `vals[0..n)` to a min-heap of the k largest values (`size` held so far); @returns the new size. */
function offerAll(vals: Int32Array, n: number, heap: Int32Array, size: number, k: number): number {
  for (let i = 0; i < n; i++) {
    const a = vals[i];
    if (size === k) {
      if (a > heap[0]) siftDown(heap, k, a);
      continue;
    }
    let j = size++;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (heap[parent] <= a) break;
      heap[j] = heap[parent];
      j = parent;
    }
    heap[j] = a;
  }
  return size;
}

/** The k-th largest of `vals[0..n)` (a min-heap of k in `heap`), or 1 when n < k (every positive value qualifies). */
function kthLargest(vals: Int32Array, n: number, heap: Int32Array, k: number): number {
  if (n < k) return 1;
  offerAll(vals, n, heap, 0, k);
  return heap[0] > 0 ? heap[0] : 1;
}

/** Replaces the minimum of a full min-heap of `size` by `a`. */
function siftDown(heap: Int32Array, size: number, a: number): void {
  let j = 0;
  for (;;) {
    const l = 2 * j + 1;
    if (l >= size) break;
    const r = l + 1;
    const c = r < size && heap[r] < heap[l] ? r : l;
    if (heap[c] >= a) break;
    heap[j] = heap[c];
    j = c;
  }
  heap[j] = a;
}

/** Step 3 in one window: its documents with `acc ≥ floor` (in blocks whose maximum reaches it) appended to `cand`/`candU` from `nc`; @returns the new count. */
function collect(st: TaatState, len: number, base: number, nb: number, floor: number, nc: number): number {
  const { acc, blockMax } = st;
  for (let b = 0; b < nb; b++) {
    if (blockMax[b] < floor) continue;
    const start = b * TAAT_BLOCK;
    const end = start + TAAT_BLOCK < len ? start + TAAT_BLOCK : len;
    if (nc + TAAT_BLOCK > st.cand.length) growCandidates(st);
    const { cand, candU } = st;
    for (let d = start; d < end; d++) {
      const a = acc[d];
      if (a >= floor) {
        cand[nc] = base + d;
        candU[nc++] = a;
      }
    }
  }
  return nc;
}

function growCandidates(st: TaatState): void {
  const cand = new Int32Array(2 * st.cand.length);
  const candU = new Int32Array(2 * st.cand.length);
  cand.set(st.cand);
  candU.set(st.candU);
  st.cand = cand;
  st.candU = candU;
}

/** Step 4: exact scores of the candidates with `U ≥ floor` into the top-k heap; sorted best first. */
function scoreCandidates(st: TaatState, ix: TaatIndex, terms: Int32Array, counts: Float64Array, m: number, k: number, nc: number, floor: number, stats: { finalists: number }): number {
  const { cand, candU, heapDoc, heapScore } = st;
  let size = 0;
  let finalists = 0;
  for (let i = 0; i < nc; i++) {
    if (candU[i] < floor) continue;
    finalists++;
    const d = cand[i];
    const s = exactScore(ix, terms, counts, m, d);
    if (size < k) heapPush(heapDoc, heapScore, size++, d, s);
    else if (s > heapScore[0] || (s === heapScore[0] && d < heapDoc[0])) heapReplaceTop(heapDoc, heapScore, size, d, s);
  }
  stats.finalists = finalists;
  sortHeap(heapDoc, heapScore, size);
  return size;
}

/** Document d's BM25 score: float64, in query order, `c·impact` as {@link FastBm25.searchExhaustive} adds it. */
function exactScore(ix: TaatIndex, terms: Int32Array, counts: Float64Array, m: number, d: number): number {
  const { offsets, postDocs, postTf, idf, k1p1 } = ix;
  const nd = ix.norm[d];
  let score = 0;
  for (let i = 0; i < m; i++) {
    const t = terms[i];
    // int32 arithmetic: TAAT runs on indexes below 2³¹ postings only (see the engine).
    let lo = offsets[t] | 0;
    let hi = (offsets[t + 1] | 0) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = postDocs[mid];
      if (v < d) lo = mid + 1;
      else if (v > d) hi = mid - 1;
      else {
        const tf = postTf[mid];
        const imp = (idf[t] * (tf * k1p1)) / (tf + nd);
        score += counts[i] === 1 ? imp : counts[i] * imp;
        break;
      }
    }
  }
  return score;
}
