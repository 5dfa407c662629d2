/**
 * The statistics of a sweep, pure functions over per-query metric values: means with seeded
 * percentile-bootstrap CIs, recall-vs-K curves, paired tests against the baseline (paired t and
 * randomisation, Holm-adjusted across the table, each family separately), and the honest-tuning
 * protocols (issue 18.3): pick the best setting on a dev split and report it on test only, or
 * pick per fold on the other folds and pool the held-out folds.
 *
 * @see Smucker, Allan & Carterette (2007) for randomisation tests in IR; Holm (1979); Efron &
 *   Tibshirani (1993) for the percentile bootstrap; ranx `compare`.
 */
import { bootstrapCi } from "../../judges/stats/bootstrap.ts";
import { holmAdjustPairedDiffs, pairedDiffStats } from "../../judges/stats/paired-diff.ts";
import { evaluateRun, type Qrels } from "../../retrieval/eval/ir-metrics.ts";
import { groupedDevTestSplit, groupedKFold } from "../../retrieval/eval/split.ts";
import type { SweepPlan } from "./config.ts";
import type { SweepQuery } from "./rank.ts";

/** Per-query metric values: query id → metric → value. */
export type PerQuery = Record<string, Record<string, number>>;

/** Mean of one metric over a scope's queries with its bootstrap CI (NaN bounds with < 2 queries). */
export interface MetricSummary {
  mean: number;
  lo: number;
  hi: number;
}

/** One paired comparison of a setting against the baseline on one metric. */
export interface SweepComparison {
  setting: string;
  baseline: string;
  metric: string;
  n: number;
  /** mean(setting − baseline). */
  meanDiff: number;
  t: number;
  pT: number;
  pTHolm: number;
  pRandomization: number;
  pRandomizationHolm: number;
}

/** Metric names of a sweep: recall@K, nDCG@K and MRR@K for each K, then recall at each curve K not already there. */
export function sweepMetrics(ks: readonly number[], curveK: readonly number[]): string[] {
  const main = ks.flatMap((k) => [`recall@${k}`, `ndcg@${k}`, `mrr@${k}`]);
  return [...main, ...curveK.filter((k) => !ks.includes(k)).map((k) => `recall@${k}`)];
}

/**
 * Per-query values of every setting (queries of `qrels` with ≥ 1 relevant document only).
 * @returns setting → query id → metric → value.
 */
export function scoreRankings(rankings: Record<string, Record<string, string[]>>, qrels: Qrels, metrics: readonly string[]): Record<string, PerQuery> {
  return Object.fromEntries(Object.entries(rankings).map(([s, run]) => [s, evaluateRun(run, qrels, metrics).perQuery]));
}

/**
 * Mean and seeded percentile-bootstrap CI of each metric over `qids`. The same seed for every
 * setting resamples the same queries, so the intervals of two settings are comparable.
 * @throws Error naming a query id missing from `perQuery`.
 */
export function summarise(perQuery: PerQuery, qids: readonly string[], metrics: readonly string[], opts: { iterations: number; level: number; seed: string }): Record<string, MetricSummary> {
  const out: Record<string, MetricSummary> = {};
  for (const m of metrics) {
    const xs = qids.map((q) => {
      const v = perQuery[q]?.[m];
      if (v === undefined) throw new Error(`sweep: no ${m} for query ${q}`);
      return v;
    });
    if (xs.length < 2) {
      out[m] = { mean: xs.length ? xs[0] : Number.NaN, lo: Number.NaN, hi: Number.NaN };
      continue;
    }
    const ci = bootstrapCi(xs, { iterations: opts.iterations, level: opts.level, seed: opts.seed });
    out[m] = { mean: ci.estimate, lo: ci.lower, hi: ci.upper };
  }
  return out;
}

/**
 * Paired tests of every setting against the baseline on each metric, over `qids`: paired t and
 * the randomisation (sign-flip) test; both p families Holm-adjusted over the whole table (NaN
 * p-values, e.g. t with constant differences, are left out of the adjustment and stay NaN).
 * @param rows settings in table order; the baseline's own row is skipped.
 */
