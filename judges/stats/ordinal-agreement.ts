/**
 * Agreement of judges on an ordinal 0–5 scale: the binning the MedMeta authors used, Cohen's
 * weighted κ (linear or quadratic weights) and Fleiss' κ for more than two raters.
 *
 * Binning: the MedMeta authors' analysis casts each judge's score to an integer before
 * `sklearn.metrics.cohen_kappa_score(..., weights="quadratic")` (pandas `astype(int)`, i.e.
 * truncation toward zero), so a score of 3.7 falls in bin 3. {@link binScore} does the same on a
 * fixed 0…max scale; values outside the scale are no bin (null), never clamped.
 *
 * @see hahuyhoang411/MedMeta `src/analyze/llm_results_analyzer.py` (`analyze_and_plot_kappa`).
 * @see Cohen J. (1968) Weighted kappa; Fleiss J. L. (1971) Measuring nominal scale agreement
 *   among many raters.
 */
import type { StatStatus } from "./status.ts";

/**
 * Integer bin of a score on a 0…`max` scale by truncation (the authors' `astype(int)`); null for
 * a missing, non-finite or out-of-scale value.
 * @param value - a judge's score (e.g. 3, 4.5).
 * @param max - top of the scale (default 5).
 */
export function binScore(value: number | null | undefined, max = 5): number | null {
  if (value === null || value === undefined || !Number.isFinite(value) || value < 0 || value > max) return null;
  return Math.trunc(value);
}

/** Cohen's κ of two raters on ordered integer categories 0…max. */
export interface WeightedKappaResult {
  status: StatStatus;
  /** Pairs where both ratings are present. */
  n: number;
  /** Pairs left out (a rating missing on either side). */
  excluded: number;
  /** Share of pairs in the same category. */
  observedAgreement: number | null;
  /** Unweighted κ (nominal categories). */
  kappa: number | null;
  /** κ with the chosen disagreement weights (`linear` |i−j|, `quadratic` (i−j)²). */
  weightedKappa: number | null;
  weights: "linear" | "quadratic";
}

/**
 * Cohen's κ (unweighted and weighted) of two raters' integer categories on the fixed scale
 * 0…`max` — the same as sklearn `cohen_kappa_score(a, b, labels=range(max+1), weights=…)`.
 * κ_w = 1 − Σ w_ij·O_ij / Σ w_ij·E_ij with O the observed and E the chance (outer product of the
 * marginals) joint proportions. Null ratings leave the pair out. κ is null (status
 * `no-variation`) when chance disagreement is 0 (both raters use one and the same category).
 * @param a - first rater's categories (integers 0…max, or null).
 * @param b - second rater's, same length.
 * @throws RangeError when lengths differ or a category is not an integer in 0…max.
 * @see sklearn.metrics.cohen_kappa_score.
 */
export function weightedCohenKappa(a: readonly (number | null)[], b: readonly (number | null)[], options: { max?: number; weights?: "linear" | "quadratic" } = {}): WeightedKappaResult {
  const max = options.max ?? 5;
  const weights = options.weights ?? "quadratic";
  if (a.length !== b.length) throw new RangeError(`weightedCohenKappa: rating lists differ in length (${a.length} vs ${b.length})`);
  const k = max + 1;
  const O = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  let n = 0;
  let excluded = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || y === null) {
      excluded++;
      continue;
    }
    for (const v of [x, y])
      if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`weightedCohenKappa: category ${v} at index ${i} is not an integer in 0…${max} (bin scores first with binScore)`);
    O[x][y]++;
    n++;
  }
  if (n === 0) return { status: "empty", n, excluded, observedAgreement: null, kappa: null, weightedKappa: null, weights };
  const rows = O.map((r) => r.reduce((s, v) => s + v, 0));
  const cols = O[0].map((_, j) => O.reduce((s, r) => s + r[j], 0));
  let agree = 0;
  let expectedAgree = 0;
  let wObs = 0;
  let wExp = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const e = (rows[i] * cols[j]) / n;
      const w = weights === "linear" ? Math.abs(i - j) : (i - j) ** 2;
      if (i === j) {
        agree += O[i][j];
        expectedAgree += e;
      }
      wObs += w * O[i][j];
      wExp += w * e;
    }
  const pe = expectedAgree / n;
  const kappa = pe >= 1 ? null : (agree / n - pe) / (1 - pe);
  const weightedKappa = wExp === 0 ? null : 1 - wObs / wExp;
  return { status: kappa === null || weightedKappa === null ? "no-variation" : "ok", n, excluded, observedAgreement: agree / n, kappa, weightedKappa, weights };
}

/** Fleiss' κ of m raters over N items. */
export interface FleissKappaResult {
  status: StatStatus;
  /** Items rated by every rater (the ones used). */
  n: number;
  /** Items left out because a rater's category is missing. */
  excluded: number;
  raters: number;
  /** Mean per-item agreement P̄. */
  observed: number | null;
  /** Chance agreement P̄_e = Σ_j p_j². */
  expected: number | null;
  kappa: number | null;
}

/**
 * Fleiss' κ: `ratings[r][i]` is rater r's category (any integer or string) of item i; items where
 * any rater is missing (null) are left out. κ = (P̄ − P̄_e) / (1 − P̄_e) with
 * P_i = (Σ_j n_ij² − m) / (m(m − 1)) and p_j the share of all ratings in category j.
 * Null (status `no-variation`) when every rating is the same category.
 * @throws RangeError with fewer than 2 raters or ragged rows.
 * @see statsmodels.stats.inter_rater.fleiss_kappa (method "fleiss").
 */
export function fleissKappa(ratings: readonly (readonly (number | string | null)[])[]): FleissKappaResult {
  const m = ratings.length;
  if (m < 2) throw new RangeError(`fleissKappa: need at least 2 raters, got ${m}`);
  const items = ratings[0].length;
  ratings.forEach((r, i) => {
    if (r.length !== items) throw new RangeError(`fleissKappa: rater ${i} has ${r.length} items, rater 0 has ${items}`);
  });
  const totals = new Map<string, number>();
  let sumP = 0;
  let n = 0;
  let excluded = 0;
  for (let i = 0; i < items; i++) {
    const row = ratings.map((r) => r[i]);
    if (row.some((v) => v === null)) {
      excluded++;
      continue;
    }
    const counts = new Map<string, number>();
    for (const v of row) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    let sq = 0;
    for (const [c, x] of counts) {
      sq += x * x;
      totals.set(c, (totals.get(c) ?? 0) + x);
    }
    sumP += (sq - m) / (m * (m - 1));
    n++;
  }
  if (n === 0) return { status: "empty", n, excluded, raters: m, observed: null, expected: null, kappa: null };
  const observed = sumP / n;
  let expected = 0;
  for (const x of totals.values()) expected += (x / (n * m)) ** 2;
  const kappa = expected >= 1 ? null : (observed - expected) / (1 - expected);
  return { status: kappa === null ? "no-variation" : "ok", n, excluded, raters: m, observed, expected, kappa };
}
