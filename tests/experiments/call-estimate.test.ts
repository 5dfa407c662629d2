/**
 * Issue 25 item 5: the pre-run estimate is a true upper bound of the model calls. Every registered
 * workflow (with its LLM variants: Standard-RAG keyword queries and LLM reranker, LLM negators,
 * LLM PICO extraction, Critic-RAG's check), the LLM metric (`grounding:llm`) and a judge panel run
 * through the real wiring against the scripted server answering every structured request with a
 * valid answer; the server's request count must not exceed the `--dry-run` figure, and equals it
 * where the calls are fixed by the config.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { dryRunCommand, runCommand } from "../../experiments/cli/run-commands.ts";
import { listWorkflowIds } from "../../graphs/registry.ts";
import { schemaResponder } from "../helpers/schema-answers.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

/** Every string field gets "drug A": found verbatim in the corpus, so queries retrieve and PICO phrases match; two elements per array. */
const reply = schemaResponder({ text: "drug A", arrayLength: 2, plainText: () => "Compared with placebo, drug A reduced mortality in adults. The evidence is moderate." });

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer(reply);
  dir = mkdtempSync(join(tmpdir(), "medsynth-call-estimate-"));
  const doc = (id: string, extra: string) => ({
    id,
    title: `Trial ${id} of drug A`,
    text: `RESULTS: drug A reduced mortality compared with placebo (RR 0.80, 95% CI 0.70 to 0.90). ${extra} CONCLUSIONS: drug A lowered mortality.`,
  });
  const golden = ["g1", "g2", "g3"].map((id) => doc(id, "Adults were enrolled."));
  writeFileSync(
    join(dir, "tiny.jsonl"),
    JSON.stringify({
      kind: "synthesis",
      id: "t1",
      dataset: "tiny",
      question: "Does drug A reduce mortality?",
      referenceConclusion: "Drug A reduced mortality.",
      referenceAnswer: "lower",
      evidenceCertainty: "moderate",
      goldenPmids: golden.map((d) => d.id),
      goldenDocs: golden,
    }) + "\n",
  );
  // an item without a reference (the panel's rubric needs one: no judge call) and one without golden abstracts (skipped, no call)
  writeFileSync(
    join(dir, "noref.jsonl"),
    [
      JSON.stringify({
        kind: "synthesis",
        id: "n1",
        dataset: "noref",
        question: "Does drug A reduce mortality?",
        referenceConclusion: null,
        referenceAnswer: "lower",
        evidenceCertainty: "moderate",
        goldenPmids: golden.map((d) => d.id),
        goldenDocs: golden,
      }),
      JSON.stringify({
        kind: "synthesis",
        id: "n2",
        dataset: "noref",
        question: "Does drug B reduce mortality?",
        referenceConclusion: "It does.",
        referenceAnswer: "lower",
        evidenceCertainty: "moderate",
        goldenPmids: ["x"],
        goldenDocs: [],
      }),
    ].join("\n") + "\n",
  );
  writeFileSync(join(dir, "corpus.jsonl"), Array.from({ length: 12 }, (_, i) => JSON.stringify(doc(`c${i}`, `Cohort ${i}.`))).join("\n") + "\n");
  writeFileSync(
    join(dir, "panel.yaml"),
    YAML.stringify({
      id: "p",
      rubric: "medmeta-semantic-equivalence",
      endpoints: { j: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false } },
      judges: [{ id: "a", model: "openai:judge-a", endpoint: "j" }],
    }),
  );
});
afterAll(async () => server?.close());

const SYNTH = [{ name: "jsonl", options: { path: "tiny.jsonl" } }];
const NOREF = [{ name: "jsonl", options: { path: "noref.jsonl" } }];
const CONCL = [{ name: "pubmedqa", sample: 1 }];
const RWE = [{ name: "rwe-glp1", sample: 1 }];

