/**
 * Hybrid retrieval: a lexical (BM25) and a dense retriever fused into one ranking.
 *
 * Two backends:
 * - {@link createHybridRetriever}: each component retrieves `candidates` hits, fused by RRF
 *   (k = 60) or by weighted min–max score fusion (MedMeta's equal-weight BM25 + dense ensemble);
 *   `SearchHit.scores` keeps each component's own score (`bm25`, `dense`) next to the fused one
 *   (`rrf` or `weighted`).
 * - {@link createLanceHybridRetriever}: LanceDB's own full-text index + vector search merged by
 *   LanceDB's `RRFReranker`, for corpora too large for in-memory BM25 (the FTS index lives on
 *   disk with the vectors). Its scores are LanceDB's: `scores.lance_rrf` (and `scores.fts` when
 *   the doc matched the text query).
 *
 * @see Cormack, Clarke & Büttcher 2009 (RRF); MedMeta (seed 001) Standard-RAG hybrid search.
 */
import * as lancedb from "@lancedb/lancedb";
import { z } from "zod";
import type { CorpusDoc } from "../corpus/types.ts";
import { minMaxFuse, rrfFuse, RRF_K } from "./fusion.ts";
import type { DenseStore } from "./dense/lancedb-store.ts";
import type { Embedder, Retriever, SearchHit } from "./types.ts";

/** Config of the in-memory hybrid. */
export const HybridConfigSchema = z
  .object({
    /** `rrf` (reciprocal rank fusion) or `weighted` (weighted min–max score fusion). */
    fusion: z.enum(["rrf", "weighted"]).default("rrf"),
    /** RRF constant k. */
    rrfK: z.number().min(0).default(RRF_K),
    /** Component weights; default 1/1 for RRF, 0.5/0.5 for weighted fusion. */
    weights: z.object({ bm25: z.number().min(0), dense: z.number().min(0) }).strict().optional(),
    /** Hits each component retrieves before fusion (at least the requested k is used). */
    candidates: z.number().int().positive().default(100),
  })
  .strict();
export type HybridConfig = z.input<typeof HybridConfigSchema>;

/** Components of a hybrid retriever. */
export interface HybridDeps {
  bm25: Retriever;
  dense: Retriever;
  docs?: readonly CorpusDoc[];
}

/**
 * Build the in-memory hybrid retriever (id `hybrid-rrf` or `hybrid-weighted`).
 * @returns a {@link Retriever}; hits carry `scores.{bm25,dense}` (component scores, absent when
 *   the doc was not in that component's candidates) and `scores.{rrf|weighted}` (fused score).
 *   Empty/blank query or k ≤ 0 → [].
 * @throws on an invalid config.
 */
export function createHybridRetriever(deps: HybridDeps, config: HybridConfig = {}): Retriever {
  const cfg = HybridConfigSchema.parse(config);
  const byId = new Map<string, CorpusDoc>((deps.docs ?? []).map((d) => [d.id, d]));
  const fusedName = cfg.fusion === "rrf" ? "rrf" : "weighted";
  return {
    id: `hybrid-${cfg.fusion}`,
    async search(query: string, k: number): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
      const depth = Math.max(cfg.candidates, Math.floor(k));
      const [lex, den] = await Promise.all([deps.bm25.search(query, depth), deps.dense.search(query, depth)]);
      const names = ["bm25", "dense"];
      const weights = cfg.weights ? [cfg.weights.bm25, cfg.weights.dense] : undefined;
      const fused =
        cfg.fusion === "rrf"
          ? rrfFuse([lex, den], { k: cfg.rrfK, names, weights, limit: Math.floor(k) })
          : minMaxFuse([lex, den], { names, weights, limit: Math.floor(k) });
      return fused.map((h) => {
        const hit: SearchHit = { ...h, scores: { ...h.scores, [fusedName]: h.score } };
        const doc = h.doc ?? byId.get(h.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}

/** Inputs of the LanceDB-native hybrid. */
export interface LanceHybridDeps {
  store: DenseStore;
  embedder: Embedder;
  docs?: readonly CorpusDoc[];
  /** RRF constant of LanceDB's `RRFReranker` (default 60). */
  rrfK?: number;
  log?: (line: string) => void;
}

/**
 * Build the LanceDB-native hybrid (id `hybrid-lance`): ensures an FTS index on the store's
 * `content` column (built once, ~1 s at 20k docs), then answers with FTS + vector search fused by
 * LanceDB's `RRFReranker`. Ties are broken by id for determinism.
 * @throws when the store and embedder ids differ.
 */
export async function createLanceHybridRetriever(deps: LanceHybridDeps): Promise<Retriever> {
  const { store, embedder } = deps;
  if (store.embedderId !== embedder.id) {
    throw new Error(`lance hybrid: store ${store.tableName} was built with embedder ${store.embedderId}, not ${embedder.id}`);
  }
  const indices = await store.table.listIndices();
  if (!indices.some((i) => i.columns.includes("content") && /fts|inverted/i.test(i.indexType))) {
    const t0 = Date.now();
    await store.table.createIndex("content", { config: lancedb.Index.fts(), replace: true });
    (deps.log ?? ((l: string) => console.error(l)))(`lance hybrid: built FTS index on ${store.tableName} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const reranker = await lancedb.rerankers.RRFReranker.create(deps.rrfK ?? RRF_K);
  const byId = new Map<string, CorpusDoc>((deps.docs ?? []).map((d) => [d.id, d]));
  return {
    id: "hybrid-lance",
    async search(query: string, k: number): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
      const [v] = await embedder.embed([query]);
      const q = store.table
        .query()
        .fullTextSearch(query)
        .nearestTo(Array.from(v))
        .distanceType("dot")
        .rerank(reranker)
        .select(["id"])
        .limit(Math.floor(k));
      const rows = (await q.toArray()) as { id: string; _relevance_score: number; _score?: number | null }[];
      const sorted = rows
        .map((r) => ({ id: String(r.id), score: Number(r._relevance_score), fts: r._score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return sorted.map((r, i) => {
        const scores: Record<string, number> = { lance_rrf: r.score };
        if (typeof r.fts === "number" && r.fts > 0) scores.fts = r.fts;
        const hit: SearchHit = { id: r.id, score: r.score, rank: i + 1, scores };
        const doc = byId.get(r.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}
