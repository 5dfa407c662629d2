/**
 * `swap` perturbation (issue 15): rule-based PICO extraction on hand-made sentences, the swap of
 * intervention / comparator / outcome on a hand-made abstract with the exact expected text and
 * record, "not applied" reasons, seeding, strength, the LLM extractor against a scripted server,
 * and Perturbed-RAG with `op: swap`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createGeneratorModel } from "../../models/registry.ts";
import { extractPicoRules } from "../../graphs/perturb/pico.ts";
import { createPerturbation } from "../../graphs/perturb/registry.ts";
import { replacePhrase } from "../../graphs/perturb/swap.ts";
import type { PerturbationContext, PerturbedPassage } from "../../graphs/perturb/types.ts";
import { getWorkflow } from "../../graphs/registry.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { promptText, scriptedModel } from "./fixtures.ts";

const T1: PerturbedPassage = {
  id: "t1",
  title: "Aspirin versus placebo for secondary prevention of stroke",
  text: "We randomly assigned 400 patients to receive either aspirin (100 mg) or placebo. The primary outcome was recurrent stroke at 2 years. Aspirin reduced recurrent stroke compared with placebo (HR 0.70). Aspirin was well tolerated.",
};
const T2: PerturbedPassage = { id: "t2", title: "Statins compared with placebo in heart failure", text: "Statins did not reduce mortality." };
// d1 is the only acceptable donor: g is golden, t1 is present, d2's terms share words with T1's, d3 names none.
const D1: CorpusDoc = { id: "d1", title: "Clopidogrel versus usual care after myocardial infarction", text: "The primary outcome was major bleeding at 1 year." };
const D2: CorpusDoc = { id: "d2", title: "Low-dose aspirin versus placebo tablets in atrial fibrillation", text: "The primary outcome was recurrent stroke or death." };
const D3: CorpusDoc = { id: "d3", title: "Exercise training in heart failure", text: "Patients exercised three times a week." };
const G: CorpusDoc = { id: "g", title: "Warfarin versus heparin", text: "The primary outcome was bleeding." };
const pool = [T1 as CorpusDoc, G, D2, D1, D3];
const ctx = (over: Partial<PerturbationContext> = {}): PerturbationContext => ({ itemId: "item-1", question: "Does aspirin prevent stroke?", seed: 7, goldenIds: new Set(["t1", "g"]), pool, ...over });

describe("rule-based PICO extraction", () => {
  it.each([
    ["A randomized study comparing retroperitoneal drainage with no drainage after lymphadenectomy.", { intervention: "retroperitoneal drainage", comparator: "no drainage" }],
    ["Donepezil 10 mg daily was compared to placebo to treat memory impairment.", { intervention: "Donepezil 10 mg daily", comparator: "placebo" }],
    [
      "High resolution colonoscopy with chromoscopy versus standard colonoscopy for the detection of neoplasia.",
      { intervention: "High resolution colonoscopy with chromoscopy", comparator: "standard colonoscopy" },
    ],
    ["Patients were randomly assigned to receive either donepezil (10 mg daily) or placebo.", { intervention: "donepezil", comparator: "placebo" }],
    ["We studied the effect of total colonic dye spray on adenoma detection during routine colonoscopy.", { outcome: "adenoma detection" }],
    ["Outcomes were compared in terms of overall survival, toxicity and cost.", { outcome: "overall survival" }],
    ["It is not known whether this intervention reduces the risk of recurrent stroke in patients with PFO.", { outcome: "recurrent stroke" }],
    ["Patients treated with metformin had fewer events.", { intervention: "metformin" }],
    // known miss (documented): the name is cut at its inner "of" ("Closure of patent foramen ovale")
    ["Closure of patent foramen ovale versus medical therapy after cryptogenic stroke.", { intervention: "patent foramen ovale", comparator: "medical therapy" }],
    // known miss (documented): no cue phrase, nothing found
    ["Drug X reduced mortality.", {}],
  ])("%s", (sentence, expected) => {
    const got = Object.fromEntries(Object.entries(extractPicoRules("", sentence)).map(([k, v]) => [k, v!.text]));
    expect(got).toEqual(expected);
  });
  it("the title wins over the abstract", () => {
    expect(extractPicoRules(T1.title, T1.text)).toEqual({
      intervention: { text: "Aspirin", rule: "versus" },
      comparator: { text: "placebo", rule: "versus" },
      outcome: { text: "recurrent stroke", rule: "primary outcome was" },
    });
  });
  it("replaces whole words case-insensitively, keeping the first letter's case", () => {
    expect(replacePhrase("Aspirin or aspirin-like drugs; low aspirin", "aspirin", "Clopidogrel")).toEqual({ text: "Clopidogrel or aspirin-like drugs; low clopidogrel", count: 2 });
  });
});

describe("swap operator", () => {
  it("swaps the intervention everywhere with the donor's, recording each sentence before/after", async () => {
    const r = await createPerturbation({ op: "swap", strength: 1, element: "intervention" }).apply([T1], ctx());
    expect(r.evidence[0].title).toBe("Clopidogrel versus placebo for secondary prevention of stroke");
    expect(r.evidence[0].text).toBe(
      "We randomly assigned 400 patients to receive either clopidogrel (100 mg) or placebo. The primary outcome was recurrent stroke at 2 years. Clopidogrel reduced recurrent stroke compared with placebo (HR 0.70). Clopidogrel was well tolerated.",
    );
    const term = { before: "Aspirin", after: "Clopidogrel", donor: "d1" };
    expect(r.step).toEqual({
      op: "swap",
      applied: true,
      inserted: [],
      changes: [
        { op: "swap", docId: "t1", kind: "intervention:title", before: T1.title, after: "Clopidogrel versus placebo for secondary prevention of stroke", term },
        {
          op: "swap",
          docId: "t1",
          kind: "intervention",
          before: "We randomly assigned 400 patients to receive either aspirin (100 mg) or placebo.",
          after: "We randomly assigned 400 patients to receive either clopidogrel (100 mg) or placebo.",
          term,
        },
        {
          op: "swap",
          docId: "t1",
          kind: "intervention",
          before: "Aspirin reduced recurrent stroke compared with placebo (HR 0.70).",
          after: "Clopidogrel reduced recurrent stroke compared with placebo (HR 0.70).",
          term,
        },
        { op: "swap", docId: "t1", kind: "intervention", before: "Aspirin was well tolerated.", after: "Clopidogrel was well tolerated.", term },
      ],
    });
  });
  it("swaps the comparator and the outcome", async () => {
    const c = await createPerturbation({ op: "swap", element: "comparator" }).apply([T1], ctx());
    expect(c.evidence[0].title).toBe("Aspirin versus usual care for secondary prevention of stroke");
    expect(c.evidence[0].text).toBe(
      "We randomly assigned 400 patients to receive either aspirin (100 mg) or usual care. The primary outcome was recurrent stroke at 2 years. Aspirin reduced recurrent stroke compared with usual care (HR 0.70). Aspirin was well tolerated.",
    );
    const o = await createPerturbation({ op: "swap", element: "outcome" }).apply([T1], ctx());
    expect(o.evidence[0].title).toBe(T1.title);
    expect(o.evidence[0].text).toBe(
      "We randomly assigned 400 patients to receive either aspirin (100 mg) or placebo. The primary outcome was major bleeding at 2 years. Aspirin reduced major bleeding compared with placebo (HR 0.70). Aspirin was well tolerated.",
    );
    expect(o.step.changes.map((x) => x.term)).toEqual([
      { before: "recurrent stroke", after: "major bleeding", donor: "d1" },
      { before: "recurrent stroke", after: "major bleeding", donor: "d1" },
    ]);
  });
  it("records why it could not apply: no element, no donor, no pool, strength 0", async () => {
    const noTerm: PerturbedPassage = { id: "n", title: "Notes", text: "Mortality was lower." };
    const a = await createPerturbation({ op: "swap" }).apply([noTerm, T1], ctx());
    expect(a.step.applied).toBe(true);
    expect(a.step.reason).toBe("no intervention found (rule extractor) in n");
    expect(a.evidence[0]).toBe(noTerm);
    const b = await createPerturbation({ op: "swap" }).apply([T1], ctx({ pool: [D2, D3] }));
    expect(b.step).toEqual({ op: "swap", applied: false, reason: "no pool document with a different intervention among 2 examined for t1", changes: [], inserted: [] });
    expect(b.evidence[0]).toEqual(T1);
    const c = await createPerturbation({ op: "swap" }).apply([T1], ctx({ pool: undefined }));
    expect(c.step.reason).toBe("no document pool to take a replacement intervention from (the workflow has no retrieval corpus)");
    const d = await createPerturbation({ op: "swap", strength: 0 }).apply([T1], ctx());
    expect(d.step).toMatchObject({ applied: false, reason: "strength 0 selects no passage of 1" });
  });
  it("is seeded: the same seed picks the same donor; other seeds reach the other acceptable donor", async () => {
    const D4: CorpusDoc = { id: "d4", title: "Ticagrelor versus usual care", text: "" };
    const op = createPerturbation({ op: "swap" });
    const donor = async (seed: number) => (await op.apply([T1], ctx({ seed, pool: [...pool, D4] }))).step.changes[0].term!.after;
    expect(await donor(1)).toBe(await donor(1));
    const seen = new Set(await Promise.all([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(donor)));
    expect(seen).toEqual(new Set(["Clopidogrel", "Ticagrelor"]));
  });
  it("strength 0.5 of two passages swaps exactly one", async () => {
    const r = await createPerturbation({ op: "swap", strength: 0.5 }).apply([T1, T2], ctx({ goldenIds: new Set(["t1", "t2", "g"]) }));
    expect(new Set(r.step.changes.map((c) => c.docId)).size).toBe(1);
  });
});

describe("swap with the LLM extractor and in Perturbed-RAG", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  it("asks the model for verbatim PICO phrases and drops one that is not in the text", async () => {
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Title: Aspirin versus placebo")) return { content: JSON.stringify({ intervention: "aspirin", comparator: "placebo", outcome: "recurrent stroke" }) };
      if (t.includes("Title: Clopidogrel")) return { content: JSON.stringify({ intervention: "Clopidogrel", comparator: "usual care", outcome: "major bleeding" }) };
      return { content: JSON.stringify({ intervention: "an invented drug", comparator: null, outcome: null }) };
    });
    const model = scriptedModel(server);
    const run = { calls: [], repeat: 0 } as never;
    const r = await createPerturbation({ op: "swap", extractor: "llm", maxDonors: 5 }, { model }).apply([T1], ctx({ pool: [D3, D1], run }));
    expect(r.evidence[0].text).toBe(
      "We randomly assigned 400 patients to receive either clopidogrel (100 mg) or placebo. The primary outcome was recurrent stroke at 2 years. Clopidogrel reduced recurrent stroke compared with placebo (HR 0.70). Clopidogrel was well tolerated.",
    );
    // t1, then the donors in seeded order until one fits (d3's "invented drug" is not in its text)
    const titles = server.chatRequests().map((q) => /Title: (\w+)/.exec(promptText(q))?.[1]);
    expect(titles[0]).toBe("Aspirin");
    expect(titles).toContain("Clopidogrel");
    expect(() => createPerturbation({ op: "swap", extractor: "llm" })).toThrow(/needs an LLM/);
  });
  it("Perturbed-RAG op swap records the step; the extractive baseline copies swapped sentences", async () => {
    const model = createGeneratorModel("extractive:mmr", {});
    const task = {
      id: "item-1",
      dataset: "medevidence",
      question: "Does aspirin prevent stroke?",
      referenceConclusion: null,
      referenceAnswer: null,
      evidenceCertainty: null,
      goldenPmids: ["t1"],
      goldenDocs: [T1 as CorpusDoc],
    };
    const r = await getWorkflow("perturbed-rag")
      .create({ model, corpus: [T1 as CorpusDoc, D2, D1, D3] }, { op: "swap", element: "outcome", strength: 1 })
      .run(task, { repeat: 0 });
    expect(r.status).toBe("ok");
    const p = r.intermediate.perturbation as { steps: { op: string; applied: boolean }[]; evidence: { text: string }[] };
    expect(p.steps).toMatchObject([{ op: "swap", applied: true }]);
    expect(p.evidence[0].text).toContain("Aspirin reduced major bleeding compared with placebo");
    expect(r.output).not.toContain("recurrent stroke");
  });
});
