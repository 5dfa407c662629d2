/**
 * medsynth's compact in-memory BM25 engine, built for query speed.
 *
 * Layout (CSR inverted index): `offsets: Int32Array(V+1)`, `postDocs: Int32Array(P)` (doc indices,
 * ascending per term), `postTf: Float32Array(P)` (field-weighted tf), precomputed
 * `idf: Float64Array(V)` and per-doc length norms `norm[d] = k1·(1 − b + b·dl/avgdl)`.
 * At build/load the per-posting impacts `idf·tf·(k1+1)/(tf + norm[d])` are precomputed (Float64), so a
 * query only adds impacts into a reused `Float64Array(N)` (reset through the list of touched docs)
 * and selects the top k with a size-k min-heap. Scores are identical (to ~1e-9)
 * to {@link ./wink-engine.ts} for the same analyzer and params; the formula is in {@link ./params.ts}.
 * Works for any corpus size, including 0 or 1 document. Not safe for concurrent use from several
 * threads (one scratch buffer per engine; JS is single-threaded, so this only matters for workers).
 *
 * Serialises to a single binary buffer ({@link FastBm25.toBuffer}, {@link loadFastBm25}).
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { assertUniqueIds, Bm25ParamsSchema, type Bm25Engine, type Bm25Info, type Bm25Params } from "./params.ts";

/** Retriever id of the fast engine. */
export const FAST_BM25_ID = "bm25-fast";

const MAGIC = "MSBM25F1";

/** Options of {@link buildFastBm25} and {@link loadFastBm25}. */
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
  offsets: Int32Array;
  postDocs: Int32Array;
  postTf: Float32Array;
  docLen: Float64Array;
}

/** The fast BM25 engine (build with {@link buildFastBm25}, load with {@link loadFastBm25}). */
export class FastBm25 implements Bm25Engine {
  readonly id = FAST_BM25_ID;
  readonly info: Bm25Info;
  private readonly data: FastBm25Data;
  private readonly analyzer: Analyzer;
  private readonly vocab = new Map<string, number>();
  private readonly idf: Float64Array;
  private readonly norm: Float64Array;
  /** Per-posting BM25 impact idf·tf·(k1+1)/(tf + norm[d]), Float64 so scores match wink to ~1e-9. */
  private readonly impact: Float64Array;
  private readonly acc: Float64Array;
  private readonly touched: Int32Array;
  private docs: (CorpusDoc | undefined)[] | null = null;

  /** @internal use {@link buildFastBm25} or {@link loadFastBm25}. */
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
    for (let t = 0; t < v; t++) {
      const df = data.offsets[t + 1] - data.offsets[t];
      this.idf[t] = Math.log((n - df + 0.5) / (df + 0.5) + 1);
    }
    const k1p1 = k1 + 1;
    this.impact = new Float64Array(data.postDocs.length);
    for (let t = 0; t < v; t++) {
      const idf = this.idf[t];
      for (let p = data.offsets[t], end = data.offsets[t + 1]; p < end; p++) {
        const tf = data.postTf[p];
        this.impact[p] = (idf * (tf * k1p1)) / (tf + this.norm[data.postDocs[p]]);
      }
    }
    this.acc = new Float64Array(n);
    this.touched = new Int32Array(n);
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

