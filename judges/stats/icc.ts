/**
 * Intraclass correlation for a targets × raters table (two-way ANOVA).
 *
 * @see Shrout P.E., Fleiss J.L. (1979) Intraclass correlations: uses in assessing rater
 *   reliability. Psychological Bulletin 86(2):420–428, Table 1 (mean squares) and the ICC(2,1),
 *   ICC(2,k), ICC(3,1), ICC(3,k) formulas.
 */
import { fSf } from "./distributions.ts";
import type { StatStatus } from "./status.ts";

/** ICC estimates and the ANOVA they come from. */
export interface IccResult {
  /** `ok`, or `no-variation` (residual mean square 0: F and p undefined, NaN). */
  status: StatStatus;
  /** ICC(2,1): two-way random effects, absolute agreement, single rater. */
  icc21: number;
  /** ICC(2,k): two-way random effects, absolute agreement, mean of k raters. */
  icc2k: number;
  /** ICC(3,1): two-way mixed, consistency, single rater. */
  icc31: number;
  /** ICC(3,k): two-way mixed, consistency, mean of k raters. */
  icc3k: number;
  /** Targets used (rows without a missing value). */
  n: number;
  /** Raters (columns). */
  k: number;
  /** Targets dropped because a rating was missing. */
  droppedTargets: number;
  /** Between-targets, between-judges and residual mean squares. */
  bms: number;
  jms: number;
  ems: number;
  /** F = BMS/EMS and its p-value with (n−1, (n−1)(k−1)) df (H0: no target variance). */
  f: number;
  p: number;
}

/**
 * ICC(2,1), ICC(2,k) (and the ICC(3,·) consistency forms) by Shrout & Fleiss.
 * @param ratings targets × raters: `ratings[i][j]` = rater j's score of target i; a target with a
 *   missing value (null/undefined/NaN) is dropped and counted.
 * @throws RangeError on ragged rows, k < 2 or fewer than 2 complete targets.
 */
export function icc(ratings: ReadonlyArray<ReadonlyArray<number | null | undefined>>): IccResult {
  if (ratings.length === 0) throw new RangeError("icc: no targets");
  const k = ratings[0].length;
  if (k < 2) throw new RangeError(`icc: need at least 2 raters, got ${k}`);
  const rows: number[][] = [];
  let dropped = 0;
  ratings.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`icc: target ${i} has ${row.length} ratings, expected ${k}`);
    if (row.some((v) => v === null || v === undefined || Number.isNaN(v))) dropped++;
    else rows.push(row as number[]);
  });
  const n = rows.length;
  if (n < 2) throw new RangeError(`icc: need at least 2 complete targets, got ${n}`);
  let grand = 0;
  for (const r of rows) for (const v of r) grand += v;
  grand /= n * k;
  const rowMeans = rows.map((r) => r.reduce((a, b) => a + b, 0) / k);
  const colMeans = Array.from({ length: k }, (_, j) => rows.reduce((a, r) => a + r[j], 0) / n);
  let ssTotal = 0;
  for (const r of rows) for (const v of r) ssTotal += (v - grand) ** 2;
  const ssRows = k * rowMeans.reduce((a, m) => a + (m - grand) ** 2, 0);
  const ssCols = n * colMeans.reduce((a, m) => a + (m - grand) ** 2, 0);
  const ssErr = ssTotal - ssRows - ssCols;
  const bms = ssRows / (n - 1);
  const jms = ssCols / (k - 1);
  const ems = ssErr / ((n - 1) * (k - 1));
  const icc21 = (bms - ems) / (bms + (k - 1) * ems + (k * (jms - ems)) / n);
  const icc2k = (bms - ems) / (bms + (jms - ems) / n);
  const icc31 = (bms - ems) / (bms + (k - 1) * ems);
  const icc3k = (bms - ems) / bms;
  if (!(ems > 0)) return { status: "no-variation", icc21, icc2k, icc31, icc3k, n, k, droppedTargets: dropped, bms, jms, ems, f: Number.NaN, p: Number.NaN };
  const f = bms / ems;
  return { status: "ok", icc21, icc2k, icc31, icc3k, n, k, droppedTargets: dropped, bms, jms, ems, f, p: fSf(f, n - 1, (n - 1) * (k - 1)) };
}
