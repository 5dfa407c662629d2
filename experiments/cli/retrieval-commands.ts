/**
 * Retrieval commands of the `medsynth` CLI:
 *
 * - `medsynth index build [--corpus bundled|<corpus.jsonl>] [--embedder id] [--bm25-engine fast|wink] [--index none|hnsw_sq|ivf_pq]`
 *   builds (or finds cached) the BM25 index and the LanceDB dense table for the corpus.
 * - `medsynth search "<query>" --mode bm25|dense|hybrid|lance-hybrid --k 10 [--rerank id]`
 *   prints rank, PMID, title and the per-retriever scores (bm25, dense, fused, reranker).
 * - `medsynth retrieval eval --dataset medevidence --mode … --k 5,10 [--json] [--trec-out dir]`
 *   runs every dataset query and prints recall/precision/nDCG/MRR/hit at each k (macro means).
 *
 * Corpus: `bundled` (default: PubMedQA + MedEvidence sources + Cohen 2006, ~3.3k abstracts) or a
 * JSONL file of {@link CorpusDoc} records (malformed lines skipped and counted).
 */
import type { Command } from "commander";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { readJsonl } from "../../corpus/jsonl.ts";
import { CorpusDocSchema, type CorpusDoc } from "../../corpus/types.ts";
import { createChatModel } from "../../models/registry.ts";
import { evaluateRun, type Qrels } from "../../retrieval/eval/ir-metrics.ts";
import { writeTrecQrels, writeTrecRun, type TrecRun } from "../../retrieval/eval/trec.ts";
import { createReranker, createRetriever, DEFAULT_RETRIEVER_EMBEDDER_ID, EMBEDDER_IDS, RERANKER_IDS, RETRIEVAL_MODES, type BuiltRetriever, type RetrieverConfigInput } from "../../retrieval/registry.ts";
import type { SearchHit } from "../../retrieval/types.ts";

/** Load the corpus named by `--corpus`: `bundled` or a JSONL path of CorpusDoc records. */
export async function loadCorpusArg(corpus: string, log: (l: string) => void = (l) => console.error(l)): Promise<CorpusDoc[]> {
  if (corpus === "bundled") {
    const { docs, stats } = await loadBundledCorpus({ cache: true });
    log(`corpus: bundled, ${stats.total} docs (${Object.entries(stats.bySource).map(([s, n]) => `${s} ${n}`).join(", ")})`);
    return docs;
  }
  const docs: CorpusDoc[] = [];
  const stats = { lines: 0, records: 0, skipped: 0 };
  const warnings: string[] = [];
  for await (const d of readJsonl(corpus, { schema: CorpusDocSchema, stats, onWarning: (w) => warnings.push(w.message) })) docs.push(d);
  log(`corpus: ${corpus}, ${docs.length} docs${stats.skipped ? `, ${stats.skipped} malformed line(s) skipped (first: ${warnings[0]})` : ""}`);
  if (docs.length === 0) throw new Error(`corpus ${corpus} has no valid CorpusDoc record ({id, title, text})`);
  return docs;
}

function parseKs(s: string): number[] {
  const ks = s.split(",").map((x) => Number(x.trim()));
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k <= 0)) throw new Error(`--k must be positive integers separated by commas, got "${s}"`);
  return ks;
}

function fmt(x: number | undefined): string {
  return x === undefined ? "" : Number.isInteger(x) ? String(x) : x.toFixed(4);
}

/** Options shared by `search` and `retrieval eval` that make a retriever config. */
interface RetrievalCliOptions {
  mode: string;
  embedder: string;
  bm25Engine: string;
  fusion: string;
  index: string;
  storeDir?: string;
  candidates: string;
}

function retrieverConfig(o: RetrievalCliOptions): RetrieverConfigInput {
  if (!(RETRIEVAL_MODES as readonly string[]).includes(o.mode)) throw new Error(`--mode must be one of ${RETRIEVAL_MODES.join(", ")}, got "${o.mode}"`);
  return {
    mode: o.mode as RetrieverConfigInput["mode"],
    embedder: o.embedder,
    bm25: { engine: o.bm25Engine as "fast" | "wink" },
    fusion: o.fusion as "rrf" | "weighted",
    candidates: Number(o.candidates),
    dense: { index: o.index as "none" | "hnsw_sq" | "ivf_pq", ...(o.storeDir ? { dir: o.storeDir } : {}) },
  };
}

