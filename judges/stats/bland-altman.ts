/**
 * Bland–Altman agreement between two paired measurement series.
 *
 * @see Bland J.M., Altman D.G. (1986) Statistical methods for assessing agreement between two
 *   methods of clinical measurement. Lancet 327:307–310. MedMeta (seed 001) validates its judge this way.
 */
import { mean, sd } from "./descriptive.ts";
import type { StatStatus } from "./status.ts";

/** Bland–Altman summary for d = x − y. */
export interface BlandAltman {
  /** `ok`, or `too-few` (n = 1: bias is the one difference; SD and limits NaN). */
  status: StatStatus;
  n: number;
  /** Mean difference mean(x − y). */
  bias: number;
  /** SD of the differences (ddof = 1). */
  sdDiff: number;
  /** bias − multiplier·sdDiff. */
  loaLower: number;
  /** bias + multiplier·sdDiff. */
  loaUpper: number;
  /** Limits-of-agreement multiplier (1.96 by default). */
  multiplier: number;
}

/**
 * Mean bias and 95 % limits of agreement (bias ± 1.96·SD of the differences), d = x − y.
 * With a single pair the SD is undefined: status `too-few`, bias = that difference, sdDiff and
 * the limits NaN (no exception).
 * @throws RangeError when lengths differ or there is no pair.
 */
export function blandAltman(x: readonly number[], y: readonly number[], multiplier = 1.96): BlandAltman {
  if (x.length !== y.length) throw new RangeError(`blandAltman: x and y differ in length (${x.length} vs ${y.length})`);
  const d = x.map((v, i) => v - y[i]);
  const bias = mean(d);
  if (d.length < 2) return { status: "too-few", n: d.length, bias, sdDiff: Number.NaN, loaLower: Number.NaN, loaUpper: Number.NaN, multiplier };
  const s = sd(d);
  return { status: "ok", n: d.length, bias, sdDiff: s, loaLower: bias - multiplier * s, loaUpper: bias + multiplier * s, multiplier };
}
