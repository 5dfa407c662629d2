/** Rule negator on real MedEvidence sentences, with exact expected outputs. */
import { describe, expect, it } from "vitest";
import { createRuleNegator, negateAbstract, negateSentence } from "../../graphs/perturb/rule-negator.ts";
import { medEvidenceTasks } from "./fixtures.ts";

describe("rule negator", () => {
  it.each([
    [
      "No difference in the incidence of postoperative lymphocyst formation or postoperative complications was found between the two study arms.",
      "A significant difference in the incidence of postoperative lymphocyst formation or postoperative complications was found between the two study arms.",
    ],
    [
      "Postoperative hospital stay was significantly shorter in Group B (P < 0.001), whereas the complication rate was significantly higher in Group A (P = 0.01).",
      "Postoperative hospital stay was not significantly shorter in Group B (P > 0.05), whereas the complication rate was not significantly higher in Group A (P > 0.05).",
    ],
    [
      "Donepezil-treated patients showed significant improvement in memory performance on the SRT compared to placebo (p = 0.043).",
      "Donepezil-treated patients showed no significant improvement in memory performance on the SRT compared to placebo (p > 0.05).",
    ],
    [
      "No significant treatment effects were found between groups on either primary outcome of memory or any secondary cognitive outcomes.",
      "Significant treatment effects were found between groups on either primary outcome of memory or any secondary cognitive outcomes.",
    ],
    [
      "Donepezil improved memory in MS patients with initial cognitive impairment in a single center clinical trial.",
      "Donepezil worsened memory in MS patients with initial cognitive impairment in a single center clinical trial.",
    ],
    [
      "Donepezil did not improve memory as compared to placebo on either of the primary outcomes in this study.",
      "Donepezil improved memory as compared to placebo on either of the primary outcomes in this study.",
    ],
    [
      "Prophylactic drainage of the retroperitoneum seems to increase lymphadenectomy-related morbidity and postoperative stay.",
      "Prophylactic drainage of the retroperitoneum seems to decrease lymphadenectomy-related morbidity and postoperative stay.",
    ],
    ["The difference showed a p-value of 0.06 in Fisher's Exact test.", "The difference showed a p-value below 0.05 in Fisher's Exact test."],
    [
      "Symptomatic ascites developed in 2 drained (3%) and 3 not-drained (4%) patients (NS), respectively.",
      "Symptomatic ascites developed in 2 drained (3%) and 3 not-drained (4%) patients (P < 0.05), respectively.",
    ],
    ["Drug A was superior to placebo and patients had fewer relapses.", "Drug A was inferior to placebo and patients had more relapses."],
  ])("negates %s", (input, expected) => {
    expect(negateSentence(input).text).toBe(expected);
  });

  // Significance rule 8: "significantly" negated grammatically for the verb form around it
  // (before this, "X significantly reduced Y" became the ungrammatical "X not significantly reduced Y").
  it.each([
    ["Aspirin significantly reduced mortality.", "Aspirin did not significantly reduce mortality."],
    ["Aspirin significantly reduces mortality.", "Aspirin does not significantly reduce mortality."],
    ["Statins significantly reduce mortality in adults.", "Statins do not significantly reduce mortality in adults."],
    ["Mortality was significantly reduced with aspirin.", "Mortality was not significantly reduced with aspirin."],
    ["Mortality was reduced significantly in the aspirin group.", "Mortality was not reduced significantly in the aspirin group."],
    ["Pain scores decreased significantly after treatment.", "Pain scores did not decrease significantly after treatment."],
    ["Outcomes differed significantly between groups.", "Outcomes did not differ significantly between groups."],
    ["Treatment significantly improved survival (p < 0.01).", "Treatment did not significantly improve survival (p > 0.05)."],
    ["The intervention statistically significantly decreased pain scores.", "The intervention did not statistically significantly decrease pain scores."],
    ["Exercise significantly attenuated the decline.", "Exercise did not significantly attenuate the decline."],
    ["Metformin significantly inhibited tumour growth.", "Metformin did not significantly inhibit tumour growth."],
    ["The pooled analysis, however, significantly favoured X.", "The pooled analysis, however, did not significantly favour X."],
    ["X significantly reduced pain and significantly improved function.", "X did not significantly reduce pain and did not significantly improve function."],
    ["Patients showed significantly improved survival.", "Patients did not show significantly improved survival."],
    ["Patients receiving X had significantly higher response rates.", "Patients receiving X did not have significantly higher response rates."],
    ["The intervention group has significantly higher scores.", "The intervention group does not have significantly higher scores."],
    ["Mortality remained significantly lower in group A.", "Mortality did not remain significantly lower in group A."],
    ["Aspirin has significantly reduced mortality.", "Aspirin has not significantly reduced mortality."],
    ["Aspirin may significantly reduce mortality.", "Aspirin may not significantly reduce mortality."],
    ["The drug was associated with a significantly increased risk.", "The drug was associated with no significantly increased risk."],
    ["Treatment was associated with significantly reduced mortality.", "Treatment was associated with no significantly reduced mortality."],
    ["Aspirin did not significantly reduce mortality.", "Aspirin significantly reduced mortality."],
    ["Aspirin does not significantly reduce mortality.", "Aspirin significantly reduces mortality."],
    ["Survival was not significantly improved.", "Survival was significantly improved."],
  ])("negates significance grammatically: %s", (input, expected) => {
    expect(negateSentence(input).text).toBe(expected);
    expect(negateSentence(input).mode).toBe("significance");
  });

  it("leaves background and methods of a real abstract alone and reports the changed sentences", () => {
    const doc = medEvidenceTasks(1)[0].goldenDocs.find((d) => d.id === "17466514")!;
    const r = negateAbstract(doc.text);
    expect(r.changed.map((c) => c.index)).toEqual([7, 9, 11]);
    // "more than 3000 ml" is a methods sentence (index 4) and must survive unchanged.
    expect(r.text).toContain("The main exclusion criteria were blood loss of more than 3000 ml during surgery");
    expect(r.text).toContain("It was concluded that drains cannot be safely omitted");
    expect(r.text).not.toContain("No difference in the incidence");
  });

  it("negates only RESULTS/CONCLUSIONS segments of a structured abstract", () => {
    const text = "BACKGROUND: Mortality was higher in older patients. RESULTS: Mortality was significantly lower with drug X (p = 0.01). CONCLUSIONS: Drug X reduced mortality.";
    const r = negateAbstract(text);
    expect(r.text).toBe("BACKGROUND: Mortality was higher in older patients. RESULTS: Mortality was not significantly lower with drug X (p > 0.05). CONCLUSIONS: Drug X increased mortality.");
    expect(r.changed.map((c) => c.mode)).toEqual(["significance", "direction"]);
  });

  it("rejects unknown config keys", () => {
    expect(() => createRuleNegator({ strength: 2 } as never)).toThrow();
  });
});
