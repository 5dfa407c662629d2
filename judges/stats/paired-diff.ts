/**
 * Paired-difference statistics of one system against a baseline on one metric (per-query
 * values): mean difference, paired t-test and paired randomisation test, plus the Holm adjustment
 * of a whole table of such comparisons. Shared by `retrieval eval|score` mode comparisons and the
 * retrieval sweep.
 *
 * @see scipy.stats.ttest_rel; scipy.stats.permutation_test (permutation_type="samples");
 *   Smucker, Allan & Carterette (2007); Holm (1979); ranx `compare`.
 */
import { holm } from "./multiple-testing.ts";
import { pairedRandomizationTest, pairedTTest } from "./paired-tests.ts";
import type { StatStatus } from "./status.ts";

/** Paired-difference statistics of x against y (see {@link pairedDiffStats}). */
export interface PairedDiffStats {
  /** Pairs compared. */
  n: number;
  /** mean(x − y); NaN with no pair. */
  meanDiff: number;
  /** Paired t; NaN with fewer than 2 pairs or when every difference is equal. */
  t: number;
  /** Two-sided p of the paired t-test; NaN where t is. */
  pT: number;
  /** Two-sided p of the randomisation (sign-flip) test; NaN with no pair, 1 when every difference is 0. */
  pRandomization: number;
  /** The t-test's status (`ok`, `constant-differences`), or `too-few` with fewer than 2 pairs. */
  status: StatStatus;
}

/**
 * Paired t-test ({@link pairedTTest}, only with ≥ 2 pairs) and paired randomisation test
 * ({@link pairedRandomizationTest}) of x against y, index by index.
 * @param x the system's per-query values; @param y the baseline's, same order and length.
 * @param opts `iterations` and `seed` of the randomisation test (defaults 10,000 and "medsynth").
 * @throws RangeError when lengths differ or a difference is not finite.
 */
export function pairedDiffStats(x: readonly number[], y: readonly number[], opts: { iterations?: number; seed?: string } = {}): PairedDiffStats {
  const t = x.length >= 2 ? pairedTTest(x, y) : null;
  const rnd = pairedRandomizationTest(x, y, opts);
  return { n: x.length, meanDiff: rnd.meanDiff, t: t?.t ?? Number.NaN, pT: t?.p ?? Number.NaN, pRandomization: rnd.p, status: t?.status ?? "too-few" };
}

/** A table row carrying both p families and their Holm-adjusted values. */
export interface HolmAdjustable {
  pT: number;
  pRandomization: number;
  pTHolm: number;
  pRandomizationHolm: number;
}

/**
 * Holm-adjust both p families of a table in place, each family separately over the whole table:
 * `pTHolm` from `pT`, `pRandomizationHolm` from `pRandomization`. Rows whose p is not finite
 * (e.g. t with constant differences) are left out of the adjustment and keep their adjusted value.
 * @throws RangeError when a finite p-value lies outside [0, 1] (see {@link holm}).
 */
export function holmAdjustPairedDiffs(rows: readonly HolmAdjustable[]): void {
  const adjust = (get: (c: HolmAdjustable) => number, set: (c: HolmAdjustable, v: number) => void) => {
    const testable = rows.filter((c) => Number.isFinite(get(c)));
    holm(testable.map(get)).forEach((v, i) => set(testable[i], v));
  };
  adjust(
    (c) => c.pT,
    (c, v) => (c.pTHolm = v),
  );
  adjust(
    (c) => c.pRandomization,
    (c, v) => (c.pRandomizationHolm = v),
  );
}
