/**
 * Top-k selection shared by the BM25 engines (in memory, fast-engine.ts; on disk, disk-engine.ts):
 * a binary min-heap of (doc index, score) on typed arrays whose root is the worst kept hit (lowest
 * score, larger doc index on ties, so ties go to corpus order), its final sort best first, and a
 * plain value min-heap selecting a list's k largest impacts.
 */

/** Pushes (d, v) onto the value min-heap docs/vals of `size` entries. */
export function partPush(docs: Int32Array, vals: Float64Array, size: number, d: number, v: number): void {
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
export function partReplaceTop(docs: Int32Array, vals: Float64Array, size: number, d: number, v: number): void {
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

/** Min-heap order on (score, -doc): true when hit (sa, da) is worse than (sb, db), i.e. a lower score, or an equal score and a larger doc index. The root of a top-k heap is its worst kept hit. */
export function worse(sa: number, da: number, sb: number, db: number): boolean {
  return sa < sb || (sa === sb && da > db);
}

/** Pushes (d, s) onto the top-k min-heap docs/scores of `size` entries (room for one more). */
export function heapPush(docs: Int32Array, scores: Float64Array, size: number, d: number, s: number): void {
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

/** Replaces the root (the worst kept hit) of the top-k min-heap docs/scores (`size` entries) by (d, s) and sifts it down (any (d, s); a top-k offer only replaces the root by a better hit). */
export function heapReplaceTop(docs: Int32Array, scores: Float64Array, size: number, d: number, s: number): void {
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

/**
 * Sorts the heap's `size` entries in place, best first (score descending, doc index ascending):
 * heapsort — the root (the worst kept hit) moves to the end, the rest is sifted down; O(k log k)
 * (an insertion sort took 3.4 s for k = 47,159).
 */
export function sortHeap(d: Int32Array, s: Float64Array, size: number): void {
  for (let end = size - 1; end > 0; end--) {
    const xd = d[end];
    const xs = s[end];
    d[end] = d[0];
    s[end] = s[0];
    heapReplaceTop(d, s, end, xd, xs);
  }
}

/**
 * Offers (d, s) to the top-k heap docs/scores holding `size` of at most `k` entries: pushed while
 * the heap is not full, else it replaces the root when the root is worse.
 * @returns the new size.
 */
export function offerTopK(docs: Int32Array, scores: Float64Array, size: number, k: number, d: number, s: number): number {
  if (size < k) {
    heapPush(docs, scores, size, d, s);
    return size + 1;
  }
  if (worse(scores[0], docs[0], s, d)) heapReplaceTop(docs, scores, size, d, s);
  return size;
}
