/**
 * Paired-difference statistics shared by `retrieval eval|score` and the sweep. References
 * (scipy 1.17.1): `scipy.stats.ttest_rel(x, y)`; exact paired randomisation p from
 * `scipy.stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
 * permutation_type="samples", n_resamples=np.inf, alternative="two-sided")`. Holm by hand.
 */
import { describe, expect, it } from "vitest";
import { holmAdjustPairedDiffs, pairedDiffStats } from "../../../judges/stats/index.ts";

const X = [0.8, 0.6, 0.9, 0.5, 0.7, 1.0];
const Y = [0.5, 0.6, 0.4, 0.6, 0.3, 0.5];

describe("pairedDiffStats", () => {
  it("6 pairs: scipy's ttest_rel t and p, the exact randomisation p (8 of 64 sign patterns)", () => {
    const s = pairedDiffStats(X, Y);
    expect(s.n).toBe(6);
    expect(s.meanDiff).toBeCloseTo(0.26666666666666666, 12);
    expect(s.t).toBeCloseTo(2.5298221281347035, 10);
    expect(s.pT).toBeCloseTo(0.052541363316286796, 10);
    expect(s.pRandomization).toBeCloseTo(0.125, 12);
    expect(s.status).toBe("ok");
    expect(Object.keys(s)).toEqual(["n", "meanDiff", "t", "pT", "pRandomization", "status"]);
  });

  it("4 pairs with a negative mean difference", () => {
    const s = pairedDiffStats([0.2, 0.4, 0.1, 0.3], [0.1, 0.5, 0.3, 0.3]);
    expect(s.meanDiff).toBeCloseTo(-0.05, 12);
    expect(s.t).toBeCloseTo(-0.7745966692414833, 10);
    expect(s.pT).toBeCloseTo(0.4950253460597112, 10);
    expect(s.pRandomization).toBeCloseTo(0.75, 12);
  });

  it("equal differences: t undefined (NaN, constant-differences); one pair: too-few, no t", () => {
    const c = pairedDiffStats([1, 2, 3], [0, 1, 2]);
    expect(c).toMatchObject({ n: 3, meanDiff: 1, t: Number.NaN, pT: Number.NaN, status: "constant-differences" });
    expect(c.pRandomization).toBeCloseTo(2 / 8, 12); // only all-plus and all-minus reach |sum| 3
    expect(pairedDiffStats([0.5], [0])).toEqual({ n: 1, meanDiff: 0.5, t: Number.NaN, pT: Number.NaN, pRandomization: 1, status: "too-few" });
    expect(pairedDiffStats([], [])).toEqual({ n: 0, meanDiff: Number.NaN, t: Number.NaN, pT: Number.NaN, pRandomization: Number.NaN, status: "too-few" });
  });

  it("refuses pairs of different lengths", () => {
    expect(() => pairedDiffStats([1, 2, 3], [1, 2])).toThrow(RangeError);
  });
});

describe("holmAdjustPairedDiffs", () => {
  it("adjusts each p family over the table, leaving NaN p out of the count", () => {
    const rows = [
      { pT: 0.052541363316286796, pRandomization: 0.125, pTHolm: Number.NaN, pRandomizationHolm: Number.NaN },
      { pT: 0.4950253460597112, pRandomization: 0.75, pTHolm: Number.NaN, pRandomizationHolm: Number.NaN },
      { pT: Number.NaN, pRandomization: 1, pTHolm: Number.NaN, pRandomizationHolm: Number.NaN },
    ];
    holmAdjustPairedDiffs(rows);
    // t family (2 finite p): 2 × 0.0525 = 0.1051, then max(0.1051, 1 × 0.4950)
    expect(rows.map((r) => r.pTHolm)).toEqual([expect.closeTo(0.10508272663257359, 12), expect.closeTo(0.4950253460597112, 12), Number.NaN]);
    // randomisation family (3 p): 3 × 0.125 = 0.375, min(1, 2 × 0.75) = 1, 1
    expect(rows.map((r) => r.pRandomizationHolm)).toEqual([expect.closeTo(0.375, 12), 1, 1]);
  });
});
