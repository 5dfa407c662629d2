/**
 * Query algorithms of medsynth's in-memory BM25 engine (fast-engine.ts, whose header describes
 * them): the block-max index fill, the per-query scratch, and exact block-max MaxScore over
 * windows of {@link WINDOW} documents — initial threshold from seeds, per-window bounds,
 * essential/non-essential partition, window
 * accumulator, candidates, exact scoring of the survivors into the top-k heap (topk-heap.ts).
 * Each phase is its own small function (V8 compiles each once; see fast-engine.ts, "Query path").
 * No zod, no I/O: a query process loads this file.
 */
import { heapPush, heapReplaceTop, partPush, partReplaceTop, sortHeap } from "./topk-heap.ts";

/** Postings per block of the block-max index (each block keeps its largest impact and last doc). */
export const BLOCK = 64;
/** Documents per window of the document-at-a-time search (a multiple of 32: one bit per document marks the touched ones). */
export const WINDOW = 2048;
/** A non-essential list is probed by galloping when it has more than this many postings in the window per candidate, else scanned. */
export const GALLOP_RATIO = 16;
/** The initial threshold scores the k largest impacts of this many lists (those with the largest bounds). */
export const SEED_LISTS = 1;

/**
 * Relative safety margin of pruning decisions: partial sums are float64 impacts computed as
 * (count·idf·(k1+1))·tf/(tf + norm) and added in list order (a few ulps from the exact score's
 * expression and order), bounds are block maxima rounded up to float32; any decision is taken with
 * 1e-6 to spare and the final top k is rescored exactly.
 */
export const BOUND_MARGIN = 1 + 1e-6;

/**
 * Fills the block-max index (see {@link FastBm25}'s fields) and each term's largest impact, both
 * rounded up to float32. A function of its own so V8 compiles this loop once, apart from the
 * constructor.
 */
export function fillBlockMax(
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

/**
 * The per-query scratch `s`, or a new one when it is missing or too small for `m` lists and top
 * `k` (grown to the largest query and k seen; the window accumulator is kept).
 * @param wide posting and block cursors as Float64 (an index of ≥ 2³¹ postings, or a test), else Int32.
 */
export function ensureScratch(s: Scratch | null, m: number, k: number, wide: boolean): Scratch {
  if (!s || s.lc.length < m || s.heapDoc.length < k || s.pc instanceof Float64Array !== wide) {
    const cm = Math.max(m, s?.lc.length ?? 0, 16);
    // Posting and block positions as int32 (faster loops) unless an index has 2³¹ postings or more.
    const Cursor = wide ? Float64Array : Int32Array;
    const ck = Math.max(k, s?.heapDoc.length ?? 0, 16);
    s = {
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
 * Exact top-k of a query by block-max MaxScore over windows (the algorithm of `FastBm25`'s
 * header in fast-engine.ts): per-list state from the query's distinct terms, the initial threshold
 * from seeds, then the windows in document order (a window whose bound is below theta is skipped).
 * @param terms the query's distinct known term ids in query order, `counts` their multiplicities (m of each).
 * @param kk hits wanted (1 ≤ kk ≤ n); `n` documents in the index.
 * @param stats receives postings, work and finalists of this search.
 * @returns the number of hits, sorted best first in `s.heapDoc` / `s.heapScore`.
 */
export function prunedTopK(s: Scratch, ix: IndexView, terms: Int32Array, counts: Float64Array, m: number, kk: number, n: number, stats: { postings: number; work: number; finalists: number }): number {
  const { offsets, termMax, blockFirst, idf, k1p1 } = ix;
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
  return size;
}

/** Posting / block positions of the query's lists: Int32Array while the index has < 2³¹ postings, else Float64Array. */
export type Cursors = Int32Array | Float64Array;

/** Per-query scratch of {@link FastBm25.searchSync}: per-list state (index = query position), the top-k heap, the window accumulator. */
export interface Scratch {
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
export interface IndexView {
  postDocs: Int32Array;
  postTf: Uint8Array | Float32Array;
  /** k1·(1 − b + b·dl/avgdl) per document. */
  norm: Float64Array;
  blockMax: Float32Array;
  blockFirstDoc: Int32Array;
  blockLast: Int32Array;
  k1p1: number;
  /** Posting offsets of each term (Float64, 64-bit safe): term t's postings are [offsets[t], offsets[t+1]). */
  offsets: Float64Array;
  /** Largest impact of each term, rounded up to float32. */
  termMax: Float32Array;
  /** First block of each term (term t's blocks are [blockFirst[t], blockFirst[t+1])). */
  blockFirst: Float64Array;
  /** idf of each term. */
  idf: Float64Array;
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

/** Candidates of the window (see {@link collectWindowCandidates}). */
function collectCandidates(s: Scratch, neBound: number, theta: number): number {
  return collectWindowCandidates(s.acc, s.bits, s.cand, WINDOW >>> 5, neBound, theta);
}

/**
 * Candidates of a window (ascending offsets, into `cand`): documents touched in `bits` (`words`
 * int32 words, one bit per document) whose partial score `acc[x]` plus the non-essential bound
 * `neBound` beats theta (with {@link BOUND_MARGIN}); the others are dropped (accumulator reset to
 * 0, bit cleared). Shared by the in-memory and on-disk engines' window searches.
 * @returns the number of candidates.
 */
export function collectWindowCandidates(acc: Float64Array, bits: Int32Array, cand: Int32Array, words: number, neBound: number, theta: number): number {
  let nc = 0;
  for (let w = 0; w < words; w++) {
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
        // Candidates only (their bits are set): no division for the other postings.
        if (((bits[x >>> 5] >>> (x & 31)) & 1) !== 0) {
          const tf = postTf[p];
          acc[x] += (w * tf) / (tf + norm[d]);
        }
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

/**
 * Position of doc d among postDocs[from, to) (ascending, distinct, ≤ {@link BLOCK} entries), or -1:
 * interpolated from the block's first and last doc, then a linear step to it (doc ids within a
 * block are spread fairly evenly, so this is usually one or two loads).
 */
export function findInBlock(postDocs: Int32Array, from: number, to: number, d: number): number {
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
