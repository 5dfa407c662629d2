/** Agreement statistics on textbook examples, plus bootstrap and input checks. */
import { describe, expect, it } from "vitest";
import { bootstrapCi, holm, icc, kendallExactP, krippendorffAlpha, mean, rankAverage, sd } from "../../../judges/stats/index.ts";

describe("Krippendorff's alpha", () => {
  // Krippendorff K. (2011) "Computing Krippendorff's Alpha-Reliability", section C: 4 observers ×
  // 12 units with missing values. Published: nominal alpha = 0.743, interval alpha = 0.849.
  const N = null;
  const reliabilityData = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
  ];
  it("nominal = 0.743 (paper), exact 1 - 0.2/0.77949 = 0.743421", () => {
    const r = krippendorffAlpha(reliabilityData, "nominal");
    expect(r.alpha.toFixed(3)).toBe("0.743");
    expect(r.alpha).toBeCloseTo(0.743421052631579, 12);
    expect(r.nPairable).toBe(40);
    expect(r.unitsUsed).toBe(11); // unit 12 has a single value
  });
  it("interval = 0.849 (paper)", () => {
    const r = krippendorffAlpha(reliabilityData, "interval");
    expect(r.alpha.toFixed(3)).toBe("0.849");
  });
  it("perfect agreement gives 1; ragged rows throw", () => {
    expect(
      krippendorffAlpha(
        [
          [1, 2, 3],
          [1, 2, 3],
        ],
        "interval",
      ).alpha,
    ).toBe(1);
    expect(() => krippendorffAlpha([[1, 2], [1]], "nominal")).toThrow(/rater 1 has 1 units/);
  });
});

describe("ICC (Shrout & Fleiss 1979, Table 2: 6 targets × 4 judges)", () => {
  const table2 = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
  ];
  it("mean squares and ICC(2,1)=0.29, ICC(2,k)=0.62, ICC(3,1)=0.71, ICC(3,k)=0.91 (Table 4)", () => {
    const r = icc(table2);
    expect(r.bms).toBeCloseTo(11.24, 2);
    expect(r.jms).toBeCloseTo(32.49, 2);
    expect(r.ems).toBeCloseTo(1.02, 2);
    expect(r.icc21.toFixed(2)).toBe("0.29");
    expect(r.icc2k.toFixed(2)).toBe("0.62");
    expect(r.icc31.toFixed(2)).toBe("0.71");
    expect(r.icc3k.toFixed(2)).toBe("0.91");
  });
  it("drops targets with a missing rating and counts them", () => {
    const r = icc([...table2, [1, null, 3, 4]]);
    expect(r.droppedTargets).toBe(1);
    expect(r.icc21).toBeCloseTo(0.289763779527559, 12);
  });
});

describe("helpers", () => {
  it("average ranks with ties", () => {
    expect(rankAverage([10, 20, 10, 30])).toEqual({ ranks: [1.5, 3, 1.5, 4], tieGroups: [2] });
  });
  it("Kendall exact p for n=4: c=0 → 2/24; c=1 → 2/6", () => {
    expect(kendallExactP(4, 0)).toBeCloseTo(2 / 24, 15);
    expect(kendallExactP(4, 1)).toBeCloseTo(2 / 6, 15);
    // n=5, c=2: permutations with ≤2 inversions = 1+4+9 = 14 → p = 28/120
    expect(kendallExactP(5, 2)).toBeCloseTo(28 / 120, 15);
  });
  it("mean/sd reject empty and non-finite input", () => {
    expect(() => mean([])).toThrow(/empty/);
    expect(() => sd([1])).toThrow(/more than 1/);
    expect(() => mean([1, Number.NaN])).toThrow(/index 1/);
    expect(() => holm([0.2, 1.5])).toThrow(/index 1/);
  });
  it("seeded percentile bootstrap is reproducible and brackets the mean", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const a = bootstrapCi(xs, { seed: "x" });
    const b = bootstrapCi(xs, { seed: "x" });
    expect(a).toEqual(b);
    expect(a.estimate).toBe(5.5);
    expect(a.lower).toBeCloseTo(3.7, 10);
    expect(a.upper).toBeCloseTo(7.3, 10);
    expect(() => bootstrapCi([1], {})).toThrow(/at least 2/);
    expect(() => bootstrapCi(xs, { iterations: 5 })).toThrow();
  });
});
