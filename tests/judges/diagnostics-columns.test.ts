/**
 * The panel diagnostics kept column-wise (one Float64Array per judge, no array or object per unit):
 * `iccByRater` gives `icc` of the transposed table bit for bit; the diagnostics' `matrix` and
 * leave-one-out `perUnit` read as before (plain arrays and objects, object key order included when
 * unit keys repeat or are integer-like), and report.json sees the same JSON.
 */
import { describe, expect, it } from "vitest";
import { panelDiagnostics, type DiagnosticsRecord } from "../../judges/diagnostics.ts";
import { icc, iccByRater } from "../../judges/stats/icc.ts";
import { krippendorffAlpha } from "../../judges/stats/krippendorff.ts";
import type { JudgeScoreEntry } from "../../experiments/types.ts";

const R = "rub";
const entry = (judgeId: string, s: number | null): JudgeScoreEntry => ({ judgeId, rubricId: R, scores: { q: s }, status: s === null ? "missing" : "ok" });
const rec = (key: string, model: string, scores: (number | null)[]): DiagnosticsRecord => ({
  key,
  model,
  workflow: "w",
  output: "a b c",
  judgeScores: scores.map((s, j) => entry(`J${j}`, s)),
});

describe("iccByRater", () => {
  it("equals icc of the transposed table, bit for bit, with missing values", () => {
    // Deterministic pseudo-random scores with fractions and gaps (every 7th rating missing).
    const targets = Array.from({ length: 200 }, (_, i) => [0, 1, 2].map((j) => ((i * 37 + j * 11) % 13 === 0 ? null : ((i * 7919 + j * 104729) % 1000) / 137)));
    const byRater = [0, 1, 2].map((j) => Float64Array.from(targets, (t) => (t[j] === null ? Number.NaN : (t[j] as number))));
    const a = icc(targets);
    const b = iccByRater(byRater);
    expect(b).toEqual(a);
    expect(Object.is(a.icc21, b.icc21) && Object.is(a.icc2k, b.icc2k) && Object.is(a.bms, b.bms) && Object.is(a.ems, b.ems)).toBe(true);
    expect(a.droppedTargets).toBeGreaterThan(0);
  });
  it("throws as icc does", () => {
    expect(() => iccByRater([Float64Array.of(1, 2)])).toThrow(/need at least 2 raters, got 1/);
    expect(() => iccByRater([Float64Array.of(1, Number.NaN), Float64Array.of(2, 3)])).toThrow(/need at least 2 complete targets, got 1/);
    expect(() => icc([[1], [2]])).toThrow(/need at least 2 raters, got 1/);
  });
});

describe("krippendorffAlpha on typed columns", () => {
  it("NaN is missing, same alpha as with nulls", () => {
    const rows = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const typed = rows.map((r) => Float64Array.from(r, (x) => (x === null ? Number.NaN : x)));
    const a = krippendorffAlpha(rows, "interval");
    expect(krippendorffAlpha(typed, "interval")).toEqual(a);
    // Krippendorff (2011), interval example: alpha = 0.849.
    expect(a.alpha).toBeCloseTo(0.849, 3);
    expect(a.unitsUsed).toBe(11);
  });
});

describe("panel diagnostics, column-wise", () => {
  const records = [rec("u1", "S1", [4, 5, 3]), rec("u2", "S1", [1, 3, null]), rec("u3", "S2", [1, 3, 2]), rec("u4", "S3", [3, null, 1]), rec("u5", "S3", [null, null, null])];
  const d = panelDiagnostics(records, { rubricId: R, dimension: "q" });

  it("matrix and perUnit read as plain arrays and objects (null = missing), the same on every read", () => {
    expect(d.matrix).toEqual([
      [4, 1, 1, 3],
      [5, 3, 3, null],
      [3, null, 2, 1],
    ]);
    expect(Array.isArray(d.matrix[0])).toBe(true);
    expect(d.matrix).toEqual(d.matrix);
    expect(d.unitKeys).toEqual(["u1", "u2", "u3", "u4"]);
    // Without J0: u1 (5+3)/2, u2 3, u3 2.5, u4 1 → mean 2.625.
    expect(d.leaveOneOut[0].perUnit).toEqual({ u1: 4, u2: 3, u3: 2.5, u4: 1 });
    expect(Object.keys(d.leaveOneOut[0].perUnit)).toEqual(["u1", "u2", "u3", "u4"]);
    expect(d.leaveOneOut[0].meanScore).toBeCloseTo(2.625, 12);
    expect(d.leaveOneOut[2].perUnit).toEqual({ u1: 4.5, u2: 2, u3: 2, u4: 3 });
    expect(JSON.parse(JSON.stringify(d)).matrix).toEqual(d.matrix);
    expect(Object.keys(d)).toContain("matrix");
    expect(Object.keys(d.leaveOneOut[0])).toEqual(["judgeId", "meanScore", "shift", "perUnit"]);
  });

  it("integer-like and repeated unit keys: perUnit and its mean follow a plain object's key order", () => {
    // Object semantics: "10" and "2" (array indices) come first in numeric order; "b" repeated
    // keeps its first position and its last value. Leave-one-out of J0 = J1's score.
    const recs = [rec("b", "S", [1, 1]), rec("10", "S", [2, 0.1]), rec("2", "S", [3, 0.2]), rec("b", "S", [4, 0.3])];
    const dd = panelDiagnostics(recs, { rubricId: R, dimension: "q" });
    const loo = dd.leaveOneOut[0];
    expect(Object.keys(loo.perUnit)).toEqual(["2", "10", "b"]);
    expect(loo.perUnit).toEqual({ 2: 0.2, 10: 0.1, b: 0.3 });
    // The mean over the object's values in its order (0.2 + 0.1 + 0.3) / 3, as before.
    expect(loo.meanScore).toBe((0 + 0.2 + 0.1 + 0.3) / 3);
    expect(dd.nUnits).toBe(4);
  });
});
