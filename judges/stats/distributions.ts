/**
 * Probability distributions used by the statistics: normal, Student t, chi-square and F.
 *
 * The distributions come from jStat 1.9.6 (`jstat`). One precision gap is closed here: jStat's
 * regularised incomplete beta (`jStat.ibeta` → `jStat.betacf`) stops its continued fraction at a
 * relative change of 3e-7 (the Numerical Recipes EPS), so its Student-t p-values differ from
 * scipy's by up to ~1e-8 at df ≈ 200 and its t quantiles by ~5e-8. We evaluate the same
 * continued fraction (modified Lentz) to machine precision, with jStat's `gammaln` for the
 * prefactor, and refine jStat's t quantile with Newton steps on that cdf. Normal and chi-square
 * functions are jStat's own (accurate to ~1e-15 on the parity cases).
 *
 * @see scipy.stats.t / scipy.special.betainc (reference values in tests/fixtures/parity/stats_cases.json)
 */
import { createRequire } from "node:module";

interface JStatLike {
  gammaln(x: number): number;
  normal: { cdf(x: number, mean: number, sd: number): number; inv(p: number, mean: number, sd: number): number };
  studentt: { inv(p: number, dof: number): number; pdf(x: number, dof: number): number };
  chisquare: { cdf(x: number, dof: number): number };
}

const require = createRequire(import.meta.url);
const { jStat } = require("jstat") as { jStat: JStatLike };

/** Continued fraction for the incomplete beta (modified Lentz), to relative 1e-16. */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const FPMIN = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < FPMIN) d = FPMIN;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 100_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return h;
}

/**
 * Regularised incomplete beta I_x(a, b), accurate to ~1e-14 relative.
 * @param x in [0, 1]; a, b > 0.
 * @throws RangeError when x is outside [0, 1] or a, b are not positive.
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`regularizedIncompleteBeta: x must be in [0,1], got ${x}`);
  if (!(a > 0 && b > 0)) throw new RangeError(`regularizedIncompleteBeta: a and b must be > 0, got a=${a}, b=${b}`);
  if (x === 0) return 0;
  if (x === 1) return 1;
  const lbt = jStat.gammaln(a + b) - jStat.gammaln(a) - jStat.gammaln(b) + a * Math.log(x) + b * Math.log1p(-x);
  const bt = Math.exp(lbt);
  if (x < (a + 1) / (a + b + 2)) return (bt * betaContinuedFraction(x, a, b)) / a;
  return 1 - (bt * betaContinuedFraction(1 - x, b, a)) / b;
}

/** Standard normal (or N(mean, sd)) cumulative distribution function (jStat). */
export function normalCdf(x: number, mean = 0, sd = 1): number {
  return jStat.normal.cdf(x, mean, sd);
}

/** Standard normal survival function P(Z > z), computed as cdf(−z) for precision in the tail. */
export function normalSf(z: number): number {
  return jStat.normal.cdf(-z, 0, 1);
}

/** Standard normal quantile (jStat). @param p in (0, 1). */
export function normalPpf(p: number): number {
  return jStat.normal.inv(p, 0, 1);
}

/**
 * Student-t survival function P(T > t) with `df` degrees of freedom (df > 0, may be fractional).
 * Uses I_{df/(df+t²)}(df/2, 1/2)/2 for t ≥ 0, so tail probabilities keep full relative precision.
 */
export function studentTSf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`studentTSf: df must be > 0, got ${df}`);
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Infinity) return 0;
  if (t === -Infinity) return 1;
  const x = df / (df + t * t);
  const tail = 0.5 * regularizedIncompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

/** Student-t cumulative distribution function P(T ≤ t). */
export function studentTCdf(t: number, df: number): number {
  return studentTSf(-t, df);
}

/**
 * Student-t quantile: jStat's `studentt.inv` refined by Newton steps on {@link studentTCdf}
 * (typically 1–2 steps) to ~1e-13.
 * @param p probability in (0, 1); df > 0.
 */
export function studentTPpf(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTPpf: p must be in (0,1), got ${p}`);
  let x = jStat.studentt.inv(p, df);
  for (let i = 0; i < 20; i++) {
    const f = studentTCdf(x, df) - p;
    const step = f / jStat.studentt.pdf(x, df);
    x -= step;
    if (Math.abs(step) <= 1e-15 * Math.max(1, Math.abs(x))) break;
  }
  return x;
}

/** Two-sided Student-t p-value 2·P(T > |t|). */
export function studentTTwoSided(t: number, df: number): number {
  return Math.min(1, 2 * studentTSf(Math.abs(t), df));
}

/** Chi-square survival function P(X > x) with `df` degrees of freedom (jStat). */
export function chiSquareSf(x: number, df: number): number {
  return 1 - jStat.chisquare.cdf(x, df);
}

/**
 * F-distribution survival function P(F > f) with (df1, df2) degrees of freedom, via the
 * incomplete beta: I_{df2/(df2+df1·f)}(df2/2, df1/2).
 */
export function fSf(f: number, df1: number, df2: number): number {
  if (!(df1 > 0 && df2 > 0)) throw new RangeError(`fSf: df1 and df2 must be > 0, got ${df1}, ${df2}`);
  if (!(f > 0)) return 1;
  return regularizedIncompleteBeta(df2 / (df2 + df1 * f), df2 / 2, df1 / 2);
}
