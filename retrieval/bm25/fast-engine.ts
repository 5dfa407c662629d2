/**
 * medsynth's compact in-memory BM25 engine, built for query speed, with exact dynamic pruning.
 *
 * Layout (CSR inverted index): `offsets: Float64Array(V+1)` (64-bit-safe posting offsets, exact up
 * to 2⁵³), `postDocs: Int32Array(P)` (doc indices, ascending per term), `postTf: Float32Array(P)`
 * (field-weighted tf), per-doc lengths `docLen`. At build/load it derives `idf[t]`, per-doc length
 * norms `norm[d] = k1·(1 − b + b·dl/avgdl)` and each term's largest impact `termMax[t]` (one pass).
 * A posting's exact impact is `idf·tf·(k1+1)/(tf + norm[d])` (float64, computed from tf when
 * needed); a Float32 copy of every impact (4 bytes per posting) drives pruning.
 *
 * Queries ({@link FastBm25.searchSync}) run MaxScore (Turtle & Flood 1995) term-at-a-time, in two
 * phases. Query terms are sorted by upper bound `c·termMax[t]` (c = the term's count in the query),
 * largest (rarest) first. Phase 1 adds whole posting lists into an accumulator while a lower bound
 * theta of the k-th best partial score (the k-th best among the docs of the list just added) does
 * not yet exceed the sum of the remaining terms' bounds. From then on no untouched document can
 * enter the top k; phase 2 keeps only the touched documents whose partial score plus the remaining
 * bounds can reach theta, adds the remaining (long, low-idf) lists only for them — galloping probes
 * when they are few, one marked pass otherwise — and drops candidates as theta rises. Every
 * decision is taken with a 1e-6 relative margin over the float32 sums.
 *
 * Exactness: the documents left within that margin of the k-th score are rescored in float64 in
 * query order — the same expression and order as exhaustive scoring
 * ({@link FastBm25.searchExhaustive}, the pre-pruning algorithm) — and the top k taken from
 * them, so ids, order and scores are bit-identical to exhaustive scoring. Ties are broken by
 * corpus order (smaller internal doc index first). Scores equal {@link ./wink-engine.ts}'s to
 * ~1e-9 for the same analyzer and params; the formula is in {@link ./params.ts}.
 *
 * Works for any corpus size, including 0 or 1 document. Not safe for concurrent use from several
 * threads (scratch buffers per engine). Persisted as a folder of array files
 * ({@link FastBm25.writeTo}, {@link readFastBm25}), each split into parts so an index may exceed
 * 4 GiB.
 * @see Turtle & Flood (1995) "Query evaluation: strategies and optimizations", MaxScore.
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
  /** Candidate marks of the second phase (mark[d] === markGen), allocated on first use. */
  private mark: Uint32Array | null = null;
  private markGen = 0;
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
   * Top-k by MaxScore dynamic pruning (see the file header): the same hits, order and scores as
   * {@link searchExhaustive}.
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
    const { offsets, postDocs, postTf } = this.data;
    const { idf, norm, k1p1, termMax, impact32 } = this;
    const acc = (this.acc ??= new Float64Array(n));
    const touched = (this.touched ??= new Int32Array(n));
    // Terms by descending upper bound; rem[j] = Σ upper bounds of ord[j..m-1].
    const ub = terms.map((t, i) => counts[i] * termMax[t]);
    const ord = Array.from({ length: m }, (_, i) => i).sort((a, b) => ub[b] - ub[a] || a - b);
    const rem = new Float64Array(m + 1);
    for (let j = m - 1; j >= 0; j--) rem[j] = rem[j + 1] + ub[ord[j]];
    for (let i = 0; i < m; i++) stats.postings += offsets[terms[i] + 1] - offsets[terms[i]];
    const kth = new Float64Array(kk);
    // Phase 1 (OR): add whole lists, highest bound first, until no untouched doc can reach theta.
    // theta is a lower bound of the k-th largest partial score: the k-th largest partial score
    // among the docs of the list just added (kept in a size-k min-heap while adding; partial scores
    // only grow, so the best such bound so far stays valid).
    let nt = 0;
    let theta = -Infinity;
    let j = 0;
    for (; j < m; j++) {
      if (rem[j] * BOUND_MARGIN < theta) break;
      const i = ord[j];
      const t = terms[i];
      const c = counts[i];
      stats.work += offsets[t + 1] - offsets[t];
      kth.fill(-Infinity);
      for (let p = offsets[t], end = offsets[t + 1]; p < end; p++) {
        const d = postDocs[p];
        if (acc[d] === 0) touched[nt++] = d;
        const v = (acc[d] += c * impact32[p]);
        if (v > kth[0]) replaceMin(kth, v);
      }
      if (kth[0] > theta) theta = kth[0];
    }
    // Phase 2 (candidates only): probe the remaining (low-bound, long) lists for the docs that can
    // still reach theta, dropping candidates as theta rises.
    let cands: Int32Array;
    let nc = 0;
    if (j < m) {
      cands = new Int32Array(nt);
      const r = rem[j];
      for (let q = 0; q < nt; q++) {
        const d = touched[q];
        if ((acc[d] + r) * BOUND_MARGIN >= theta) cands[nc++] = d;
      }
      let sorted = false;
      const mark = (this.mark ??= new Uint32Array(n));
      if (this.markGen === 0xffffffff) {
        mark.fill(0);
        this.markGen = 0;
      }
      const gen = ++this.markGen;
      for (let q = 0; q < nc; q++) mark[cands[q]] = gen;
      for (; j < m; j++) {
        const i = ord[j];
        const t = terms[i];
        const c = counts[i];
        const end = offsets[t + 1];
        const start = offsets[t];
        if (nc * 8 < end - start) {
          // Few candidates for a long list: galloping probes (candidates in doc order).
          if (!sorted) {
            cands.subarray(0, nc).sort();
            sorted = true;
          }
          stats.work += nc;
          let p = start;
          for (let q = 0; q < nc && p < end; q++) {
            const d = cands[q];
            p = seek(postDocs, p, end, d);
            if (p < end && postDocs[p] === d) {
              acc[d] += c * impact32[p];
              p++;
            }
          }
        } else {
          // Many candidates: one pass over the list, scoring only marked candidates.
          stats.work += end - start;
          for (let p = start; p < end; p++) {
            const d = postDocs[p];
            if (mark[d] === gen) acc[d] += c * impact32[p];
          }
        }
        theta = kthLargest(acc, cands, nc, kth);
        const r2 = rem[j + 1];
        let kept = 0;
        for (let q = 0; q < nc; q++) {
          const d = cands[q];
          if ((acc[d] + r2) * BOUND_MARGIN >= theta) cands[kept++] = d;
          else mark[d] = 0;
        }
        nc = kept;
      }
    } else {
      cands = touched;
      nc = nt;
      theta = nt >= kk ? kthLargest(acc, cands, nt, kth) : -Infinity;
    }
    // Final: the sums above ran in bound order; rescore the docs within rounding of theta in query
    // order (the exhaustive order), then take the exact top k.
    const finalists: number[] = [];
    for (let q = 0; q < nc; q++) if (acc[cands[q]] * BOUND_MARGIN >= theta) finalists.push(cands[q]);
    for (let q = 0; q < nt; q++) acc[touched[q]] = 0;
    stats.finalists = finalists.length;
    const heapDoc = new Int32Array(kk);
    const heapScore = new Float64Array(kk);
    let size = 0;
    for (const d of finalists) {
      let score = 0;
      for (let i = 0; i < m; i++) {
        const t = terms[i];
        const end = offsets[t + 1];
        const p = lowerBound(postDocs, offsets[t], end, d);
        if (p < end && postDocs[p] === d) {
          const tf = postTf[p];
          const imp = (idf[t] * (tf * k1p1)) / (tf + norm[d]);
          score += counts[i] === 1 ? imp : counts[i] * imp;
        }
      }
      if (size < kk) heapPush(heapDoc, heapScore, size++, d, score);
      else if (score > heapScore[0] || (score === heapScore[0] && d < heapDoc[0])) heapReplaceTop(heapDoc, heapScore, size, d, score);
    }
    return this.toHits(...sortHeap(heapDoc, heapScore, size), size);
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

