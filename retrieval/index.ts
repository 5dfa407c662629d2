/**
 * Public API of the retrieval layer: analyzer, BM25 engines, embedders, the LanceDB store, fusion,
 * hybrid and multi-query retrieval, rerankers, IR metrics, TREC files and the noise corpus.
 */
export * from "./types.ts";
export * from "./analyzer.ts";
export * from "./content-hash.ts";
export * from "./fusion.ts";
export * from "./noise-corpus.ts";
export * from "./bm25/params.ts";
export * from "./bm25/build.ts";
export * from "./bm25/fast-engine.ts";
export * from "./bm25/wink-engine.ts";
export * from "./eval/ir-metrics.ts";
export * from "./eval/trec.ts";
export * from "./registry.ts";
export * from "./dense/lancedb-store.ts";
export * from "./dense/dense-retriever.ts";
export * from "./hybrid.ts";
export * from "./multi-query.ts";