/** [label, workflow, params, datasets, extra config, exact (true: requests must equal the estimate's max)] */
const CASES: [string, string, Record<string, unknown>, unknown[], Record<string, unknown>, boolean][] = [
  ["pzs", "pzs", {}, SYNTH, {}, true],
  ["pcot", "pcot", { numQuestions: 2, numNewQuestions: 2, maxIterations: 1 }, SYNTH, {}, true],
  ["standard-rag", "standard-rag", { numQuestions: 2 }, SYNTH, {}, true],
  ["standard-rag keywords", "standard-rag", { queryMode: "keywords", numQueries: 2 }, SYNTH, {}, true],
  ["standard-rag llm reranker", "standard-rag", { numQuestions: 2, reranker: "llm-pointwise", candidatesPerQuery: 3, k: 2 }, SYNTH, {}, true],
  ["golden-rag", "golden-rag", {}, SYNTH, {}, true],
  ["golden-rag + panel", "golden-rag", {}, SYNTH, { panel: "panel.yaml" }, true],
  ["golden-rag + panel, no reference / no golden abstracts", "golden-rag", {}, NOREF, { panel: "panel.yaml" }, true],
  ["feasibility + panel (a score is not judged)", "feasibility", { runs: 2 }, SYNTH, { panel: "panel.yaml" }, true],
  ["negated-rag llm", "negated-rag", { negator: "llm", fraction: 1 }, SYNTH, {}, true],
  ["perturbed-rag negate llm", "perturbed-rag", { op: "negate", negator: "llm" }, SYNTH, {}, true],
  ["perturbed-rag swap llm", "perturbed-rag", { op: "swap", extractor: "llm" }, SYNTH, {}, true],
  ["perturbed-rag numeric + grounding:llm", "perturbed-rag", { op: "numeric" }, SYNTH, { metrics: ["grounding:llm"] }, true],
  ["critic-rag", "critic-rag", {}, SYNTH, {}, true],
  ["critic-rag negate llm", "critic-rag", { op: "negate", negator: "llm" }, SYNTH, {}, true],
  ["feasibility", "feasibility", { runs: 2 }, SYNTH, {}, true],
  ...["conclusion-a", "conclusion-b", "conclusion-c", "conclusion-d", "conclusion-sentences", "conclusion-unrestricted", "summary-unrestricted"].map(
    (w) => [w, w, {}, CONCL, {}, true] as [string, string, Record<string, unknown>, unknown[], Record<string, unknown>, boolean],
  ),
  ["rwe-summary", "rwe-summary", {}, RWE, {}, true],
];

describe("the run estimate bounds the requests a run makes", () => {
  it("covers every registered workflow", () => {
    expect(new Set(CASES.map((c) => c[1]))).toEqual(new Set(listWorkflowIds()));
  });

  it.each(CASES)("%s: requests ≤ estimate", async (label, workflow, params, datasets, extra, exact) => {
    const sub = mkdtempSync(join(dir, "case-"));
    const file = join(sub, "exp.yaml");
    const rel = (p: string) => join(dir, p);
    writeFileSync(
      file,
      YAML.stringify({
        name: label.replace(/[^a-z0-9]+/gi, "-"),
        output: "run",
        datasets: (datasets as { name: string; options?: { path: string } }[]).map((d) => (d.options ? { ...d, options: { path: rel(d.options.path) } } : d)),
        models: [{ id: "openai:gen", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false, maxRetries: 0 } }],
        workflows: [{ id: workflow, params }],
        retrieval: { corpus: rel("corpus.jsonl"), mode: "bm25" },
        metrics: ["rouge"],
        ...extra,
        ...(extra.panel ? { panel: rel(extra.panel as string) } : {}),
      }),
    );
    const est = await dryRunCommand(file, {}, () => {});
    const before = server.chatRequests().length;
    const res = await runCommand(file, { progress: false, report: false }, () => {});
    const made = server.chatRequests().length - before;
    expect(res.failed, JSON.stringify(res.failures)).toBe(0);
    const max = est.generatorCalls.max + est.judgeCalls.max + est.metricCalls.max;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(max);
    if (exact) expect(made).toBe(max);
    expect(made).toBeLessThanOrEqual(est.generatorCalls.worst + est.judgeCalls.worst + est.metricCalls.worst);
  });
});
