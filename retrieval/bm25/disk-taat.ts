/**
 * Quantised term-at-a-time (TAAT) top-k over one segment of medsynth's on-disk BM25 index
 * (disk-engine.ts), exact: the in-memory engine's TAAT (fast-taat.ts) over impacts quantised at
 * build time, read from disk per query. For long questions (many postings per document: the
 * MedEvidence questions' lists hold ~2 postings per document) block-max MaxScore decodes a third
 * of the postings at ~15 ns each; this path reads every posting of the query's lists (4 bytes, one
 * positioned read per list straight into the accumulation kernel's memory) and adds it with one
 * load and one multiply-add.
 *
 * A segment built since round 10 stores per posting its document's offset in its 65,536-document
 * window and `q = quantiseImpact(x)` (disk-segment.ts), `x = tf·(k1+1)/(tf + norm_seg[d])` the
 * idf-free impact under the segment's own avgdl, so `σ·(q − 2) < x ≤ σ·q`, `σ = (k1+1)/65535`.
 * Scores are the live corpus's: idf over the live N and norms over the live avgdl. With
 * `r = avgdl_live / avgdl_seg`, `ρ_lo = min(1, r)`, `ρ_hi = max(1, r)`, the live idf-free impact
 * lies in `[ρ_lo·x, ρ_hi·x]` (each term of the norm scales by at most r).
 *
 * A query term i (count c_i, live idf_i) gets an integer weight `W_i = ⌈c_i·idf_i / u⌉`
 * ({@link taatWeights}), u chosen so that `Σ W_i ≤ 32,767` (U below 2³¹); write
 * `c_i·idf_i = u·(W_i − f_i)`, 0 ≤ f_i < 2. The kernel adds `U[d] = Σ W_i·q_i(d)`. Then the exact
 * score s(d) satisfies
 * - `s(d) ≤ ρ_hi·uσ·U(d)` (each factor rounded up), and
 * - `s(d) ≥ ρ_lo·uσ·(U(d) − E)`, `E = Σ_i (2·W_i + ⌈f_i·65535⌉)`, since
 *   `(W − f)(q − 2) ≥ W·q − 2W − f·65535` for 1 ≤ q ≤ 65535.
 * With A_k the k-th largest U of the segment's live documents, the k-th best exact score θ is at
 * least `ρ_lo·uσ·(A_k − E)`, so a document of the exact top k has `U ≥ (ρ_lo/ρ_hi)·(A_k − E)`:
 * fast-taat.ts's streaming pass with margin E and ratio ρ_lo/ρ_hi ({@link bandFloor}) collects
 * every such document (and skips masked ones); they are scored exactly by the caller — the same
 * expression and order as the in-memory engine — so ids, order and scores are those of exhaustive
 * scoring. Accumulation runs in 65,536-document windows (the accumulator stays in L2); a list's
 * window boundaries come from its block records, and a block straddling a window boundary is split
 * by its packed offsets (a block spanning < 65,536 documents crosses at most one boundary, where the
 * offset drops below the block's first offset) or, otherwise, by decoding it.
 * No zod: a query process loads this file.
 */
import { BLOCK, IMPACT_LEVELS, IMPACT_WINDOW, type SegmentReader, type TermBlocks } from "./disk-segment.ts";
import { addPostings, collectAndClear, ensureHeaps, resetTaatRun, taatBuffers, taatFinalFloor, type TaatState } from "./fast-taat.ts";
import { createTaatKernel } from "./taat-kernel.ts";

/** Largest Σ of the integer term weights (Σ W · 65535 < 2³¹). */
export const DISK_TAAT_WEIGHT_BUDGET = 32767;

/**
 * Integer weights of a query's terms for {@link DiskTaat.search} (see the file header).
 * @param cIdf per term, count × live idf (> 0), in query order.
 * @returns `weights` W_i ≥ 1 with Σ ≤ {@link DISK_TAAT_WEIGHT_BUDGET} and `margin` E; null when the
 *   terms are too many for the budget (then the engine uses block-max MaxScore).
 */
export function taatWeights(cIdf: ArrayLike<number>): { weights: Int32Array; margin: number } | null {
  const m = cIdf.length;
  const budget = DISK_TAAT_WEIGHT_BUDGET - 2 * m;
  if (m === 0 || budget < m) return null;
  let total = 0;
  for (let i = 0; i < m; i++) total += cIdf[i];
  const u = total / budget;
  const weights = new Int32Array(m);
  let margin = 0;
  for (let i = 0; i < m; i++) {
    let w = Math.ceil(cIdf[i] / u);
    if (w * u < cIdf[i]) w++;
    if (w < 1) w = 1;
    weights[i] = w;
    margin += 2 * w + Math.ceil((w - cIdf[i] / u) * IMPACT_LEVELS);
  }
  return { weights, margin };
}

