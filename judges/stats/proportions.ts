/**
 * Confidence intervals for proportions and for means of clustered observations.
 *
 * @see Wilson E.B. (1927) Probable inference, the law of succession, and statistical inference;
 *   statsmodels `proportion_confint(count, nobs, method="wilson")`. Clustered SE: Inspect's
 *   `stderr(cluster=...)` (the CR1 sandwich estimator with the G/(G−1) small-sample factor;
 *   Cameron & Miller 2015, "A practitioner's guide to cluster-robust inference").
 */
import { normalPpf, studentTPpf } from "./distributions.ts";
import type { StatStatus } from "./status.ts";

/** A Wilson score interval for a binomial proportion. */
export interface WilsonInterval {
  /** `ok`, or `empty` (n = 0: everything NaN). */
  status: StatStatus;
  /** successes / n. */
  estimate: number;
  lower: number;
  upper: number;
  successes: number;
  n: number;
  level: number;
}

/**
 * Wilson score interval: (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z = Φ⁻¹((1+level)/2).
 * Always inside [0, 1] (unlike mean ± t·SE of 0/1 values, e.g. 1 of 3 → 0.333 ± 1.434), and
 * sensible at p̂ = 0 or 1.
 * @param successes count in [0, n]; @param n trials (n = 0 → status `empty`).
 * @throws RangeError when counts are not integers with 0 ≤ successes ≤ n, or level ∉ (0, 1).
 */
export function wilsonInterval(successes: number, n: number, level = 0.95): WilsonInterval {
  if (!(Number.isInteger(successes) && Number.isInteger(n) && successes >= 0 && successes <= n)) throw new RangeError(`wilsonInterval: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`wilsonInterval: level must be in (0,1), got ${level}`);
  if (n === 0) return { status: "empty", estimate: Number.NaN, lower: Number.NaN, upper: Number.NaN, successes, n, level };
  const z = normalPpf((1 + level) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const center = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { status: "ok", estimate: p, lower: Math.max(0, center - half), upper: Math.min(1, center + half), successes, n, level };
}

/** True when every value is exactly 0 or 1 (a binary metric such as answer accuracy or a jury verdict). */
export function isBinary(values: readonly number[]): boolean {
  return values.length > 0 && values.every((v) => v === 0 || v === 1);
}

/** Mean with a cluster-robust standard error. */
export interface ClusteredMean {
  /** `ok`, or `too-few` (fewer than 2 clusters: SE and CI NaN). */
  status: StatStatus;
  mean: number;
  /** Cluster-robust SE of the mean. */
  se: number;
  /** Observations. */
  n: number;
  /** Clusters (e.g. items, when each item was run several times). */
  clusters: number;
  /** mean ± t_{(1+level)/2, G−1}·SE. */
  ci: [number, number];
  level: number;
}

/**
 * Mean of `values` with the standard error clustered by `clusterIds` (observations of one cluster,
 * e.g. repeats of one item, are not independent): SE² = G/(G−1) · Σ_g (Σ_{i∈g} (x_i − x̄))² / n²,
 * with G clusters and n observations — Inspect's clustered `stderr`. With one observation per
 * cluster it equals the usual SD/√n. The CI uses Student t with G − 1 degrees of freedom.
 * @throws RangeError when lengths differ, there is no value, or a value is not finite.
 */
export function clusteredMean(values: readonly number[], clusterIds: readonly (string | number)[], level = 0.95): ClusteredMean {
  const n = values.length;
  if (n !== clusterIds.length) throw new RangeError(`clusteredMean: ${n} values but ${clusterIds.length} cluster ids`);
  if (n === 0) throw new RangeError("clusteredMean: no values");
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new RangeError(`clusteredMean: value at index ${i} is not finite (${v})`);
  });
  const m = values.reduce((a, b) => a + b, 0) / n;
  const sums = new Map<string, number>();
  values.forEach((v, i) => {
    const g = String(clusterIds[i]);
    sums.set(g, (sums.get(g) ?? 0) + (v - m));
  });
  const G = sums.size;
  if (G < 2) return { status: "too-few", mean: m, se: Number.NaN, n, clusters: G, ci: [Number.NaN, Number.NaN], level };
  let ss = 0;
  for (const s of sums.values()) ss += s * s;
  const se = Math.sqrt(((G / (G - 1)) * ss) / (n * n));
  const t = studentTPpf((1 + level) / 2, G - 1);
  return { status: "ok", mean: m, se, n, clusters: G, ci: [m - t * se, m + t * se], level };
}
