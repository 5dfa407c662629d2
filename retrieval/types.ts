/**
 * Contracts of the retrieval layer. Implementations: BM25 engines, dense LanceDB store,
 * hybrid fusion, rerankers, multi-query retrieval.
 */
import type { CorpusDoc } from "../corpus/types.ts";
import type { CallInfo } from "../models/types.ts";

/** Turns texts into L2-normalisable vectors. `dims` is the vector length. */
export interface Embedder {
  readonly id: string;
  readonly dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * Embed search queries when they are encoded differently from documents (a query instruction
   * prefix as in BGE, a separate query encoder as in MedCPT); absent → `embed` is used.
   */
  embedQueries?(texts: string[]): Promise<Float32Array[]>;
  /**
   * What the vectors depend on beyond `id` (model ids, revision, pooling, normalisation, query
   * prefix, max length), recorded in env.json and in LanceDB table metadata; a table built with
   * other settings is refused.
   */
  readonly info?: Readonly<Record<string, unknown>>;
}

/** Embed queries with the embedder's query path when it has one, else as documents. */
export function embedQueries(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  return embedder.embedQueries ? embedder.embedQueries(texts) : embedder.embed(texts);
}

/** One ranked hit. `score` is the retriever's own score (higher = better); `scores` keeps per-component scores. */
export interface SearchHit {
  id: string;
  score: number;
  rank: number;
  doc?: CorpusDoc;
  scores?: Record<string, number>;
  /** Set when a component (e.g. an LLM reranker) failed for this hit; its score is then not a real grade. */
  error?: string;
}

/** Anything that answers a query with a ranked list. An empty query returns []. */
export interface Retriever {
  readonly id: string;
  /**
   * The `k` best hits for `query`, best first (`rank` 1…k); an empty or blank query, or k ≤ 0,
   * gives [].
   */
  search(query: string, k: number): Promise<SearchHit[]>;
}

/** Reorders the top hits of a retriever; returns at most `topN` hits with new scores and ranks. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<SearchHit[]>;
  /**
   * Same as `rerank`, plus the model calls it made (tokens, latency, cached flags) so a workflow
   * can account for them, and every candidate it could not grade (kept or cut); implemented by
   * model-backed rerankers (LLM pointwise).
   */
  rerankDetailed?(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<{ hits: SearchHit[]; calls: CallInfo[]; errors: { id: string; error: string }[] }>;
}
