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
