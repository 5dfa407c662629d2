/**
 * LLM grounding judge (`grounding:llm`, issue 15) against the scripted server: exact shares from a
 * scripted attribution, the prompt it sees, retries and "missing" (never a default share), token
 * accounting through the metric stage and the runner.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attributionProblem, isPerturbedSentence, llmGrounding, loadAttributionRubric } from "../../judges/metrics/grounding-llm.ts";
import { computeRecordMetrics, validateMetricSpecs } from "../../experiments/metrics-stage.ts";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { readResults } from "../../results/results-file.ts";
import type { RunRecord } from "../../experiments/types.ts";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { promptText, scriptedModel } from "../graphs/fixtures.ts";
import { fakeDeps } from "../experiments/fake-runner-deps.ts";

// E1 "Aspirin and stroke." E2 "Aspirin reduced stroke (OR 0.75)." E3 the negated (perturbed) sentence
const EVIDENCE = [{ id: "1", text: "Aspirin and stroke. Aspirin reduced stroke (OR 0.75). Aspirin did not significantly reduce the risk of stroke." }];
const SPANS = [{ before: "Aspirin significantly reduced the risk of stroke.", after: "Aspirin did not significantly reduce the risk of stroke." }];
// C1 from the perturbed E3, C2 from E2, C3 and C4 in no evidence
const OUTPUT = "Aspirin did not significantly reduce the risk of stroke. Aspirin reduced stroke. Aspirin cures cancer. Statins were given to all patients.";
const GOOD = {
  claims: [
    { claim: 1, verdict: "supported", evidence: [3] },
    { claim: 2, verdict: "supported", evidence: [2] },
    { claim: 3, verdict: "unsupported", evidence: [] },
    { claim: 4, verdict: "unsupported", evidence: [] },
  ],
};
const reply = (v: unknown, usage = { prompt_tokens: 120, completion_tokens: 30 }): ScriptedReply => ({ content: typeof v === "string" ? v : JSON.stringify(v), usage });

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("LLM grounding judge", () => {
  it("gives supported share 2/4, uptake 1/4 (C1 cites the perturbed E3), 2 unsupported; the judge sees numbered claims and evidence", async () => {
    server = await startScriptedServer([reply(GOOD)]);
    const r = await llmGrounding(scriptedModel(server), { output: OUTPUT, evidence: EVIDENCE, spans: SPANS, question: "Does aspirin prevent stroke?" });
    expect(r.status).toBe("ok");
    if (r.status !== "ok") return;
    expect(r.result).toMatchObject({ sentences: 4, supportedShare: 0.5, uptakeShare: 0.25, unsupported: 2 });
    expect(r.result.perSentence.map((p) => [p.uptake, p.cited])).toEqual([
      [true, [3]],
      [false, [2]],
      [false, []],
      [false, []],
    ]);
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0].usage).toEqual({ inputTokens: 120, outputTokens: 30 });
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain("E3 [1] Aspirin did not significantly reduce the risk of stroke.");
    expect(sent).toContain("C4 Statins were given to all patients.");
    expect(sent).toContain("Does aspirin prevent stroke?");
    expect(sent).toContain(loadAttributionRubric().instructions[0]);
    expect(server.chatRequests()[0].body.temperature).toBe(0);
  });
  it("retries an answer that skips a claim; both attempts' tokens count", async () => {
    server = await startScriptedServer([reply({ claims: GOOD.claims.slice(0, 3) }), reply(GOOD, { prompt_tokens: 100, completion_tokens: 20 })]);
    const r = await llmGrounding(scriptedModel(server), { output: OUTPUT, evidence: EVIDENCE, spans: SPANS });
    expect(r).toMatchObject({ status: "ok", attempts: 2 });
    expect(promptText(server.chatRequests()[1])).toContain("That answer cannot be used: no verdict for claim(s) 4.");
    expect(r.calls.map((c) => c.usage)).toEqual([
      { inputTokens: 120, outputTokens: 30 },
      { inputTokens: 100, outputTokens: 20 },
    ]);
  });
  it("an answer still unusable after the retries is missing with the reason and the raw answer, never a share", async () => {
    const bad = { claims: [...GOOD.claims.slice(0, 3), { claim: 4, verdict: "supported", evidence: [9] }] };
    server = await startScriptedServer([reply("I think most claims are fine."), reply(bad)]);
    const r = await llmGrounding(scriptedModel(server), { output: OUTPUT, evidence: EVIDENCE, spans: SPANS });
    expect(r.status).toBe("missing");
    if (r.status !== "missing") return;
    expect(r.error).toBe("unusable attribution: claim 4 cites evidence sentence 9, which does not exist (1–3)");
    expect(JSON.parse(r.raw!)).toEqual(bad);
    expect(r.calls).toHaveLength(2);
    expect(r).not.toHaveProperty("result");
  });
  it("checks attributions: duplicates, unknown claims, supported without a citation", () => {
    expect(attributionProblem({ claims: [{ claim: 1, verdict: "supported", evidence: [] }] }, 1, 3)).toBe("claim 1 is supported but cites no evidence sentence");
    expect(
      attributionProblem(
        {
          claims: [
            { claim: 1, verdict: "unsupported", evidence: [] },
            { claim: 1, verdict: "unsupported", evidence: [] },
          ],
        },
        2,
        3,
      ),
    ).toBe("claim 1 answered twice");
    expect(attributionProblem({ claims: [{ claim: 3, verdict: "unsupported", evidence: [] }] }, 2, 3)).toBe("claim 3 does not exist (1–2)");
    expect(isPerturbedSentence("OR 1.33 (95% CI 1.09-1.67) favoured placebo.", [{ before: "OR 0.75, 95% CI 0.60-0.92", after: "OR 1.33 (95% CI 1.09-1.67)" }])).toBe(true);
    expect(isPerturbedSentence("Aspirin reduced stroke.", SPANS)).toBe(false);
  });
});

const record = (over: Partial<RunRecord> = {}): RunRecord =>
  ({
    key: "k",
    itemId: "i1",
    dataset: "medevidence",
    taskKind: "synthesis",
    model: "openai:judge",
    workflow: "perturbed-rag",
    params: { op: "negate", strength: 1 },
    repeat: 0,
    status: "ok",
    output: OUTPUT,
    reference: null,
    itemMeta: { question: "Does aspirin prevent stroke?" },
    intermediate: {
      perturbation: {
        evidence: [{ id: "1", title: "Aspirin and stroke", text: "Aspirin reduced stroke (OR 0.75). Aspirin did not significantly reduce the risk of stroke." }],
        steps: [{ changes: SPANS }],
      },
    },
    generator: {},
    startedAt: "",
    finishedAt: "",
    ...over,
  }) as unknown as RunRecord;

describe("grounding:llm in the metric stage and the runner", () => {
  it("computes the _llm metrics next to the lexical ones and returns the judge calls", async () => {
    server = await startScriptedServer([reply(GOOD)]);
    const model = scriptedModel(server);
    const used: string[] = [];
    const m = await computeRecordMetrics(record(), ["grounding:lexical", "grounding:llm"], { chatModel: (id) => (used.push(id), model) });
    expect(used).toEqual(["openai:judge"]);
    expect(m.metrics).toMatchObject({ grounding_supported_llm: 0.5, perturbation_uptake_llm: 0.25, unsupported_claims_llm: 2 });
    expect(m.metrics.grounding_supported).toBeTypeOf("number");
    expect(m.calls).toHaveLength(1);
  });
  it("an extractive record or a missing answer gives null values with a note", async () => {
    const m = await computeRecordMetrics(record({ model: "extractive:mmr" }), ["grounding:llm"], { chatModel: () => null });
    expect(m.metrics).toEqual({ grounding_supported_llm: null, perturbation_uptake_llm: null, unsupported_claims_llm: null });
    expect(m.notes.grounding_supported_llm).toMatch(/needs an LLM judge: the record's model extractive:mmr is not one/);
    server = await startScriptedServer([reply("no"), reply("still no")]);
    const model = scriptedModel(server);
    const n = await computeRecordMetrics(record(), ["grounding:llm@openai:other"], { chatModel: () => model });
    expect(n.metrics.grounding_supported_llm).toBeNull();
    expect(n.notes.grounding_supported_llm).toMatch(/^grounding:llm answer missing after 2 attempt\(s\): .*raw: still no$/);
    expect(n.calls).toHaveLength(2);
  });
  it("validates specs: only an openai judge id after @", () => {
    expect(() => validateMetricSpecs(["grounding:llm", "grounding:llm@openai:gpt-x"])).not.toThrow();
    expect(() => validateMetricSpecs(["grounding:llm@extractive:mmr"])).toThrow(/must be an LLM id/);
  });
  it("the runner adds the metric stage's judge calls to the record's judge usage", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-gllm-"));
    const deps = fakeDeps(1, { calls: [], failOn: new Set(), delayMs: 0 });
    deps.computeMetrics = async () => ({
      metrics: { grounding_supported_llm: 0.5 },
      notes: {},
      calls: [{ modelId: "openai:judge", cached: false, latencyMs: 5, usage: { inputTokens: 120, outputTokens: 30 }, attempts: 1 }],
    });
    await runExperiment(parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "echo" }] }), deps, { log: () => {} });
    const r = readResults(join(out, "results.jsonl")).records[0];
    expect(r.judge).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    expect(Object.keys(r.judge!.byModel ?? {})).toEqual(["openai:judge"]);
  });
});