export function compareToBaseline(
  rows: readonly { setting: string; perQuery: PerQuery }[],
  baseline: string,
  qids: readonly string[],
  metrics: readonly string[],
  opts: { iterations: number; seed: string },
): SweepComparison[] {
  const base = rows.find((r) => r.setting === baseline);
  if (!base) throw new Error(`sweep: baseline "${baseline}" is not among the settings compared`);
  const out: SweepComparison[] = [];
  for (const r of rows) {
    if (r.setting === baseline) continue;
    for (const m of metrics) {
      const xs = qids.map((q) => r.perQuery[q][m]);
      const ys = qids.map((q) => base.perQuery[q][m]);
      const s = pairedDiffStats(xs, ys, opts);
      out.push({
        setting: r.setting,
        baseline,
        metric: m,
        n: s.n,
        meanDiff: s.meanDiff,
        t: s.t,
        pT: s.pT,
        pTHolm: Number.NaN,
        pRandomization: s.pRandomization,
        pRandomizationHolm: Number.NaN,
      });
    }
  }
  holmAdjustPairedDiffs(out);
  return out;
}

/**
 * The setting with the highest mean of `metric` over `qids` (ties: the earlier setting).
 * @returns its name and mean.
 */
export function bestSetting(perSetting: Record<string, PerQuery>, order: readonly string[], qids: readonly string[], metric: string): { setting: string; score: number } {
  let best = { setting: order[0], score: Number.NEGATIVE_INFINITY };
  for (const s of order) {
    const score = qids.reduce((a, q) => a + perSetting[s][q][metric], 0) / Math.max(1, qids.length);
    if (score > best.score) best = { setting: s, score };
  }
  return best;
}

/** A table of the report: settings scored on one set of queries. */
export interface SweepScope {
  /** `all` (no tuning protocol), `dev` / `test` (dev-test split), `cv` (k-fold, held-out folds pooled). */
  id: "all" | "dev" | "test" | "cv";
  description: string;
  queries: number;
  rows: { setting: string; metrics: Record<string, MetricSummary> }[];
  comparisons: SweepComparison[];
}

/** One fold of k-fold tuning. */
export interface FoldResult {
  fold: number;
  devQueries: number;
  testQueries: number;
  /** Ids of the held-out questions. */
  test: string[];
  /** Setting picked on the other folds. */
  chosen: string;
  devScore: number;
  testScore: number;
}

/** The outcome of the tuning protocol. */
export interface SweepAnalysis {
  protocol: SweepPlan["protocol"];
  /** The chosen setting, the split it was picked on, its score there (for k folds: the setting picked most often). */
  chosen: { setting: string; pickedOn: "all" | "dev" | "folds"; score: number };
  scopes: SweepScope[];
  split?: { dev: string[]; test: string[]; devGroups: number; testGroups: number; seed: string };
  folds?: FoldResult[];
  /** Label of the pooled cross-validated pseudo-setting in the `cv` scope. */
  cvLabel?: string;
}

/** Label of the k-fold pooled result: on each held-out fold, the setting picked on the other folds. */
export const CV_LABEL = "chosen per fold (cross-validated)";

/**
 * Run the tuning protocol of `plan` over per-query values.
 * - `none`: every setting on every query (`all`), compared with the baseline; the best is named
 *   but its score is optimistic (picked and scored on the same queries).
 * - `dev-test`: seeded split keeping each group on one side; every setting scored and compared on
 *   `dev`; the best on dev and the baseline scored and compared on `test` only.
 * - `folds`: k seeded folds keeping each group in one fold; on each fold the setting best on the
 *   other folds is scored; the pooled held-out values form one row (`cv`) compared with the baseline.
 * @param perSetting setting → query → metric → value (every query of `queries`).
 */
