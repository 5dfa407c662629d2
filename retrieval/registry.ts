/**
 * Retrieval registry: one zod-checked config → a ready {@link Retriever} (BM25, dense, in-memory
 * hybrid, or LanceDB-native hybrid), plus re-exports of the embedder and reranker registries.
 *
 * Example config: `{ mode: "hybrid", bm25: { engine: "fast" }, embedder: "word-vectors:sg-100d-sif-corpus-pc1",
 * fusion: "rrf", rrfK: 60, candidates: 100 }`.
 *
 * Engines (`engine: auto | memory | lance`): `memory` = the in-memory BM25 engine and exact kNN
 * (vectors in one matrix); `lance` = the on-disk engines of `lance/disk-engines.ts` (LanceDB
 * full-text index, IVF-PQ vector index; documents read from a corpus store by id for the hits
 * only). `auto` (default) picks `memory` below {@link DISK_ENGINE_THRESHOLD} documents and
 * `lance` from there on (`engineThreshold` overrides the number).
 *
 * Nothing heavy loads with this module: LanceDB and apache-arrow are imported when a dense table
 * or an on-disk engine is first opened.
 */
import { z } from "zod";
import type { CorpusDoc } from "../corpus/types.ts";
import type { DocumentSource } from "../corpus/store/types.ts";
import { buildBm25, Bm25ConfigSchema } from "./bm25/build.ts";
import type { Bm25Engine } from "./bm25/params.ts";
import { createDenseRetriever } from "./dense/dense-retriever.ts";
import { LanceStoreConfigSchema, openOrBuildDenseStore, type DenseStore } from "./dense/lancedb-store.ts";
import { corpusContentHash } from "./content-hash.ts";
import { DiskIndexConfigSchema } from "./lance/disk-engines.ts";
import { DiskBm25ConfigSchema } from "./bm25/disk-retriever.ts";
import type { DiskBm25 } from "./bm25/disk-engine.ts";
import type { DiskBm25Pool } from "./bm25/disk-parallel.ts";
import type { RankedItem } from "./fusion.ts";
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
    weights: z
      .object({ bm25: z.number().min(0), dense: z.number().min(0) })
      .strict()
      .optional(),
    /** Hits each component retrieves before fusion. */
    candidates: z.number().int().positive().default(100),
    /** LanceDB store: folder, table name, ANN index (`none` = exact), build mode. */
    dense: LanceStoreConfigSchema.prefault({}),
    /**
     * `auto` (default): in-memory engines below `engineThreshold` documents, on-disk engines from
     * there on (`disk`: medsynth's own exact on-disk BM25 + LanceDB ANN); `memory` / `lance`
     * (LanceDB full-text BM25, {@link DISK_BM25_ENGINES}) / `disk` force one.
     */
    engine: z.enum(["auto", "memory", "lance", "disk"]).default("auto"),
    /** Corpus size (documents) from which `engine: auto` picks the on-disk engines; see {@link DISK_ENGINE_THRESHOLD}. */
    engineThreshold: z.number().int().positive().optional(),
    /** On-disk engines: LanceDB folder/URI, batch sizes, ANN index and its recall target. */
    disk: DiskIndexConfigSchema.prefault({}),
    /** `engine: disk`: medsynth's own on-disk BM25 (folder, page cache, build run size); see docs/bm25-on-disk.md. */
    bm25Disk: DiskBm25ConfigSchema.prefault({}),
    /** On-disk BM25 engine of engine `lance` (an id of {@link DISK_BM25_ENGINES}; default `lance-fts`); `engine: auto` on a large corpus uses `disk` instead. */
    diskBm25: z.string().min(1).default("lance-fts"),
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
    return {
      mode: "bm25",
      note: `retrieval mode: bm25 (default with the offline word-vector embedder ${embedderId}: on MedEvidence BM25 recall@10 is 0.865 vs hybrid 0.741; set the mode to hybrid explicitly to fuse, or use a real embedder)`,
    };
  }
  return { mode: "hybrid", note: `retrieval mode: hybrid (default with embedder ${embedderId})` };
}

