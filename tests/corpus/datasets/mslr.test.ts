import { fileURLToPath } from "node:url";
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

describe("mslr test-summary loader (MSLR2022 format; our own sample file)", async () => {
  // tests/fixtures/mslr/mslr-sample.jsonl: two reviews written for this test in the MSLR2022
  // format (tokenised, PICO-tagged), one reference without s2id, and one line that is not JSON.
  const SAMPLE = fileURLToPath(new URL("../../fixtures/mslr/mslr-sample.jsonl", import.meta.url));
  const d = await loadMslr({ path: SAMPLE });

  it("loads 2 reviews with 2 and 1 references; the broken line and the id-less reference are counted", () => {
    expect(d.items.map((i) => i.id)).toEqual(["mslr:900001", "mslr:900002"]);
    expect(d.items.map((i) => i.goldenDocs.length)).toEqual([2, 1]);
    expect(d.items.every((i) => i.goldenPmids.length === 0)).toBe(true);
    expect(d.skipped).toEqual({ count: 1, reasons: { "invalid JSON": 1 } });
    expect(d.warnings).toEqual([`${SAMPLE}:1: reference 2 lacks title_abstract or s2id; left out`, `${SAMPLE}:3: invalid JSON; skipped`]);
    expect(d.items[0].goldenDocs[0]).toEqual({
      id: "s2:111",
      title: "A walking trial in stage 1 hypertension",
      text: "We randomly assigned 120 adults to brisk walking or usual care. Systolic pressure fell by 4 mm Hg (95% CI, 1-7).",
      year: null,
      source: "mslr",
    });
    expect(d.items[0].goldenDocs[1].text).toBe("Participants didn't change their diet.");
  });

  it("makes question, background and reference readable", () => {
    // no OBJECTIVE heading → the whole preface is the question
    expect(d.items[0].question).toBe("Daily walking is often advised for adults with mild hypertension (stage 1), affecting 20-30% of these adults. No pooled estimate of its effect exists.");
    expect(d.items[0].referenceConclusion).toBe("Walking programmes lowered systolic pressure by a small amount. The effect on diastolic pressure was uncertain");
    expect(d.items[1].question).toBe("The objective was to pool randomized trials of oral zinc on cold duration.");
    expect(d.items[1].referenceConclusion).toBe("Zinc shortened colds by about one day");
    expect(objectiveFromPreface("PURPOSE The goal was X. More.")).toBe("The goal was X.");
  });

  it("without a file says that medsynth ships none", async () => {
    await expect(loadMslr()).rejects.toThrow(/dataset "mslr": medsynth ships no MSLR2022 file[\s\S]*--path/);
  });
});
