/**
 * Dense retriever: embeds the query with the store's embedder and returns the k nearest docs of
 * a {@link DenseStore} by cosine similarity.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { embedQueries, type Embedder, type Retriever, type SearchHit } from "../types.ts";
import type { DenseStore } from "./lancedb-store.ts";

/** Id prefix of dense retrievers: `dense:<embedder id>`. */
export const DENSE_RETRIEVER_PREFIX = "dense";

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
 * attached when given. An empty/blank query, k ≤ 0, or a query whose embedding is the zero vector
 * (e.g. no word known to the word-vector vocabulary) returns [] — there is nothing to rank by.
 * @throws when the embedder id differs from the one the store was built with.
 */
export function createDenseRetriever(deps: DenseRetrieverDeps): Retriever {
  const { store, embedder } = deps;
  if (store.embedderId !== embedder.id) {
    throw new Error(`dense retriever: store ${store.tableName} was built with embedder ${store.embedderId}, but queries would be embedded with ${embedder.id}`);
  }
  const byId = new Map<string, CorpusDoc>((deps.docs ?? []).map((d) => [d.id, d]));
  return {
    id: `${DENSE_RETRIEVER_PREFIX}:${embedder.id}`,
    async search(query: string, k: number): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
      const [v] = await embedQueries(embedder, [query]);
      if (!v || v.every((x) => x === 0)) return [];
      const hits = await store.search(v, Math.floor(k));
      return hits.map((h, i) => {
        const hit: SearchHit = { id: h.id, score: h.score, rank: i + 1, scores: { dense: h.score } };
        const doc = byId.get(h.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}
