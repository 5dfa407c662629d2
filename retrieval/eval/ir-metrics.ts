/**
 * Offline IR metrics: recall@k, precision@k, nDCG@k, MRR@k / uncut MRR (reciprocal rank), MAP /
 * MAP@k (average precision) and hit@k, per query and macro-averaged over queries. Pure functions,
 * no I/O.
 *
 * Conventions (those of trec_eval / ranx, so our figures can be checked against them):
 * - A document is relevant when its qrels grade is > 0 (trec_eval `relevance_level` 1).
 * - A ranked list is read best first; a repeated id keeps only its first position.
 * - precision@k divides by k even when fewer than k documents were retrieved (trec_eval `P_k`).
 * - nDCG@k: DCG = Σ_{i=1..k} gain(rel_i) / log2(i + 1), gain = rel ("linear", trec_eval
 *   `ndcg_cut`) or 2^rel − 1 ("exponential", Burges et al. 2005); the ideal DCG sorts all qrels
 *   grades of the query (not only retrieved ones) descending. 0 when IDCG = 0.
 * - reciprocal rank = 1 / rank of the first relevant document within the cutoff, else 0. `mrr@k`
 *   is cut at k; `mrr` (no cutoff) reads the whole retrieved list (trec_eval `recip_rank`).
 * - average precision = Σ over relevant retrieved docs of precision at their rank / number of
 *   relevant docs in the qrels (trec_eval `map`; `map@k` = `map_cut_k`).
 * - Macro mean: over queries that have ≥ 1 relevant document in the qrels; a query with no
 *   relevant documents is skipped and reported; a judged query missing from the run scores 0.
 *
 * @see Järvelin & Kekäläinen (2002) for nDCG; trec_eval 9.0.8 `m_ndcg_cut.c`, `m_recall.c`, `m_P.c`, `m_recip_rank.c`.
 */

/** Relevance judgments: query id → doc id → grade (≥ 1 relevant; 0 judged non-relevant). */
export type Qrels = Record<string, Record<string, number>>;
/** A ranked list: doc ids, or hits carrying `id` (e.g. SearchHit), best first. */
export type RankedList = readonly (string | { id: string })[];
/** A run: query id → ranked list. */
export type Run = Record<string, RankedList>;

/** Metric families supported by {@link evaluateRun}. */
export const METRIC_FAMILIES = ["recall", "precision", "ndcg", "mrr", "map", "hit"] as const;
/** One of {@link METRIC_FAMILIES}. */
export type MetricFamily = (typeof METRIC_FAMILIES)[number];

/** Gain function for graded relevance in nDCG. */
export type NdcgGain = "linear" | "exponential";

function idsOf(ranked: RankedList, k: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const x of ranked) {
    if (out.length >= k) break;
    const id = typeof x === "string" ? x : x.id;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

function checkK(k: number, fn: string): void {
  if (!(Number.isInteger(k) && k >= 1)) throw new Error(`${fn}: k must be an integer ≥ 1, got ${k}`);
}

function numRelevant(rels: Record<string, number>): number {
  let n = 0;
  for (const g of Object.values(rels)) if (g > 0) n++;
  return n;
}

/**
 * Fraction of the query's relevant documents found in the top k.
 * @returns |relevant ∩ top-k| / |relevant|, in [0, 1]; 0 when the query has no relevant document.
 */
export function recallAtK(ranked: RankedList, rels: Record<string, number>, k: number): number {
  checkK(k, "recallAtK");
  const nRel = numRelevant(rels);
  if (nRel === 0) return 0;
  return idsOf(ranked, k).filter((id) => (rels[id] ?? 0) > 0).length / nRel;
}

/**
 * Fraction of the top k that is relevant.
 * @returns |relevant ∩ top-k| / k (k, not the number retrieved), in [0, 1].
 */
export function precisionAtK(ranked: RankedList, rels: Record<string, number>, k: number): number {
  checkK(k, "precisionAtK");
  return idsOf(ranked, k).filter((id) => (rels[id] ?? 0) > 0).length / k;
}

/**
 * Normalised discounted cumulative gain at k with graded gains and log2 discount.
 * @param opts `gain`: "linear" (rel, default, trec_eval) or "exponential" (2^rel − 1).
 * @returns DCG@k / IDCG@k in [0, 1]; 0 when no document has grade > 0.
 */
export function ndcgAtK(ranked: RankedList, rels: Record<string, number>, k: number, opts: { gain?: NdcgGain } = {}): number {
  checkK(k, "ndcgAtK");
  const gain = opts.gain === "exponential" ? (g: number) => 2 ** g - 1 : (g: number) => g;
  let dcg = 0;
  idsOf(ranked, k).forEach((id, i) => {
    const g = rels[id] ?? 0;
    if (g > 0) dcg += gain(g) / Math.log2(i + 2);
  });
  const ideal = Object.values(rels)
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += gain(g) / Math.log2(i + 2)));
  return idcg > 0 ? dcg / idcg : 0;
}

/**
 * Reciprocal rank of the first relevant document within the top k (default: whole list).
 * @returns 1/rank in (0, 1], or 0 when none of the top k is relevant.
 */
