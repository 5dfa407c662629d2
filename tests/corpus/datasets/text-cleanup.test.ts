import { describe, expect, it } from "vitest";
import { cleanMslrText, detokenize, rejoinAndSplitWords, removePicoTags, splitTitleAbstract, stripSectionHeadings } from "../../../corpus/text-cleanup.ts";

// Inputs are short excerpts in the tokenised, PICO-tagged MS²/MSLR format (registry dataset "ms2" and the MSLR2022 files).
describe("MS²/MSLR text cleanup", () => {
  it("removes PICO tags, including spans crossing sentence splits", () => {
    expect(removePicoTags("</out> </pop> OBJECTIVE To assess <int> oral vitamin K </int>").replace(/\s+/g, " ").trim()).toBe("OBJECTIVE To assess oral vitamin K");
  });

  it("detokenises punctuation, brackets, percent and numeric ranges", () => {
    expect(cleanMslrText("we found an <out> odds ratio ( OR ) </out> favoring menaquinone of 0.40 ( 95 % confidence interval [ CI ] , 0.25 - 0.65 ) for <out> vertebral fractures </out> .")).toBe(
      "we found an odds ratio (OR) favoring menaquinone of 0.40 (95% confidence interval [CI], 0.25-0.65) for vertebral fractures.",
    );
  });

  it("re-attaches contractions, possessives, split hyphens and slashes", () => {
    expect(detokenize("priming of the infants ' mucosal immunity")).toBe("priming of the infants' mucosal immunity");
    expect(detokenize("it did n't work and the patient 's dose")).toBe("it didn't work and the patient's dose");
    expect(detokenize("a meta- analysis of galacto- and fructo-oligosaccharides")).toBe("a meta-analysis of galacto- and fructo-oligosaccharides");
    expect(detokenize("colonization of harmful microorganism and /or the stimulation")).toBe("colonization of harmful microorganism and/or the stimulation");
    expect(detokenize("BMI 25 kg/m(2 ) ) , mean 5 +/- 2 mg / kg")).toBe("BMI 25 kg/m(2)), mean 5 +/- 2 mg/kg");
  });

  it("re-joins words the tokeniser split around 'and' but keeps real conjunctions", () => {
    expect(cleanMslrText("STUDY SELECTION R and <pop> omized </pop> controlled trials that gave")).toBe("STUDY SELECTION Randomized controlled trials that gave");
    expect(rejoinAndSplitWords("were r and omly assigned")).toBe("were randomly assigned");
    expect(rejoinAndSplitWords("the st and ard dose and underst and ing of it")).toBe("the standard dose and understanding of it");
    expect(rejoinAndSplitWords("to underst and the effect")).toBe("to understand the effect");
    expect(rejoinAndSplitWords("postpr and ial and pre-pr and ial glucose after prer and omization")).toBe("postprandial and pre-prandial glucose after prerandomization");
    expect(rejoinAndSplitWords("in a r and om and prospective design at 24 h and 48 h with and without C and M")).toBe("in a random and prospective design at 24 h and 48 h with and without C and M");
  });

  it("splits an MSLR reference into title and abstract", () => {
    const r = splitTitleAbstract(
      "<ref> Effect of short-term ingestion of konjac glucomannan on serum cholesterol in healthy men. <sep> The effects of the <int> soluble fiber konjac glucomannan ( GM ) </int> on serum cholesterol . </ref>",
    );
    expect(r).toEqual({
      title: "Effect of short-term ingestion of konjac glucomannan on serum cholesterol in healthy men.",
      abstract: "The effects of the soluble fiber konjac glucomannan (GM) on serum cholesterol.",
    });
    expect(splitTitleAbstract("no separator here .")).toEqual({ title: "", abstract: "no separator here." });
  });

  it("strips sentence-initial section headings only", () => {
    expect(stripSectionHeadings("BACKGROUND Several trials exist. OBJECTIVE The objective was X. CONCLUSIONS Glucomannan appears to help")).toBe(
      "Several trials exist. The objective was X. Glucomannan appears to help",
    );
    expect(stripSectionHeadings("The RESULTS were clear")).toBe("The RESULTS were clear");
  });
});
