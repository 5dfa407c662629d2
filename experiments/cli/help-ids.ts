/**
 * Ids the CLI's help text lists (retrieval modes, embedders, rerankers, workflows), kept here as
 * plain constants so that `medsynth --help` and `<command> --help` do not import the registries
 * (which load LangChain, LanceDB and transformers.js). tests/experiments/cli-help-ids.test.ts
 * checks that each list equals its registry's, so a new mode, embedder, reranker or workflow that
 * is not added here fails the tests. These are for help text only: the commands validate against
 * the registries themselves.
 */

/** Retrieval modes, as `RETRIEVAL_MODES` of retrieval/registry.ts. */
export const HELP_RETRIEVAL_MODES: readonly string[] = ["bm25", "dense", "hybrid", "lance-hybrid"];

/** Values of `--bm25-engine`: `BM25_ENGINE_OPTION_VALUES` of experiments/cli/retrieval-commands.ts (the in-memory engines `BM25_ENGINES` plus `disk`). */
export const HELP_BM25_ENGINES: readonly string[] = ["fast", "wink", "disk"];

/** Embedder ids and patterns, as `EMBEDDER_IDS` of retrieval/embedders/registry.ts. */
export const HELP_EMBEDDER_IDS: readonly string[] = [
  "word-vectors",
  "word-vectors:sg-100d-mean",
  "word-vectors:sg-100d-sif",
  "word-vectors:sg-100d-sif-corpus-pc1",
  "transformers:<model id>[:mean|:cls]",
  "openai:<model>[@<dims>]",
];

/** Default embedder of retrievers, as `DEFAULT_RETRIEVER_EMBEDDER_ID` of retrieval/embedders/registry.ts. */
export const HELP_DEFAULT_RETRIEVER_EMBEDDER_ID = "word-vectors:sg-100d-sif-corpus-pc1";

/** Reranker ids and patterns, as `RERANKER_IDS` of retrieval/rerankers/registry.ts. */
export const HELP_RERANKER_IDS: readonly string[] = ["none", "cross-encoder", "cross-encoder:<model id>", "llm-pointwise"];

/** Workflow ids in registry order, as `listWorkflowIds()` of graphs/registry.ts. */
export const HELP_WORKFLOW_IDS: readonly string[] = [
  "pzs",
  "pcot",
  "standard-rag",
  "golden-rag",
  "negated-rag",
  "perturbed-rag",
  "critic-rag",
  "feasibility",
  "conclusion-a",
  "conclusion-b",
  "conclusion-c",
  "conclusion-d",
  "conclusion-sentences",
  "conclusion-unrestricted",
  "summary-unrestricted",
  "rwe-summary",
];