  /** {@inheritDoc Bm25Engine.searchSync} */
  searchSync(query: string, k: number): SearchHit[] {
    if (!(k >= 1) || typeof query !== "string") return [];
    const n = this.data.ids.length;
    if (n === 0) return [];
    const terms = this.analyzer.analyze(query);
    if (terms.length === 0) return [];
    const { offsets, postDocs } = this.data;
    const { acc, touched, impact } = this;
    // Group repeated query terms: a term occurring c times adds c × its impact (as wink does).
    const counts = new Map<number, number>();
    for (const term of terms) {
      const t = this.vocab.get(term);
      if (t !== undefined) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    // acc is all-zero between queries (reset below through `touched`); impacts are > 0, so
    // acc[d] === 0 means "first touch".
    let nt = 0;
    for (const [t, c] of counts) {
      const end = offsets[t + 1];
      if (c === 1) {
        for (let p = offsets[t]; p < end; p++) {
          const d = postDocs[p];
          if (acc[d] === 0) touched[nt++] = d;
          acc[d] += impact[p];
        }
      } else {
        for (let p = offsets[t]; p < end; p++) {
          const d = postDocs[p];
          if (acc[d] === 0) touched[nt++] = d;
          acc[d] += c * impact[p];
        }
      }
    }
    if (nt === 0) return [];
    const top = topK(acc, touched, nt, Math.min(Math.floor(k), nt));
    const hits = top.map((d, i) => {
      const hit: SearchHit = { id: this.data.ids[d], score: acc[d], rank: i + 1, scores: { bm25: acc[d] } };
      const doc = this.docs?.[d];
      if (doc) hit.doc = doc;
      return hit;
    });
    for (let i = 0; i < nt; i++) acc[touched[i]] = 0;
    return hits;
  }

  /** {@inheritDoc Retriever.search} */
  async search(query: string, k: number): Promise<SearchHit[]> {
    return this.searchSync(query, k);
  }

  /** Indexed ids in internal order (the tie-break order). */
  get ids(): readonly string[] {
    return this.data.ids;
  }

  /**
   * Serialises the index: `MSBM25F1`, uint32 LE header length, JSON header (params, analyzer id,
   * content hash, ids, terms), zero padding to 8 bytes, then offsets (Int32), postDocs (Int32),
   * postTf (Float32), docLen (Float64), each block padded to 8 bytes.
   */
  toBuffer(): Buffer {
    const { params, analyzerId, contentHash, ids, terms, offsets, postDocs, postTf, docLen } = this.data;
    const header = Buffer.from(
      JSON.stringify({ version: 1, params, analyzerId, contentHash, ids, terms, postings: postDocs.length }),
      "utf8",
    );
    const pad8 = (x: number) => (x + 7) & ~7;
    const blocks = [offsets, postDocs, postTf, docLen];
    let size = pad8(12 + header.length);
    for (const b of blocks) size += pad8(b.byteLength);
    const out = Buffer.alloc(size);
    out.write(MAGIC, 0, "latin1");
    out.writeUInt32LE(header.length, 8);
    header.copy(out, 12);
    let off = pad8(12 + header.length);
    for (const b of blocks) {
      Buffer.from(b.buffer, b.byteOffset, b.byteLength).copy(out, off);
      off += pad8(b.byteLength);
    }
    return out;
  }
}

/** Returns the indices of the k largest `acc[touched[i]]`, best first; ties → smaller doc index first. */
function topK(acc: Float64Array, touched: Int32Array, nt: number, k: number): number[] {
  // "worse" = lower score, or equal score and larger doc index.
  const worse = (a: number, b: number) => acc[a] < acc[b] || (acc[a] === acc[b] && a > b);
  const heap = new Int32Array(k);
  let size = 0;
  const siftUp = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i], heap[p])) break;
      const tmp = heap[i];
      heap[i] = heap[p];
      heap[p] = tmp;
      i = p;
    }
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(heap[l], heap[m])) m = l;
      if (r < size && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      const tmp = heap[i];
      heap[i] = heap[m];
      heap[m] = tmp;
      i = m;
    }
  };
  for (let i = 0; i < nt; i++) {
    const d = touched[i];
    if (size < k) {
      heap[size++] = d;
      siftUp(size - 1);
    } else if (worse(heap[0], d)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  const out = Array.from(heap.subarray(0, size));
  out.sort((a, b) => (acc[b] - acc[a]) || a - b);
  return out;
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
  const offsets = new Int32Array(v + 1);
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
 * Loads an index written by {@link FastBm25.toBuffer}.
 * @param buf the bytes (e.g. `readFileSync(path)`).
 * @param opts analyzer (must have the id the index was built with) and an optional `source` name for errors.
 * @throws Error naming `source` when the magic, header or block sizes are wrong, or the analyzer differs.
 */
export function loadFastBm25(buf: Uint8Array, opts: { analyzer?: Analyzer; source?: string } = {}): FastBm25 {
  const where = opts.source ?? "buffer";
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12 || b.toString("latin1", 0, 8) !== MAGIC) throw new Error(`loadFastBm25: ${where} is not a medsynth fast BM25 index (bad magic)`);
  const hlen = b.readUInt32LE(8);
  let header: { version: number; params: unknown; analyzerId: string; contentHash: string | null; ids: string[]; terms: string[]; postings: number };
  try {
    header = JSON.parse(b.toString("utf8", 12, 12 + hlen));
  } catch (e) {
    throw new Error(`loadFastBm25: ${where} has an unreadable header: ${(e as Error).message}`);
  }
  if (header.version !== 1) throw new Error(`loadFastBm25: ${where} has format version ${header.version}, expected 1`);
  const pad8 = (x: number) => (x + 7) & ~7;
  // Copy into a fresh, 8-aligned ArrayBuffer so typed views are aligned.
  const ab = new ArrayBuffer(b.length);
  new Uint8Array(ab).set(b);
  let off = pad8(12 + hlen);
  const v = header.terms.length;
  const n = header.ids.length;
  const take = <T>(make: (o: number, len: number) => T, len: number, bytes: number): T => {
    if (off + len * bytes > ab.byteLength) throw new Error(`loadFastBm25: ${where} is truncated`);
    const view = make(off, len);
    off += pad8(len * bytes);
    return view;
  };
  const offsets = take((o, l) => new Int32Array(ab, o, l), v + 1, 4);
  const postDocs = take((o, l) => new Int32Array(ab, o, l), header.postings, 4);
  const postTf = take((o, l) => new Float32Array(ab, o, l), header.postings, 4);
  const docLen = take((o, l) => new Float64Array(ab, o, l), n, 8);
  if (offsets[v] !== header.postings) throw new Error(`loadFastBm25: ${where} is corrupt (postings count mismatch)`);
  return new FastBm25(
    { params: Bm25ParamsSchema.parse(header.params), analyzerId: header.analyzerId, contentHash: header.contentHash, ids: header.ids, terms: header.terms, offsets, postDocs, postTf, docLen },
    opts.analyzer ?? defaultAnalyzer,
  );
}
