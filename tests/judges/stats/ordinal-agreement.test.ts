/**
 * Judge agreement on binned 0–5 scores and simple OLS, against reference values computed once
 * with Debian's python3 (scikit-learn 1.2.1, scipy 1.10.1):
 *
 *   from sklearn.metrics import cohen_kappa_score; from scipy import stats
 *   A = [0, 1, 2, 3, 4, 5, 3.5, 2, 4, 5]; B = [0, 2, 2, 3, 5, 5, 2, 2, 4, 4.9]; C = [1, 1, 2, 4, 4, 5, 3, 1, 4, 5]
 *   bins = [[int(x) for x in j] for j in (A, B, C)]        # the MedMeta authors' astype(int)
 *   cohen_kappa_score(bins[i], bins[j], labels=list(range(6)) [, weights="quadratic"])
 *   # Fleiss by the statsmodels formula: P_i = (Σ n_ij² − m)/(m(m−1)), P_e = Σ p_j²
 *   stats.linregress([0.5, 1.2, 2.8, 4.1, 0.9], [0.30, 0.35, 0.42, 0.40, 0.33])
 * Output:
 *   0 1 kappa 0.5061728395061729 qw 0.9163179916317992 agree 0.6
 *   0 2 kappa 0.6385542168674699 qw 0.9387755102040817 agree 0.7
 *   1 2 kappa 0.17647058823529416 qw 0.851063829787234 agree 0.3
 *   fleiss 0.4246575342465753 Pbar 0.5333333333333333 Pe 0.1888888888888889
 *   linregress 0.02890109890109891 0.3050879120879121 0.8806878695487451 0.04857709517874438 0.008974956995848256
 */
import { describe, expect, it } from "vitest";
import { binScore, fleissKappa, linearRegression, weightedCohenKappa } from "../../../judges/stats/index.ts";

const A = [0, 1, 2, 3, 4, 5, 3.5, 2, 4, 5];
const B = [0, 2, 2, 3, 5, 5, 2, 2, 4, 4.9];
const C = [1, 1, 2, 4, 4, 5, 3, 1, 4, 5];
const bins = [A, B, C].map((j) => j.map((v) => binScore(v)));

describe("binScore (the authors' astype(int))", () => {
  it("truncates into 0–5 and rejects what is off the scale", () => {
    expect([3.5, 4.9, 0, 5, 0.99].map((v) => binScore(v))).toEqual([3, 4, 0, 5, 0]);
    expect([-0.1, 5.1, NaN, null, undefined].map((v) => binScore(v))).toEqual([null, null, null, null, null]);
    expect(binScore(100, 100)).toBe(100);
  });
});

describe("weightedCohenKappa vs sklearn cohen_kappa_score(labels=range(6))", () => {
  const cases: [number, number, number, number, number][] = [
    [0, 1, 0.5061728395061729, 0.9163179916317992, 0.6],
    [0, 2, 0.6385542168674699, 0.9387755102040817, 0.7],
    [1, 2, 0.17647058823529416, 0.851063829787234, 0.3],
  ];
  for (const [i, j, kappa, qw, agree] of cases)
    it(`judges ${i} and ${j}`, () => {
      const k = weightedCohenKappa(bins[i], bins[j]);
      expect(k.n).toBe(10);
      expect(k.kappa).toBeCloseTo(kappa, 12);
      expect(k.weightedKappa).toBeCloseTo(qw, 12);
      expect(k.observedAgreement).toBeCloseTo(agree, 12);
    });
  it("linear weights by hand: 2 items, (0,1) and (1,0) → κ_w = 1 − 2/1 = −1", () => {
    // O = [[0,1],[1,0]]/2, E = outer(0.5,0.5): Σw·O = 1, Σw·E = 0.5 → 1 − 1/0.5 = −1.
    expect(weightedCohenKappa([0, 1], [1, 0], { max: 1, weights: "linear" }).weightedKappa).toBeCloseTo(-1, 12);
  });
  it("missing ratings are left out; one constant category is undefined, not 1", () => {
    const k = weightedCohenKappa([1, null, 2], [1, 3, 2]);
    expect(k.n).toBe(2);
    expect(k.excluded).toBe(1);
    expect(k.kappa).toBe(1);
    const c = weightedCohenKappa([3, 3], [3, 3]);
    expect(c.status).toBe("no-variation");
    expect(c.kappa).toBeNull();
  });
  it("throws on an unbinned score", () => {
    expect(() => weightedCohenKappa([3.5], [3])).toThrow(/not an integer in 0…5/);
  });
});

describe("fleissKappa", () => {
  it("three judges: 0.424657… (P̄ 0.5333, P_e 0.1889)", () => {
    const f = fleissKappa(bins);
    expect(f.n).toBe(10);
    expect(f.kappa).toBeCloseTo(0.4246575342465753, 12);
    expect(f.observed).toBeCloseTo(0.5333333333333333, 12);
    expect(f.expected).toBeCloseTo(0.1888888888888889, 12);
  });
  it("Fleiss (1971) worked value by hand: 2 items × 2 raters, one agreement", () => {
    // P = [1, 0] → P̄ = 0.5; p = {a: 0.75, b: 0.25} → P_e = 0.625; κ = (0.5 − 0.625)/0.375 = −1/3.
    expect(
      fleissKappa([
        ["a", "a"],
        ["a", "b"],
      ]).kappa,
    ).toBeCloseTo(-1 / 3, 12);
  });
  it("items with a missing rating are left out", () => {
    const f = fleissKappa([
      [1, 2, null],
      [1, 2, 3],
    ]);
    expect(f.n).toBe(2);
    expect(f.excluded).toBe(1);
    expect(f.kappa).toBe(1);
  });
});

describe("linearRegression vs scipy.stats.linregress", () => {
  it("slope, intercept, r, p, stderr", () => {
    const r = linearRegression([0.5, 1.2, 2.8, 4.1, 0.9], [0.3, 0.35, 0.42, 0.4, 0.33]);
    expect(r.slope).toBeCloseTo(0.02890109890109891, 12);
    expect(r.intercept).toBeCloseTo(0.3050879120879121, 12);
    expect(r.r).toBeCloseTo(0.8806878695487451, 12);
    expect(r.p).toBeCloseTo(0.04857709517874438, 9);
    expect(r.slopeSe).toBeCloseTo(0.008974956995848256, 12);
  });
  it("constant x and n < 3 are undefined", () => {
    expect(linearRegression([1, 1, 1], [1, 2, 3]).status).toBe("constant-input");
    expect(linearRegression([1, 2], [1, 2]).status).toBe("too-few");
  });
});
