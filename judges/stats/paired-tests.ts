/**
 * Paired comparisons: paired t-test, Wilcoxon signed-rank test, and the paired effect size d_z.
 *
 * @see scipy.stats.ttest_rel and scipy.stats.wilcoxon (scipy 1.17 defaults); reference values in
 *   tests/fixtures/parity/stats_cases.json. MedMeta (seed 001) reports paired t-tests and Cohen's d.
 */
import { mean, sd } from "./descriptive.ts";
import { normalSf, studentTTwoSided } from "./distributions.ts";
import { rankAverage } from "./ranks.ts";

function differences(x: readonly number[], y: readonly number[], fn: string): number[] {
  if (x.length !== y.length) throw new RangeError(`${fn}: x and y differ in length (${x.length} vs ${y.length})`);
  return x.map((v, i) => {
    const d = v - y[i];
    if (!Number.isFinite(d)) throw new RangeError(`${fn}: non-finite value at index ${i}`);
    return d;
  });
}

/** Paired t-test result (two-sided). */
export interface PairedTTest {
  t: number;
  df: number;
  p: number;
  /** Mean of d = x − y. */
  meanDiff: number;
  n: number;
}

/**
 * Paired t-test on d = x − y: t = mean(d) / (sd(d)/√n), df = n − 1, two-sided p.
 * @throws RangeError when lengths differ or n < 2.
 */
export function pairedTTest(x: readonly number[], y: readonly number[]): PairedTTest {
  const d = differences(x, y, "pairedTTest");
  const n = d.length;
  const m = mean(d);
  const t = m / (sd(d) / Math.sqrt(n));
  return { t, df: n - 1, p: studentTTwoSided(t, n - 1), meanDiff: m, n };
}

/**
 * Paired Cohen's d_z = mean(d) / sd(d) with d = x − y and sd of ddof 1 (Cohen 1988, eq. 2.3.5;
 * Lakens 2013). It equals t/√n of the paired t-test. Not the pooled-SD d_av.
 * @throws RangeError when lengths differ or n < 2.
 */
export function cohenDz(x: readonly number[], y: readonly number[]): number {
  const d = differences(x, y, "cohenDz");
  return mean(d) / sd(d);
}

/** Wilcoxon signed-rank result (two-sided). */
export interface WilcoxonResult {
  /** min(R+, R−). */
  statistic: number;
  p: number;
  /** Method scipy's `method="auto"` resolves to. */
  method: "exact" | "permutation" | "asymptotic";
  rPlus: number;
  rMinus: number;
  /** Number of pairs. */
  n: number;
  nZero: number;
  nNonzero: number;
  hasTies: boolean;
  /** Normal-approximation z = −|R+ − μ| / σ with the tie-corrected σ (no continuity correction). */
  zAsymptotic: number;
  pAsymptotic: number;
}

function wilcoxonExactP(n: number, rPlus: number): number {
  const max = (n * (n + 1)) / 2;
  let counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let k = 1; k <= n; k++) {
    const next = counts.slice();
    for (let s = k; s <= max; s++) next[s] += counts[s - k];
    counts = next;
  }
  const total = 2 ** n;
  const lo = Math.ceil(rPlus);
  const hi = Math.floor(rPlus);
  let cdf = 0;
  for (let s = 0; s <= lo && s <= max; s++) cdf += counts[s] / total;
  let sf = 0;
  for (let s = Math.max(0, hi); s <= max; s++) sf += counts[s] / total;
  return Math.min(1, 2 * Math.min(sf, cdf));
}

function wilcoxonPermutationP(absRanks: number[], rPlusObs: number): number {
  const m = absRanks.length;
  const total = 2 ** m;
  const eps = 1e-14 * Math.max(1, Math.abs(rPlusObs));
  let less = 0;
  let greater = 0;
  for (let mask = 0; mask < total; mask++) {
    let s = 0;
    for (let k = 0; k < m; k++) if (mask & (1 << k)) s += absRanks[k];
    if (s <= rPlusObs + eps) less++;
    if (s >= rPlusObs - eps) greater++;
  }
  return Math.min(1, 2 * Math.min(less / total, greater / total));
}

/**
 * Wilcoxon signed-rank test on d = x − y with scipy's defaults (zero_method "wilcox": zero
 * differences dropped; no continuity correction; two-sided; method "auto"):
 * - n ≤ 50 with no ties and no zeros → exact null distribution of R+;
 * - otherwise n ≤ 13 → exact enumeration of all 2^n sign flips (scipy's permutation test);
 * - otherwise → normal approximation with the tie-corrected variance.
 * @throws RangeError when lengths differ, n = 0, or all differences are zero.
 */
export function wilcoxonSignedRank(x: readonly number[], y: readonly number[]): WilcoxonResult {
  const d = differences(x, y, "wilcoxonSignedRank");
  const n = d.length;
  const nonzero = d.filter((v) => v !== 0);
  const nZero = n - nonzero.length;
  const count = nonzero.length;
  if (count === 0) throw new RangeError("wilcoxonSignedRank: all differences are zero");
  const { ranks, tieGroups } = rankAverage(nonzero.map(Math.abs));
  let rPlus = 0;
  let rMinus = 0;
  nonzero.forEach((v, i) => {
    if (v > 0) rPlus += ranks[i];
    else rMinus += ranks[i];
  });
  const hasTies = tieGroups.length > 0;
  const mn = count * (count + 1) * 0.25;
  let se = count * (count + 1) * (2 * count + 1);
  for (const t of tieGroups) se -= (t * t * t - t) / 2;
  se = Math.sqrt(se / 24);
  const z = (rPlus - mn) / se;
  const pAsymptotic = Math.min(1, 2 * normalSf(Math.abs(z)));
  let method: WilcoxonResult["method"];
  let p: number;
  if (n <= 50 && !hasTies && nZero === 0) {
    method = "exact";
    p = wilcoxonExactP(count, rPlus);
  } else if (n <= 13) {
    method = "permutation";
    p = wilcoxonPermutationP(ranks, rPlus);
  } else {
    method = "asymptotic";
    p = pAsymptotic;
  }
  return { statistic: Math.min(rPlus, rMinus), p, method, rPlus, rMinus, n, nZero, nNonzero: count, hasTies, zAsymptotic: -Math.abs(z), pAsymptotic };
}
