/**
 * Hybrid retrieval: a lexical (BM25) and a dense retriever fused into one ranking.
 *
 * Two backends:
 * - {@link createHybridRetriever}: each component retrieves `candidates` hits, fused by RRF
 *   (k = 60) or by weighted min–max score fusion (MedMeta's equal-weight BM25 + dense ensemble);
 *   `SearchHit.scores` keeps each component's own score (`bm25`, `dense`) next to the fused one
 *   (`rrf` or `weighted`).
 * - {@link createLanceHybridRetriever}: LanceDB's own full-text index + vector search, for
 *   corpora too large for in-memory BM25 (the FTS index lives on disk with the vectors). Both
 *   candidate lists come from LanceDB and are fused by the same {@link rrfFuse} as the in-memory
 *   hybrid (not LanceDB's `RRFReranker`, see there why); `scores.{fts,dense,rrf}`.
 *
 * @see Cormack, Clarke & Büttcher 2009 (RRF); MedMeta (seed 001) Standard-RAG hybrid search.
 */
import { lanceIndexTimeoutMs, withTimeout } from "./lance-env.ts"; // first: sets LANCE_CPU_THREADS before LanceDB loads
import { z } from "zod";
import type { CorpusDoc } from "../corpus/types.ts";
import { analyze } from "./analyzer.ts";
import { minMaxFuse, rrfFuse, RRF_K, type RankedItem } from "./fusion.ts";
import { loadLanceDb, type DenseStore } from "./dense/lancedb-store.ts";
import { searchMatchable, unmatchableDocIds } from "./dense/dense-retriever.ts";
import { embedQueries, type Embedder, type Retriever, type SearchHit } from "./types.ts";

/** Config of the in-memory hybrid. */
export const HybridConfigSchema = z
  .object({
    /** `rrf` (reciprocal rank fusion) or `weighted` (weighted min–max score fusion). */
    fusion: z.enum(["rrf", "weighted"]).default("rrf"),
    /** RRF constant k. */
    rrfK: z.number().min(0).default(RRF_K),
    /** Component weights; default 1/1 for RRF, 0.5/0.5 for weighted fusion. */
    weights: z
      .object({ bm25: z.number().min(0), dense: z.number().min(0) })
      .strict()
      .optional(),
    /** Hits each component retrieves before fusion (at least the requested k is used). */
    candidates: z.number().int().positive().default(100),
    /**
     * Run the two legs concurrently (default) or one after the other. The results are the same
     * either way; concurrency overlaps the on-disk engines' native work (LanceDB full-text and
     * vector search each run on LanceDB's thread pool).
     */
    concurrentLegs: z.boolean().default(true),
  })
  .strict();