/** One query term's list in the segment, in query order. */
export interface DiskTaatList {
  tb: TermBlocks;
  /** Ordinal of the term's first posting in `impacts.u32` ({@link SegmentReader.impactStart}). */
  start: number;
  /** Its integer weight W ({@link taatWeights}). */
  weight: number;
}

/** One segment's search ({@link DiskTaat.search}). */
export interface DiskTaatQuery {
  seg: SegmentReader;
  /** Its deleted documents (1 bit per doc) or null. */
  mask: Uint8Array | null;
  /** The query's lists in the segment, query order, weights from {@link taatWeights}. */
  lists: readonly DiskTaatList[];
  /** E of {@link taatWeights}. */
  margin: number;
  /** ρ_lo/ρ_hi = min(r, 1/r), r = avgdl_live / avgdl_segment (1 when equal). */
  ratio: number;
  /** Docs [lo, hi) of the segment (segment numbering; hi ≤ docCount). */
  lo: number;
  hi: number;
  /** Hits wanted (integer ≥ 1). */
  k: number;
  /** The exact score of segment doc d (the caller's expression). */
  exact: (d: number) => number;
  /** Receives each finalist (segment doc, exact score), documents ascending. */
  offer: (d: number, s: number) => void;
}

/**
 * Documents per chunk: a query reads its lists' postings one chunk at a time, so the kernel holds
 * at most one chunk's (≈ 8 MB for a MedEvidence question: ~2 postings per document) whatever the
 * corpus size.
 */
export const DISK_TAAT_CHUNK = 16 * IMPACT_WINDOW;

/** lo, the multiples of `chunk` in (lo, hi), then hi. */
function chunkBounds(lo: number, hi: number, chunk: number): number[] {
  const out = [lo];
  for (let b = lo - (lo % chunk) + chunk; b < hi; b += chunk) out.push(b);
  out.push(hi);
  return out;
}

