import { describe, expect, it } from "vitest";
import { contentStems, loadMedMeta, parseLongDate, parsePmidList, titleConclusionOverlap } from "../../../corpus/datasets/medmeta.ts";
import { SynthesisTaskSchema } from "../../../corpus/types.ts";

describe("medmeta loader (real data)", async () => {
  const d = await loadMedMeta();

  it("loads 20 rows with 205 unique reference PMIDs overall", () => {
    expect(d.items).toHaveLength(20);
    for (const it of d.items) SynthesisTaskSchema.parse(it);
    expect(new Set(d.items.flatMap((i) => i.goldenPmids)).size).toBe(205);
    expect(d.items.every((i) => i.goldenDocs.length === 0 && i.referenceAnswer === null)).toBe(true);
  });

  it("parses messy separators (commas, double spaces, trailing comma) of row 1", () => {
    const t = d.items[0];
    expect(t.id).toBe("medmeta:1");
    expect(t.goldenPmids).toEqual(["30188960", "37877587", "36765286", "23873274", "26387030", "32243865", "35066509"]);
    expect(t.meta?.pmid).toBe("39605034");
    expect(t.meta?.date).toBe("2024-11-30");
    expect(t.question.startsWith("Mortality in septic patients treated with short-acting betablockers")).toBe(true);
    expect(t.referenceConclusion?.startsWith("In this meta-analysis, heart rate control with short-acting betablockers did not reduce mortality")).toBe(true);
    expect(parsePmidList("1, 2  3,\n4 ,")).toEqual(["1", "2", "3", "4"]);
  });

  it("flags exactly row 2's title/conclusion mismatch by lexical overlap, without changing the row", () => {
    const flagged = d.items.filter((i) => String(i.meta?.qualityFlags).includes("title-conclusion-mismatch"));
    expect(flagged.map((i) => i.id)).toEqual(["medmeta:2"]);
    expect(flagged[0].meta?.titleConclusionOverlap).toBe(0);
    expect(flagged[0].referenceConclusion?.startsWith("Our meta-analysis elucidated that TNK may serve as an alternative for thrombolysis")).toBe(true);
    expect(d.warnings.filter((w) => w.includes("conclusion does not match the title"))).toHaveLength(1);
    expect(d.warnings.some((w) => /MedMeta\.csv row 2: conclusion does not match the title/.test(w))).toBe(true);
    // every other row shares at least 14% of its title's topic words with its conclusion
    const others = d.items.filter((i) => i.id !== "medmeta:2").map((i) => Number(i.meta?.titleConclusionOverlap));
    expect(Math.min(...others)).toBe(0.143);
  });

  it("reports duplicate PMIDs and reference-count mismatches as warnings", () => {
    expect(d.warnings.some((w) => /row 13: duplicate reference PMID\(s\) 11089748/.test(w))).toBe(true);
    expect(d.warnings.some((w) => /row 8: "Number of refs" says 8 but References holds 10/.test(w))).toBe(true);
    expect(d.warnings).toHaveLength(4);
    expect(d.items[12].goldenPmids).toHaveLength(12);
  });

  it("computes the overlap measure by hand", () => {
    // "in", "with", "patients" are stop words; stems are cut to 5 characters
    expect([...contentStems("Mortality in septic patients treated with short-acting betablockers")]).toEqual(["morta", "septi", "treat", "short", "actin", "betab"]);
    expect(titleConclusionOverlap("septic mortality", "mortality of sepsis was lower")).toBe(0.5);
    expect(titleConclusionOverlap("diabetic mortality", "mortality in diabetes")).toBe(1);
    expect(titleConclusionOverlap("aspirin stroke", "statins lower cholesterol")).toBe(0);
    expect(parseLongDate("March 31, 2025")).toBe("2025-03-31");
    expect(parseLongDate("2025")).toBeNull();
  });
});
