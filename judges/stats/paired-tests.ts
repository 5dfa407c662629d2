/**
 * Paired comparisons: paired t-test, Wilcoxon signed-rank test, and the paired effect size d_z.
 *
 * @see scipy.stats.ttest_rel and scipy.stats.wilcoxon (scipy 1.17 defaults); reference values in
 *   tests/fixtures/parity/stats_cases.json. MedMeta (seed 001) reports paired t-tests and Cohen's d.
 */
import { mean, sd } from "./descriptive.ts";
import { normalSf, studentTTwoSided } from "./distributions.ts";
import seedrandom from "seedrandom";
import { rankAverage } from "./ranks.ts";
import type { StatStatus } from "./status.ts";

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
  /** `ok`, or `constant-differences` (SD of d is 0: t, p and d_z undefined = NaN). */
  status: StatStatus;
  t: number;
  df: number;
  p: number;
  /** Mean of d = x − y. */
  meanDiff: number;
  n: number;
}

/** True when every difference equals the first (exact equality): SD 0, t undefined. */
function constantDifferences(d: readonly number[]): boolean {
  for (let i = 1; i < d.length; i++) if (d[i] !== d[0]) return false;
  return true;
}

/**
 * mean(d)/sd(d) computed on d/max|d|, so it does not overflow (|d| ~ 1e300) or underflow
 * (|d| ~ 2⁻⁶⁰⁰, whose squares are below the smallest double): the ratio is scale-invariant.
 */
function standardizedMean(d: readonly number[]): number {
  let scale = 0;
  for (const v of d) scale = Math.max(scale, Math.abs(v));
  const u = d.map((v) => v / scale);
  return mean(u) / sd(u);
}

/**
 * Paired t-test on d = x − y: t = mean(d) / (sd(d)/√n), df = n − 1, two-sided p. Computed on
 * d / max|d| (t is scale-invariant), so differences of 2⁻⁶⁰⁰ or 1e300 give the t and p of the
 * same data at unit scale instead of ±∞/0 or NaN. When all differences are equal (SD 0, incl. all
 * zero) the result has status `constant-differences` and t = p = NaN (never ±∞).
 * @throws RangeError when lengths differ, a difference is not finite, or n < 2.
 * @see scipy.stats.ttest_rel.
 */
export function pairedTTest(x: readonly number[], y: readonly number[]): PairedTTest {
  const d = differences(x, y, "pairedTTest");
  const n = d.length;
  if (n < 2) throw new RangeError(`pairedTTest: need at least 2 pairs, got ${n}`);
  const m = mean(d);
  if (constantDifferences(d)) return { status: "constant-differences", t: Number.NaN, df: n - 1, p: Number.NaN, meanDiff: m, n };
  const t = standardizedMean(d) * Math.sqrt(n);
  return { status: "ok", t, df: n - 1, p: studentTTwoSided(t, n - 1), meanDiff: m, n };
}

/**
 * Paired Cohen's d_z = mean(d) / sd(d) with d = x − y and sd of ddof 1 (Cohen 1988, eq. 2.3.5;
 * Lakens 2013). It equals t/√n of the paired t-test. Not the pooled-SD d_av. Scale-invariant
 * like {@link pairedTTest}; NaN (undefined, never ±∞) when all differences are equal.
 * @throws RangeError when lengths differ or n < 2.
 */
export function cohenDz(x: readonly number[], y: readonly number[]): number {
  const d = differences(x, y, "cohenDz");
  if (d.length < 2) throw new RangeError(`cohenDz: need at least 2 pairs, got ${d.length}`);
  if (constantDifferences(d)) return Number.NaN;
  return standardizedMean(d);
}

