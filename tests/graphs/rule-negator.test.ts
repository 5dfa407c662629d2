/** Rule negator on real MedEvidence sentences, with exact expected outputs. */
import { describe, expect, it } from "vitest";
import { createRuleNegator, negateAbstract, negateSentence } from "../../graphs/perturb/rule-negator.ts";
import { medEvidenceTasks } from "./fixtures.ts";

describe("rule negator", () => {
  it.each([
    ["No difference in the incidence of postoperative lymphocyst formation or postoperative complications was found between the two study arms.", "A significant difference in the incidence of postoperative lymphocyst formation or postoperative complications was found between the two study arms."],
    ["Postoperative hospital stay was significantly shorter in Group B (P < 0.001), whereas the complication rate was significantly higher in Group A (P = 0.01).", "Postoperative hospital stay was not significantly shorter in Group B (P > 0.05), whereas the complication rate was not significantly higher in Group A (P > 0.05)."],
    ["Donepezil-treated patients showed significant improvement in memory performance on the SRT compared to placebo (p = 0.043).", "Donepezil-treated patients showed no significant improvement in memory performance on the SRT compared to placebo (p > 0.05)."],
    ["No significant treatment effects were found between groups on either primary outcome of memory or any secondary cognitive outcomes.", "Significant treatment effects were found between groups on either primary outcome of memory or any secondary cognitive outcomes."],
    ["Donepezil improved memory in MS patients with initial cognitive impairment in a single center clinical trial.", "Donepezil worsened memory in MS patients with initial cognitive impairment in a single center clinical trial."],
    ["Donepezil did not improve memory as compared to placebo on either of the primary outcomes in this study.", "Donepezil improved memory as compared to placebo on either of the primary outcomes in this study."],
    ["Prophylactic drainage of the retroperitoneum seems to increase lymphadenectomy-related morbidity and postoperative stay.", "Prophylactic drainage of the retroperitoneum seems to decrease lymphadenectomy-related morbidity and postoperative stay."],
    ["The difference showed a p-value of 0.06 in Fisher's Exact test.", "The difference showed a p-value below 0.05 in Fisher's Exact test."],
    ["Symptomatic ascites developed in 2 drained (3%) and 3 not-drained (4%) patients (NS), respectively.", "Symptomatic ascites developed in 2 drained (3%) and 3 not-drained (4%) patients (P < 0.05), respectively."],
    ["Drug A was superior to placebo and patients had fewer relapses.", "Drug A was inferior to placebo and patients had more relapses."],
  ])("negates %s", (input, expected) => {
    expect(negateSentence(input).text).toBe(expected);
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
