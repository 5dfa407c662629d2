import { describe, expect, it } from "vitest";
import { loadRweGlp1, parseEstimateWithCi } from "../../../corpus/datasets/rwe-glp1.ts";
import { loadOhdsiHcq, parseOhdsiTable1 } from "../../../corpus/datasets/ohdsi-hcq.ts";
import { RweStudySchema } from "../../../corpus/types.ts";

describe("rwe-glp1 loader (real data)", async () => {
  const d = await loadRweGlp1();

  it("yields the paper's study with 7 OR outcomes and 4 baseline differences", () => {
    expect(d.items).toHaveLength(1);
    const s = RweStudySchema.parse(d.items[0]);
    expect(s.id).toBe("glp1-vs-sglt2i-respiratory");
    expect(s.design).toBe("cohort");
    expect(s.propensityMatched).toBe(true);
    expect(s.cohortSizes).toEqual({ exposed: 34273, comparator: 20571, total: 54844 });
    expect(s.picot.time).toBe("2015-01-01 - 2024-12-27");
    expect(s.baselineDifferences[0]).toEqual({ variable: "female_pct", description: "control 47.3579 vs intervention 71.2047" });
    expect(s.baselineDifferences).toHaveLength(4);
    expect(s.outcomes).toHaveLength(7);
    expect(s.outcomes[2]).toEqual({ name: "outcome_3yrs.ip.visit.for.bronchiectasis.exacerbation_bin", measure: "OR", estimate: 0.4, ciLower: 0.155, ciUpper: 1.03, pValue: 0.058 });
    expect(d.warnings).toEqual([]);
  });

  it("parses estimates with either CI form", () => {
    expect(parseEstimateWithCi("0.866 (0.665, 1.13)")).toEqual({ estimate: 0.866, ciLower: 0.665, ciUpper: 1.13 });
    expect(parseEstimateWithCi("2.48 (0.57 - 17.35)")).toEqual({ estimate: 2.48, ciLower: 0.57, ciUpper: 17.35 });
    expect(parseEstimateWithCi("1.5")).toEqual({ estimate: 1.5, ciLower: null, ciUpper: null });
    expect(parseEstimateWithCi("n/a")).toBeNull();
  });
});

describe("ohdsi-hcq loader (real data)", async () => {
  const d = await loadOhdsiHcq();

  it("yields one study per comparison with meta-analysis HRs and exposure counts", () => {
    expect(d.items.map((s) => s.id)).toEqual(["ohdsi-hcq:hcq-vs-ssz", "ohdsi-hcq:hcq-azm-vs-hcq-amx"]);
    for (const s of d.items) RweStudySchema.parse(s);
    const [ssz, azm] = d.items;
    expect(ssz.cohortSizes).toEqual({ exposed: 1011381, comparator: 433779, total: 1445160 });
    expect(azm.cohortSizes).toEqual({ exposed: 413147, comparator: 448870, total: 862017 });
    expect(ssz.outcomes).toHaveLength(16);
    expect(azm.outcomes).toHaveLength(13); // 3 outcomes have no meta-analysis row
    expect(ssz.outcomes[0]).toEqual({
      name: "All-cause mortality",
      measure: "HR",
      estimate: 0.72,
      ciLower: 0.42,
      ciUpper: 1.24,
      pValue: 0.24,
      note: "meta-analysis over 4 database(s); calibrated HR 0.76 (0.44 - 1.32), calibrated p 0.33",
    });
    const arr = ssz.outcomes.find((o) => o.name === "Cardiac arrhythmia")!;
    expect([arr.estimate, arr.pValue]).toEqual([0.85, 0]);
    expect(arr.note).toContain("p printed as 0.00 (< 0.005)");
    expect(azm.outcomes.find((o) => o.name === "Cardiovascular-related mortality")).toMatchObject({ estimate: 2.15, ciLower: 1.2, ciUpper: 3.87, pValue: 0.01 });
  });

  it("finds no |SMD| > 0.1 in Table 1 and says so; a lower threshold lists covariates", async () => {
    expect(d.items.map((s) => s.baselineDifferences.length)).toEqual([0, 0]);
    expect(d.warnings.filter((w) => w.includes("baselineDifferences is empty"))).toHaveLength(2);
    expect(d.warnings.filter((w) => w.includes("has no meta-analysis row"))).toHaveLength(3);
    const low = await loadOhdsiHcq({ smdThreshold: 0.005 });
    expect(low.items.map((s) => s.baselineDifferences.length)).toEqual([15, 9]);
    expect(low.items[0].baselineDifferences[0]).toEqual({ variable: "Age group 20-24", description: "HCQ 1.8% vs SSZ 2.0% (std. diff -0.01)" });
  });

  it("uses calibrated estimates and per-database rows on request", async () => {
    const cal = await loadOhdsiHcq({ estimate: "calibrated", missingMetaAnalysis: "per-database" });
    expect(cal.items[0].outcomes[0]).toMatchObject({ estimate: 0.76, ciLower: 0.44, ciUpper: 1.32, pValue: 0.33 });
    expect(cal.items[1].outcomes).toHaveLength(13 + 7 + 8 + 7);
    expect(cal.items[1].outcomes.some((o) => o.name === "Cardiac arrhythmia [CCAE]" && o.estimate === 1.73)).toBe(true);
  });

  it("qualifies Table 1 covariates by section", () => {
    const rows = parseOhdsiTable1(
      ['"a","eT","fT","gT"', '"","HCQ vs SSZ","",""', '"","HCQ","SSZ",""', '"Characteristic","%","%","Std. diff"', '"Medication use","  ","  ","   "', '"    Opioids","39.0","39.3","-0.01"'].join(
        "\n",
      ),
    );
    expect(rows).toEqual([{ variable: "Medication use: Opioids", values: { eT: "39.0", fT: "39.3", gT: "-0.01" } }]);
  });
});