/**
 * Corpus size (documents) from which `engine: auto` uses the on-disk engines: 250,000.
 * Why: the in-memory engines hold the corpus, the BM25 postings and the vector matrix in the
 * process — measured ~540 MiB RSS at 100 k docs and 4.0 GB at 1 M for BM25 alone (issue 11's
 * table), i.e. ~4 KB/doc plus ~2.4 KB/doc of loaded documents — so near 250 k docs the query
 * process passes ~1.5 GiB and the 2 GiB budget is at risk; the on-disk engines stay bounded
 * (`experiments/bench/retrieval-disk.ts`). Below it the in-memory engines are faster per query
 * and need no index build on disk.
 */
export const DISK_ENGINE_THRESHOLD = 250_000;

/**
 * Which engine family a config picks for a corpus of `docCount` documents: `auto` gives `memory`
 * below `threshold` ({@link DISK_ENGINE_THRESHOLD}) and `disk` from there on — medsynth's own
 * on-disk BM25 (exact: the in-memory engine's top k and scores; ~2 ms p50 at 1 M synthetic docs,
 * docs/bm25-on-disk.md) with LanceDB's ANN for dense, rather than LanceDB's full-text BM25
 * (`lance`: p50 69 ms at 990 k docs, other scores), which stays selectable with `engine: lance`.
 * Any other value is returned as given.
 */
export function chooseEngine(engine: "auto" | "memory" | "lance" | "disk", docCount: number, threshold: number = DISK_ENGINE_THRESHOLD): "memory" | "lance" | "disk" {
  if (engine !== "auto") return engine;
  return docCount >= threshold ? "disk" : "memory";
}

/**
 * What an on-disk BM25 engine gives the retriever: ranked ids and BM25 scores, no documents (they
 * are fetched by id from the source for the returned hits only).
 */
export interface DiskBm25Engine {
  readonly id: string;
  /** Facts of the index (engine name, doc count, where it lives, whether this call built it). */
  readonly info: { readonly engine: string; readonly docCount: number; readonly built: boolean };
  /** Ranked ids and scores, best first. */
  searchIds(query: string, k: number): Promise<RankedItem[]>;
}

/** Opens (or builds, streaming the source in batches) an on-disk BM25 index of `source`. */
export type DiskBm25Opener = (source: DocumentSource, config: RetrieverConfig, opts: { log?: (line: string) => void; fingerprint: string }) => Promise<DiskBm25Engine>;

/**
 * THE selection point of the LanceDB-side on-disk BM25 engine (config `diskBm25`), used whenever
 * engine `lance` is chosen ({@link chooseEngine}: forced with `engine: lance`; `engine: auto` on a
 * corpus of ≥ {@link DISK_ENGINE_THRESHOLD} documents picks `disk`, medsynth's own exact engine,
 * instead). Another
 * on-disk engine plugs in by adding an entry: it receives the source (stream it with
 * `scanDocs`, never hold it), the parsed retriever config and the corpus fingerprint (the
 * store's manifest fingerprint: key the index by it).
 */
export const DISK_BM25_ENGINES: Record<string, DiskBm25Opener> = {
  "lance-fts": async (source, config, opts) => (await import("./lance/disk-engines.ts")).openOrBuildLanceBm25(source, config.disk, opts),
};

/** Docs used to fit a corpus-fitted embedder (SIF word frequencies, common component) when the corpus is not in memory: the first 50,000 of the store. */
export const DISK_FIT_SAMPLE = 50_000;

/** {@link RetrieverConfigSchema} after parsing (defaults applied). */
export type RetrieverConfig = z.infer<typeof RetrieverConfigSchema>;
/** What a caller may pass for {@link RetrieverConfigSchema} (keys with defaults are optional). */
export type RetrieverConfigInput = z.input<typeof RetrieverConfigSchema>;

/** Inputs of {@link createRetriever}. */
export interface RetrieverDeps {
  /** The corpus in memory (unique ids); or give `source`. */
  docs?: readonly CorpusDoc[];
  /**
   * The corpus as a store (e.g. the Lance corpus store): read in batches by the on-disk engines
   * and by id for hits; for the in-memory engines (below the threshold) it is read whole once.
   */
  source?: DocumentSource;
  /** A ready embedder (else built from `config.embedder` with `embedderOptions`). */
  embedder?: Embedder;
  embedderOptions?: EmbedderOptions;
  /** Progress/info lines (default console.error). */
  log?: (line: string) => void;
}