export function analyseSweep(
  plan: Pick<SweepPlan, "protocol" | "metric" | "baseline" | "testK" | "devFraction" | "splitSeed" | "folds" | "bootstrap" | "randomization" | "k" | "curveK">,
  queries: readonly SweepQuery[],
  perSetting: Record<string, PerQuery>,
  order: readonly string[],
): SweepAnalysis {
  const metrics = sweepMetrics(
    [...new Set(plan.k)].sort((a, b) => a - b),
    plan.curveK,
  );
  const tested = [`recall@${plan.testK}`, `ndcg@${plan.testK}`, `mrr@${plan.testK}`];
  const scope = (id: SweepScope["id"], description: string, qids: string[], rows: { setting: string; perQuery: PerQuery }[]): SweepScope => ({
    id,
    description,
    queries: qids.length,
    rows: rows.map((r) => ({ setting: r.setting, metrics: summarise(r.perQuery, qids, metrics, plan.bootstrap) })),
    comparisons: rows.length > 1 ? compareToBaseline(rows, plan.baseline, qids, tested, plan.randomization) : [],
  });
  const all = queries.map((q) => q.id);
  const rowsOf = (names: readonly string[]) => names.map((s) => ({ setting: s, perQuery: perSetting[s] }));
  if (plan.protocol === "dev-test") {
    const split = groupedDevTestSplit(
      queries,
      (q) => q.id,
      (q) => q.group,
      { devFraction: plan.devFraction, seed: plan.splitSeed },
    );
    const best = bestSetting(perSetting, order, split.dev, plan.metric);
    const testNames = [...new Set([plan.baseline, best.setting])];
    return {
      protocol: plan.protocol,
      chosen: { setting: best.setting, pickedOn: "dev", score: best.score },
      split,
      scopes: [
        scope("dev", `dev split (${split.dev.length} queries, ${split.devGroups} groups): every setting; the best by ${plan.metric} is chosen here`, split.dev, rowsOf(order)),
        scope("test", `test split (${split.test.length} queries, ${split.testGroups} groups, no group shared with dev): the chosen setting and the baseline only`, split.test, rowsOf(testNames)),
      ],
    };
  }
  if (plan.protocol === "folds") {
    const folds = groupedKFold(
      queries,
      (q) => q.id,
      (q) => q.group,
      plan.folds!,
      plan.splitSeed,
    );
    const pooled: PerQuery = {};
    const results: FoldResult[] = folds.map((test, i) => {
      const inTest = new Set(test);
      const dev = all.filter((q) => !inTest.has(q));
      const best = bestSetting(perSetting, order, dev, plan.metric);
      for (const q of test) pooled[q] = perSetting[best.setting][q];
      return {
        fold: i + 1,
        devQueries: dev.length,
        testQueries: test.length,
        test,
        chosen: best.setting,
        devScore: best.score,
        testScore: test.reduce((a, q) => a + perSetting[best.setting][q][plan.metric], 0) / Math.max(1, test.length),
      };
    });
    const counts = new Map<string, number>();
    for (const f of results) counts.set(f.chosen, (counts.get(f.chosen) ?? 0) + 1);
    const most = [...counts.entries()].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]))[0][0];
    const cvScore = all.reduce((a, q) => a + pooled[q][plan.metric], 0) / Math.max(1, all.length);
    return {
      protocol: plan.protocol,
      chosen: { setting: most, pickedOn: "folds", score: cvScore },
      folds: results,
      cvLabel: CV_LABEL,
      scopes: [
        scope("cv", `${folds.length}-fold cross-validation (${all.length} queries): each fold scored with the setting best on the other folds; the baseline on the same queries`, all, [
          { setting: CV_LABEL, perQuery: pooled },
          ...rowsOf([plan.baseline]),
        ]),
      ],
    };
  }
  const best = bestSetting(perSetting, order, all, plan.metric);
  return {
    protocol: plan.protocol,
    chosen: { setting: best.setting, pickedOn: "all", score: best.score },
    scopes: [scope("all", `all ${all.length} queries: every setting (no held-out split: the best setting's score is optimistic)`, all, rowsOf(order))],
  };
}
