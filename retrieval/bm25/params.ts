/**
 * BM25 parameters and the engine interface shared by both BM25 engines
 * ({@link ./fast-engine.ts} and {@link ./wink-engine.ts}).
 *
 * Both engines score with the same BM25F variant — the one `wink-bm25-text-search` implements,
 * which with field weights of 1 is exactly Lucene's BM25 over the concatenated title + text:
 *
 *   tf(t,d)  = Σ_f w_f · count(t in field f of d)          (field-weighted term frequency)
 *   dl(d)    = Σ_f w_f · |analyzed tokens of field f|       (field-weighted length)
 *   avgdl    = mean dl over the corpus
 *   idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))    (Lucene; wink's `k` = 1)
 *   s(t,d)   = idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl))
 *   score(q,d) = Σ over query terms (duplicates count again) of s(t,d)
 *
 * @see Robertson & Zaragoza (2009) "The Probabilistic Relevance Framework: BM25 and Beyond" §3.
 * @see Lucene `BM25Similarity`; wink-bm25-text-search 3.1.2 `consolidate()`.
 */
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Retriever, SearchHit } from "../types.ts";

/** BM25 scoring parameters (engine-independent). */
export const Bm25ParamsSchema = z
  .object({
    /** Term-frequency saturation, ≥ 0 (bm25s/anchor default 1.5; Lucene 1.2). */
    k1: z.number().min(0).default(1.5),
    /** Length normalisation strength in [0, 1]. */
    b: z.number().min(0).max(1).default(0.75),
    /** BM25F field weights (> 0); each multiplies that field's term counts and length. */
    fieldWeights: z
      .object({ title: z.number().positive().default(1), text: z.number().positive().default(1) })
      .strict()
      .default({ title: 1, text: 1 }),
  })
  .strict();
/** BM25 parameters (see {@link Bm25ParamsSchema}; checked without zod by `parseBm25Params` of `params-core.ts`, which imports only this file's types: import it from there). */
export type Bm25Params = z.infer<typeof Bm25ParamsSchema>;

/** Names of the two engines. */
export const BM25_ENGINES = ["fast", "wink"] as const;
/** One of {@link BM25_ENGINES}. */
export type Bm25EngineName = (typeof BM25_ENGINES)[number];

/** Facts about a built or loaded BM25 index. */
export interface Bm25Info {
  engine: Bm25EngineName;
  /** Number of indexed documents. */
  docCount: number;
  /** Distinct analyzed terms. */
  vocabSize: number;
  /** Mean field-weighted document length (tokens). */
  avgDocLength: number;
  params: Bm25Params;
  analyzerId: string;
  /** {@link corpusContentHash} of the indexed docs, when known. */
  contentHash: string | null;
}

/** A BM25 index that answers queries; both engines implement it. */
export interface Bm25Engine extends Retriever {
  readonly info: Bm25Info;
  /**
   * Same as `search` but synchronous (for benchmarks and tight loops).
   * Hits carry `scores.bm25` and, when the docs are attached, `doc`.
   * Empty/blank query, a query of only stop words/unknown terms, or k ≤ 0 → [].
   */
  searchSync(query: string, k: number): SearchHit[];
  /** Attach the documents (by id) so hits carry `doc`; ids not in the index are ignored. */
  attachDocs(docs: readonly CorpusDoc[]): void;
}
