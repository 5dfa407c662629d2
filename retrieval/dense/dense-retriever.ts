/**
 * Dense retriever: embeds the query with the store's embedder and returns the k nearest docs of
 * a {@link DenseStore} by cosine similarity.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { analyze } from "../analyzer.ts";
import { embedQueries, type Embedder, type Retriever, type SearchHit } from "../types.ts";
import { docContent, type DenseStore, type VectorHit } from "./lancedb-store.ts";

/** Id prefix of dense retrievers: `dense:<embedder id>`. */
export const DENSE_RETRIEVER_PREFIX = "dense";

/**
 * Ids of documents that can never match: no analyzable term in title + text under the project
 * analyzer (empty, or stop words / punctuation only). BM25 never returns them; dense search would
 * rank them anyway (a zero vector scores 0, a stop-word vector can score high against anything),
 * so without this an all-empty corpus "matched" every query with all its documents.
 */
export function unmatchableDocIds(docs: readonly Pick<CorpusDoc, "id" | "title" | "text">[]): Set<string> {
  return new Set(docs.filter((d) => analyze(docContent(d)).length === 0).map((d) => d.id));
}

/**
 * Top-k vector hits without the unmatchable documents: asks the store for k + |unmatchable| so
 * that k matchable hits remain when the corpus has them.
 */
export async function searchMatchable(store: Pick<DenseStore, "search">, vector: Float32Array, k: number, unmatchable: ReadonlySet<string>): Promise<VectorHit[]> {
  if (unmatchable.size === 0) return store.search(vector, k);
  const hits = await store.search(vector, k + unmatchable.size);
  return hits.filter((h) => !unmatchable.has(h.id)).slice(0, k);
}

/** Inputs of {@link createDenseRetriever}. */
export interface DenseRetrieverDeps {
  store: DenseStore;
  embedder: Embedder;
  /** Docs to attach to hits (by id); optional. */
  docs?: readonly CorpusDoc[];
}

/**
 * Build a {@link Retriever} over a dense store.
 *
 * Hits: `score` = cosine similarity in [−1, 1], `scores.dense` the same, `rank` 1-based, `doc`
 * attached when given. Degenerate queries return [] in every mode alike (BM25, dense, hybrid): an
 * empty/blank query, k ≤ 0, a query with no analyzable term under the project analyzer (stop words
 * only, or punctuation), or a query whose embedding is the zero vector (e.g. no word known to the
 * word-vector vocabulary) — there is nothing to rank by. A document
 * with no analyzable term (empty, or stop words only) never matches: see {@link unmatchableDocIds}
 * (needs `docs`).
 * @throws when the embedder id differs from the one the store was built with.
 */
export function createDenseRetriever(deps: DenseRetrieverDeps): Retriever {
  const { store, embedder } = deps;
  if (store.embedderId !== embedder.id) {
    throw new Error(`dense retriever: store ${store.tableName} was built with embedder ${store.embedderId}, but queries would be embedded with ${embedder.id}`);
  }
  const byId = new Map<string, CorpusDoc>((deps.docs ?? []).map((d) => [d.id, d]));
  // Recorded in the table at build (no re-analysis of the corpus on reopen); computed for older tables.
  const unmatchable = store.unmatchable ?? unmatchableDocIds(deps.docs ?? []);
  return {
    id: `${DENSE_RETRIEVER_PREFIX}:${embedder.id}`,
    async search(query: string, k: number): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
      if (analyze(query).length === 0) return [];
      const [v] = await embedQueries(embedder, [query]);
      if (!v || v.every((x) => x === 0)) return [];
      const hits = await searchMatchable(store, v, Math.floor(k), unmatchable);
      return hits.map((h, i) => {
        const hit: SearchHit = { id: h.id, score: h.score, rank: i + 1, scores: { dense: h.score } };
        const doc = byId.get(h.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}
