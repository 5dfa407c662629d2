import { describe, expect, it } from "vitest";
import { loadPubmedqa, pubmedqaTaskToDoc } from "../../../corpus/datasets/pubmedqa.ts";
import { ConclusionTaskSchema } from "../../../corpus/types.ts";

describe("pubmedqa loader (real data)", async () => {
  const d = await loadPubmedqa();

  it("loads all 1,000 PQA-L items, none skipped", () => {
    expect(d.name).toBe("pubmedqa");
    expect(d.taskKind).toBe("conclusion");
    expect(d.items).toHaveLength(1000);
    expect(d.skipped).toEqual({ count: 0, reasons: {} });
    expect(d.warnings).toEqual([]);
    for (const it of d.items) ConclusionTaskSchema.parse(it);
  });

  it("maps PMID 21645374 exactly", () => {
    const t = d.items.find((i) => i.pmid === "21645374")!;
    expect(t.id).toBe("pubmedqa:21645374");
    expect(t.title).toBeNull();
    expect(t.sections.map((s) => s.label)).toEqual(["BACKGROUND", "RESULTS"]);
    expect(t.sections[0].text.startsWith("Programmed cell death (PCD) is the regulated death of cells")).toBe(true);
    expect(t.referenceConclusion.startsWith("Results depicted mitochondrial dynamics in vivo as PCD progresses within the lace plant")).toBe(true);
    expect(t.year).toBe(2011);
    expect(t.meshHeadings).toEqual(["Alismataceae", "Apoptosis", "Cell Differentiation", "Mitochondria", "Plant Leaves"]);
    expect(t.meta).toEqual({
      question: "Do mitochondria play a role in remodelling lace plant leaves during programmed cell death?",
      final_decision: "yes",
      split: "test",
    });
  });

  it("splits 500/500 by the official test file and counts decisions and missing years", () => {
    expect(d.items.filter((i) => i.meta?.split === "test")).toHaveLength(500);
    const dec: Record<string, number> = {};
    for (const i of d.items) dec[String(i.meta?.final_decision)] = (dec[String(i.meta?.final_decision)] ?? 0) + 1;
    expect(dec).toEqual({ yes: 552, no: 338, maybe: 110 });
    expect(d.items.filter((i) => i.year === null)).toHaveLength(58);
  });

  it("filters by split and limit", async () => {
    expect((await loadPubmedqa({ split: "train-dev" })).items).toHaveLength(500);
    expect((await loadPubmedqa({ limit: 3 })).items).toHaveLength(3);
    await expect(loadPubmedqa({ bogus: 1 } as never)).rejects.toThrow(/bogus/);
  });

  it("turns an item into a corpus doc with the question standing in for the title", () => {
    const t = d.items.find((i) => i.pmid === "21645374")!;
    const doc = pubmedqaTaskToDoc(t);
    expect(doc.id).toBe("21645374");
    expect(doc.title).toBe("Do mitochondria play a role in remodelling lace plant leaves during programmed cell death?");
    expect(doc.text.split("\n").map((l) => l.split(":")[0])).toEqual(["BACKGROUND", "RESULTS", "CONCLUSIONS"]);
    expect(pubmedqaTaskToDoc(t, false).text.includes("CONCLUSIONS:")).toBe(false);
  });
});
