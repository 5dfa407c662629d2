/**
 * Correlation coefficients with two-sided p-values: Pearson r, Spearman ρ, Kendall τ-b.
 *
 * @see scipy.stats.pearsonr, spearmanr, kendalltau (scipy 1.17; reference values in
 *   tests/fixtures/parity/stats_cases.json).
 */
import { normalSf, studentTTwoSided } from "./distributions.ts";
import { rankAverage } from "./ranks.ts";

/** A correlation estimate with its two-sided p-value. */
export interface CorrelationResult {
  /** Coefficient in [−1, 1]; NaN when a series is constant. */
  estimate: number;
  /** Two-sided p-value; NaN when undefined (constant input). */
  p: number;
  n: number;
}

/** Kendall τ-b result: also which p-value method was used. */
export interface KendallResult extends CorrelationResult {
  /** "exact" (no ties, n ≤ 33 or nearly perfect order) or "asymptotic" (scipy's `method="auto"`). */
  method: "exact" | "asymptotic";
  /** Normal-approximation p-value (always computed). */
  pAsymptotic: number;
}

function checkPaired(x: readonly number[], y: readonly number[], fn: string, min: number): void {
  if (x.length !== y.length) throw new RangeError(`${fn}: x and y differ in length (${x.length} vs ${y.length})`);
  if (x.length < min) throw new RangeError(`${fn}: need at least ${min} pairs, got ${x.length}`);
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) throw new RangeError(`${fn}: non-finite value at index ${i}`);
  }
}

/**
 * True when every value equals the first (exact equality, as scipy's constant-input check
 * `(x == x[0]).all()`). Such a series has zero variance, so r, ρ and τ are undefined; testing the
 * computed sum of squares instead is not enough — the mean of n copies of 0.8 is not exactly 0.8
 * in floating point, which left a sum of squares of ~1e−32 and an r of −4.8e−16 "p = 1".
 */
export function isConstant(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return false;
  return true;
}

/** Result for an input with a constant series: estimate and p undefined (NaN), as scipy. */
function undefinedResult(n: number): CorrelationResult {
  return { estimate: Number.NaN, p: Number.NaN, n };
}

function pearsonR(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  if (isConstant(x) || isConstant(y)) return Number.NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  if (sxx === 0 || syy === 0) return Number.NaN;
  const r = sxy / Math.sqrt(sxx) / Math.sqrt(syy);
  return Math.max(-1, Math.min(1, r));
}

function tTestOfR(r: number, n: number): number {
  if (Number.isNaN(r)) return Number.NaN;
  if (Math.abs(r) === 1) return 0;
  const df = n - 2;
  const t = r * Math.sqrt(df / ((1 - r) * (1 + r)));
  return studentTTwoSided(t, df);
}

/**
 * Pearson product-moment correlation; p from the t distribution with n − 2 df (equivalent to
 * scipy's exact beta distribution of r under bivariate normality).
 * A constant x or y (zero variance, see {@link isConstant}) gives estimate NaN and p NaN, as
 * scipy's `pearsonr` (with its ConstantInputWarning) — never a number.
 * @throws RangeError when lengths differ, n < 3, or a value is not finite.
 */
export function pearson(x: readonly number[], y: readonly number[]): CorrelationResult {
  checkPaired(x, y, "pearson", 3);
  if (isConstant(x) || isConstant(y)) return undefinedResult(x.length);
  const r = pearsonR(x, y);
  return { estimate: r, p: tTestOfR(r, x.length), n: x.length };
}

/**
 * Spearman rank correlation ρ = Pearson r of average ranks; p from t = ρ·√((n−2)/((1−ρ)(1+ρ)))
 * with n − 2 df (scipy `spearmanr` default). A constant x or y gives estimate NaN and p NaN.
 * @throws RangeError when lengths differ, n < 3, or a value is not finite.
 */
export function spearman(x: readonly number[], y: readonly number[]): CorrelationResult {
  checkPaired(x, y, "spearman", 3);
  if (isConstant(x) || isConstant(y)) return undefinedResult(x.length);
  const rho = pearsonR(rankAverage(x).ranks, rankAverage(y).ranks);
  return { estimate: rho, p: tTestOfR(rho, x.length), n: x.length };
}

