/** Statistics against scipy 1.17.1 reference values (tests/fixtures/parity/stats_cases.json), to 1e-9. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe as suite, expect, it } from "vitest";
import { blandAltman, cohenDz, describe, holm, kendallTauB, pairedTTest, pearson, spearman, wilcoxonSignedRank } from "../../../judges/stats/index.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fixture: any = JSON.parse(readFileSync(fileURLToPath(new URL("../../fixtures/parity/stats_cases.json", import.meta.url)), "utf8"));
const TOL = 1e-9;

function close(actual: number, expected: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(TOL);
}

suite("statistics parity with scipy", () => {
  it("has the 4 cases", () => {
    expect(fixture.cases.map((c: { n: number }) => c.n)).toEqual([5, 12, 30, 200]);
  });

  for (const c of fixture.cases) {
    suite(c.name, () => {
      const x: number[] = c.x;
      const y: number[] = c.y;
      const d = x.map((v, i) => v - y[i]);

      it("descriptives (mean, SD, SE, t crit, 95% CI) of x, y and d", () => {
        for (const [key, values] of [
          ["x", x],
          ["y", y],
          ["d", d],
        ] as const) {
          const ref = c.descriptives[key];
          const got = describe(values);
          expect(got.n).toBe(ref.n);
          close(got.mean, ref.mean, `${key}.mean`);
          close(got.sd, ref.sd, `${key}.sd`);
          close(got.se, ref.se, `${key}.se`);
          close(got.tCrit, ref.t_crit, `${key}.t_crit`);
          close(got.ci[0], ref.ci95[0], `${key}.ci lo`);
          close(got.ci[1], ref.ci95[1], `${key}.ci hi`);
        }
      });

      it("paired t-test", () => {
        const r = pairedTTest(x, y);
        close(r.t, c.paired_t_test.t, "t");
        expect(r.df).toBe(c.paired_t_test.df);
        close(r.p, c.paired_t_test.p, "p");
      });

      it("Wilcoxon signed-rank (resolved method, statistic, p, R+, R-, asymptotic z and p)", () => {
        const ref = c.wilcoxon_signed_rank;
        const r = wilcoxonSignedRank(x, y);
        expect(ref.resolved_method.startsWith(r.method)).toBe(true);
        close(r.statistic, ref.statistic, "statistic");
        close(r.p, ref.p, "p");
        close(r.rPlus, ref.r_plus, "r_plus");
        close(r.rMinus, ref.r_minus, "r_minus");
        expect(r.nZero).toBe(ref.n_zero_diffs);
        expect(r.nNonzero).toBe(ref.n_nonzero);
        expect(r.hasTies).toBe(ref.ties_in_abs_nonzero_diffs);
        close(r.zAsymptotic, ref.asymptotic.z, "z");
        close(r.pAsymptotic, ref.asymptotic.p, "asymptotic p");
        if (ref.exact) close(r.p, ref.exact.p, "exact p");
      });

      it("Cohen's d_z", () => close(cohenDz(x, y), c.cohen_dz, "d_z"));

      it("Pearson, Spearman and Kendall tau-b with p-values", () => {
        const pr = pearson(x, y);
        close(pr.estimate, c.pearson.r, "pearson r");
        close(pr.p, c.pearson.p, "pearson p");
        const sp = spearman(x, y);
        close(sp.estimate, c.spearman.rho, "spearman rho");
        close(sp.p, c.spearman.p, "spearman p");
        const kt = kendallTauB(x, y);
        close(kt.estimate, c.kendall.tau_b, "tau_b");
        expect(kt.method).toBe(c.kendall.resolved_method);
        close(kt.p, c.kendall.p, "kendall p");
        close(kt.pAsymptotic, c.kendall.asymptotic.p, "kendall asymptotic p");
      });

      it("Bland-Altman", () => {
        const ba = blandAltman(x, y);
        close(ba.bias, c.bland_altman.bias, "bias");
        close(ba.sdDiff, c.bland_altman.sd_diff, "sd_diff");
        close(ba.loaLower, c.bland_altman.loa_lower, "loa_lower");
        close(ba.loaUpper, c.bland_altman.loa_upper, "loa_upper");
        expect(ba.multiplier).toBe(c.bland_altman.multiplier);
      });
    });
  }

  it("Holm adjustment example and the capped example", () => {
    holm(fixture.holm.p_raw).forEach((p, i) => close(p, fixture.holm.p_adjusted[i], `holm[${i}]`));
    holm(fixture.holm_extra_with_capping.p_raw).forEach((p, i) => close(p, fixture.holm_extra_with_capping.p_adjusted[i], `holm capped[${i}]`));
  });
});
