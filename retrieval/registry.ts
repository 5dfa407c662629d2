/**
 * Retrieval registry: one zod-checked config → a ready {@link Retriever} (BM25, dense, in-memory
 * hybrid, or LanceDB-native hybrid), plus re-exports of the embedder and reranker registries.
 *
 * Example config: `{ mode: "hybrid", bm25: { engine: "fast" }, embedder: "word-vectors:sg-100d-sif-corpus-pc1",
 * fusion: "rrf", rrfK: 60, candidates: 100 }`.
 */
import { z } from "zod";
import type { CorpusDoc } from "../corpus/types.ts";
import { buildBm25, Bm25ConfigSchema } from "./bm25/build.ts";
import type { Bm25Engine } from "./bm25/params.ts";
import { createDenseRetriever } from "./dense/dense-retriever.ts";
import { LanceStoreConfigSchema, openOrBuildDenseStore, type DenseStore } from "./dense/lancedb-store.ts";
import { createEmbedder, DEFAULT_RETRIEVER_EMBEDDER_ID, EMBEDDER_IDS, type EmbedderOptions } from "./embedders/registry.ts";
import { RRF_K } from "./fusion.ts";
import { createHybridRetriever, createLanceHybridRetriever } from "./hybrid.ts";
import type { Embedder, Retriever } from "./types.ts";

export { createEmbedder, EMBEDDER_IDS, DEFAULT_EMBEDDER_ID, DEFAULT_RETRIEVER_EMBEDDER_ID, type EmbedderOptions } from "./embedders/registry.ts";
export { createReranker, RERANKER_IDS, type RerankerOptions } from "./rerankers/registry.ts";

/** Retrieval modes. `lance-hybrid` = LanceDB full-text + vector candidate lists fused by our RRF (no in-memory BM25). */
export const RETRIEVAL_MODES = ["bm25", "dense", "hybrid", "lance-hybrid"] as const;
/** One of {@link RETRIEVAL_MODES}. */
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

/** Config of {@link createRetriever}. */
export const RetrieverConfigSchema = z
  .object({
    mode: z.enum(RETRIEVAL_MODES).default("hybrid"),
    /** BM25 engine (`fast` | `wink`), k1, b, field weights, on-disk cache (bm25 and hybrid modes). */
    bm25: Bm25ConfigSchema.prefault({}),
    /** Embedder id (dense and hybrid modes); see {@link EMBEDDER_IDS}. */
    embedder: z.string().min(1).default(DEFAULT_RETRIEVER_EMBEDDER_ID),
    /** Fusion of the in-memory hybrid: reciprocal rank fusion or weighted min–max. */
    fusion: z.enum(["rrf", "weighted"]).default("rrf"),
    /** RRF constant k (not the number of hits: that is the `k` of `search`). */
    rrfK: z.number().min(0).default(RRF_K),
    /** Fusion weights; default equal (1/1 for RRF, 0.5/0.5 for weighted). */
    weights: z.object({ bm25: z.number().min(0), dense: z.number().min(0) }).strict().optional(),
    /** Hits each component retrieves before fusion. */
    candidates: z.number().int().positive().default(100),
    /** LanceDB store: folder, table name, ANN index (`none` = exact), build mode. */
    dense: LanceStoreConfigSchema.prefault({}),
  })
  .strict();
/**
 * The mode a command or config uses when none is given, and the one line that says why.
 * With the offline word-vector embedder (id `word-vectors:…`) BM25 alone measured best on
 * MedEvidence (recall@10 0.865 vs hybrid 0.741, `experiments/bench/retrieval.ts`): fusing a weak
 * dense list only dilutes BM25. With any other embedder (a real dense model) the default stays
 * the MedMeta hybrid.
 * @param embedderId the embedder that dense/hybrid modes would use.
 * @returns the mode and a note for the user (printed once by the caller).
 */
