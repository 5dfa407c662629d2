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
 * 3. One pass over each window's accumulator (which also clears it) offers every document's U to
 *    a top-k min-heap of U kept across windows; its minimum L (the k-th largest U read so far) only
 *    grows and never exceeds `A_k`, the k-th largest U of the index, so keeping the documents with
 *    `U ≥ L − 2C − 1` (C = Σ counts; L as it stands when the document is read) keeps every document
 *    with `U ≥ A_k − 2C − 1`. Most documents fail that one comparison.
 * 4. With `A_k` the final L, every document of the exact top k has
 *    `U ≥ A_k − 2C − 1`: each of the k documents with `U ≥ A_k` scores more than `scale·(A_k − 2C)`,
 *    so the k-th best exact score θ does too, and a document scoring ≥ θ has `scale·U ≥ θ`. Those
 *    candidates (≈ k for real questions) are scored exactly — float64, in query order, the same
 *    expression as {@link FastBm25.searchExhaustive}, each list probed through its block index — and the
 *    best k kept, ties by corpus order: ids, order and scores are bit-identical to exhaustive
 *    scoring.
 * Cost ≈ 1–2 ns per posting + well under 1 ns per document on this machine (the pass of step 3),
 * so short queries (few postings per document) stay with the pruned search; the engine chooses
 * ({@link TAAT_MIN_POSTINGS_PER_DOC}). Needs Σ counts < 2¹⁵ (so U fits in int32); the engine
 * falls back to the pruned search beyond.
 * No zod, no I/O: a query process loads this file.
 * @see Anh, de Kretser & Moffat (2001) "Vector-space ranking with effective early termination"
 *   (impact quantisation); Crane et al. (2017) "A comparison of document-at-a-time and
 *   score-at-a-time query evaluation" (quantised accumulation).
 */
import { BLOCK, findInBlock } from "./fast-query.ts";
import { createTaatKernel, type TaatKernel } from "./taat-kernel.ts";
import { heapPush, heapReplaceTop, sortHeap } from "./topk-heap.ts";

/** Documents per accumulator window (256 KiB of int32: stays in a 512 KiB L2 cache). */
export const TAAT_WINDOW = 1 << 16;
/** Largest quantised impact (16 bits). */
export const TAAT_LEVELS = 65535;
/** Slots of {@link TaatState.run}. */
const NC = 0;
const HEAP_SIZE = 1;
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
  /** Block-max index of the engine (fast-query.ts): term t's postings in blocks of `BLOCK`, blocks [blockFirst[t], blockFirst[t+1]), the first document of each. */
  blockFirst: Float64Array;
  blockFirstDoc: Int32Array;
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
  /** The WebAssembly kernel that owns `packed` and `acc` and adds postings (taat-kernel.ts), or null: JavaScript adds them. */
  kernel: TaatKernel | null;
  /** Candidate count and top-k heap size of the running query (slots {@link NC}, {@link HEAP_SIZE}). */
  run: Int32Array;
  /** Per query term: next posting, end of its postings. */
  cur: Int32Array;
  stop: Int32Array;
  /** Candidate documents and their U (grown by doubling). */
  cand: Int32Array;
  candU: Int32Array;
  /** Top-k min-heap of U over the documents read so far (its minimum L: see {@link taatTopK}). */
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
 * @param accumulator `wasm` (default): postings and accumulator in the WebAssembly kernel's memory
 *   (taat-kernel.ts), falling back to JavaScript when it cannot be made; `js`: JavaScript (tests
 *   compare both). Same results either way.
 * @returns the state; 4 bytes per posting + ~260 KiB.
 */
export function createTaatState(ix: TaatIndex, levels = TAAT_LEVELS, accumulator: "wasm" | "js" = "wasm"): TaatState {
  const { offsets, postDocs, postTf, norm, idf, k1p1 } = ix;
  let idfMax = 0;
  for (let t = 0; t < idf.length; t++) if (idf[t] > idfMax) idfMax = idf[t];
  // tf·(k1+1)/(tf + norm) < k1+1, so every impact is below idfMax·(k1+1).
  const scale = (idfMax * k1p1) / levels || 1;
  const w = Math.min(norm.length, TAAT_WINDOW);
  const kernel = accumulator === "wasm" ? createTaatKernel(postDocs.length, w) : null;
  const packed = kernel ? kernel.packed : new Int32Array(postDocs.length);
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
  return { ...taatBuffers(kernel, w), packed, scale };
}

