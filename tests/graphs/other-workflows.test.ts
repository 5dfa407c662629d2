/** P-ZS, feasibility, MedConclusion modes A–D, RWE summary and the registry. */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConclusionTask, RweStudy } from "../../corpus/types.ts";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { RWE_GLP1_FILE } from "../../corpus/datasets/rwe-glp1.ts";
import { getWorkflow, listWorkflowIds } from "../../graphs/registry.ts";
import { conclusionTargets } from "../../graphs/conclusion-modes.ts";
import { formatStudyRaw } from "../../graphs/rwe-summary.ts";
import { createGeneratorModel } from "../../models/registry.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { medEvidenceTasks, promptText, scriptedModel } from "./fixtures.ts";

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

function pubmedqaTask(): ConclusionTask {
  const d = JSON.parse(readFileSync(datasetFileSync("pubmedqa/ori_pqal.json"), "utf8"));
  const v = d["21645374"];
  return {
    id: "pubmedqa-21645374",
    dataset: "pubmedqa",
    pmid: "21645374",
    title: v.QUESTION,
    sections: v.CONTEXTS.map((text: string, i: number) => ({ label: v.LABELS[i], nlmCategory: null, text })),
    referenceConclusion: v.LONG_ANSWER,
  };
}

/** The GLP-1 vs SGLT2i study of the RWESummary paper, as an RweStudy. */
function glp1Study(): RweStudy {
  const j = JSON.parse(readFileSync(RWE_GLP1_FILE, "utf8"));
  const o = j.results.outcomes as Record<string, string>;
  const outcomes = Object.keys(o)
    .filter((k) => k.endsWith("!OR"))
    .map((k) => {
      const [est, lo, hi] = o[k].match(/[\d.]+/g)!.map(Number);
      const name = k
        .replace(/^outcome_3yrs\.ip\.visit\.for\./, "")
        .replace(/_bin!OR$/, "")
        .replace(/\./g, " ");
      return { name, measure: "OR", estimate: est, ciLower: lo, ciUpper: hi, pValue: Number(o[k.replace("!OR", "!pvalue")]) };
    });
  return {
    id: j.id,
    dataset: "rwe",
    question: j.question,
    design: "cohort",
    picot: { population: j.design.population, intervention: j.design.intervention, comparator: j.design.control, outcomes: outcomes.map((x) => x.name), time: j.design.timeframe },
    cohortSizes: { exposed: 34273, comparator: 20571 },
    propensityMatched: true,
    baselineDifferences: Object.entries(j.results.baseline_differences as Record<string, string>).map(([variable, description]) => ({ variable, description })),
    outcomes,
  };
}

describe("P-ZS", () => {
  it("sends only the title and refuses an extractive model", async () => {
    server = await startScriptedServer([{ content: "ZS" }]);
    const task = medEvidenceTasks(1)[0];
    const r = await getWorkflow("pzs")
      .create({ model: scriptedModel(server) }, {})
      .run(task, { repeat: 0 });
    expect(r.output).toBe("ZS");
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain(task.question);
    expect(sent).not.toContain("PMID");
    expect(() => getWorkflow("pzs").create({ model: createGeneratorModel("extractive:mmr") }, {})).toThrow(/cannot run with the extractive baseline 'extractive:mmr'/);
    expect(() => getWorkflow("pcot").create({ model: createGeneratorModel("extractive:mmr") }, {})).toThrow(/extractive/);
  });
});

describe("feasibility", () => {
  it("averages N runs, each a separate call", async () => {
    const scores = [4, 5, 3];
    let n = 0;
    server = await startScriptedServer(() => ({ content: JSON.stringify({ evaluation: "e", score: scores[n++] }) }));
    const task = { ...medEvidenceTasks(1)[0], referenceConclusion: "Drains can be omitted." };
    const r = await getWorkflow("feasibility")
      .create({ model: scriptedModel(server) }, { runs: 3 })
      .run(task, { repeat: 0 });
    expect(r.output).toBe("4.00");
    // The runs are concurrent: which run receives which scripted score depends on arrival order.
    expect([...(r.intermediate.scores as number[])].sort()).toEqual([3, 4, 5]);
    expect(r.intermediate.passed).toBe(false);
    expect(server.chatRequests()).toHaveLength(3);
    expect(server.chatRequests()[0].body.temperature).toBe(0.5);
    const noRef = await getWorkflow("feasibility")
      .create({ model: scriptedModel(server) }, {})
      .run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(noRef.status).toBe("skipped");
  });
});

