/**
 * Build of medsynth's in-memory BM25 index (fast-engine.ts): documents → analysed (term, tf)
 * pairs → CSR posting lists, ids and vocabulary as UTF-8 string tables.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Analyzer } from "../analyzer.ts";
import { packStrings } from "./array-files.ts";
import type { Bm25Params } from "./params.ts";
import { assertUniqueIds, parseBm25Params } from "./params-core.ts";

/** The arrays and facts of a fast BM25 index: what is built ({@link buildFastBm25Data}), persisted (fast-persist.ts) and loaded into the engine. */
export interface FastBm25Data {
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

/**
 * The arrays of a fast BM25 index built over `docs` (fields `title` and `text`): one pass
 * analysing each document into (term, field-weighted tf) pairs, then a counting sort into the CSR
 * posting lists (doc ids ascending per term). fast-engine.ts's `buildFastBm25` wraps this into
 * the engine.
 * @param docs corpus documents, unique non-empty ids; any count (0 allowed).
 * @param params partial {@link Bm25Params} (defaults k1 1.5, b 0.75, weights 1/1).
 * @param analyzer the analyzer (its term-id form is used when it has one); `contentHash` to record.
 * @returns the index arrays ({@link FastBm25Data}).
 * @throws Error on a duplicate or empty id, a doc whose title/text is not a string, or bad params (naming the field).
 */
export function buildFastBm25Data(docs: readonly CorpusDoc[], params: Partial<Bm25Params>, analyzer: Analyzer, contentHash: string | null): FastBm25Data {
  const p = parseBm25Params(params);
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
  return { params: p, analyzerId: analyzer.id, contentHash, idBytes: idBlob.bytes, idEnds: idBlob.ends, termBytes: termBlob.bytes, termEnds: termBlob.ends, offsets, postDocs, postTf, docLen };
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
