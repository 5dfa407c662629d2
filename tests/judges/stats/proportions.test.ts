/**
 * Wilson intervals (issue 12 item 12) and item-clustered standard errors (item 14).
 * Wilson references: statsmodels `proportion_confint(k, n, alpha=0.05, method="wilson")`, values
 * computed from the closed form with z = 1.959963984540054 (scipy.stats.norm.ppf(0.975)).
 */
import { describe, expect, it } from "vitest";
import { clusteredMean, isBinary, standardError, wilsonInterval } from "../../../judges/stats/index.ts";
import { fmtMeanCi, meanCi } from "../../../experiments/report/tables.ts";

describe("Wilson score interval", () => {
  it("1 of 3 → [0.0614919447, 0.7923403992] (a t interval was 0.333 ± 1.434)", () => {
    const w = wilsonInterval(1, 3);
    expect(w.status).toBe("ok");
    expect(w.lower).toBeCloseTo(0.06149194472039615, 12);
    expect(w.upper).toBeCloseTo(0.7923403991979523, 12);
  });
  it("0 of 10 and 10 of 10 stay inside [0, 1]; 45 of 60", () => {
    expect(wilsonInterval(0, 10).lower).toBe(0);
    expect(wilsonInterval(0, 10).upper).toBeCloseTo(0.2775327998628892, 12);
    expect(wilsonInterval(10, 10).lower).toBeCloseTo(0.7224672001371107, 12);
    expect(wilsonInterval(10, 10).upper).toBeLessThanOrEqual(1);
    expect(wilsonInterval(45, 60).lower).toBeCloseTo(0.6276792992295218, 12);
    expect(wilsonInterval(45, 60).upper).toBeCloseTo(0.8422347746994333, 12);
  });
  it("n = 0 → status empty; bad counts throw", () => {
    expect(wilsonInterval(0, 0).status).toBe("empty");
    expect(() => wilsonInterval(4, 3)).toThrow(/0 ≤ successes ≤ n/);
  });
  it("the report's meanCi uses it for 0/1 values and prints [low, high]", () => {
    expect(isBinary([0, 1, 1])).toBe(true);
    expect(isBinary([0, 0.5])).toBe(false);
    const m = meanCi([1, 0, 0])!;
    expect(m.method).toBe("wilson");
    expect(fmtMeanCi(m)).toBe("0.333 [0.061, 0.792]");
    expect(meanCi([0.2, 0.4])!.method).toBeUndefined();
  });
});

describe("item-clustered standard error (Inspect's clustered stderr)", () => {
  it("items A [1, 0], B [1, 1], C [0, 0]: mean 0.5, cluster residual sums 0, 1, −1 → SE² = 3/2 · 2/36 = 1/12", () => {
    const c = clusteredMean([1, 0, 1, 1, 0, 0], ["A", "A", "B", "B", "C", "C"]);
    expect(c.status).toBe("ok");
    expect(c.mean).toBe(0.5);
    expect(c.clusters).toBe(3);
    expect(c.se).toBeCloseTo(Math.sqrt(1 / 12), 15);
    // t_{0.975, 2} = 0.95·√(2/0.0975) = 4.3026527297494639 (scipy.stats.t.ppf(0.975, 2); closed form for df 2)
    expect(c.ci[1]).toBeCloseTo(0.5 + 4.3026527297494639 * Math.sqrt(1 / 12), 12);
  });
  it("one observation per cluster equals SD/√n", () => {
    const xs = [0.2, 0.5, 0.9, 0.4];
    expect(clusteredMean(xs, [1, 2, 3, 4]).se).toBeCloseTo(standardError(xs), 15);
  });
  it("a single cluster → status too-few", () => {
    expect(clusteredMean([1, 2], ["a", "a"]).status).toBe("too-few");
  });
});
