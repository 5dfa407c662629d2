/**
 * Public API of the corpus layer: record and task types, PubMed XML parsing and cleaning,
 * JSONL I/O, E-utilities, dataset loaders and the bundled retrieval corpus.
 */
export * from "./types.ts";
export * from "./paths.ts";
export * from "./pubmed-xml.ts";
export * from "./pubmed-fields.ts";
export * from "./pubmed-scan.ts";
export * from "./xml-encoding.ts";
export * from "./markup.ts";
export * from "./conclusion-labels.ts";
export * from "./clean.ts";
export * from "./conclusion-task.ts";
export * from "./jsonl.ts";
export * from "./ingest.ts";
export * from "./eutils.ts";
export * from "./qrels.ts";
export * from "./bundled-corpus.ts";
export * from "./text-cleanup.ts";
export * from "./datasets/loaded-dataset.ts";
export * from "./datasets/registry.ts";
export * from "./datasets/sources.ts";
export * from "./datasets/transfer.ts";
export * from "./datasets/files.ts";
export { loadScimago, parseScimago, normalizeIssn, type ScimagoIndex, type ScimagoJournal } from "./datasets/scimago.ts";
export { loadMedConclusionHf, medConclusionHfTasks, MedConclusionHfOptionsSchema, type MedConclusionHfOptions } from "./datasets/medconclusion-hf.ts";
export * from "./corpus-file.ts";
export * from "./store/types.ts";
export * from "./store/memory-store.ts";
export * from "./store/lance-store.ts";
export * from "./store/conclusion-view.ts";
export * from "./ingest/rows.ts";
export * from "./ingest/manifest.ts";
export * from "./ingest/run-ingest.ts";
