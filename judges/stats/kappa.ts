/**
 * Cohen's kappa for two raters' categorical labels.
 */
import type { StatStatus } from "./status.ts";

/** Cohen's κ of two raters over nominal categories. */
export interface KappaResult {
  /** `ok`, `empty` (no pair with both labels) or `no-variation` (chance agreement 1: κ undefined). */
  status: StatStatus;
  /** Pairs where both labels are present. */
  n: number;
  /** Pairs with a missing label (left out). */
  excluded: number;
  /** Observed agreement p_o. */
  observed: number | null;
  /** Chance agreement p_e = Σ_k p_A(k)·p_B(k). */
  expected: number | null;
  /** κ = (p_o − p_e) / (1 − p_e); null when n = 0 or p_e = 1 (both raters constant on one label). */
  kappa: number | null;
  /** Categories in sorted order. */
  categories: string[];
  /** a-label → b-label → count. */
  confusion: Record<string, Record<string, number>>;
}

/**
 * Cohen's (unweighted) kappa between two label sequences of equal length; a null label on
 * either side leaves the pair out (counted in `excluded`).
 * @throws RangeError when the lengths differ
 * @see Cohen J. (1960) A coefficient of agreement for nominal scales; sklearn `cohen_kappa_score`.
 */
export function cohenKappa(a: readonly (string | null)[], b: readonly (string | null)[]): KappaResult {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: label lists differ in length (${a.length} vs ${b.length})`);
  const confusion: Record<string, Record<string, number>> = {};
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  let n = 0;
  let agree = 0;
  let excluded = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || y === null) {
      excluded++;
      continue;
    }
    n++;
    if (x === y) agree++;
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
    const row = (confusion[x] ??= {});
    row[y] = (row[y] ?? 0) + 1;
  }
  const categories = [...new Set([...ca.keys(), ...cb.keys()])].sort();
  if (n === 0) return { status: "empty", n, excluded, observed: null, expected: null, kappa: null, categories, confusion };
  const observed = agree / n;
  const expected = categories.reduce((s, k) => s + ((ca.get(k) ?? 0) / n) * ((cb.get(k) ?? 0) / n), 0);
  const kappa = expected >= 1 ? null : (observed - expected) / (1 - expected);
  return { status: kappa === null ? "no-variation" : "ok", n, excluded, observed, expected, kappa, categories, confusion };
}
