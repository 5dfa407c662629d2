/**
 * The identity reranker: keeps the retriever's order and cuts it to `topN`.
 */
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Reranker, SearchHit } from "../types.ts";

/** Id of the identity reranker. */
export const NONE_RERANKER_ID = "none";

/** Config of the identity reranker (no settings). */
export const NoneRerankerConfigSchema = z.object({}).strict();

/**
 * Build the identity reranker.
 * `rerank(query, docs, {topN})` returns the first `topN` docs in the given order with
 * `score = 1 / rank` (reciprocal input rank, so scores strictly decrease) and `scores.input_rank`.
 * An empty/blank query or topN ≤ 0 → [].
 */
export function createNoneReranker(_config: z.input<typeof NoneRerankerConfigSchema> = {}): Reranker {
  NoneRerankerConfigSchema.parse(_config);
  return {
    id: NONE_RERANKER_ID,
    async rerank(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(opts.topN > 0)) return [];
      return docs.slice(0, Math.floor(opts.topN)).map((doc, i) => ({ id: doc.id, score: 1 / (i + 1), rank: i + 1, doc, scores: { input_rank: i + 1 } }));
    },
  };
}
