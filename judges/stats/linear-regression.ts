/**
 * Simple ordinary least squares y = a + b·x with the slope's standard error and two-sided
 * p-value (t with n − 2 df), as scipy.stats.linregress.
 */
import { studentTTwoSided } from "./distributions.ts";
import type { StatStatus } from "./status.ts";
import { isConstant } from "./correlation.ts";

/** OLS fit of y on x. Numbers are NaN when the status is not `ok`. */
export interface LinearRegressionResult {
  status: StatStatus;
  n: number;
  slope: number;
  intercept: number;
  /** Standard error of the slope: √(SSE/(n−2) / Sxx). */
  slopeSe: number;
  /** Two-sided p of H0 slope = 0 (t = slope/SE, n − 2 df). */
  p: number;
  /** Pearson r of x and y (r² = share of variance explained). */
  r: number;
}

/**
 * Fit y = intercept + slope·x by least squares. A constant x (slope undefined) gives status
 * `constant-input` and NaN; n < 3 gives `too-few` (no residual df). A perfect fit has SE 0 and p 0.
 * @throws RangeError when lengths differ or a value is not finite.
 * @see scipy.stats.linregress (slope, intercept, rvalue, pvalue, stderr).
 */
export function linearRegression(x: readonly number[], y: readonly number[]): LinearRegressionResult {
  if (x.length !== y.length) throw new RangeError(`linearRegression: x and y differ in length (${x.length} vs ${y.length})`);
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) throw new RangeError(`linearRegression: non-finite value at index ${i}`);
  const n = x.length;
  const nan = (status: StatStatus): LinearRegressionResult => ({ status, n, slope: NaN, intercept: NaN, slopeSe: NaN, p: NaN, r: NaN });
  if (n < 3) return nan("too-few");
  if (isConstant(x)) return nan("constant-input");
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i] - mx) ** 2;
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) ** 2;
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const sse = Math.max(0, syy - slope * sxy);
  const slopeSe = Math.sqrt(sse / (n - 2) / sxx);
  const r = syy === 0 ? NaN : Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  const p = slopeSe === 0 ? (slope === 0 ? NaN : 0) : studentTTwoSided(slope / slopeSe, n - 2);
  return { status: "ok", n, slope, intercept, slopeSe, p, r };
}