/** First block of tb whose last doc is ≥ d (tb.nb when none). */
export function firstBlockEndingAtOrAfter(tb: TermBlocks, d: number): number {
  let lo = 0;
  let hi = tb.nb;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tb.last[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per-list cursor of one search. */
interface Cursor {
  /** Term-relative postings [pa, pb) are loaded at st.packed[o, o + pb − pa). */
  pa: number;
  pb: number;
  o: number;
  /** Next posting to add (kernel index) and block cursor. */
  cur: number;
  bj: number;
}

/** Counters of the last {@link DiskTaat.search}: postings read, candidates collected, documents scored exactly. */
export interface DiskTaatStats {
  postings: number;
  candidates: number;
  finalists: number;
}

/**
 * TAAT searcher of one engine (one per thread): the accumulation kernel with room for the
 * largest chunk of postings seen so far ({@link DISK_TAAT_CHUNK}; grown by doubling) and the
 * candidate buffers.
 */
export class DiskTaat {
  private st: TaatState | null = null;
  private capacity = 0;
  private readonly docs = new Int32Array(BLOCK);
  private readonly tfs = new Float64Array(BLOCK);
  readonly stats: DiskTaatStats = { postings: 0, candidates: 0, finalists: 0 };

  /**
   * @param chunkDocs documents per chunk (a multiple of {@link IMPACT_WINDOW}; default {@link DISK_TAAT_CHUNK}).
   * @param accumulatorKind `wasm` (default; JavaScript when the kernel cannot be made) or `js` (tests compare both).
   */
  constructor(
    private readonly chunkDocs = DISK_TAAT_CHUNK,
    private readonly accumulatorKind: "wasm" | "js" = "wasm",
  ) {}

  /** "wasm" when postings are added by the WebAssembly kernel, "js" otherwise, null before the first search. */
  get accumulator(): "wasm" | "js" | null {
    return this.st ? (this.st.kernel ? "wasm" : "js") : null;
  }

  private state(postings: number): TaatState {
    if (this.st && postings <= this.capacity) return this.st;
    const cap = Math.max(postings, 2 * this.capacity, 1 << 16);
    const kernel = this.accumulatorKind === "wasm" ? createTaatKernel(cap, IMPACT_WINDOW) : null;
    const st = taatBuffers(kernel, IMPACT_WINDOW);
    if (!kernel) st.packed = new Int32Array(cap);
    this.st = st;
    this.capacity = cap;
    return st;
  }

  /**
   * Exact top-k candidates of docs [lo, hi) of one segment ({@link DiskTaatQuery}), each offered
   * with its exact score: per chunk of {@link DISK_TAAT_CHUNK} documents the lists' postings are
   * read into the kernel's memory, then added window by window (steps 2–3 of fast-taat.ts); the
   * documents left in the final band are scored exactly.
   */
  search(q: DiskTaatQuery): void {
    const { seg, lists, lo, hi, k, margin, ratio } = q;
    const bounds = chunkBounds(lo, hi, this.chunkDocs);
    const ends = lists.map((L) => this.chunkPositions(seg, L.tb, bounds));
    let widest = 0;
    let total = 0;
    for (let c = 0; c + 1 < bounds.length; c++) {
      let n = 0;
      for (const e of ends) n += e[c + 1] - e[c];
      widest = Math.max(widest, n);
      total += n;
    }
    const st = this.state(widest);
    resetTaatRun(st);
    ensureHeaps(st, k);
    const cursors: Cursor[] = lists.map((L) => ({ pa: 0, pb: 0, o: 0, cur: 0, bj: firstBlockEndingAtOrAfter(L.tb, lo) }));
    for (let c = 0; c + 1 < bounds.length; c++) {
      this.loadChunk(q, cursors, ends, c);
      this.accumulateChunk(q, st, cursors, bounds[c], bounds[c + 1]);
    }
    this.stats.postings = total;
    const { nc, floor } = taatFinalFloor(st, k, margin, ratio);
    let finalists = 0;
    for (let i = 0; i < nc; i++) {
      if (st.candU[i] < floor) continue;
      finalists++;
      q.offer(st.cand[i], q.exact(st.cand[i]));
    }
    this.stats.candidates = nc;
    this.stats.finalists = finalists;
  }

  /** Term-relative positions of a list's first posting at or above each chunk bound (straddling blocks decoded). */
  private chunkPositions(seg: SegmentReader, tb: TermBlocks, bounds: readonly number[]): number[] {
    const c: Cursor = { pa: 0, pb: 0, o: 0, cur: 0, bj: firstBlockEndingAtOrAfter(tb, bounds[0]) };
    return bounds.map((d) => this.positionAtOrAbove(seg, tb, c, d));
  }

  /** Reads chunk c's postings of every list into the kernel's memory, one list after the other, and points the cursors at them. */
  private loadChunk(q: DiskTaatQuery, cursors: Cursor[], ends: number[][], c: number): void {
    const packed = (this.st as TaatState).packed;
    let o = 0;
    for (let i = 0; i < q.lists.length; i++) {
      const cur = cursors[i];
      cur.pa = ends[i][c];
      cur.pb = ends[i][c + 1];
      cur.o = cur.cur = o;
      if (cur.pb > cur.pa) q.seg.readImpacts(q.lists[i].start + cur.pa, cur.pb - cur.pa, packed, o);
      o += cur.pb - cur.pa;
    }
  }

  /** Steps 2–3 over the windows of docs [from, to): each list's postings in a window added with its weight, then one pass over the window. */
  private accumulateChunk(q: DiskTaatQuery, st: TaatState, cursors: Cursor[], from: number, to: number): void {
    const { seg, lists } = q;
    for (let base = from - (from % IMPACT_WINDOW); base < to; base += IMPACT_WINDOW) {
      const end = Math.min(base + IMPACT_WINDOW, to);
      let added = false;
      for (let i = 0; i < lists.length; i++) {
        const c = cursors[i];
        // The chunk's end was located when it was loaded (pb): not again (a straddling block would be decoded twice).
        const e = c.o + (end === to ? c.pb : this.positionAtOrAbove(seg, lists[i].tb, c, end)) - c.pa;
        if (e > c.cur) {
          addPostings(st, c.cur, e, lists[i].weight);
          c.cur = e;
          added = true;
        }
      }
      if (added) collectAndClear(st, end - base, base, q.k, q.margin, q.ratio, q.mask);
    }
  }

  /**
   * Term-relative position of the list's first posting whose document is ≥ d (df when none),
   * advancing the block cursor `c.bj` (calls come with d ascending). A block straddling d is split
   * by its packed offsets when it is loaded, d is a window boundary and it spans fewer than
   * {@link IMPACT_WINDOW} documents; otherwise it is decoded.
   */
  private positionAtOrAbove(seg: SegmentReader, tb: TermBlocks, c: Cursor, d: number): number {
    let j = c.bj;
    while (j < tb.nb && tb.last[j] < d) j++;
    c.bj = j;
    if (j === tb.nb) return tb.df;
    const s0 = j * BLOCK;
    if (tb.first[j] >= d) return s0;
    const n = Math.min(BLOCK, tb.df - s0);
    if (d % IMPACT_WINDOW === 0 && tb.last[j] - tb.first[j] < IMPACT_WINDOW && s0 >= c.pa && s0 + n <= c.pb && this.st) {
      // Documents before the boundary have offsets ≥ the block's first offset, those after below it.
      const firstOff = tb.first[j] % IMPACT_WINDOW;
      const packed = this.st.packed;
      const at = c.o + s0 - c.pa;
      for (let i = 1; i < n; i++) if (packed[at + i] >>> 16 < firstOff) return s0 + i;
      return s0 + n;
    }
    seg.decode(tb, j, this.docs, this.tfs);
    let i = 0;
    while (i < n && this.docs[i] < d) i++;
    return s0 + i;
  }
}
