/**
 * Descriptive statistics: mean, sample SD (ddof = 1), standard error and the t-based confidence
 * interval of the mean.
 *
 * @see numpy.mean / numpy.std(ddof=1); scipy.stats.t.ppf — reference values in
 *   tests/fixtures/parity/stats_cases.json ("descriptives").
 */
import { studentTPpf } from "./distributions.ts";

function assertFinite(values: readonly number[], fn: string): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new RangeError(`${fn}: value at index ${i} is not a finite number (${values[i]})`);
  }
}

/**
 * Arithmetic mean.
 * @throws RangeError on an empty array or a non-finite value.
 */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("mean: empty array");
  assertFinite(values, "mean");
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * Sample variance with `ddof` delta degrees of freedom (default 1, i.e. divisor n − 1).
 * @throws RangeError when n − ddof ≤ 0.
 */
export function variance(values: readonly number[], ddof = 1): number {
  const n = values.length;
  if (n - ddof <= 0) throw new RangeError(`variance: need more than ${ddof} value(s), got ${n}`);
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return ss / (n - ddof);
}

/** Sample standard deviation, ddof = 1 (numpy `std(ddof=1)`). @throws RangeError when n < 2. */
export function sd(values: readonly number[]): number {
  return Math.sqrt(variance(values, 1));
}

/** Standard error of the mean: SD(ddof 1) / √n. @throws RangeError when n < 2. */
export function standardError(values: readonly number[]): number {
  return sd(values) / Math.sqrt(values.length);
}

/** Summary of one sample with its t-based confidence interval of the mean. */
export interface Descriptives {
  /** Number of values. */
  n: number;
  mean: number;
  /** Sample SD, ddof = 1. */
  sd: number;
  /** SD / √n. */
  se: number;
  /** t quantile t_{1−α/2, n−1}. */
  tCrit: number;
  /** Confidence level used, e.g. 0.95. */
  level: number;
  /** [mean − tCrit·se, mean + tCrit·se]. */
  ci: [number, number];
}

/**
 * Mean, SD, SE and the t-based confidence interval mean ± t_{(1+level)/2, n−1}·SD/√n.
 * @param level confidence level in (0, 1), default 0.95.
 * @throws RangeError when n < 2 or level is outside (0, 1).
 */
export function describe(values: readonly number[], level = 0.95): Descriptives {
  if (!(level > 0 && level < 1)) throw new RangeError(`describe: level must be in (0,1), got ${level}`);
  const n = values.length;
  const m = mean(values);
  const s = sd(values);
  const se = s / Math.sqrt(n);
  const tCrit = studentTPpf((1 + level) / 2, n - 1);
  return { n, mean: m, sd: s, se, tCrit, level, ci: [m - tCrit * se, m + tCrit * se] };
}
