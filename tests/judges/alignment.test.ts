/** Human–judge alignment on a small hand-checked set. */
import { describe, expect, it } from "vitest";
import { alignScores } from "../../judges/alignment.ts";

describe("alignScores", () => {
  // human 1,2,3,4; judge 2,2,4,5 (item e missing) → d = judge − human = 1,0,1,1.
  const items = [
    { id: "a", human: 1, judge: 2 },
    { id: "b", human: 2, judge: 2 },
    { id: "c", human: 3, judge: 4 },
    { id: "d", human: 4, judge: 5 },
    { id: "e", human: 5, judge: null },
  ];
  it("drops the missing pair and reports it", () => {
    const r = alignScores(items);
    expect(r.n).toBe(4);
    expect(r.nDropped).toBe(1);
    expect(r.droppedIds).toEqual(["e"]);
  });
  it("hand-computed statistics", () => {
    const r = alignScores(items);
    // Pearson: Sxy = 5.5, Sxx = 6.75, Syy = 5 → 5.5/√33.75
    expect(r.pearson.estimate).toBeCloseTo(5.5 / Math.sqrt(33.75), 12);
    // Spearman: judge ranks 1.5,1.5,3,4 → 4.5/√(4.5·5) = √0.9
    expect(r.spearman.estimate).toBeCloseTo(Math.sqrt(0.9), 12);
    // d: mean .75, sd .5 → LoA .75 ± .98
    expect(r.blandAltman.bias).toBeCloseTo(0.75, 12);
    expect(r.blandAltman.sdDiff).toBeCloseTo(0.5, 12);
    expect(r.blandAltman.loaLower).toBeCloseTo(-0.23, 12);
    expect(r.blandAltman.loaUpper).toBeCloseTo(1.73, 12);
    // paired t = .75/(.5/2) = 3, df 3; p = 2(1 − F(3)), F(3) = 1/2 + (√3/4 + π/3)/π
    expect(r.pairedT.t).toBeCloseTo(3, 12);
    expect(r.pairedT.df).toBe(3);
    expect(r.pairedT.p).toBeCloseTo(2 * (0.5 - (Math.sqrt(3) / 4 + Math.PI / 3) / Math.PI), 10);
    expect(r.cohenDz).toBeCloseTo(1.5, 12);
    expect(r.humanMean).toBe(2.5);
    expect(r.judgeMean).toBe(3.25);
  });
  it("rejects duplicate ids and too few complete pairs", () => {
    expect(() => alignScores([...items, { id: "a", human: 1, judge: 1 }])).toThrow('duplicate item id "a"');
    expect(() => alignScores(items.slice(3))).toThrow(/at least 3 items with both scores, got 1 \(1 dropped\)/);
  });
});

describe("alignScores with zero-variance inputs: undefined, never a number", () => {
  const humans = [0, 1, 2, 2, 1, 0, 2, 1];
  it("a judge that always scores 4 (raw, or rescaled to 0.8 on 0–5): r, ρ and their p are NaN, with a note", () => {
    for (const j of [4, 4 / 5]) {
      const r = alignScores(humans.map((h, i) => ({ id: String(i), human: h / 2, judge: j })));
      expect(r.pearson.estimate).toBeNaN();
      expect(r.pearson.p).toBeNaN();
      expect(r.spearman.estimate).toBeNaN();
      expect(r.spearman.p).toBeNaN();
      expect(r.constant).toEqual({ judge: true, human: false, differences: false });
      expect(r.notes).toEqual(["constant judge scores: Pearson and Spearman undefined"]);
      // The paired comparison is still defined: d = j − h/2 varies.
      expect(Number.isFinite(r.pairedT.t)).toBe(true);
      expect(r.judgeMean).toBeCloseTo(j, 12);
    }
  });
  it("constant human scores are reported the same way", () => {
    const r = alignScores([1, 2, 3, 4].map((j, i) => ({ id: String(i), human: 0.1, judge: j })));
    expect(r.pearson.estimate).toBeNaN();
    expect(r.constant.human).toBe(true);
    expect(r.notes[0]).toBe("constant human scores: Pearson and Spearman undefined");
  });
  it("all differences equal (sd 0): paired t, its p and d_z are NaN; Bland–Altman keeps the bias", () => {
    // Exactly equal (integers): d = 1 → sd 0, t = 1/0.
    const exact = alignScores([0, 1, 2, 3, 4].map((h, i) => ({ id: String(i), human: h, judge: h + 1 })));
    // Equal up to rounding (0–5 rescaled to 0–1): d = (h+1)/5 − h/5 = 0.2 ± 1e−17.
    const rescaled = alignScores([0, 1, 2, 3, 4].map((h, i) => ({ id: String(i), human: h / 5, judge: (h + 1) / 5 })));
    for (const [r, bias] of [
      [exact, 1],
      [rescaled, 0.2],
    ] as const) {
      expect(r.constant.differences).toBe(true);
      expect(r.pairedT.t).toBeNaN();
      expect(r.pairedT.p).toBeNaN();
      expect(r.pairedT.df).toBe(4);
      expect(r.pairedT.meanDiff).toBeCloseTo(bias, 12);
      expect(r.cohenDz).toBeNaN();
      expect(r.blandAltman.bias).toBeCloseTo(bias, 12);
      expect(r.blandAltman.sdDiff).toBeLessThan(1e-15);
      expect(r.notes).toEqual(["all differences equal (sd 0): paired t and d_z undefined"]);
      // Correlation of judge = human + c is perfect and defined.
      expect(r.pearson.estimate).toBeCloseTo(1, 12);
    }
    // Identical scores: d = 0 everywhere, t = 0/0.
    const same = alignScores([1, 2, 3].map((h, i) => ({ id: String(i), human: h, judge: h })));
    expect(same.pairedT.t).toBeNaN();
    expect(same.cohenDz).toBeNaN();
  });
});
