/**
 * Degenerate paired tests (issue 12 item 11): scale invariance, constant differences, Wilcoxon
 * with all differences zero, Bland–Altman with one pair; every result carries a status.
 *
 * Reference: d = [1, 2, 3, 4, 6] has mean 3.2, SD √3.7, so t = 3.2/(√3.7/√5) = 3.7199244398022170
 * and d_z = 3.2/√3.7 = 1.6636007837121163; two-sided p with df 4 = 2.0475874420910685e-2
 * (scipy.stats.ttest_rel(d, 0·d); value from mpmath betainc(2, 1/2, 0, 4/(4 + t²)) at 50 digits).
 * scipy scales its moments, so d·2⁻⁶⁰⁰ and d·1e300 give the same t and p.
 */
import { describe, expect, it } from "vitest";
import {
  blandAltman,
  cohenDz,
  cohenKappa,
  describe as describeSample,
  icc,
  krippendorffAlpha,
  pairedRandomizationTest,
  pairedTTest,
  pearson,
  wilcoxonSignedRank,
} from "../../../judges/stats/index.ts";

const D = [1, 2, 3, 4, 6];
const T = 3.719924439802217;
const P = 2.0475874420910685e-2;
const DZ = 1.6636007837121163;
const zeros = (n: number) => Array<number>(n).fill(0);

describe("paired t is scale-invariant (scipy.stats.ttest_rel)", () => {
  for (const [label, scale] of [
    ["1", 1],
    ["2⁻⁶⁰⁰", 2 ** -600],
    ["1e300", 1e300],
    ["1e-300", 1e-300],
  ] as const) {
    it(`differences × ${label}`, () => {
      const d = D.map((v) => v * scale);
      const r = pairedTTest(d, zeros(5));
      expect(r.status).toBe("ok");
      expect(Math.abs(r.t - T) / T).toBeLessThan(1e-12);
      expect(Math.abs(r.p - P) / P).toBeLessThan(1e-9);
      expect(r.df).toBe(4);
      expect(Math.abs(cohenDz(d, zeros(5)) - DZ) / DZ).toBeLessThan(1e-12);
    });
  }
});

describe("zero-variance differences: status, t/p/d_z undefined, never ±∞", () => {
  it("constant non-zero differences", () => {
    const r = pairedTTest([3, 4, 5], [1, 2, 3]);
    expect(r.status).toBe("constant-differences");
    expect(r.t).toBeNaN();
    expect(r.p).toBeNaN();
    expect(r.meanDiff).toBe(2);
    expect(cohenDz([3, 4, 5], [1, 2, 3])).toBeNaN();
  });
  it("all-zero differences", () => {
    const r = pairedTTest([1, 2, 3], [1, 2, 3]);
    expect(r.status).toBe("constant-differences");
    expect(r.t).toBeNaN();
    expect(cohenDz([1, 2, 3], [1, 2, 3])).toBeNaN();
  });
});

describe("Wilcoxon with all differences zero returns scipy's answer (scipy.stats.wilcoxon, 1.17)", () => {
  // scipy drops zero differences: R+ = R− = 0, statistic 0; n ≤ 13 → permutation test over the one
  // sign pattern → p = 1; n > 13 → normal approximation 0/0 → p = nan.
  it("n = 5: statistic 0, p 1 (permutation)", () => {
    const r = wilcoxonSignedRank([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]);
    expect(r).toMatchObject({ status: "all-zero-differences", statistic: 0, p: 1, method: "permutation", nZero: 5, nNonzero: 0 });
  });
  it("n = 20: statistic 0, p NaN (asymptotic)", () => {
    const r = wilcoxonSignedRank(zeros(20), zeros(20));
    expect(r.status).toBe("all-zero-differences");
    expect(r.statistic).toBe(0);
    expect(r.p).toBeNaN();
    expect(r.method).toBe("asymptotic");
  });
  it("a normal case says ok", () => {
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5], [0, 0, 0, 0, 0]).status).toBe("ok");
  });
});

describe("Bland–Altman with one pair", () => {
  it("returns status too-few with the bias and NaN limits, not an exception", () => {
    const r = blandAltman([4], [2.5]);
    expect(r.status).toBe("too-few");
    expect(r.bias).toBe(1.5);
    expect(r.sdDiff).toBeNaN();
    expect(r.loaLower).toBeNaN();
    expect(r.loaUpper).toBeNaN();
  });
  it("two pairs d = [1, 2]: ok, bias 1.5, SD √0.5, limits 1.5 ± 1.96·√0.5", () => {
    const r = blandAltman([2, 4], [1, 2]);
    expect(r.status).toBe("ok");
    expect(r.bias).toBe(1.5);
    expect(r.sdDiff).toBeCloseTo(Math.SQRT1_2, 14);
    expect(r.loaUpper).toBeCloseTo(1.5 + 1.96 * Math.SQRT1_2, 14);
  });
});

describe("every statistics result carries a status", () => {
  it("ok and degenerate statuses", () => {
    expect(pearson([1, 2, 3], [1, 3, 2]).status).toBe("ok");
    expect(pearson([1, 1, 1], [1, 3, 2]).status).toBe("constant-input");
    expect(describeSample([1, 2, 3]).status).toBe("ok");
    expect(cohenKappa(["a", "b"], ["a", "b"]).status).toBe("ok");
    expect(cohenKappa(["a", "a"], ["a", "a"]).status).toBe("no-variation");
    expect(cohenKappa([null], [null]).status).toBe("empty");
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1],
        ],
        "interval",
      ).status,
    ).toBe("no-variation");
    expect(
      icc([
        [1, 2],
        [2, 3],
        [3, 4],
      ]).status,
    ).toBe("no-variation"); // rater 2 = rater 1 + 1: residual 0
    expect(
      icc([
        [1, 2],
        [2, 2],
        [3, 5],
      ]).status,
    ).toBe("ok");
  });
});

describe("paired randomisation test (sign flips)", () => {
  it("exact: d = [1, 2, 3] → sums ±1±2±3 = 6, 4, 2, 0, 0, −2, −4, −6; |sum| ≥ 6 in 2 of 8 → p = 0.25", () => {
    const r = pairedRandomizationTest([1, 2, 3], [0, 0, 0]);
    expect(r).toMatchObject({ status: "ok", p: 0.25, method: "exact", permutations: 8, meanDiff: 2 });
  });
  it("exact: d = [1, −1, 2] → |sum| ≥ 2 in 6 of 8 (sums 2, 0, 4, −2, 2, −4, 0, −2) → p = 0.75", () => {
    expect(pairedRandomizationTest([1, -1, 2], [0, 0, 0]).p).toBe(0.75);
  });
  it("sampled: 20 differences of +1 (exact p = 2/2²⁰) with 1,000 draws → p = (0 + 1)/1001 at most, seeded", () => {
    const x = Array<number>(20).fill(1);
    const r = pairedRandomizationTest(x, zeros(20), { iterations: 1000, seed: "s" });
    expect(r.method).toBe("sampled");
    expect(r.p).toBe(1 / 1001);
    expect(pairedRandomizationTest(x, zeros(20), { iterations: 1000, seed: "s" })).toEqual(r);
  });
  it("all differences zero: p = 1 with status constant-differences", () => {
    expect(pairedRandomizationTest([1, 2], [1, 2])).toMatchObject({ status: "constant-differences", p: 1 });
  });
});