/** A retriever plus the parts it was built from (for inspection, benchmarks and the CLI). */
export interface BuiltRetriever extends Retriever {
  readonly config: RetrieverConfig;
  /** Engine family used (see {@link chooseEngine}); `disk` = `lance` with medsynth's own on-disk BM25. */
  readonly engine: "memory" | "lance" | "disk";
  readonly bm25?: Bm25Engine;
  /** The on-disk BM25 engine (engine `lance`; {@link DISK_BM25_ENGINES}). */
  readonly diskBm25?: DiskBm25Engine;
  /** medsynth's own on-disk BM25 engine (engine `disk`; docs/bm25-on-disk.md). */
  readonly bm25Disk?: DiskBm25;
  /** Its worker threads when queries run on several threads (`bm25Disk.threads`; docs/bm25-on-disk.md). */
  readonly bm25DiskPool?: DiskBm25Pool;
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
 *
 * With engine `disk` (chosen by size, or forced) or `lance` (forced) the same modes run on the
 * on-disk engines: `bm25` → medsynth's own on-disk BM25 (`disk`, id `bm25-disk`) or LanceDB
 * full-text BM25 (`lance`, id `bm25-lance`); `dense` → IVF-PQ ANN (`dense:<embedder>`);
 * `hybrid` and `lance-hybrid` → both fused by the in-memory hybrid's fusion (`hybrid-rrf` /
 * `hybrid-weighted`); documents are fetched from the source for the returned hits only.
 * @throws ZodError on a bad config; Error listing valid ids on an unknown embedder; store errors
 *   (table built with another embedder/corpus); Error when neither `docs` nor `source` is given.
 */
export async function createRetriever(config: RetrieverConfigInput, deps: RetrieverDeps): Promise<BuiltRetriever> {
  const cfg = RetrieverConfigSchema.parse(config);
  if (!deps.docs && !deps.source) throw new Error("createRetriever: give the corpus as deps.docs or deps.source");
  const count = deps.docs ? deps.docs.length : await deps.source!.count();
  const engine = chooseEngine(cfg.engine, count, cfg.engineThreshold);
  if (engine === "lance" || engine === "disk") return createDiskRetriever(cfg, deps, engine);
  let docs: readonly CorpusDoc[];
  if (deps.docs) docs = deps.docs;
  else {
    const all: CorpusDoc[] = [];
    for await (const b of deps.source!.scanDocs(16_384)) all.push(...b);
    docs = all;
  }
  let bm25: Bm25Engine | undefined;
  let embedder: Embedder | undefined;
  let store: DenseStore | undefined;
  let dense: Retriever | undefined;
  let corpusHash: string | undefined;
  if (cfg.mode === "bm25" || cfg.mode === "hybrid") {
    const built = buildBm25(docs, cfg.bm25);
    bm25 = built.engine;
    corpusHash = built.contentHash;
  }
  if (cfg.mode !== "bm25") {
    // One hash of the corpus keys the BM25 cache, the embedder's fitted state and the dense table.
    corpusHash ??= corpusContentHash(docs);
    embedder = deps.embedder ?? (await createEmbedder(cfg.embedder, { docs, corpusHash, ...deps.embedderOptions }));
    store = await openOrBuildDenseStore(docs, embedder, cfg.dense, { log: deps.log, corpusHash });
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
    engine: "memory",
    bm25,
    embedder,
    store,
  };
}

/** The first {@link DISK_FIT_SAMPLE} documents of `source` (in its canonical order), read in batches of `batch`. */
async function readFitSample(source: DocumentSource, batch: number): Promise<CorpusDoc[]> {
  const sample: CorpusDoc[] = [];
  for await (const b of source.scanDocs(batch)) {
    sample.push(...b.slice(0, DISK_FIT_SAMPLE - sample.length));
    if (sample.length >= DISK_FIT_SAMPLE) break;
  }
  return sample;
}