describe("MedConclusion modes", () => {
  it("targets of the reference: 4 sentences, 97 words (hand-counted)", () => {
    expect(conclusionTargets(pubmedqaTask().referenceConclusion)).toEqual({ targetSentences: 4, targetWords: 97 });
  });

  it.each(["c", "d"])("mode %s puts the target counts in the prompt; A/B do not", async (mode) => {
    server = await startScriptedServer([{ content: "OUT" }]);
    const model = scriptedModel(server);
    await getWorkflow(`conclusion-${mode}`).create({ model }, {}).run(pubmedqaTask(), { repeat: 0 });
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain("exactly 4 sentence(s) and about 97 words");
    expect(sent).toContain("do not add findings");
    expect(sent).toContain(mode === "c" ? "Write the conclusion" : "Write a summary");
    expect(sent).not.toContain("Results depicted mitochondrial dynamics");
    await getWorkflow(mode === "c" ? "conclusion-a" : "conclusion-b")
      .create({ model }, {})
      .run(pubmedqaTask(), { repeat: 0 });
    const free = promptText(server.chatRequests()[1]);
    expect(free).not.toContain("97 words");
    expect(free).toContain("do not add findings");
  });

  it("the authors' other modes: sentence count only; conclusion and summary with no restriction", async () => {
    server = await startScriptedServer([{ content: "OUT" }]);
    const model = scriptedModel(server);
    const runs: Record<string, unknown>[] = [];
    for (const id of ["conclusion-sentences", "conclusion-unrestricted", "summary-unrestricted"])
      runs.push((await getWorkflow(id).create({ model }, {}).run(pubmedqaTask(), { repeat: 0 })).intermediate);
    const [sentences, conclusion, summary] = server.chatRequests().map(promptText);
    expect(sentences).toContain("in exactly 4 sentence(s)");
    expect(sentences).not.toContain("97");
    expect(runs[0]).toMatchObject({ targets: "sentences", targetSentences: 4 });
    expect(runs[0].targetWords).toBeUndefined();
    for (const p of [conclusion, summary]) {
      expect(p).not.toMatch(/formal|sentence\(s\)|words/);
      expect(p).toContain("do not add findings");
    }
    expect(conclusion).toContain("Write the conclusion of this abstract.");
    expect(summary).toContain("Summarise this study.");
    expect(runs[1]).toMatchObject({ kind: "conclusion", targets: "none", formal: false });
    expect(runs[2]).toMatchObject({ kind: "summary", targets: "none", formal: false });
  });
});

describe("RWE summary", () => {
  it("gives the model the raw structured study (no significance labels), the paper's rules, the PSM note and the two bundled example summaries", async () => {
    server = await startScriptedServer([{ content: "SUMMARY" }]);
    const study = glp1Study();
    const r = await getWorkflow("rwe-summary")
      .create({ model: scriptedModel(server) }, {})
      .run(study, { repeat: 0 });
    expect(r.status).toBe("ok");
    const sent = promptText(server.chatRequests()[0]);
    // The study itself, as JSON: every outcome's estimate, CI and p, and nothing pre-judged.
    expect(sent).toContain(formatStudyRaw(study));
    expect(sent).toContain('"name": "asthma exacerbation"');
    expect(sent).toContain('"pValue": 0.28');
    expect(sent).not.toMatch(/— (not )?statistically significant/);
    expect(sent).not.toContain("p ≥ 0.05");
    // The paper's instructions.
    expect(sent).toContain("only when its p-value is below 0.05");
    expect(sent).toContain("about 100 words");
    expect(sent).toContain("Charlson comorbidity scores to one decimal place");
    expect(sent).toContain("never call them significant");
    expect(sent).toContain("If the study gives no outcomes, make no statement about results.");
    expect(sent).toContain("propensity-score matched");
    expect(sent).toContain("This is a cohort study");
    expect(sent).toContain("control 47.3579 vs intervention 71.2047");
    // Both bundled example summaries, always.
    expect(sent.match(/Example summary:/g)).toHaveLength(2);
    expect(sent).toContain("Statin users had a statistically significantly lower risk of hospitalisation for pneumonia");
    expect(sent).toContain("Clostridioides difficile infection (OR 1.64, 95% CI 1.21 to 2.22, p = 0.001)");
    expect(r.intermediate.template).toBe("rwe-summary-cohort");
    expect(r.intermediate.examples).toBe("bundled");
  });

  it("a fewShotFile replaces the bundled examples; examples: false shows none", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "medsynth-fewshot-")), "ex.txt");
    writeFileSync(file, "MY OWN EXAMPLE SUMMARY");
    server = await startScriptedServer([{ content: "S1" }, { content: "S2" }]);
    await getWorkflow("rwe-summary")
      .create({ model: scriptedModel(server) }, { fewShotFile: file })
      .run(glp1Study(), { repeat: 0 });
    await getWorkflow("rwe-summary")
      .create({ model: scriptedModel(server) }, { examples: false })
      .run(glp1Study(), { repeat: 1 });
    const [withFile, without] = server.chatRequests().map(promptText);
    expect(withFile).toContain("MY OWN EXAMPLE SUMMARY");
    expect(withFile).not.toContain("Example summary:");
    expect(without).not.toContain("Example summar");
  });

  it("uses the case-series instructions and no PSM note when not matched", async () => {
    server = await startScriptedServer([{ content: "SUMMARY" }]);
    const study = { ...glp1Study(), design: "case series" as const, propensityMatched: false };
    await getWorkflow("rwe-summary")
      .create({ model: scriptedModel(server) }, {})
      .run(study, { repeat: 0 });
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain("This is a case series");
    expect(sent).not.toContain("propensity-score matched");
  });
});

describe("registry", () => {
  it("lists the workflows and names valid ids on an unknown one", () => {
    expect(listWorkflowIds()).toEqual([
      "pzs",
      "pcot",
      "standard-rag",
      "golden-rag",
      "negated-rag",
      "perturbed-rag",
      "critic-rag",
      "feasibility",
      "conclusion-a",
      "conclusion-b",
      "conclusion-c",
      "conclusion-d",
      "conclusion-sentences",
      "conclusion-unrestricted",
      "summary-unrestricted",
      "rwe-summary",
    ]);
    expect(() => getWorkflow("gold-rag")).toThrow("unknown workflow 'gold-rag'; valid ids: pzs, pcot, standard-rag");
    expect(() => getWorkflow("golden-rag").create({ model: createGeneratorModel("extractive:mmr") }, { k: 3 } as never)).toThrow();
  });
});
