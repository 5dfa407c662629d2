/**
 * Multiple-testing correction.
 *
 * @see Holm S. (1979) A simple sequentially rejective multiple test procedure; statsmodels
 *   `multipletests(method="holm")`. Reference example in tests/fixtures/parity/stats_cases.json ("holm").
 */

/**
 * Holm step-down adjusted p-values, returned in the input order. Sort ascending (stable),
 * adj_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)).
 * @param pValues raw p-values in [0, 1].
 * @throws RangeError when a p-value is outside [0, 1] or not a number.
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  pValues.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holm: p-value at index ${i} must be in [0,1], got ${p}`);
  });
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    const adj = Math.min(1, (m - rank) * p);
    running = Math.max(running, adj);
    out[i] = running;
  });
  return out;
}
