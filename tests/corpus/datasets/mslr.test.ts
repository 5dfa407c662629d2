import { describe, expect, it } from "vitest";
import { loadMs2, splitAtConclusions } from "../../../corpus/datasets/ms2.ts";
import { loadMslr, objectiveFromPreface } from "../../../corpus/datasets/mslr.ts";

describe("ms2 sample loader (real data)", async () => {
  const d = await loadMs2();

  it("yields one readable review task with 20 golden studies", () => {
    expect(d.items).toHaveLength(1);
    const t = d.items[0];
    expect(t.id).toBe("ms2:29843175");
    expect(t.question).toBe("Vitamin K and the prevention of fractures: systematic review and meta-analysis of randomized controlled trials.");
    expect(t.referenceConclusion).toBe(
      "This systematic review suggests that supplementation with phytonadione and menaquinone-4 reduces bone loss. In the case of the latter, there is a strong effect on incident fractures among Japanese patients",
    );
    expect(t.background).toBe(
      "Observational and some experimental data suggest that low intake of vitamin K may be associated with an increased risk of fracture. To assess whether oral vitamin K (phytonadione and menaquinone) supplementation can reduce bone loss and prevent fractures.",
    );
    expect(t.goldenPmids).toHaveLength(20);
    expect(t.goldenDocs).toHaveLength(20);
    expect(t.goldenDocs[0].id).toBe("15616893");
    expect(t.goldenDocs[0].year).toBe(2004);
    expect(t.goldenDocs[0].text.startsWith("We have recently demonstrated that glucocorticoid (GC) suppresses bone formation and enhances bone resorption,")).toBe(true);
  });

  it("leaves no PICO tag or tokenisation artefact in any text", () => {
    const all = [d.items[0].question, d.items[0].referenceConclusion ?? "", d.items[0].background ?? "", ...d.items[0].goldenDocs.flatMap((g) => [g.title, g.text])].join("\n");
    expect(all).not.toMatch(/<\/?(pop|int|out)>/);
    expect(all).not.toMatch(/ [.,;)]( |$)/);
    expect(all).not.toMatch(/\b[Rr] and om/);
  });

  it("splits at the CONCLUSIONS heading", () => {
    expect(splitAtConclusions("Results were good. CONCLUSIONS It works.")).toEqual({ before: "Results were good.", conclusion: "It works." });
    expect(splitAtConclusions("No heading here.")).toEqual({ before: "No heading here.", conclusion: null });
  });
});

describe("mslr test-summary loader (real data)", async () => {
  const d = await loadMslr();

  it("loads 3 reviews with 22, 11 and 4 references", () => {
    expect(d.items.map((i) => i.id)).toEqual(["mslr:205832151", "mslr:1785126", "mslr:35828882"]);
    expect(d.items.map((i) => i.goldenDocs.length)).toEqual([22, 11, 4]);
    expect(d.items.every((i) => i.goldenPmids.length === 0)).toBe(true);
    expect(d.items[1].goldenDocs[0]).toEqual(
      expect.objectContaining({ id: "s2:4453203", title: "Effect of short-term ingestion of konjac glucomannan on serum cholesterol in healthy men.", source: "mslr" }),
    );
  });

  it("makes question, background and reference readable", () => {
    const g = d.items[1];
    expect(g.question).toBe("The objective was to perform a meta-analysis of randomized controlled trials of glucomannan to better characterize its impact on plasma lipids, FBG, body weight, and BP.");
    expect(g.referenceConclusion).toBe(
      "The use of glucomannan did not appear to significantly alter any other study endpoints. Pediatric patients, patients receiving dietary modification, and patients with impaired glucose metabolism did not benefit from glucomannan to the same degree. Glucomannan appears to beneficially affect total cholesterol, LDL cholesterol, triglycerides, body weight, and FBG, but not HDL cholesterol or BP",
    );
    // no OBJECTIVE heading → the whole preface is the question
    expect(d.items[0].question).toBe(
      "Necrotizing enterocolitis (NEC) is one of the most serious gastrointestinal emergencies in very low birth weight (VLBW) preterm neonates, affecting 7-14% of these neonates. Due to the seriousness of the disease, prevention of NEC is the most important goal.",
    );
    expect(d.items[0].referenceConclusion).toContain("microorganism and/or the stimulation");
    expect(objectiveFromPreface("PURPOSE The goal was X. More.")).toBe("The goal was X.");
  });
});