function addRetrieverOptions(cmd: Command): Command {
  return cmd
    .option("--mode <mode>", `retrieval mode: ${RETRIEVAL_MODES.join("|")}`, "hybrid")
    .option("--corpus <corpus>", "bundled | path to a corpus JSONL ({id,title,text} per line)", "bundled")
    .option("--embedder <id>", `embedder id (${EMBEDDER_IDS.join(", ")})`, DEFAULT_RETRIEVER_EMBEDDER_ID)
    .option("--bm25-engine <engine>", "fast | wink", "fast")
    .option("--fusion <fusion>", "hybrid fusion: rrf | weighted", "rrf")
    .option("--candidates <n>", "hits per component before fusion", "100")
    .option("--index <kind>", "dense ANN index: none (exact) | hnsw_sq | ivf_pq", "none")
    .option("--store-dir <dir>", "LanceDB folder (default <cache>/lancedb)");
}

async function buildRerankerArg(id: string | undefined, chatModelId: string | undefined) {
  if (!id || id === "none") return null;
  const chatModel = id === "llm-pointwise" ? (chatModelId ? createChatModel(chatModelId) : undefined) : undefined;
  if (id === "llm-pointwise" && !chatModel) throw new Error("--rerank llm-pointwise needs --chat-model openai:<model> (endpoint from MEDSYNTH_OPENAI_BASE_URL)");
  return createReranker(id, { chatModel });
}

async function searchOnce(r: BuiltRetriever, reranker: Awaited<ReturnType<typeof buildRerankerArg>>, query: string, k: number, rerankCandidates: number): Promise<SearchHit[]> {
  if (!reranker) return r.search(query, k);
  const first = await r.search(query, Math.max(k, rerankCandidates));
  const reranked = await reranker.rerank(query, first.filter((h) => h.doc).map((h) => h.doc!), { topN: k });
  const byId = new Map(first.map((h) => [h.id, h]));
  return reranked.map((h) => ({ ...h, scores: { ...byId.get(h.id)?.scores, ...h.scores, rerank: h.score } }));
}