/** {@link createRetriever} on the on-disk engines (`engine`: as chosen by {@link chooseEngine}). */
async function createDiskRetriever(cfg: RetrieverConfig, deps: RetrieverDeps, engine: "lance" | "disk"): Promise<BuiltRetriever> {
  const disk = await import("./lance/disk-engines.ts");
  const { createMemoryDocumentSource } = await import("../corpus/store/memory-store.ts");
  const source = deps.source ?? createMemoryDocumentSource(deps.docs!);
  // A store fingerprints itself from its manifest (no document read); other sources are hashed.
  const fingerprint = deps.docs ? corpusContentHash(deps.docs) : source.fingerprint ? await source.fingerprint() : (await disk.fingerprintSource(source, cfg.disk.scanBatch)).hash;
  const opts = { log: deps.log, fingerprint };
  let diskBm25: DiskBm25Engine | undefined;
  let bm25Disk: DiskBm25 | undefined;
  let bm25DiskPool: DiskBm25Pool | null = null;
  let embedder: Embedder | undefined;
  let store: DenseStore | undefined;
  let dense: Retriever | undefined;
  if (cfg.mode !== "dense" && engine === "disk") {
    const { openOrBuildDiskBm25 } = await import("./bm25/disk-retriever.ts");
    const params = { k1: cfg.bm25.k1, b: cfg.bm25.b, fieldWeights: cfg.bm25.fieldWeights };
    ({ engine: bm25Disk, pool: bm25DiskPool } = await openOrBuildDiskBm25(deps.docs ?? source, cfg.bm25Disk, { fingerprint, params, log: deps.log }));
  } else if (cfg.mode !== "dense") {
    const openBm25 = DISK_BM25_ENGINES[cfg.diskBm25];
    if (!openBm25) throw new Error(`diskBm25: unknown on-disk BM25 engine "${cfg.diskBm25}"; valid ids: ${Object.keys(DISK_BM25_ENGINES).join(", ")}`);
    diskBm25 = await openBm25(source, cfg, opts);
  }
  if (cfg.mode !== "bm25") {
    // The fit sample (the first DISK_FIT_SAMPLE docs) is read only when the embedder has no fitted
    // state cached for it: reading and parsing it cost ≈ 0.2 GB of transient heap on every reopen at 24 M.
    const fitOptions = deps.docs
      ? { docs: deps.docs }
      : { loadFitDocs: () => readFitSample(source, Math.min(cfg.disk.scanBatch, DISK_FIT_SAMPLE)), corpusHash: `${fingerprint}:first-${DISK_FIT_SAMPLE}-docs` };
    embedder = deps.embedder ?? (await createEmbedder(cfg.embedder, { ...fitOptions, ...deps.embedderOptions }));
    store = await disk.openOrBuildLanceAnn(source, embedder, cfg.disk, opts);
    dense = createDenseRetriever({ store, embedder });
  }
  const bm25Ids: Retriever | undefined = bm25Disk
    ? { id: bm25Disk.id, search: async (q, k) => (bm25DiskPool ? bm25DiskPool.search(q, k) : bm25Disk!.searchSync(q, k)) }
    : diskBm25 && {
        id: diskBm25.id,
        search: async (q, k) => (await diskBm25!.searchIds(q, k)).map((it, i) => ({ id: it.id, score: it.score, rank: i + 1, scores: { bm25: it.score } })),
      };
  let inner: Retriever;
  if (cfg.mode === "bm25") inner = bm25Ids!;
  else if (cfg.mode === "dense") inner = dense!;
  else inner = createHybridRetriever({ bm25: bm25Ids!, dense: dense! }, { fusion: cfg.mode === "lance-hybrid" ? "rrf" : cfg.fusion, rrfK: cfg.rrfK, weights: cfg.weights, candidates: cfg.candidates });
  return {
    id: cfg.mode === "bm25" ? bm25Ids!.id : inner.id,
    search: async (q, k) => disk.attachDocsFromSource(await inner.search(q, k), source),
    config: cfg,
    engine,
    diskBm25,
    bm25Disk,
    ...(bm25DiskPool ? { bm25DiskPool } : {}),
    embedder,
    store,
  };
}
