/**
 * Retrieval evaluation stage of an experiment: for each dataset with golden PMIDs (MedEvidence
 * `relevant_sources`, MS² included studies, Cohen 2006 inclusions), each retrieval mode and each
 * K, macro recall@K, precision@K, nDCG@K, MRR@K (cut at K) and hit@K over the queries, plus
 * uncut MRR and MAP over the {@link TREC_EXPORT_DEPTH} hits retrieved per query, against the run's
 * retrieval corpus. Written to `<run>/retrieval-eval.json` with the spec hash, so an unchanged
 * re-run does not recompute it. TREC run and qrels files (runs to depth 100, qrels with judged
 * non-relevant documents where the dataset has them) go to `<run>/trec/` for trec_eval / ranx.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import stringify from "safe-stable-stringify";
import { loadDataset } from "../corpus/datasets/registry.ts";
import { buildSynthesisQrels, qrelsFromTopics, type Qrels, type QrelsTopic } from "../corpus/qrels.ts";
import type { SynthesisTask } from "../corpus/types.ts";
import { createRetriever } from "../retrieval/registry.ts";
import { evaluateRun } from "../retrieval/eval/ir-metrics.ts";
import { TREC_EXPORT_DEPTH, trecFilePaths, writeTrecQrels, writeTrecRun, type TrecRunEntry } from "../retrieval/eval/trec.ts";
import type { ExperimentConfig } from "./config.ts";
import type { RetrievalEvalRow } from "./report/build.ts";
import { corpusDepsOf, openRunRetrievalCorpus } from "./wiring.ts";

/** Queries and qrels of a dataset: synthesis tasks (question → golden PMIDs) or qrels topics. */
export async function queriesOf(name: string): Promise<{ queries: { id: string; text: string }[]; qrels: Qrels }> {
  const ds = await loadDataset(name);
  if (ds.taskKind === "synthesis") {
    const tasks = ds.items as SynthesisTask[];
    return { queries: tasks.filter((t) => t.goldenPmids.length).map((t) => ({ id: t.id, text: t.question })), qrels: buildSynthesisQrels(tasks) };
  }
  if (ds.taskKind === "qrels") {
    const topics = ds.items as QrelsTopic[];
    return { queries: topics.map((t) => ({ id: t.id, text: t.query })), qrels: qrelsFromTopics(topics) };
  }
  throw new Error(`retrievalEval.datasets: "${name}" has no relevance judgments (task kind ${ds.taskKind})`);
}

/**
 * Run the stage (or reuse its saved result when the settings are unchanged).
 * @returns the rows and whether they were recomputed.
 */
export async function runRetrievalEval(config: ExperimentConfig, log: (l: string) => void = (l) => console.error(l)): Promise<{ rows: RetrievalEvalRow[]; recomputed: boolean }> {
  if (!config.retrievalEval) return { rows: [], recomputed: false };
  const path = join(config.output, "retrieval-eval.json");
  const hash = createHash("sha256")
    .update(stringify({ r: config.retrieval, e: config.retrievalEval, v: 2 }) ?? "")
    .digest("hex");
  if (existsSync(path)) {
    const prev = JSON.parse(readFileSync(path, "utf8")) as { hash?: string; rows?: RetrievalEvalRow[] };
    if (prev.hash === hash && prev.rows) return { rows: prev.rows, recomputed: false };
  }
  const corpus = await openRunRetrievalCorpus(config.retrieval, log);
  const ks = [...new Set(config.retrievalEval.k)].sort((a, b) => a - b);
  const modes = [...new Set(config.retrievalEval.modes)];
  const kMax = Math.max(...ks);
  const depth = Math.max(kMax, TREC_EXPORT_DEPTH);
  const metrics = [...ks.flatMap((k) => [`recall@${k}`, `precision@${k}`, `ndcg@${k}`, `mrr@${k}`, `hit@${k}`]), "mrr", "map"];
  const rows: RetrievalEvalRow[] = [];
  const trecDir = join(config.output, "trec");
  mkdirSync(trecDir, { recursive: true });
  for (const name of config.retrievalEval.datasets) {
    const { queries, qrels } = await queriesOf(name);
    // A store is asked for the judged ids only (never read whole).
    const judged = [...new Set(Object.values(qrels).flatMap((rels) => Object.keys(rels)))];
    const docIds = corpus.source ? new Set((await corpus.source.getDocs(judged)).keys()) : new Set(corpus.docs!.map((d) => d.id));
    const covered = Object.values(qrels).reduce((a, rels) => a + Object.keys(rels).filter((d) => docIds.has(d)).length, 0);
    const total = Object.values(qrels).reduce((a, rels) => a + Object.keys(rels).length, 0);
    if (covered < total) log(`retrieval eval ${name}: ${total - covered} of ${total} relevant documents are not in the corpus (they count as misses)`);
    writeTrecQrels(trecFilePaths(trecDir, name, "").qrels, qrels);
    for (const mode of modes) {
      const retriever = await createRetriever({ ...config.retrieval.options, mode }, { ...corpusDepsOf(corpus), log });
      const run: Record<string, string[]> = {};
      const trec: Record<string, TrecRunEntry[]> = {};
      for (const q of queries) {
        const hits = await retriever.search(q.text, depth);
        run[q.id] = hits.map((h) => h.id);
        trec[q.id] = hits.map((h) => ({ id: h.id, score: h.score }));
      }
      writeTrecRun(trecFilePaths(trecDir, name, mode).run, trec, `medsynth-${mode}`, depth);
      const ev = evaluateRun(run, qrels, metrics);
      for (const k of ks) {
        rows.push({
          dataset: name,
          mode,
          k,
          queries: ev.queries,
          recall: ev.mean[`recall@${k}`],
          precision: ev.mean[`precision@${k}`],
          ndcg: ev.mean[`ndcg@${k}`],
          mrrAtK: ev.mean[`mrr@${k}`],
          hit: ev.mean[`hit@${k}`],
          mrr: ev.mean.mrr,
          map: ev.mean.map,
        });
      }
      log(`retrieval eval ${name} ${mode}: recall@${kMax} ${ev.mean[`recall@${kMax}`].toFixed(3)} over ${ev.queries} queries`);
    }
  }
  writeFileSync(path, JSON.stringify({ hash, rows }, null, 2) + "\n");
  return { rows, recomputed: true };
}