export function reciprocalRank(ranked: RankedList, rels: Record<string, number>, k = Number.MAX_SAFE_INTEGER): number {
  checkK(k, "reciprocalRank");
  const ids = idsOf(ranked, k);
  for (let i = 0; i < ids.length; i++) if ((rels[ids[i]] ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

/**
 * Average precision within the top k (default: the whole list): Σ_{i ≤ k, doc i relevant}
 * P@i / |relevant| (trec_eval `map`, `map_cut_k`).
 * @returns in [0, 1]; 0 when the query has no relevant document.
 */
export function averagePrecision(ranked: RankedList, rels: Record<string, number>, k = Number.MAX_SAFE_INTEGER): number {
  checkK(k, "averagePrecision");
  const nRel = numRelevant(rels);
  if (nRel === 0) return 0;
  let found = 0;
  let sum = 0;
  idsOf(ranked, k).forEach((id, i) => {
    if ((rels[id] ?? 0) > 0) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / nRel;
}

/** 1 when at least one of the top k is relevant, else 0. */
export function hitAtK(ranked: RankedList, rels: Record<string, number>, k: number): number {
  checkK(k, "hitAtK");
  return idsOf(ranked, k).some((id) => (rels[id] ?? 0) > 0) ? 1 : 0;
}

/**
 * Parses a metric name: `recall@10`, `precision@5` (alias `P@5`), `ndcg@10`, `mrr` / `mrr@10`,
 * `map` / `map@10`, `hit@1`. Case-insensitive.
 * @returns family and cutoff (`mrr` and `map` without cutoff → k = Infinity: uncut).
 * @throws Error naming the metric and listing valid forms.
 */
export function parseMetric(name: string): { family: MetricFamily; k: number } {
  const m = /^(recall|precision|p|ndcg|mrr|map|hit)(?:@(\d+))?$/i.exec(name.trim());
  if (!m) throw new Error(`unknown metric ${JSON.stringify(name)}; valid: recall@k, precision@k (P@k), ndcg@k, mrr, mrr@k, map, map@k, hit@k`);
  const fam = m[1].toLowerCase();
  const family = (fam === "p" ? "precision" : fam) as MetricFamily;
  if (m[2] === undefined) {
    if (family !== "mrr" && family !== "map") throw new Error(`metric ${JSON.stringify(name)} needs a cutoff, e.g. ${family}@10`);
    return { family, k: Infinity };
  }
  const k = Number(m[2]);
  if (k < 1) throw new Error(`metric ${JSON.stringify(name)}: cutoff must be ≥ 1`);
  return { family, k };
}

/**
 * One metric for one query.
 * @param metric a name accepted by {@link parseMetric}.
 */
export function computeMetric(metric: string, ranked: RankedList, rels: Record<string, number>, opts: { gain?: NdcgGain } = {}): number {
  const { family, k } = parseMetric(metric);
  switch (family) {
    case "recall":
      return recallAtK(ranked, rels, k);
    case "precision":
      return precisionAtK(ranked, rels, k);
    case "ndcg":
      return ndcgAtK(ranked, rels, k, opts);
    case "mrr":
      return reciprocalRank(ranked, rels, Number.isFinite(k) ? k : Number.MAX_SAFE_INTEGER);
    case "map":
      return averagePrecision(ranked, rels, Number.isFinite(k) ? k : Number.MAX_SAFE_INTEGER);
    case "hit":
      return hitAtK(ranked, rels, k);
  }
}

/** Result of {@link evaluateRun}. */
export interface RunEvaluation {
  /** query id → metric name → value, for every evaluated query. */
  perQuery: Record<string, Record<string, number>>;
  /** metric name → macro mean over evaluated queries (NaN when none). */
  mean: Record<string, number>;
  /** Number of evaluated queries (judged, with ≥ 1 relevant doc). */
  queries: number;
  /** Judged queries skipped because no document has grade > 0. */
  skippedNoRelevant: string[];
  /** Judged queries absent from the run (scored 0 on every metric). */
  missingFromRun: string[];
  /** Run queries that have no qrels (ignored). */
  unjudged: string[];
}

/**
 * Evaluates a run against qrels on several metrics, per query and macro-averaged.
 * @param run query id → ranked list.
 * @param qrels query id → doc id → grade.
 * @param metrics metric names, e.g. `["recall@10", "ndcg@10", "mrr@10"]`.
 * @param opts `gain` for nDCG (default "linear").
 * @throws Error on an unknown metric name.
 */
export function evaluateRun(run: Run, qrels: Qrels, metrics: readonly string[], opts: { gain?: NdcgGain } = {}): RunEvaluation {
  metrics.forEach((m) => parseMetric(m));
  const perQuery: Record<string, Record<string, number>> = {};
  const skippedNoRelevant: string[] = [];
  const missingFromRun: string[] = [];
  const sums: Record<string, number> = Object.fromEntries(metrics.map((m) => [m, 0]));
  let n = 0;
  for (const [qid, rels] of Object.entries(qrels)) {
    if (numRelevant(rels) === 0) {
      skippedNoRelevant.push(qid);
      continue;
    }
    const ranked = run[qid];
    if (ranked === undefined) missingFromRun.push(qid);
    const row: Record<string, number> = {};
    for (const m of metrics) {
      row[m] = computeMetric(m, ranked ?? [], rels, opts);
      sums[m] += row[m];
    }
    perQuery[qid] = row;
    n++;
  }
  const mean = Object.fromEntries(metrics.map((m) => [m, n > 0 ? sums[m] / n : NaN]));
  const unjudged = Object.keys(run).filter((q) => !(q in qrels));
  return { perQuery, mean, queries: n, skippedNoRelevant, missingFromRun, unjudged };
}
