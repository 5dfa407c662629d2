/** RWESummary weighted rubric: a hand-computed table and the paper's Figure 2. */
import { describe, expect, it } from "vitest";
import { computeRweWeightedScore } from "../../judges/rwe-weighted-score.ts";
import { RWESUMMARY_TABLE1 } from "../../experiments/report/published/rwesummary.ts";

describe("computeRweWeightedScore", () => {
  const metrics = [
    { id: "A", weight: 2, direction: "higher" as const },
    { id: "T", weight: 1, direction: "lower" as const },
  ];
  const rows = [
    { model: "M1", values: { A: 0.5, T: 10 } },
    { model: "M2", values: { A: 1.0, T: 20 } },
    { model: "M3", values: { A: 0.75, T: 15 } },
  ];
  it("hand table: normalised A = 0, 1, .5; T = 1, 0, .5; sums 1, 2, 1.5 → 0, 100, 50 %", () => {
    const r = computeRweWeightedScore(rows, { metrics });
    expect(r.models.map((m) => m.normalized)).toEqual([
      { A: 0, T: 1 },
      { A: 1, T: 0 },
      { A: 0.5, T: 0.5 },
    ]);
    expect(r.models.map((m) => m.weightedSum)).toEqual([1, 2, 1.5]);
    expect(r.models.map((m) => m.score)).toEqual([0, 100, 50]);
    expect(r.models[2].weightedPercent).toBeCloseTo(50, 12);
  });
  it("overridden max for A = 2: A norm 0, 1/3, 1/6 → sums 1, 2/3, 5/6 → 100, 0, 50 %", () => {
    const r = computeRweWeightedScore(rows, { metrics: [{ ...metrics[0], max: 2 }, metrics[1]] });
    expect(r.bounds.A).toEqual({ min: 0.5, max: 2 });
    expect(r.models[1].normalized.A).toBeCloseTo(1 / 3, 12);
    expect(r.models.map((m) => Math.round(m.score * 1e9) / 1e9)).toEqual([100, 0, 50]);
  });
  it("equal min and max → normalised 1 and flagged; missing value throws naming model and metric", () => {
    const r = computeRweWeightedScore(
      rows.map((x) => ({ ...x, values: { ...x.values, T: 5 } })),
      { metrics },
    );
    expect(r.degenerateMetrics).toEqual(["T"]);
    expect(r.models.every((m) => m.normalized.T === 1)).toBe(true);
    expect(() => computeRweWeightedScore([{ model: "X", values: { A: 1 } }], { metrics })).toThrow('model "X" has no finite value for metric "T"');
  });
  it("reproduces RWESummary Figure 2 with the default weights 20/6/5/3", () => {
    // Table 1 as transcribed once, in experiments/report/published/rwesummary.ts.
    const r = computeRweWeightedScore(
      RWESUMMARY_TABLE1.map(([model, d, n, c, t]) => ({ model, values: { direction_of_effect: Number(d), numbers_accurate: Number(n), completeness: Number(c), inference_time: Number(t) } })),
    );
    expect(r.models.map((m) => Math.round(m.score))).toEqual([99, 100, 94, 61, 46, 61, 42, 0, 1]);
    expect(Object.values(r.models[0].normalized).map((v) => Math.round(100 * v))).toEqual([89, 88, 100, 41]);
    expect(r.bounds.inference_time).toEqual({ min: 2.253, max: 22.788 });
  });
});
