import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { createExtractiveModel, createGeneratorModel, ExtractiveConfigSchema, mmrSynthesize, passageSentences, splitSentences } from "../../models/index.ts";
import type { EvidencePassage } from "../../models/index.ts";

/**
 * Hand-computed case (idf = ln((1+N)/(1+df)) + 1, N = 3 sentences):
 *  S1 = {aspirin, stroke, reduction}, S2 = S1 + {trial}, S3 = {stroke, bleeding, risk};
 *  question {aspirin, reduction, bleeding}.
 *  rel: S1 0.6420, S2 0.4977, S3 0.4443 → S1 first.
 *  sim(S2,S1) 0.7752, sim(S3,S1) 0.1855.
 *  λ=0.7: S2 0.7·0.4977−0.3·0.7752 = 0.1158; S3 0.7·0.4443−0.3·0.1855 = 0.2554 → S3.
 *  λ=1: S2 (0.4977) beats S3 (0.4443).
 */
const tiny: EvidencePassage[] = [
  { id: "A", title: "a", text: "Aspirin stroke reduction." },
  { id: "B", title: "b", text: "Aspirin stroke reduction trial." },
  { id: "C", title: "c", text: "Stroke bleeding risk." },
];
const q = "aspirin reduction bleeding";

const realistic: EvidencePassage[] = [
  {
    id: "A",
    title: "A",
    text: "BACKGROUND: Stroke is common in older adults. METHODS: We randomised 400 patients to aspirin or placebo. RESULTS: Aspirin reduced stroke incidence in older adults by one third. Major bleeding occurred in 2.1% of patients vs. 1.0% with placebo. CONCLUSIONS: Aspirin prevents stroke in older adults but increases bleeding.",
  },
  { id: "B", title: "B", text: "RESULTS: Aspirin reduced stroke incidence in older adults by one quarter. CONCLUSIONS: These findings support aspirin use." },
  { id: "C", title: "C", text: "Dementia outcomes were unchanged by aspirin in this cohort of older adults. Cognitive decline did not differ between groups (P = .40)." },
];

describe("extractive:mmr", () => {
  it("picks the hand-computed sentences: MMR skips the near-duplicate that pure relevance takes", () => {
    const cfg = (lambda: number) => ExtractiveConfigSchema.parse({ lambda, minWords: 3 });
    const mmr = mmrSynthesize({ question: q, evidence: tiny, targetSentences: 2 }, cfg(0.7));
    expect(mmr.sentences).toEqual([
      { docId: "A", text: "Aspirin stroke reduction." },
      { docId: "C", text: "Stroke bleeding risk." },
    ]);
    expect(mmr.text).toBe("Aspirin stroke reduction. Stroke bleeding risk.");
    const relOnly = mmrSynthesize({ question: q, evidence: tiny, targetSentences: 2 }, cfg(1));
    expect(relOnly.sentences.map((s) => s.docId)).toEqual(["A", "B"]);
  });

  it("prefers RESULTS/CONCLUSIONS sentences and copies them verbatim; stops at 3 sentences by default", () => {
    const m = createGeneratorModel("extractive:mmr");
    expect(m.kind).toBe("extractive");
    if (m.kind !== "extractive") throw new Error("unreachable");
    const out = m.synthesize({ question: "Does aspirin reduce stroke in older adults?", evidence: realistic });
    expect(out.sentences.length).toBe(3);
    const all = realistic.map((e) => e.text).join("\n");
    for (const s of out.sentences) expect(all).toContain(s.text);
    expect(out.text).not.toMatch(/BACKGROUND|METHODS|RESULTS:|Stroke is common/);
  });

  it("stops once targetWords is reached", () => {
    const out = mmrSynthesize({ question: q, evidence: tiny, targetWords: 4 }, ExtractiveConfigSchema.parse({ minWords: 3 }));
    expect(out.sentences.length).toBe(2); // 3 words, then 3 more ≥ 4
  });

  it("on real PubMedQA abstracts every output sentence is a substring of the evidence", () => {
    const data = JSON.parse(readFileSync(datasetFileSync("pubmedqa/ori_pqal.json"), "utf8")) as Record<string, { QUESTION: string; CONTEXTS: string[]; LABELS: string[] }>;
    const ids = Object.keys(data).slice(0, 12);
    const evidence: EvidencePassage[] = ids.map((id) => ({ id, title: data[id].QUESTION, text: data[id].CONTEXTS.map((c, i) => `${data[id].LABELS[i]}: ${c}`).join("\n") }));
    for (const id of ["extractive:mmr", "extractive:lead"]) {
      const m = createExtractiveModel(id);
      const out = m.synthesize({ question: data[ids[0]].QUESTION, evidence, targetSentences: 5 });
      expect(out.sentences.length).toBe(5);
      for (const s of out.sentences) {
        const doc = evidence.find((e) => e.id === s.docId)!;
        expect(doc.text).toContain(s.text);
        expect(out.text).toContain(s.text);
      }
      // deterministic
      expect(m.synthesize({ question: data[ids[0]].QUESTION, evidence, targetSentences: 5 })).toEqual(out);
    }
  });

  it("refuses to run without evidence and rejects unknown ids/config", () => {
    const m = createExtractiveModel("extractive:mmr");
    expect(() => m.synthesize({ question: "x", evidence: [] })).toThrow(/none was given/);
    expect(() => createExtractiveModel("extractive:textrank")).toThrow(/valid ids: extractive:mmr, extractive:lead/);
    expect(() => createGeneratorModel("gpt4")).toThrow(/valid ids: openai:<model>, extractive:mmr, extractive:lead/);
    expect(() => createExtractiveModel("extractive:mmr", { lamda: 0.5 } as never)).toThrow(/lamda/);
  });
});

describe("extractive:lead", () => {
  it("takes the first CONCLUSIONS sentence, else RESULTS, else the first sentence, per abstract", () => {
    const out = createExtractiveModel("extractive:lead").synthesize({ question: "", evidence: realistic });
    expect(out.sentences).toEqual([
      { docId: "A", text: "Aspirin prevents stroke in older adults but increases bleeding." },
      { docId: "B", text: "These findings support aspirin use." },
      { docId: "C", text: "Dementia outcomes were unchanged by aspirin in this cohort of older adults." },
    ]);
  });
});

describe("sentence splitting", () => {
  it("keeps abbreviations and decimals inside sentences", () => {
    expect(splitSentences("Risk fell (HR 0.75, 95% CI 0.6-0.9; P < .001). Smith et al. found e.g. more. Trial No. 5 ended.")).toEqual([
      "Risk fell (HR 0.75, 95% CI 0.6-0.9; P < .001).",
      "Smith et al. found e.g. more.",
      "Trial No. 5 ended.",
    ]);
  });
  it("labels sections from RESULTS:/CONCLUSIONS: markers", () => {
    expect(passageSentences(realistic[1], 1).map((s) => [s.section, s.position])).toEqual([
      ["results", 0],
      ["conclusions", 1],
    ]);
  });
});