/** What a caller may pass for {@link HybridConfigSchema} (keys with defaults are optional). */
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
      const [lex, den] = cfg.concurrentLegs
        ? await Promise.all([deps.bm25.search(query, depth), deps.dense.search(query, depth)])
        : [await deps.bm25.search(query, depth), await deps.dense.search(query, depth)];
      const names = ["bm25", "dense"];
      const weights = cfg.weights ? [cfg.weights.bm25, cfg.weights.dense] : undefined;
      const fused = cfg.fusion === "rrf" ? rrfFuse([lex, den], { k: cfg.rrfK, names, weights, limit: Math.floor(k) }) : minMaxFuse([lex, den], { names, weights, limit: Math.floor(k) });
      return fused.map((h) => {
        const hit: SearchHit = { ...h, scores: { ...h.scores, [fusedName]: h.score } };
        const doc = h.doc ?? byId.get(h.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}

/** Config of the LanceDB-native hybrid (see {@link createLanceHybridRetriever}). */
export const LanceHybridConfigSchema = z
  .object({
    /** RRF constant k (same meaning and default as the in-memory hybrid, {@link RRF_K} = 60). */
    rrfK: z.number().min(0).default(RRF_K),
    /**
     * Hits each list (LanceDB full-text search, vector search) returns before fusion; at least the
     * requested k is used. Fused scores depend on it, never on the k of `search`.
     */
    candidates: z.number().int().positive().default(100),
  })
  .strict();

/** Inputs of the LanceDB-native hybrid. */
export interface LanceHybridDeps {
  store: DenseStore;
  embedder: Embedder;
  docs?: readonly CorpusDoc[];
  /** RRF constant k (default {@link RRF_K} = 60). */
  rrfK?: number;
  /** Hits fetched from each list before fusion (default 100; at least the requested k is used). */
  candidates?: number;
  /** Info lines (FTS index built); default console.error. */
  log?: (line: string) => void;
  /** Time limit of the FTS index build, ms (default `lanceIndexTimeoutMs(store.docCount)`: env `MEDSYNTH_LANCE_INDEX_TIMEOUT_S`, else ≥ 10 min growing with the rows); past it the build is an error, never a hang. */
  indexTimeoutMs?: number;
}

/** Id of the LanceDB-native hybrid retriever. */
export const LANCE_HYBRID_ID = "hybrid-lance";

// Word runs as in retrieval/analyzer.ts; the FTS query text is rebuilt from them so that
// punctuation in a user query (quotes, colons, parentheses) is never read as query syntax
// (a `"` would otherwise request a phrase query, which our position-less index refuses).
const FTS_WORD_RE = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;

/**
 * Build the LanceDB-native hybrid (id `hybrid-lance`): ensures an FTS index on the store's
 * `content` column (built once, ~1 s at 20k docs), then per query fetches two candidate lists
 * from LanceDB — full-text search (BM25 `_score`, LanceDB's own tokenizer/stemmer) and the
 * store's vector search (cosine) — `max(candidates, k)` hits each, fuses them with our
 * {@link rrfFuse} (`score = Σ 1/(rrfK + rank)`, 1-based ranks, lists `fts` then `dense`) and only
 * then keeps the top k.
 *
 * Why our own fusion rather than LanceDB's `RRFReranker`: the reranker cuts both lists to the
 * query's `limit` before fusing (so a doc's score changed with k), counts ranks from 0 (so its
 * scores disagreed with `hybrid-rrf`'s 1/(60 + rank from 1)), and when the text query matched
 * nothing and the query vector was zero (no known word) every row tied in the vector search, so
 * the first rows of the table came back as "hits". With `rrfFuse` both hybrids share one RRF
 * definition (Cormack et al. 2009) and the same tie-breaking (first appearance, `fts` first).
 *
 * A query with no analyzable term under the project analyzer ({@link analyze}: no word of ≥ 2
 * characters outside the stop list, e.g. `"*&^%$#@!"`) returns [] without searching; a query
 * whose terms match nothing in the FTS index and whose embedding is the zero vector (no known
 * word) returns [] too; a document with no analyzable term never matches in the vector list
 * ({@link unmatchableDocIds}, from `docs`; LanceDB's FTS never returns it either). Hits carry `scores.fts` (LanceDB BM25 score, when in the FTS list),
 * `scores.dense` (cosine, when in the vector list) and `scores.rrf` (= `score`).
 * @throws when the store and embedder ids differ, or on an invalid `rrfK` / `candidates`.
 * @see Cormack, Clarke & Büttcher 2009 (RRF).
 */
export async function createLanceHybridRetriever(deps: LanceHybridDeps): Promise<Retriever> {
  const { store, embedder } = deps;
  const cfg = LanceHybridConfigSchema.parse({ rrfK: deps.rrfK, candidates: deps.candidates });
  if (store.embedderId !== embedder.id) {
    throw new Error(`lance hybrid: store ${store.tableName} was built with embedder ${store.embedderId}, not ${embedder.id}`);
  }
  const lancedb = await loadLanceDb();
  const indices = await store.table.listIndices();
  if (!indices.some((i) => i.columns.includes("content") && /fts|inverted/i.test(i.indexType))) {
    const t0 = Date.now();
    await withTimeout(
      store.table.createIndex("content", { config: lancedb.Index.fts(), replace: true }),
      deps.indexTimeoutMs ?? lanceIndexTimeoutMs(store.docCount),
      `LanceDB FTS index on ${store.tableName}`,
    );
    (deps.log ?? ((l: string) => console.error(l)))(`lance hybrid: built FTS index on ${store.tableName} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const byId = new Map<string, CorpusDoc>((deps.docs ?? []).map((d) => [d.id, d]));
  const unmatchable = store.unmatchable ?? unmatchableDocIds(deps.docs ?? []);

  /** LanceDB full-text candidates, best first (ties by id). `_score` is selected explicitly (no autoprojection warning). */
  const ftsSearch = async (text: string, depth: number): Promise<RankedItem[]> => {
    const rows = (await store.table.query().fullTextSearch(new lancedb.MatchQuery(text, "content")).select(["id", "_score"]).limit(depth).toArray()) as { id: string; _score: number }[];
    return rows.map((r) => ({ id: String(r.id), score: Number(r._score) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  return {
    id: LANCE_HYBRID_ID,
    async search(query: string, k: number): Promise<SearchHit[]> {
      if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
      if (analyze(query).length === 0) return [];
      const limit = Math.floor(k);
      if (limit <= 0) return [];
      const depth = Math.max(cfg.candidates, limit);
      const ftsText = (query.match(FTS_WORD_RE) ?? []).join(" ");
      const [v] = await embedQueries(embedder, [query]);
      const [lex, den] = await Promise.all([
        ftsText === "" ? Promise.resolve([] as RankedItem[]) : ftsSearch(ftsText, depth),
        !v || v.every((x) => x === 0) ? Promise.resolve([] as RankedItem[]) : searchMatchable(store, v, depth, unmatchable),
      ]);
      const fused = rrfFuse([lex, den], { k: cfg.rrfK, names: ["fts", "dense"], limit });
      return fused.map((h) => {
        const hit: SearchHit = { ...h, scores: { ...h.scores, rrf: h.score } };
        const doc = byId.get(h.id);
        if (doc) hit.doc = doc;
        return hit;
      });
    },
  };
}