/** Register `index build`, `search` and `retrieval eval` on the program. */
export function registerRetrievalCommands(program: Command): void {
  const index = program.command("index").description("Build retrieval indexes (BM25 + LanceDB dense table)");
  index
    .command("build")
    .description("Build or find the cached BM25 index and dense table for a corpus")
    .option("--corpus <corpus>", "bundled | path to a corpus JSONL", "bundled")
    .option("--embedder <id>", `embedder id (${EMBEDDER_IDS.join(", ")})`, DEFAULT_RETRIEVER_EMBEDDER_ID)
    .option("--bm25-engine <engine>", "fast | wink", "fast")
    .option("--index <kind>", "dense ANN index: none (exact) | hnsw_sq | ivf_pq", "none")
    .option("--store-dir <dir>", "LanceDB folder (default <cache>/lancedb)")
    .action(async (o: { corpus: string; embedder: string; bm25Engine: string; index: string; storeDir?: string }) => {
      const docs = await loadCorpusArg(o.corpus);
      const t0 = performance.now();
      const r = await createRetriever(
        { mode: "hybrid", embedder: o.embedder, bm25: { engine: o.bm25Engine as "fast" | "wink" }, dense: { index: o.index as "none", ...(o.storeDir ? { dir: o.storeDir } : {}) } },
        { docs },
      );
      const s = r.store!;
      console.log(`bm25: ${r.bm25!.info.engine}, ${r.bm25!.info.docCount} docs, ${r.bm25!.info.vocabSize} terms`);
      console.log(`dense: table ${s.tableName} in ${s.dir} (${s.built ? "built" : "already built"}; ${s.docCount} docs, ${s.embedderId}, ${s.dims}-d; ${s.index === "none" ? "exact search" : `${s.index}, recall@10 vs exact ${s.annRecallAt10?.toFixed(3)}`})`);
      console.log(`corpus hash: ${s.corpusHash}`);
      console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    });

  addRetrieverOptions(program.command("search").description("Search the corpus and print PMID, title and per-retriever scores").argument("<query>", "query text"))
    .option("--k <k>", "number of hits", "10")
    .option("--rerank <id>", `reranker (${RERANKER_IDS.join(", ")})`)
    .option("--rerank-candidates <n>", "first-stage hits handed to the reranker", "50")
    .option("--chat-model <id>", "chat model for --rerank llm-pointwise (openai:<model>)")
    .option("--json", "print the hits as JSON")
    .action(async (query: string, o: RetrievalCliOptions & { corpus: string; k: string; rerank?: string; rerankCandidates: string; chatModel?: string; json?: boolean }) => {
      const k = parseKs(o.k)[0];
      const docs = await loadCorpusArg(o.corpus);
      const r = await createRetriever(retrieverConfig(o), { docs });
      const reranker = await buildRerankerArg(o.rerank, o.chatModel);
      const hits = await searchOnce(r, reranker, query, k, Number(o.rerankCandidates));
      if (o.json) {
        console.log(JSON.stringify(hits.map((h) => ({ rank: h.rank, pmid: h.id, title: h.doc?.title ?? null, score: h.score, scores: h.scores ?? {}, ...(h.error ? { error: h.error } : {}) })), null, 2));
        return;
      }
      const names = [...new Set(hits.flatMap((h) => Object.keys(h.scores ?? {})))];
      console.log(`${r.id}${reranker ? ` → ${reranker.id}` : ""}: ${hits.length} hit(s)`);
      const header = ["rank", "PMID", ...names, "title"];
      const rows = hits.map((h) => [String(h.rank), h.id, ...names.map((n) => fmt(h.scores?.[n])), (h.doc?.title ?? "").slice(0, 90)]);
      const widths = header.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i].length)));
      for (const row of [header, ...rows]) console.log(row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join("  "));
    });

  const retrieval = program.command("retrieval").description("Retrieval evaluation");
  addRetrieverOptions(retrieval.command("eval").description("Evaluate a retriever on a dataset's qrels (recall, precision, nDCG, MRR, hit at each k)"))
    .option("--dataset <name>", "dataset with qrels (medevidence, cohen2006)", "medevidence")
    .option("--k <list>", "cutoffs, comma-separated", "5,10")
    .option("--rerank <id>", `reranker (${RERANKER_IDS.join(", ")})`)
    .option("--rerank-candidates <n>", "first-stage hits handed to the reranker", "50")
    .option("--chat-model <id>", "chat model for --rerank llm-pointwise (openai:<model>)")
    .option("--json", "print JSON (means, per-query values, settings)")
    .option("--trec-out <dir>", "write run.trec and qrels.trec there (for trec_eval / ranx)")
    .action(async (o: RetrievalCliOptions & { corpus: string; dataset: string; k: string; rerank?: string; rerankCandidates: string; chatModel?: string; json?: boolean; trecOut?: string }) => {
      const ks = parseKs(o.k);
      const ds = await loadDataset(o.dataset);
      if (!ds.qrels) throw new Error(`dataset ${o.dataset} has no qrels (relevance judgments); use medevidence or cohen2006`);
      const qrels: Qrels = ds.qrels;
      const queries = (ds.items as Record<string, unknown>[])
        .map((it) => ({ id: String(it.id), text: String(it.question ?? it.query ?? "") }))
        .filter((q) => q.text.trim() !== "" && qrels[q.id]);
      const docs = await loadCorpusArg(o.corpus);
      const inCorpus = new Set(docs.map((d) => d.id));
      const judged = Object.values(qrels).flatMap((r) => Object.keys(r).filter((id) => r[id] > 0));
      const missing = judged.filter((id) => !inCorpus.has(id)).length;
      if (missing) console.error(`warning: ${missing} of ${judged.length} relevant (query, doc) pairs name docs absent from the corpus (they count as misses)`);
      const r = await createRetriever(retrieverConfig(o), { docs });
      const reranker = await buildRerankerArg(o.rerank, o.chatModel);
      const maxK = Math.max(...ks);
      const run: TrecRun = {};
      const t0 = performance.now();
      for (const q of queries) run[q.id] = (await searchOnce(r, reranker, q.text, maxK, Number(o.rerankCandidates))).map((h) => ({ id: h.id, score: h.score }));
      const ms = (performance.now() - t0) / Math.max(1, queries.length);
      const metrics = ks.flatMap((k) => [`recall@${k}`, `precision@${k}`, `ndcg@${k}`, `mrr@${k}`, `hit@${k}`]);
      const ev = evaluateRun(Object.fromEntries(Object.entries(run).map(([q, l]) => [q, l.map((e) => e.id)])), qrels, metrics);
      const tag = `medsynth-${r.id}${reranker ? `-${reranker.id}` : ""}`.replace(/[^A-Za-z0-9_.:-]+/g, "_");
      if (o.trecOut) {
        mkdirSync(o.trecOut, { recursive: true });
        writeTrecRun(join(o.trecOut, "run.trec"), run, tag);
        writeTrecQrels(join(o.trecOut, "qrels.trec"), qrels);
        console.error(`wrote ${join(o.trecOut, "run.trec")} and ${join(o.trecOut, "qrels.trec")}`);
      }
      if (o.json) {
        console.log(JSON.stringify({ dataset: o.dataset, retriever: r.id, reranker: reranker?.id ?? null, config: r.config, corpusDocs: docs.length, queries: ev.queries, msPerQuery: ms, mean: ev.mean, perQuery: ev.perQuery }, null, 2));
        return;
      }
      console.log(`${o.dataset}: ${ev.queries} queries, corpus ${docs.length} docs, ${r.id}${reranker ? ` → ${reranker.id}` : ""}, ${ms.toFixed(1)} ms/query`);
      const fams = ["recall", "precision", "ndcg", "mrr", "hit"];
      console.log(["k", ...fams].map((c) => c.padEnd(10)).join(""));
      for (const k of ks) console.log([String(k), ...fams.map((f) => ev.mean[`${f}@${k}`].toFixed(4))].map((c) => c.padEnd(10)).join(""));
    });
}