/** Replaces the root of the value min-heap `heap` by `v` (v > heap[0]) and restores the heap. */
function replaceMin(heap: Float64Array, v: number): void {
  const k = heap.length;
  let x = 0;
  for (;;) {
    const l = 2 * x + 1;
    if (l >= k) break;
    const r = l + 1;
    const c = r < k && heap[r] < heap[l] ? r : l;
    if (heap[c] >= v) break;
    heap[x] = heap[c];
    x = c;
  }
  heap[x] = v;
}

/** The k-th largest of acc[docs[0..count)] (count ≥ k = heap.length), via a size-k min-heap. */
function kthLargest(acc: Float64Array, docs: Int32Array, count: number, heap: Float64Array): number {
  const k = heap.length;
  for (let i = 0; i < k; i++) {
    // sift up
    let x = i;
    const v = acc[docs[i]];
    while (x > 0) {
      const p = (x - 1) >> 1;
      if (heap[p] <= v) break;
      heap[x] = heap[p];
      x = p;
    }
    heap[x] = v;
  }
  for (let i = k; i < count; i++) {
    const v = acc[docs[i]];
    if (v <= heap[0]) continue;
    let x = 0;
    for (;;) {
      const l = 2 * x + 1;
      if (l >= k) break;
      const r = l + 1;
      const c = r < k && heap[r] < heap[l] ? r : l;
      if (heap[c] >= v) break;
      heap[x] = heap[c];
      x = c;
    }
    heap[x] = v;
  }
  return heap[0];
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
