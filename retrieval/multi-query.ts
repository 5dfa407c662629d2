/**
 * Multi-query retrieval (MedMeta Standard-RAG): N sub-queries, K hits per sub-query, merged and
 * de-duplicated by doc id (PMID), keeping for every doc which sub-queries found it, at which rank
 * and with which score.
 *
 * Merged order: reciprocal rank fusion over the sub-query lists, `Σ_q 1/(rrfK + rank_q(d))`
 * (a doc found by several sub-queries, or found early, comes first); equal scores next to each
 * other in a sub-query's list share a rank for this sum (`sharedRanks`, "1224", as in
 * `retrieval/fusion.ts`), and each doc's terms are summed largest first, so tied inputs give
 * equal fused scores; ties of the fused score are broken by first appearance (sub-query order,
 * then rank). Blank sub-queries are dropped; repeated sub-queries are run once.
 *
 * @see MedMeta (seed 001) §Standard-RAG: sub-questions → hybrid search (K = 5/10) → merged evidence.
 */
import { z } from "zod";
import { RRF_K, sharedRanks } from "./fusion.ts";
import type { Retriever, SearchHit } from "./types.ts";

/** Where a merged doc was found: one entry per sub-query that retrieved it. */
export interface QueryProvenance {
  query: string;
  /** 0-based position of the sub-query in the input list (after blank/duplicate removal: the first occurrence). */
  queryIndex: number;
  /** 1-based rank of the doc in that sub-query's list. */
  rank: number;
  /** The retriever's score there. */
  score: number;
}

/** A merged hit: `score` is the RRF score over sub-queries; `provenance.queries` in sub-query order. */
export interface MultiQueryHit extends SearchHit {
  provenance: { queries: QueryProvenance[] };
}

/** Config of {@link multiQueryRetrieve}. */
export const MultiQueryConfigSchema = z
  .object({
    /** Hits retrieved per sub-query (Standard-RAG K). */
    k: z.number().int().positive().default(5),
    /** Keep at most this many merged docs (default: all, ≤ N·K). */
    maxDocs: z.number().int().positive().optional(),
    /** RRF constant used to order the merged list. */
    rrfK: z.number().min(0).default(RRF_K),
  })
  .strict();
/** What a caller may pass for {@link MultiQueryConfigSchema} (keys with defaults are optional). */
export type MultiQueryConfig = z.input<typeof MultiQueryConfigSchema>;

/**
 * Run every sub-query against `retriever` and merge the results.
 * @param retriever any {@link Retriever} (bm25, dense, hybrid).
 * @param queries sub-queries (blank ones ignored; duplicates run once).
 * @param config `k` per sub-query (default 5), `maxDocs`, `rrfK` (default 60).
 * @returns merged hits, best first, ranks 1..n, each with `provenance.queries` and, when the
 *   retriever attached it, `doc`. No sub-query → [].
 * @throws on an invalid config; retriever errors propagate.
 */
export async function multiQueryRetrieve(retriever: Retriever, queries: readonly string[], config: MultiQueryConfig = {}): Promise<MultiQueryHit[]> {
  const cfg = MultiQueryConfigSchema.parse(config);
  const uniq: string[] = [];
  for (const q of queries) {
    if (typeof q !== "string" || q.trim() === "") continue;
    if (!uniq.includes(q)) uniq.push(q);
  }
  if (uniq.length === 0) return [];
  const lists = await Promise.all(uniq.map((q) => retriever.search(q, cfg.k)));
  const acc = new Map<string, { hit: MultiQueryHit; parts: number[]; fused: number; first: number }>();
  let seen = 0;
  lists.forEach((list, qi) => {
    const inList = new Set<string>();
    const kept: SearchHit[] = [];
    for (const h of list) {
      if (inList.has(h.id)) continue;
      inList.add(h.id);
      kept.push(h);
    }
    const shared = sharedRanks(
      kept.map((_, j) => j + 1),
      kept.map((h) => h.score),
    );
    kept.forEach((h, j) => {
      let a = acc.get(h.id);
      if (!a) {
        a = { hit: { id: h.id, score: 0, rank: 0, provenance: { queries: [] } }, parts: [], fused: 0, first: seen++ };
        if (h.doc) a.hit.doc = h.doc;
        acc.set(h.id, a);
      }
      a.parts.push(1 / (cfg.rrfK + shared[j]));
      a.hit.provenance.queries.push({ query: uniq[qi], queryIndex: qi, rank: j + 1, score: h.score });
    });
  });
  for (const a of acc.values()) for (const p of [...a.parts].sort((x, y) => y - x)) a.fused += p;
  const merged = [...acc.values()].sort((a, b) => b.fused - a.fused || a.first - b.first);
  const top = cfg.maxDocs === undefined ? merged : merged.slice(0, cfg.maxDocs);
  return top.map((a, i) => ({ ...a.hit, score: a.fused, rank: i + 1, scores: { rrf: a.fused } }));
}
