/**
 * The report's bootstrap at scale: `bootstrapMeanCis` resamples many samples sharing the draws
 * (one random stream per length) and gives, for each, exactly `bootstrapCi`'s interval — checked
 * against the generic path (a statistic that is not `mean` itself, so the seedrandom generator
 * draws every resample), bit for bit.
 */
import { describe, expect, it } from "vitest";
import { bootstrapCi, bootstrapMeanCis } from "../../../judges/stats/bootstrap.ts";
import { mean } from "../../../judges/stats/descriptive.ts";

const generic = (xs: number[]) => mean(xs);

describe("bootstrapMeanCis", () => {
  it("equals bootstrapCi of each sample, bit for bit, with shared draws for equal lengths", () => {
    const samples = [[1, 2, 3, 4, 5, 6, 7], [0.1, 0.7, 0.3, 0.9, 0.2, 0.5, 0.4], [2, 2], [5], Array.from({ length: 40 }, (_, i) => Math.sin(i * 1.7) * 3 + (i % 5) / 7)];
    const got = bootstrapMeanCis(samples, { iterations: 500, seed: "s" });
    expect(got[3]).toBeNull();
    samples.forEach((xs, k) => {
      if (xs.length < 2) return;
      const want = bootstrapCi(xs, { iterations: 500, seed: "s" }, generic);
      expect(got[k]).toEqual(want);
      expect(bootstrapCi(xs, { iterations: 500, seed: "s" })).toEqual(want);
    });
    // A constant sample: every resample mean is that value (hand-checkable).
    expect(got[2]).toMatchObject({ lower: 2, upper: 2, estimate: 2 });
  });
});
