/**
 * `medsynth retrieval sweep`: the orchestration, as named steps — {@link loadSweepData} (questions,
 * qrels, groups, corpus) → `rankSettings` (shared indexes and lists) → `scoreRankings` →
 * `analyseSweep` (protocol, CIs, paired tests) → `writeSweepResults` (TSV, JSON, Markdown, HTML).
 * Heavy modules (the retrieval registry with LanceDB, the model layer) are imported when needed.
 */
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import type { DocumentSource } from "../../corpus/store/types.ts";
import type { QrelsTopic, Qrels } from "../../corpus/qrels.ts";
import { analyseSweep, scoreRankings, sweepMetrics, type PerQuery, type SweepAnalysis } from "./analysis.ts";
import type { SweepPlan } from "./config.ts";
import { rankSettings, type RankDeps, type RankStats, type SweepQuery } from "./rank.ts";

/** Questions, qrels and corpus of a sweep. */
export interface SweepData {
  queries: SweepQuery[];
  qrels: Qrels;
  /** The corpus documents (empty when `source` is set). */
  docs: CorpusDoc[];
  /** A corpus store (`corpus: lance:<uri>`), streamed: retrievers build from it, documents are fetched by id, never loaded. */
  source?: DocumentSource;
  /** What `corpus` resolved to, for the report. */
  corpusLabel: string;
}

/**
 * Load the dataset's questions with their group (item meta field `groupBy`, else null), its
 * qrels restricted to questions with a relevant document, and the corpus (`bundled`, `dataset`
 * = the documents the dataset carries, a corpus file, or a corpus store — `lance:<uri>`, streamed
 * as `source`, never loaded).
 * @throws Error naming the dataset when it has no qrels, no query with a relevant document, or
 *   (for `corpus: dataset`) no documents.
 */
export async function loadSweepData(plan: Pick<SweepPlan, "dataset" | "datasetOptions" | "corpus" | "groupBy">, log: (l: string) => void = () => {}): Promise<SweepData> {
  const { loadDataset } = await import("../../corpus/datasets/registry.ts");
  const ds = await loadDataset(plan.dataset, plan.datasetOptions);
  if (!ds.qrels) throw new Error(`dataset: "${plan.dataset}" has no qrels (relevance judgments); use medevidence, cohen2006 or beir:<name>`);
  const qrels = ds.qrels;
  const queries: SweepQuery[] = [];
  for (const it of ds.items as (Partial<SynthesisTask> & Partial<QrelsTopic>)[]) {
    const id = String(it.id);
    const text = String(it.question ?? it.query ?? "");
    const rels = qrels[id];
    if (text.trim() === "" || !rels || !Object.values(rels).some((g) => g > 0)) continue;
    const g = (it.meta as Record<string, unknown> | undefined)?.[plan.groupBy];
    queries.push({ id, text, group: g === undefined || g === null || g === "" ? null : String(g) });
  }
  if (queries.length === 0) throw new Error(`dataset: "${plan.dataset}" has no question with a relevant document`);
  const kept: Qrels = Object.fromEntries(queries.map((q) => [q.id, qrels[q.id]]));
  let docs: CorpusDoc[];
  if (plan.corpus === "dataset") {
    if (!ds.docs?.length) throw new Error(`corpus: dataset "${plan.dataset}" carries no documents; use corpus: bundled or a corpus file`);
    docs = ds.docs;
    log(`corpus: the ${docs.length} documents of ${plan.dataset}`);
  } else {
    const { openRetrievalCorpus } = await import("../../corpus/corpus-file.ts");
    const c = await openRetrievalCorpus(plan.corpus, log, "corpus");
    if (c.source) return { queries, qrels: kept, docs: [], source: c.source, corpusLabel: plan.corpus };
    docs = c.docs!;
  }
  return { queries, qrels: kept, docs, corpusLabel: plan.corpus === "dataset" ? `${plan.dataset} documents` : plan.corpus };
}

/**
 * Real retriever and reranker factories for a sweep (registry, LanceDB, transformers.js, model layer).
 * @param corpus the documents, or a corpus store (streamed: the engine is chosen from its size — from
 *   {@link DISK_ENGINE_THRESHOLD} documents on, BM25 is medsynth's on-disk engine, which honours each
 *   setting's k1 and b, one index per pair; reranked documents are fetched by id).
 */
