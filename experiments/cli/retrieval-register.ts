/**
 * Definitions (names, options, help) of `medsynth index build`, `search`, `retrieval eval`,
 * `retrieval sweep` (its action imports experiments/sweep/) and `retrieval score`. Only commander and plain id lists (help-ids.ts) are loaded here; each action
 * imports retrieval-commands.ts (retrievers, LanceDB, embedders) when the command runs.
 */
import type { Command } from "commander";
import { TREC_EXPORT_DEPTH } from "../../retrieval/eval/trec.ts";
import type { EvalCliOptions, IndexBuildCliOptions, SearchCliOptions } from "./retrieval-commands.ts";
import { HELP_BM25_ENGINES, HELP_DEFAULT_RETRIEVER_EMBEDDER_ID, HELP_EMBEDDER_IDS, HELP_RERANKER_IDS, HELP_RETRIEVAL_MODES } from "./help-ids.ts";

const impl = () => import("./retrieval-commands.ts");

/** Help of `--bm25-engine` (no commander default, so that a value given next to a conflicting `--engine` is told apart from the default). */
const BM25_ENGINE_HELP = `${HELP_BM25_ENGINES.join(" | ")} (disk: medsynth's on-disk BM25, as --engine disk; fast and wink are in-memory; default fast)`;

/** The retriever options shared by `search` and `retrieval eval` (`multiMode`: `--mode` takes a comma-separated list). */
function addRetrieverOptions(cmd: Command, multiMode = false): Command {
  return cmd
    .option(
      "--mode <mode>",
      `${multiMode ? `retrieval mode(s), comma-separated: ${HELP_RETRIEVAL_MODES.join("|")}` : `retrieval mode: ${HELP_RETRIEVAL_MODES.join("|")}`} (default: bm25 with the offline word-vector embedder, which measured best on MedEvidence; hybrid with another embedder). lance-hybrid: the on-disk engines' BM25 and vector lists fused by RRF whatever --fusion says`,
    )
    .option(
      "--corpus <corpus>",
      "bundled | dataset (retrieval eval: the dataset's own documents) | lance:<store> (a corpus store, streamed) | path to a corpus JSONL (.jsonl/.jsonl.gz; CorpusDoc {id,title,text}, `corpus ingest` PubmedRecord or MedRAG {id,title,content,contents} lines)",
      "bundled",
    )
    .option("--embedder <id>", `embedder id (${HELP_EMBEDDER_IDS.join(", ")})`, HELP_DEFAULT_RETRIEVER_EMBEDDER_ID)
    .option("--bm25-engine <engine>", BM25_ENGINE_HELP)
    .option("--bm25-threads <n>", "on-disk BM25 only: threads per query, auto (min(cores, 4) from 500,000 docs, else 1) | a whole number 1–64; same hits and scores")
    .option("--fusion <fusion>", "hybrid fusion: rrf | weighted", "rrf")
    .option("--candidates <n>", "hits per component before fusion", "100")
    .option("--index <kind>", "dense ANN index: none (exact) | hnsw_sq | ivf_pq", "none")
    .option("--store-dir <dir>", "LanceDB folder (default <cache>/lancedb)")
    .option("--engine <engine>", "auto (in memory below 250,000 docs, on disk from there: medsynth's own BM25 + LanceDB ANN) | memory | lance (LanceDB full-text BM25 + ANN) | disk")
    .option(
      "--disk-dir <dir>",
      "LanceDB folder or URI of the LanceDB on-disk indexes: the dense vector table and --engine lance's full-text index (default <cache>/lancedb-disk); medsynth's own on-disk BM25 (--engine disk) lives under <cache>/bm25-disk (MEDSYNTH_CACHE_DIR moves both)",
    )
    .option("--ann <kind>", "on-disk ANN index: auto | ivf_pq | ivf_flat | hnsw_sq");
}