/**
 * The per-query buffers of a {@link TaatState} over `kernel`'s accumulator (or a JavaScript one of
 * `window` slots when `kernel` is null); `packed` is the kernel's (empty without one) and `scale` 1:
 * the caller sets both. The on-disk engine's term-at-a-time (disk-taat.ts) reads postings into them per query.
 */
export function taatBuffers(kernel: TaatKernel | null, window: number): TaatState {
  return {
    packed: kernel ? kernel.packed : new Int32Array(0),
    scale: 1,
    acc: kernel ? kernel.acc : new Int32Array(window),
    kernel,
    run: new Int32Array(2),
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
 * each list adds its postings in the window, then one pass over the window's accumulator raises the
 * running lower bound L and collects the documents with `U ≥ L − 2C − 1` (L as it stood).
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
  resetTaatRun(st);
  for (let base = 0; base < n; base += TAAT_WINDOW) {
    const end = base + TAAT_WINDOW < n ? base + TAAT_WINDOW : n;
    for (let i = 0; i < m; i++) st.cur[i] = accumulate(st, ix.postDocs, st.cur[i], st.stop[i], counts[i], end);
    collectAndClear(st, end - base, base, k, c2);
  }
  const { nc, floor } = taatFinalFloor(st, k, c2);
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

/** Step 2 in one window: adds the postings from p on whose documents are below `end` (by the kernel when there is one); @returns the first posting past the window. */
function accumulate(st: TaatState, postDocs: Int32Array, p: number, stop: number, c: number, end: number): number {
  const e = p < stop && postDocs[stop - 1] < end ? stop : firstAtOrAbove(postDocs, p, stop, end);
  addPostings(st, p, e, c);
  return e;
}

/** `acc[offset] += c·q` for the packed postings [p, e) of `st` (by the kernel when there is one; c a positive integer). */
export function addPostings(st: TaatState, p: number, e: number, c: number): void {
  const kernel = st.kernel;
  if (kernel) {
    if (c === 1) kernel.add(p, e);
    else kernel.addTimes(p, e, c);
  } else if (c === 1) addRange(st.acc, st.packed, p, e);
  else addRangeTimes(st.acc, st.packed, p, e, c);
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

/** Makes room for k entries in the heaps of `st`. */
export function ensureHeaps(st: TaatState, k: number): void {
  if (st.heapU.length >= k) return;
  st.heapU = new Int32Array(k);
  st.heapDoc = new Int32Array(k);
  st.heapScore = new Float64Array(k);
}

/**
 * Step 3 in one window, in one pass over its accumulator (which it leaves all zero): offers every
 * document's U to the running top-k min-heap of U (`st.heapU`, kept across windows: its minimum L
 * is a lower bound of the k-th largest U of the whole index) and appends the documents with
 * `U ≥ L − 2C − 1` (L as it stands when the document is read: L only grows, so no document of the
 * final band is missed) to `cand`/`candU`. Updates `st.run`'s candidate count and heap size.
 * @param c2 the candidate margin 2C (the on-disk engine's E, disk-taat.ts).
 * @param ratio the floor's factor ({@link bandFloor}; 1 here, ρ_lo/ρ_hi ≤ 1 on disk).
 * @param mask deleted documents (bit base + d of this byte array; on disk), skipped: neither
 *   offered to the heap nor collected; null when none.
 */
export function collectAndClear(st: TaatState, len: number, base: number, k: number, c2: number, ratio = 1, mask: Uint8Array | null = null): void {
  const { acc, heapU, run } = st;
  let nc = run[NC];
  let size = run[HEAP_SIZE];
  let floor = size === k ? bandFloor(heapU[0], c2, ratio) : 1;
  for (let d = nextAtOrAbove(acc, 0, len, floor); d < len; d = nextAtOrAbove(acc, d + 1, len, floor)) {
    const a = acc[d];
    if (mask !== null && (mask[(base + d) >>> 3] & (1 << ((base + d) & 7))) !== 0) continue;
    if (nc === st.cand.length) growCandidates(st);
    st.cand[nc] = base + d;
    st.candU[nc++] = a;
    if (size < k) {
      heapPushU(heapU, size++, a);
      if (size === k) floor = bandFloor(heapU[0], c2, ratio);
    } else if (a > heapU[0]) {
      siftDown(heapU, k, a);
      floor = bandFloor(heapU[0], c2, ratio);
    }
  }
  // Documents below the floor were skipped without clearing.
  acc.fill(0, 0, len);
  run[NC] = nc;
  run[HEAP_SIZE] = size;
}

/** Starts a query's step 3 on `st`: no candidate, an empty heap of U. */
export function resetTaatRun(st: TaatState): void {
  st.run[NC] = 0;
  st.run[HEAP_SIZE] = 0;
}

/**
 * After the last window: the number of collected candidates and the final floor — candidates with
 * `candU ≥ floor` can be in the exact top k ({@link bandFloor} of the final L).
 */
export function taatFinalFloor(st: TaatState, k: number, c2: number, ratio = 1): { nc: number; floor: number } {
  return { nc: st.run[NC], floor: bandFloor(st.run[HEAP_SIZE] === k ? st.heapU[0] : 1, c2, ratio) };
}

/** First d in [from, len) with `acc[d] ≥ floor`, else len (the hot loop of {@link collectAndClear}: a leaf V8 compiles tight). */
function nextAtOrAbove(acc: Int32Array, from: number, len: number, floor: number): number {
  const f = floor | 0;
  let d = from;
  // Eight at a time: a − f < 0 for all eight iff the AND of the differences is negative (no overflow: 0 ≤ a, f < 2³¹).
  for (; d + 8 <= len; d += 8) {
    if (((acc[d] - f) & (acc[d + 1] - f) & (acc[d + 2] - f) & (acc[d + 3] - f) & (acc[d + 4] - f) & (acc[d + 5] - f) & (acc[d + 6] - f) & (acc[d + 7] - f)) >= 0) break;
  }
  for (; d < len; d++) if (acc[d] >= f) return d;
  return len;
}

/**
 * The smallest U a document of the exact top k can have when `lower` ≤ the k-th largest U (step 4
 * of the file header): `lower − 2C − 1`, less a float margin (exact sums may exceed scale·U by a
 * few ulps), and at least 1 (U = 0: no query term). With `ratio` r < 1 (the on-disk engine, whose
 * bounds are `LB = ρ_lo·(U − E)` and `UB = ρ_hi·U`, r = ρ_lo/ρ_hi; disk-taat.ts):
 * `⌊r·(lower − c2)⌋ − 1`, less the same margin.
 */
export function bandFloor(lower: number, c2: number, ratio = 1): number {
  const f = (ratio === 1 ? lower - c2 : Math.floor(ratio * (lower - c2))) - 1 - Math.ceil(lower * 1e-9);
  return f > 1 ? f : 1;
}

/** Inserts `a` into a min-heap of `size` values (room for one more). */
function heapPushU(heap: Int32Array, size: number, a: number): void {
  let j = size;
  while (j > 0) {
    const parent = (j - 1) >> 1;
    if (heap[parent] <= a) break;
    heap[j] = heap[parent];
    j = parent;
  }
  heap[j] = a;
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

/**
 * Document d's BM25 score: float64, in query order, `c·impact` as {@link FastBm25.searchExhaustive}
 * adds it. Each list is probed in two steps: a binary search over its blocks' first documents
 * (1/64 of the list, so shared by the candidates and cache-resident), then over the ≤ 64 postings
 * of the one block that can hold d.
 */
function exactScore(ix: TaatIndex, terms: Int32Array, counts: Float64Array, m: number, d: number): number {
  const { offsets, postDocs, postTf, idf, k1p1, blockFirst, blockFirstDoc } = ix;
  const nd = ix.norm[d];
  let score = 0;
  for (let i = 0; i < m; i++) {
    const t = terms[i];
    // int32 arithmetic: TAAT runs on indexes below 2³¹ postings only (see the engine).
    const b0 = blockFirst[t] | 0;
    // Last block whose first document is ≤ d.
    let lo = b0;
    let hi = (blockFirst[t + 1] | 0) - 1;
    if (blockFirstDoc[lo] > d) continue;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (blockFirstDoc[mid] <= d) lo = mid;
      else hi = mid - 1;
    }
    const start = (offsets[t] | 0) + (lo - b0) * BLOCK;
    const end = offsets[t + 1] | 0;
    const p = findInBlock(postDocs, start, start + BLOCK < end ? start + BLOCK : end, d);
    if (p < 0) continue;
    const tf = postTf[p];
    const imp = (idf[t] * (tf * k1p1)) / (tf + nd);
    score += counts[i] === 1 ? imp : counts[i] * imp;
  }
  return score;
}
