/**
 * Krippendorff's alpha for inter-rater reliability, any number of raters, missing values allowed.
 *
 * @see Krippendorff K. (2011) Computing Krippendorff's Alpha-Reliability (Annenberg School for
 *   Communication, Departmental Papers 43), sections "C. Nominal data, any number of observers,
 *   missing data" and "E. Interval metric".
 */
import type { StatStatus } from "./status.ts";

/** Difference functions δ² supported. */
export type KrippendorffLevel = "nominal" | "interval";

/** Alpha with the coincidence-matrix totals used to compute it. */
export interface KrippendorffAlpha {
  /** `ok`, or `no-variation` (expected disagreement 0: alpha NaN). */
  status: StatStatus;
  alpha: number;
  level: KrippendorffLevel;
  /** Pairable values n.. (values in units coded by ≥ 2 raters). */
  nPairable: number;
  /** Units with ≥ 2 values (the others are ignored). */
  unitsUsed: number;
  /** Observed disagreement D_o. */
  observedDisagreement: number;
  /** Expected disagreement D_e. */
  expectedDisagreement: number;
}

/**
 * Krippendorff's alpha = 1 − D_o / D_e from the coincidence matrix.
 * @param data reliability data as raters × units: `data[r][u]` is rater r's value for unit u, or
 *   `null`/`undefined`/NaN when missing. Rows may not differ in length.
 * @param level "nominal" (δ² = [c ≠ k]) or "interval" (δ² = (c − k)²).
 * @returns alpha (NaN when D_e = 0, i.e. all pairable values are equal).
 * @throws RangeError on ragged rows or fewer than 2 pairable values.
 */
export function krippendorffAlpha(data: ReadonlyArray<ArrayLike<number | null | undefined>>, level: KrippendorffLevel = "interval"): KrippendorffAlpha {
  if (data.length === 0) throw new RangeError("krippendorffAlpha: no raters");
  const nUnits = data[0].length;
  data.forEach((row, r) => {
    if (row.length !== nUnits) throw new RangeError(`krippendorffAlpha: rater ${r} has ${row.length} units, expected ${nUnits}`);
  });
  const delta = level === "nominal" ? (a: number, b: number) => (a === b ? 0 : 1) : (a: number, b: number) => (a - b) * (a - b);
  const valueIndex = new Map<number, number>();
  const values: number[] = [];
  // Coincidences by value index pair, accumulated unit by unit in unit order (no list of the
  // units' values is kept: 10⁶ units in the report's panel diagnostics); each cell receives its
  // 1/(m−1) terms in the same order as from a stored list, so the sums are the same.
  const pairs: number[][] = [];
  let unitsUsed = 0;
  const vals: number[] = [];
  const idx: number[] = [];
  for (let u = 0; u < nUnits; u++) {
    vals.length = 0;
    for (const row of data) {
      const v = row[u];
      if (v === null || v === undefined || Number.isNaN(v)) continue;
      vals.push(v);
      if (!valueIndex.has(v)) {
        valueIndex.set(v, values.length);
        values.push(v);
      }
    }
    const m = vals.length;
    if (m < 2) continue;
    unitsUsed++;
    for (let i = 0; i < m; i++) idx[i] = valueIndex.get(vals[i])!;
    for (let i = 0; i < m; i++) {
      const row = (pairs[idx[i]] ??= []);
      for (let j = 0; j < m; j++) {
        if (i === j) continue;
        row[idx[j]] = (row[idx[j]] ?? 0) + 1 / (m - 1);
      }
    }
  }
  const V = values.length;
  const o = new Float64Array(V * V);
  for (let c = 0; c < V; c++) for (let k = 0; k < V; k++) o[c * V + k] = pairs[c]?.[k] ?? 0;
  const nc = new Float64Array(V);
  let n = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) nc[c] += o[c * V + k];
    n += nc[c];
  }
  if (n < 2) throw new RangeError("krippendorffAlpha: fewer than 2 pairable values");
  let dO = 0;
  let dE = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      const d = delta(values[c], values[k]);
      dO += o[c * V + k] * d;
      dE += nc[c] * nc[k] * d;
    }
  }
  dO /= n;
  dE /= n * (n - 1);
  return { status: dE === 0 ? "no-variation" : "ok", alpha: dE === 0 ? Number.NaN : 1 - dO / dE, level, nPairable: n, unitsUsed, observedDisagreement: dO, expectedDisagreement: dE };
}