export function defaultRetrievalMode(embedderId: string): { mode: RetrievalMode; note: string } {
  if (embedderId.startsWith("word-vectors")) {
    return { mode: "bm25", note: `retrieval mode: bm25 (default with the offline word-vector embedder ${embedderId}: on MedEvidence BM25 recall@10 is 0.865 vs hybrid 0.741; set the mode to hybrid explicitly to fuse, or use a real embedder)` };
  }
  return { mode: "hybrid", note: `retrieval mode: hybrid (default with embedder ${embedderId})` };
}

/** {@link RetrieverConfigSchema} after parsing (defaults applied). */
export type RetrieverConfig = z.infer<typeof RetrieverConfigSchema>;
/** What a caller may pass for {@link RetrieverConfigSchema} (keys with defaults are optional). */
export type RetrieverConfigInput = z.input<typeof RetrieverConfigSchema>;

/** Inputs of {@link createRetriever}. */
export interface RetrieverDeps {
  /** The corpus (unique ids). */
  docs: readonly CorpusDoc[];
  /** A ready embedder (else built from `config.embedder` with `embedderOptions`). */
  embedder?: Embedder;
  embedderOptions?: EmbedderOptions;
  /** Progress/info lines (default console.error). */
  log?: (line: string) => void;
}

/** A retriever plus the parts it was built from (for inspection, benchmarks and the CLI). */
export interface BuiltRetriever extends Retriever {
  readonly config: RetrieverConfig;
  readonly bm25?: Bm25Engine;
  readonly embedder?: Embedder;
  readonly store?: DenseStore;
}

/**
 * Build a retriever from a config.
 * - `bm25`: `buildBm25(docs, config.bm25)` (cached by corpus hash); id `bm25-fast` / `bm25-wink`.
 * - `dense`: LanceDB table for (corpus hash, embedder id), opened or built; id `dense:<embedder id>`.
 * - `hybrid`: both, fused by `fusion`; id `hybrid-rrf` / `hybrid-weighted`.
 * - `lance-hybrid`: LanceDB full-text + vector candidates fused by `rrfFuse`; id `hybrid-lance`.
 * @param config {@link RetrieverConfigSchema} input (unknown keys are errors).
 * @throws ZodError on a bad config; Error listing valid ids on an unknown embedder; store errors
 *   (table built with another embedder/corpus).
 */
export async function createRetriever(config: RetrieverConfigInput, deps: RetrieverDeps): Promise<BuiltRetriever> {
  const cfg = RetrieverConfigSchema.parse(config);
  const { docs } = deps;
  let bm25: Bm25Engine | undefined;
  let embedder: Embedder | undefined;
  let store: DenseStore | undefined;
  let dense: Retriever | undefined;
  if (cfg.mode === "bm25" || cfg.mode === "hybrid") {
    bm25 = buildBm25(docs, cfg.bm25).engine;
  }
  if (cfg.mode !== "bm25") {
    embedder = deps.embedder ?? (await createEmbedder(cfg.embedder, { docs, ...deps.embedderOptions }));
    store = await openOrBuildDenseStore(docs, embedder, cfg.dense, { log: deps.log });
    dense = createDenseRetriever({ store, embedder, docs });
  }
  let inner: Retriever;
  if (cfg.mode === "bm25") inner = bm25!;
  else if (cfg.mode === "dense") inner = dense!;
  else if (cfg.mode === "hybrid") {
    inner = createHybridRetriever({ bm25: bm25!, dense: dense!, docs }, { fusion: cfg.fusion, rrfK: cfg.rrfK, weights: cfg.weights, candidates: cfg.candidates });
  } else {
    inner = await createLanceHybridRetriever({ store: store!, embedder: embedder!, docs, rrfK: cfg.rrfK, candidates: cfg.candidates, log: deps.log });
  }
  return {
    id: inner.id,
    search: (q, k) => inner.search(q, k),
    config: cfg,
    bm25,
    embedder,
    store,
  };
}