/** Wilcoxon signed-rank result (two-sided). */
export interface WilcoxonResult {
  /** `ok`, or `all-zero-differences` (no signed ranks; see {@link wilcoxonSignedRank}). */
  status: StatStatus;
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
 *
 * All differences zero: scipy 1.17 drops every pair, so R+ = R− = 0 and the statistic is 0; with
 * n ≤ 13 its permutation test sees one sign pattern and gives p = 1, above 13 its normal
 * approximation divides 0 by a zero SD and gives p = NaN. We return the same, with status
 * `all-zero-differences` (z and the asymptotic p NaN), instead of throwing.
 * @throws RangeError when lengths differ, a difference is not finite, or n = 0.
 */
export function wilcoxonSignedRank(x: readonly number[], y: readonly number[]): WilcoxonResult {
  const d = differences(x, y, "wilcoxonSignedRank");
  const n = d.length;
  const nonzero = d.filter((v) => v !== 0);
  const nZero = n - nonzero.length;
  const count = nonzero.length;
  if (n === 0) throw new RangeError("wilcoxonSignedRank: no pairs");
  if (count === 0) {
    const method = n <= 13 ? "permutation" : "asymptotic";
    return {
      status: "all-zero-differences",
      statistic: 0,
      p: method === "permutation" ? 1 : Number.NaN,
      method,
      rPlus: 0,
      rMinus: 0,
      n,
      nZero,
      nNonzero: 0,
      hasTies: false,
      zAsymptotic: Number.NaN,
      pAsymptotic: Number.NaN,
    };
  }
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
  return { status: "ok", statistic: Math.min(rPlus, rMinus), p, method, rPlus, rMinus, n, nZero, nNonzero: count, hasTies, zAsymptotic: -Math.abs(z), pAsymptotic };
}

/** Result of {@link pairedRandomizationTest}. */
export interface RandomizationTest {
  /** `ok`, `constant-differences` when every difference is 0 (p = 1), or `too-few` (n = 0, p NaN). */
  status: StatStatus;
  /** Observed mean difference mean(x − y). */
  meanDiff: number;
  /** Two-sided p-value. */
  p: number;
  /** `exact` (all 2ⁿ sign patterns enumerated) or `sampled` (seeded random sign flips). */
  method: "exact" | "sampled";
  /** Sign patterns evaluated. */
  permutations: number;
  n: number;
}

/**
 * Paired randomisation (sign-flip permutation) test of mean(x − y) = 0, two-sided: each
 * difference keeps or flips its sign (swapping the two systems' scores on that query), and p is
 * the share of sign patterns whose |mean| is at least the observed |mean| (Fisher's randomisation
 * test, as ranx's `fisher` and Smucker et al. 2007 use for IR runs). When 2ⁿ ≤ `iterations` all
 * patterns are enumerated (exact p); otherwise `iterations` seeded random patterns are drawn and
 * p = (hits + 1)/(iterations + 1), which counts the observed pattern and is never 0 (Phipson &
 * Smyth 2010). Comparisons use a relative tolerance of 1e-12 so float noise does not flip ties.
 * @param opts `iterations` (default 10,000), `seed` (default "medsynth").
 * @throws RangeError when lengths differ or a difference is not finite.
 * @see Smucker, Allan & Carterette (2007) A comparison of statistical significance tests for IR evaluation.
 */
export function pairedRandomizationTest(x: readonly number[], y: readonly number[], opts: { iterations?: number; seed?: string } = {}): RandomizationTest {
  const d = differences(x, y, "pairedRandomizationTest");
  const n = d.length;
  const iterations = opts.iterations ?? 10_000;
  if (n === 0) return { status: "too-few", meanDiff: Number.NaN, p: Number.NaN, method: "exact", permutations: 0, n };
  const obs = Math.abs(d.reduce((a, b) => a + b, 0));
  const tol =
    1e-12 *
    Math.max(
      obs,
      d.reduce((a, b) => a + Math.abs(b), 0),
    );
  const meanDiff = mean(d);
  if (d.every((v) => v === 0)) return { status: "constant-differences", meanDiff: 0, p: 1, method: "exact", permutations: 1, n };
  if (n <= 30 && 2 ** n <= iterations) {
    let hits = 0;
    const total = 2 ** n;
    for (let mask = 0; mask < total; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? -d[i] : d[i];
      if (Math.abs(s) >= obs - tol) hits++;
    }
    return { status: "ok", meanDiff, p: hits / total, method: "exact", permutations: total, n };
  }
  const rng = seedrandom(opts.seed ?? "medsynth");
  let hits = 0;
  for (let b = 0; b < iterations; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += rng() < 0.5 ? -d[i] : d[i];
    if (Math.abs(s) >= obs - tol) hits++;
  }
  return { status: "ok", meanDiff, p: (hits + 1) / (iterations + 1), method: "sampled", permutations: iterations, n };
}