/** Two-sided exact p-value of Kendall's statistic with `c` discordant pairs (no ties). */
export function kendallExactP(n: number, c: number): number {
  const total = (n * (n - 1)) / 2;
  c = Math.min(c, total - c);
  const fact = (k: number): number => {
    let f = 1;
    for (let i = 2; i <= k; i++) f *= i;
    return f;
  };
  if (n <= 2) return 1;
  if (c === 0) return 2 / fact(n);
  if (c === 1) return 2 / fact(n - 1);
  if (4 * c === n * (n - 1)) return 1;
  // Number of permutations of n with ≤ c inversions (Mahonian numbers), as in scipy's _kendall_p_exact.
  let arr = new Float64Array(c + 1);
  arr[0] = 1;
  arr[1] = 1;
  for (let j = 3; j <= n; j++) {
    const cum = new Float64Array(c + 1);
    let s = 0;
    for (let k = 0; k <= c; k++) {
      s += arr[k];
      cum[k] = s;
    }
    if (j <= c) {
      const prev = cum.slice(0, c + 1 - j);
      for (let k = j; k <= c; k++) cum[k] -= prev[k - j];
    }
    arr = cum;
  }
  let sum = 0;
  for (let k = 0; k <= c; k++) sum += arr[k];
  return Math.min(1, Math.max(0, (2 * sum) / fact(n)));
}

function tieStats(values: readonly number[]): { pairs: number; v0: number; v1: number; hasTies: boolean } {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let pairs = 0;
  let v0 = 0;
  let v1 = 0;
  for (const c of counts.values()) {
    if (c > 1) {
      pairs += (c * (c - 1)) / 2;
      v0 += c * (c - 1) * (c - 2);
      v1 += c * (c - 1) * (2 * c + 5);
    }
  }
  return { pairs, v0, v1, hasTies: pairs > 0 };
}

/**
 * Kendall's τ-b with scipy's `method="auto"`: exact null distribution when neither series has
 * ties and (n ≤ 33 or min(discordant, total − discordant) ≤ 1), else the normal approximation
 * with the tie-corrected variance. O(n²) pair counting. A constant x or y (all pairs tied)
 * gives estimate, p and pAsymptotic NaN (scipy `kendalltau` returns nan, nan), method "asymptotic".
 * @throws RangeError when lengths differ, n < 2, or a value is not finite.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): KendallResult {
  checkPaired(x, y, "kendallTauB", 2);
  const n = x.length;
  if (isConstant(x) || isConstant(y)) return { estimate: Number.NaN, p: Number.NaN, n, method: "asymptotic", pAsymptotic: Number.NaN };
  let dis = 0;
  let tiedBoth = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = x[i] - x[j];
      const dy = y[i] - y[j];
      if (dx === 0 && dy === 0) tiedBoth++;
      else if (dx * dy < 0) dis++;
    }
  }
  const tot = (n * (n - 1)) / 2;
  const tx = tieStats(x);
  const ty = tieStats(y);
  const conMinusDis = tot - tx.pairs - ty.pairs + tiedBoth - 2 * dis;
  const tau = Math.max(-1, Math.min(1, conMinusDis / Math.sqrt(tot - tx.pairs) / Math.sqrt(tot - ty.pairs)));
  const m = n * (n - 1);
  const variance = (m * (2 * n + 5) - tx.v1 - ty.v1) / 18 + (2 * tx.pairs * ty.pairs) / m + (tx.v0 * ty.v0) / (9 * m * (n - 2));
  const z = conMinusDis / Math.sqrt(variance);
  const pAsymptotic = Math.min(1, 2 * normalSf(Math.abs(z)));
  const exact = !tx.hasTies && !ty.hasTies && (n <= 33 || Math.min(dis, tot - dis) <= 1);
  return { estimate: tau, p: exact ? kendallExactP(n, dis) : pAsymptotic, n, method: exact ? "exact" : "asymptotic", pAsymptotic };
}
