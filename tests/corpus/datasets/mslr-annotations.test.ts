import { describe, expect, it } from "vitest";
import { loadMslrAnnotations, parseRating } from "../../../corpus/datasets/mslr-annotations.ts";

describe("mslr-annotations loader (real data)", async () => {
  const d = await loadMslrAnnotations();

  it("loads 265 rated pairs over 120 reviews and 6 systems", () => {
    expect(d.items).toHaveLength(265);
    expect(new Set(d.items.map((a) => a.reviewId)).size).toBe(120);
    expect(new Set(d.items.map((a) => a.system)).size).toBe(6);
    expect(d.skipped.count).toBe(0);
  });

  it("parses the first row exactly", () => {
    const a = d.items[0];
    expect(a.id).toBe("CD000024:01G8WPZRN2E3EHA2WENHVNCH8M");
    expect(a.system).toBe("ittc1");
    expect(a.generatedSummary).toBe("There is insufficient evidence to support the use of heparin for the prevention of DVT in patients with acute ischemic stroke.");
    expect([a.fluency.value, a.population.value, a.intervention.value, a.outcome.value]).toEqual([2, 2, 1, 1]);
    expect(a.effectDirectionTarget).toEqual({ value: -1, status: "rated", label: "(-1): Negative effect" });
    expect(a.effectDirectionGenerated.status).toBe("not-applicable");
    expect([a.claimStrengthTarget.value, a.claimStrengthGenerated.value]).toEqual([2, 0]);
    expect(a.comments).toEqual({ pio: "Herapin not in target summary", effectDirection: '"Data do not support"', claimStrength: null });
  });

  it("keeps the rating distributions, N/A and missing cells as such", () => {
    const dist = (f: (a: (typeof d.items)[number]) => string) => d.items.reduce<Record<string, number>>((m, a) => ((m[f(a)] = (m[f(a)] ?? 0) + 1), m), {});
    expect(dist((a) => String(a.fluency.value ?? a.fluency.status))).toEqual({ "2": 225, "1": 35, "0": 4, missing: 1 });
    expect(dist((a) => String(a.population.value ?? a.population.status))).toEqual({ "1": 112, "2": 94, "0": 38, other: 10, "not-applicable": 10, missing: 1 });
    expect(dist((a) => String(a.effectDirectionTarget.value ?? a.effectDirectionTarget.status))).toEqual({ "1": 171, "not-applicable": 38, "0": 34, "-1": 21, missing: 1 });
    expect(dist((a) => String(a.claimStrengthTarget.value ?? a.claimStrengthTarget.status))).toEqual({ "2": 133, "1": 80, "0": 28, "3": 12, "not-applicable": 10, missing: 2 });
    expect(d.items[213].fluency.status).toBe("missing"); // TSV row 215 (CD002987)
    expect(d.warnings).toEqual([expect.stringMatching(/^.*cochrane-A1\.tsv: 175 row\(s\) answer the \*generated\* effect-direction question/)]);
  });

  it("parses rating cells", () => {
    expect(parseRating("(+1): Positive effect", -1, 1)).toEqual({ value: 1, status: "rated", label: "(+1): Positive effect" });
    expect(parseRating("3: Strong claim", 0, 2).status).toBe("other");
    expect(parseRating("Other / uncertain (please comment)", 0, 2).status).toBe("other");
    expect(parseRating("", 0, 2)).toEqual({ value: null, status: "missing", label: "" });
  });
});