/** Register `index build`, `search`, `retrieval eval`, `retrieval sweep` and `retrieval score` on the program. */
export function registerRetrievalCommands(program: Command): void {
  const index = program.command("index").description("Build retrieval indexes (BM25 + LanceDB dense table)");
  index
    .command("build")
    .description("Build or find the cached BM25 index and dense table for a corpus")
    .option("--corpus <corpus>", "bundled | lance:<store> (a corpus store, streamed) | path to a corpus JSONL (CorpusDoc, `corpus ingest` PubmedRecord or MedRAG lines)", "bundled")
    .option("--mode <mode>", "indexes to build: bm25 | dense | hybrid (both)", "hybrid")
    .option("--embedder <id>", `embedder id (${HELP_EMBEDDER_IDS.join(", ")})`, HELP_DEFAULT_RETRIEVER_EMBEDDER_ID)
    .option("--bm25-engine <engine>", BM25_ENGINE_HELP)
    .option("--index <kind>", "dense ANN index: none (exact) | hnsw_sq | ivf_pq", "none")
    .option("--store-dir <dir>", "LanceDB folder (default <cache>/lancedb)")
    .option("--engine <engine>", "auto (in memory below 250,000 docs, on disk from there: medsynth's own BM25 + LanceDB ANN) | memory | lance (LanceDB full-text BM25 + ANN) | disk")
    .option(
      "--disk-dir <dir>",
      "LanceDB folder or URI of the LanceDB on-disk indexes: the dense vector table and --engine lance's full-text index (default <cache>/lancedb-disk); medsynth's own on-disk BM25 (--engine disk) lives under <cache>/bm25-disk (MEDSYNTH_CACHE_DIR moves both)",
    )
    .option("--ann <kind>", "on-disk ANN index: auto | ivf_pq | ivf_flat | hnsw_sq")
    .option("--rebuild", "build again even when cached indexes of this corpus match (a stored index tune is dropped with the table)")
    .action(async (o: IndexBuildCliOptions) => {
      await (await impl()).indexBuildCommand(o);
    });
  index
    .command("tune")
    .description("Choose the nprobes of a built on-disk IVF index from your questions: recall@10 vs exact search per nprobes on half of them, the recall stored is the held-out half's")
    .requiredOption("--queries <file>", "questions: a JSON array (strings or {question|query|text}), JSON Lines of the same (.jsonl/.ndjson), or one per line")
    .option(
      "--corpus <corpus>",
      "bundled | lance:<store> (a corpus store) | path to a corpus JSONL; its on-disk index must be built: index build --mode dense with the same --corpus, --engine, --ann, --disk-dir",
      "bundled",
    )
    .option("--embedder <id>", `embedder id (${HELP_EMBEDDER_IDS.join(", ")})`, HELP_DEFAULT_RETRIEVER_EMBEDDER_ID)
    .option("--engine <engine>", "auto | lance | disk (the on-disk engines hold the IVF index)")
    .option(
      "--disk-dir <dir>",
      "LanceDB folder or URI of the LanceDB on-disk indexes: the dense vector table and --engine lance's full-text index (default <cache>/lancedb-disk); medsynth's own on-disk BM25 (--engine disk) lives under <cache>/bm25-disk (MEDSYNTH_CACHE_DIR moves both)",
    )
    .option("--ann <kind>", "on-disk ANN index: auto | ivf_pq | ivf_flat")
    .option("--target <recall>", "recall@10 the tuning half must reach", "0.95")
    .option("--held-out <share>", "share of the questions held out from the tuning", "0.5")
    .option("--dry-run", "measure and print; store nothing")
    .option("--json", "print the report as JSON")
    .action(async (o: import("./index-tune.ts").IndexTuneCliOptions) => {
      await (await import("./index-tune.ts")).indexTuneCommand(o);
    });

  addRetrieverOptions(program.command("search").description("Search the corpus and print PMID, title and per-retriever scores").argument("<query>", "query text"))
    .option("--k <k>", "number of hits", "10")
    .option("--rerank <id>", `reranker (${HELP_RERANKER_IDS.join(", ")})`)
    .option("--rerank-candidates <n>", "first-stage hits handed to the reranker", "50")
    .option("--chat-model <id>", "chat model for --rerank llm-pointwise (openai:<model>)")
    .option("--json", "print the hits as JSON")
    .action(async (query: string, o: SearchCliOptions) => {
      await (await impl()).runSearch(query, o);
    });

  const retrieval = program.command("retrieval").description("Retrieval evaluation");
  addRetrieverOptions(retrieval.command("eval").description("Evaluate retrievers on a dataset's qrels (recall, precision, nDCG, MRR, hit at each k)"), true)
    .option(
      "--dataset <name>",
      "dataset with qrels (medevidence, cohen2006, beir:nfcorpus, beir:scifact, beir:trec-covid; a BEIR set is fetched on first use and searched in its own corpus)",
      "medevidence",
    )
    .option("--dataset-dir <dir>", "folder of the dataset (a BEIR archive you unzipped: corpus.jsonl, queries.jsonl, qrels/)")
    .option("--k <list>", "cutoffs, comma-separated (repeats ignored)", "5,10")
    .option("--rerank <id>", `reranker (${HELP_RERANKER_IDS.join(", ")})`)
    .option("--rerank-candidates <n>", "first-stage hits handed to the reranker", "50")
    .option("--chat-model <id>", "chat model for --rerank llm-pointwise (openai:<model>)")
    .option("--json", "print JSON (means, per-query values, settings; {modes, runs: [...]} for several modes)")
    .option("--trec-out <dir>", "write <dataset>.<mode>.run per mode and <dataset>.qrels there, the layout of a run's trec/ folder (for trec_eval / ranx)")
    .option("--trec-depth <n>", `hits retrieved and written per query; uncut MRR and MAP read them all (default ${TREC_EXPORT_DEPTH}; with --rerank the largest --k)`)
    .action(async (o: EvalCliOptions) => {
      await (await impl()).runRetrievalEval(o);
    });

  retrieval
    .command("sweep")
    .description(
      "Grid over retriever settings (BM25 k1/b, fusion, weights, normalisation, RRF k, candidates, reranker and depth) on a qrels dataset: recall/nDCG/MRR@K with bootstrap CIs, recall-vs-K curves, paired tests against a baseline, dev/test or k-fold tuning; writes a results folder",
    )
    .argument("<config>", 'sweep config (YAML or JSON); see docs/retrieval.md "Tuning retrieval"')
    .option("--out <dir>", "results folder (default: the config's output, else sweep-<name>)")
    .action(async (configPath: string, o: { out?: string }) => {
      await (await import("../sweep/command.ts")).runSweepCommand(configPath, o);
    });

  retrieval
    .command("score")
    .description("Score an external TREC run against TREC qrels with our metrics (recall, precision, nDCG, MRR@k, hit; uncut MRR, MAP)")
    .argument("<run>", "TREC run file (qid Q0 docid rank score tag)")
    .argument("<qrels>", "TREC qrels file (qid 0 docid rel)")
    .option("--k <list>", "cutoffs, comma-separated", "5,10")
    .option("--json", "print JSON (means and per-query values)")
    .action(async (runPath: string, qrelsPath: string, o: { k: string; json?: boolean }) => {
      (await impl()).runRetrievalScore(runPath, qrelsPath, o);
    });
}