export async function realRankDeps(plan: Pick<SweepPlan, "embedder" | "chatModel">, corpus: readonly CorpusDoc[] | DocumentSource, log: (l: string) => void): Promise<RankDeps> {
  const { createRetriever, createReranker, DISK_ENGINE_THRESHOLD } = await import("../../retrieval/registry.ts");
  const source = Array.isArray(corpus) ? null : (corpus as DocumentSource);
  const docs = source ? null : (corpus as readonly CorpusDoc[]);
  const corpusDeps = source ? { source } : { docs: docs! };
  // LanceDB's full-text BM25 (engine `lance`, picked by size) has fixed k1/b: a sweep over them needs the `disk` engine.
  const bm25Engine = source && (await source.count()) >= DISK_ENGINE_THRESHOLD ? { engine: "disk" as const } : {};
  return {
    docs: new Map((docs ?? []).map((d) => [d.id, d])),
    ...(source ? { getDocs: (ids: readonly string[]) => source.getDocs(ids) } : {}),
    log,
    bm25: (k1, b) => createRetriever({ mode: "bm25", bm25: { k1, b }, ...bm25Engine }, { ...corpusDeps, log }),
    dense: () => createRetriever({ mode: "dense", embedder: plan.embedder }, { ...corpusDeps, log }),
    async reranker(id) {
      if (id !== "llm-pointwise") return createReranker(id);
      const { createChatModel } = await import("../../models/registry.ts");
      return createReranker(id, { chatModel: createChatModel(plan.chatModel!) });
    },
  };
}

/** Everything a sweep produced. */
export interface SweepResult {
  plan: SweepPlan;
  dataset: string;
  corpus: string;
  corpusDocs: number;
  queries: number;
  /** Metrics computed per query (recall, nDCG, MRR at each K; recall at each curve K). */
  metrics: string[];
  analysis: SweepAnalysis;
  rankStats: RankStats;
  /** setting → query → metric → value. */
  perQuery: Record<string, PerQuery>;
  /** Judged relevant documents absent from the corpus (they count as misses). */
  relevantMissing: number;
  /** Questions that carry a group (`groupBy`); the others are each their own group. */
  grouped: number;
}

/**
 * Run a checked sweep.
 * @param deps retriever factories (default {@link realRankDeps}); `data` to skip loading.
 * @throws dataset, corpus, index and reranker errors.
 */
export async function runSweep(plan: SweepPlan, opts: { log?: (l: string) => void; deps?: RankDeps; data?: SweepData } = {}): Promise<SweepResult> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const data = opts.data ?? (await loadSweepData(plan, log));
  const relevant = Object.values(data.qrels).flatMap((r) => Object.keys(r).filter((id) => r[id] > 0));
  // A store: the judged ids are looked up, the corpus is not read.
  const inCorpus = data.source ? new Set((await data.source.getDocs([...new Set(relevant)])).keys()) : new Set(data.docs.map((d) => d.id));
  const corpusDocs = data.source ? await data.source.count() : data.docs.length;
  const relevantMissing = relevant.filter((id) => !inCorpus.has(id)).length;
  if (relevantMissing) log(`warning: ${relevantMissing} of ${relevant.length} relevant (query, doc) pairs name documents absent from the corpus (they count as misses)`);
  log(
    `sweep ${plan.name}: ${plan.settings.length} setting(s)${plan.collapsed ? ` (${plan.collapsed} grid point(s) were the same retriever as another and run once)` : ""} on ${data.queries.length} ${plan.dataset} questions`,
  );
  const deps = opts.deps ?? (await realRankDeps(plan, data.source ?? data.docs, log));
  const { rankings, stats } = await rankSettings(plan, data.queries, deps);
  if (stats.rerankFailures) log(`warning: the reranker failed to grade ${stats.rerankFailures} document(s) (first error: ${stats.firstRerankError}); they rank after every graded one`);
  const metrics = sweepMetrics(
    [...new Set(plan.k)].sort((a, b) => a - b),
    plan.curveK,
  );
  const perQuery = scoreRankings(rankings, data.qrels, metrics);
  const analysis = analyseSweep(
    plan,
    data.queries,
    perQuery,
    plan.settings.map((s) => s.name),
  );
  return {
    plan,
    dataset: plan.dataset,
    corpus: data.corpusLabel,
    corpusDocs,
    queries: data.queries.length,
    metrics,
    analysis,
    rankStats: stats,
    perQuery,
    relevantMissing,
    grouped: data.queries.filter((q) => q.group !== null).length,
  };
}
