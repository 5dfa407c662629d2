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
  ratings.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`icc: target ${i} has ${row.length} ratings, expected ${k}`);
  });
  return iccOf(ratings.length, k, (i, j) => ratings[i][j]);
}

/**
 * {@link icc} of a raters × targets table kept column-wise: `columns[j][i]` = rater j's score of
 * target i (null/undefined/NaN = missing), e.g. one `Float64Array` per judge — no row array per
 * target (the report's panel diagnostics at 10⁶ units). Same numbers as `icc` of the transposed
 * table (every sum in the same order).
 * @throws RangeError on ragged columns, k < 2 or fewer than 2 complete targets.
 */
export function iccByRater(columns: ReadonlyArray<ArrayLike<number | null | undefined>>): IccResult {
  const k = columns.length;
  if (k < 2) throw new RangeError(`icc: need at least 2 raters, got ${k}`);
  const nTargets = columns[0].length;
  if (nTargets === 0) throw new RangeError("icc: no targets");
  columns.forEach((col, j) => {
    if (col.length !== nTargets) throw new RangeError(`icc: rater ${j} has ${col.length} ratings, expected ${nTargets}`);
  });
  return iccOf(nTargets, k, (i, j) => columns[j][i]);
}

/** ICC of `nTargets` × `k` ratings read through `at(target, rater)`. */
function iccOf(nTargets: number, k: number, at: (i: number, j: number) => number | null | undefined): IccResult {
  if (k < 2) throw new RangeError(`icc: need at least 2 raters, got ${k}`);
  // Complete targets in order (a target with a missing value is dropped and counted).
  const complete: number[] = [];
  let dropped = 0;
  for (let i = 0; i < nTargets; i++) {
    let ok = true;
    for (let j = 0; j < k; j++) {
      const v = at(i, j);
      if (v === null || v === undefined || Number.isNaN(v)) {
        ok = false;
        break;
      }
    }
    if (ok) complete.push(i);
    else dropped++;
  }
  const n = complete.length;
  if (n < 2) throw new RangeError(`icc: need at least 2 complete targets, got ${n}`);
  const v = (r: number, j: number) => at(complete[r], j) as number;
  let grand = 0;
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) grand += v(r, j);
  grand /= n * k;
  const rowMeans = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += v(r, j);
    rowMeans[r] = s / k;
  }
  const colMeans: number[] = [];
  for (let j = 0; j < k; j++) {
    let s = 0;
    for (let r = 0; r < n; r++) s += v(r, j);
    colMeans.push(s / n);
  }
  let ssTotal = 0;
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) ssTotal += (v(r, j) - grand) ** 2;
  let ssRowsSum = 0;
  for (let r = 0; r < n; r++) ssRowsSum += (rowMeans[r] - grand) ** 2;
  const ssRows = k * ssRowsSum;
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
