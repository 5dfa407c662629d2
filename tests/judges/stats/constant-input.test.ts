/**
 * Correlations of a series with zero variance are undefined: scipy 1.17 `pearsonr`, `spearmanr`
 * and `kendalltau` return (nan, nan) (pearsonr/spearmanr with a ConstantInputWarning). A judge
 * that always gives 4 on 0–5 is rescaled to 0.8 for every item; the mean of n copies of 0.8 is
 * not exactly 0.8 in floating point, which used to yield r = 0 or ±7.9e−17 with "p = 1".
 */
import { describe, expect, it } from "vitest";
import { isConstant, kendallTauB, pearson, spearman } from "../../../judges/stats/index.ts";

const human = (n: number) => Array.from({ length: n }, (_, i) => (i * 7) % 5);

describe("correlations of constant input are NaN (r and p), as scipy", () => {
  for (const c of [0.8, 0.1, 0.7, 4, 1 / 3]) {
    for (const n of [5, 10, 12, 30]) {
      it(`constant ${c} × ${n} vs varying human scores`, () => {
        const x = Array<number>(n).fill(c);
        const y = human(n);
        for (const r of [pearson(x, y), pearson(y, x), spearman(x, y), spearman(y, x)]) {
          expect(r.estimate).toBeNaN();
          expect(r.p).toBeNaN();
          expect(r.n).toBe(n);
        }
        for (const k of [kendallTauB(x, y), kendallTauB(y, x)]) {
          expect(k.estimate).toBeNaN();
          expect(k.p).toBeNaN();
          expect(k.pAsymptotic).toBeNaN();
        }
      });
    }
  }

  it("both series constant → NaN; the check is exact equality, a near-constant series still correlates", () => {
    expect(pearson([2, 2, 2], [1, 1, 1]).estimate).toBeNaN();
    expect(isConstant([0.8, 0.8, 0.8])).toBe(true);
    expect(isConstant([0.8, 0.8, 0.8 + 1e-12])).toBe(false);
    expect(isConstant([])).toBe(true);
    // x = 0, 0, 1e−9 vs y = 1, 2, 3: r = (1e−9·1)/√(6.67e−19·2)… = √3/2 exactly by scale invariance.
    expect(pearson([0, 0, 1e-9], [1, 2, 3]).estimate).toBeCloseTo(Math.sqrt(3) / 2, 9);
    expect(spearman([0, 0, 1e-9], [1, 2, 3]).estimate).toBeCloseTo(Math.sqrt(3) / 2, 12);
  });
});
