import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportedUsage, startScriptedServer, type ScriptedReply, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { createChatModel } from "../../models/registry.ts";
import {
  answerAccuracy,
  classifyDirectionLexically,
  classifyRecords,
  createLexicalDirectionClassifier,
  createLlmAnswerClassifier,
  directionAgreement,
  type AnswerRow,
} from "../../judges/answer-classifier.ts";
import { loadMslrAnnotations } from "../../corpus/datasets/mslr-annotations.ts";
import type { RunRecord } from "../../experiments/types.ts";
import { fetchChatModel } from "./fetch-chat-model.ts";

describe("lexical-direction classifier", () => {
  // Conclusions in the wording of Cochrane/MedEvidence reviews, with the class a reader assigns.
  const CASES: [string, string][] = [
    ["Compared with placebo, cholinesterase inhibitors probably increase clinician-rated impression of cognitive change in people with MS.", "higher"],
    ["Chromoscopy reduces the number of missed neoplastic lesions compared with conventional endoscopy.", "lower"],
    ["Retroperitoneal drainage made little or no difference to the rate of lymphocyst formation.", "no difference"],
    ["We are uncertain whether cholinesterase inhibitors improve patient-reported memory, because the certainty of the evidence is very low.", "uncertain effect"],
    ["No studies reported adverse events, so there is insufficient evidence to assess the safety of chromoscopy.", "insufficient data"],
    ["Transcatheter device closure did not significantly reduce the risk of recurrent stroke compared with medical therapy.", "no difference"],
    ["Fewer participants in the exercise group had falls (RR 0.77, 95% CI 0.64 to 0.92).", "lower"],
    ["Mortality was similar between the two groups at one year.", "no difference"],
    ["Antibiotic prophylaxis is effective in preventing postoperative complications after appendectomy.", "lower"],
    ["Twelve trials with 1,200 children were included. Zinc supplementation increased serum zinc concentrations.", "higher"],
    ["There is no evidence of benefit from corticosteroids in this population.", "no difference"],
    ["Nasal CPAP is effective for preterm infants after extubation.", "higher"],
    ["Trials enrolled adults with chronic low back pain.", "uncertain effect"],
  ];
  it.each(CASES)("%s → %s", (text, label) => {
    expect(classifyDirectionLexically(text).label).toBe(label);
  });

  it("reports the deciding rule and sentence; the classifier wrapper is async with id lexical-direction", async () => {
    const r = classifyDirectionLexically("Twelve trials were included. Zinc supplementation increased serum zinc.");
    expect(r).toEqual({ label: "higher", rule: "higher", sentence: "Zinc supplementation increased serum zinc." });
    const c = createLexicalDirectionClassifier({ fallback: "insufficient data" });
    expect(c.id).toBe("lexical-direction");
    expect(await c.classify({ conclusion: "Trials enrolled adults." })).toMatchObject({ label: "insufficient data", status: "ok", rationale: "fallback" });
  });
});

describe("answerAccuracy", () => {
  it("overall and per GRADE certainty on a hand table (missing predictions count as wrong)", () => {
    const rows: AnswerRow[] = [
      { gold: "higher", predicted: "higher", certainty: "high" },
      { gold: "lower", predicted: "no difference", certainty: "high" },
      { gold: "no difference", predicted: "no difference", certainty: "moderate" },
      { gold: "no difference", predicted: null, certainty: "moderate" },
      { gold: "uncertain effect", predicted: "uncertain effect", certainty: "very low" },
      { gold: "insufficient data", predicted: "uncertain effect", certainty: "" },
    ];
    const a = answerAccuracy(rows);
    expect(a.overall).toEqual({ n: 6, correct: 3, missing: 1, accuracy: 0.5, accuracyAnswered: 0.6 });
    expect(a.byCertainty.high).toEqual({ n: 2, correct: 1, missing: 0, accuracy: 0.5, accuracyAnswered: 0.5 });
    expect(a.byCertainty.moderate).toEqual({ n: 2, correct: 1, missing: 1, accuracy: 0.5, accuracyAnswered: 1 });
    expect(a.byCertainty["very low"]).toEqual({ n: 1, correct: 1, missing: 0, accuracy: 1, accuracyAnswered: 1 });
    expect(a.byCertainty.unspecified).toEqual({ n: 1, correct: 0, missing: 0, accuracy: 0, accuracyAnswered: 0 });
    expect(a.confusion["no difference"]).toEqual({ "no difference": 1, missing: 1 });
  });

  it("classifyRecords reads itemMeta.referenceAnswer / evidenceCertainty, skips records without a gold answer", async () => {
    const base = {
      dataset: "medevidence",
      taskKind: "synthesis" as const,
      model: "m",
      workflow: "g-rag",
      params: {},
      repeat: 0,
      reference: null,
      intermediate: {},
      generator: { calls: 1, inputTokens: 0, outputTokens: 0, latencyMs: 0, cached: false },
      startedAt: "",
      finishedAt: "",
    };
    const recs: RunRecord[] = [
      { ...base, key: "k1", itemId: "1", status: "ok", output: "Drainage made no difference to lymphocyst formation.", itemMeta: { referenceAnswer: "no difference", evidenceCertainty: "high" } },
      { ...base, key: "k2", itemId: "2", status: "ok", output: "Chromoscopy increased detection of polyps.", itemMeta: { referenceAnswer: "lower", evidenceCertainty: "low" } },
      { ...base, key: "k3", itemId: "3", status: "failed", output: null, itemMeta: { referenceAnswer: "higher", evidenceCertainty: "low" } },
      { ...base, key: "k4", itemId: "4", status: "ok", output: "x", itemMeta: {} },
    ];
    const { rows, skipped, classifications } = await classifyRecords(recs, createLexicalDirectionClassifier());
    expect(skipped.noGoldAnswer).toBe(1);
    expect(rows.map((r) => r.predicted)).toEqual(["no difference", "higher", null]);
    expect(Object.keys(classifications)).toEqual(["k1", "k2"]);
    const a = answerAccuracy(rows);
    expect(a.overall.accuracy).toBeCloseTo(1 / 3, 12);
    expect(a.byCertainty.low).toMatchObject({ n: 2, correct: 0, missing: 1 });
  });
});

describe("llm-answer-classifier against a scripted server", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer((req) => {
      if (req.body.model === "ok") return { content: JSON.stringify({ rationale: "states no difference", answer: "no difference" }) };
      if (req.body.model === "fenced") return { content: '```json\n{"rationale": "r", "answer": "lower"}\n```' };
      if (req.body.model === "bad-label") return { content: JSON.stringify({ rationale: "r", answer: "reduced" }) };
      return { content: "It seems to lower it." };
    });
  });
  afterAll(async () => server.close());

  it("valid and fenced answers parse; a label outside the five classes or prose is missing with raw text", async () => {
    const input = { conclusion: "Drainage made no difference.", question: "Is lymphocyst formation higher, lower, or the same when comparing drainage to no drainage?" };
    const ok = await createLlmAnswerClassifier({}, { model: fetchChatModel(server.baseURL, "ok") }).classify(input);
    expect(ok).toMatchObject({ classifierId: "llm-answer-classifier", label: "no difference", status: "ok" });
    const user = String(server.chatRequests()[0].body.messages.at(-1).content);
    expect(user).toContain(input.question);
    expect(user).toContain("- insufficient data");
    expect((await createLlmAnswerClassifier({}, { model: fetchChatModel(server.baseURL, "fenced") }).classify(input)).label).toBe("lower");
    const bad = await createLlmAnswerClassifier({ attempts: 2 }, { model: fetchChatModel(server.baseURL, "bad-label") }).classify(input);
    expect(bad).toMatchObject({ label: null, status: "missing", raw: JSON.stringify({ rationale: "r", answer: "reduced" }) });
    const prose = await createLlmAnswerClassifier({ attempts: 1 }, { model: fetchChatModel(server.baseURL, "prose") }).classify(input);
    expect(prose).toMatchObject({ label: null, status: "missing", raw: "It seems to lower it." });
  });
});

describe("llm-answer-classifier with two different valid answers in one reply (issue 25 item 8)", () => {
  it("is missing with the reason and the raw answer, never the last label", async () => {
    const content = 'Answer: {"rationale": "says lower", "answer": "lower"} — an example reply: {"rationale": "r", "answer": "higher"}';
    const server = await startScriptedServer(() => ({ content }));
    const cache = mkdtempSync(join(tmpdir(), "medsynth-clf-"));
    try {
      const model = createChatModel(
        "openai:scripted-classifier",
        { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", maxRetries: 0, structuredRetries: 1, structuredMethod: "promptOnly", cache: false },
        { cacheDir: cache },
      );
      const r = await createLlmAnswerClassifier({ attempts: 3 }, { model }).classify({ conclusion: "Drainage lowered it.", question: "Higher or lower?" });
      expect(r).toMatchObject({ label: null, status: "missing", raw: content });
      expect(r.error).toMatch(/2 different valid answers/);
      expect(server.chatRequests().length).toBe(2); // one re-ask, no further attempt
    } finally {
      await server.close();
    }
  });
});

describe("llm-answer-classifier counts every attempt's tokens (issue 13.2)", () => {
  it("garbage, then a valid answer: the call's tokens are the sum over the server's request log", async () => {
    const replies: ScriptedReply[] = [];
    const server = await startScriptedServer((_req, n) => {
      const r: ScriptedReply =
        n === 0
          ? { content: "I think it is lower, probably.", usage: { prompt_tokens: 120, completion_tokens: 9 } }
          : { content: JSON.stringify({ rationale: "says lower", answer: "lower" }), usage: { prompt_tokens: 131, completion_tokens: 14 } };
      replies.push(r);
      return r;
    });
    const cache = mkdtempSync(join(tmpdir(), "medsynth-clf-"));
    try {
      const model = createChatModel(
        "openai:scripted-classifier",
        { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", maxRetries: 0, structuredRetries: 0, structuredMethod: "promptOnly", cache: false },
        { cacheDir: cache },
      );
      const r = await createLlmAnswerClassifier({ attempts: 3 }, { model }).classify({ conclusion: "Drainage lowered it.", question: "Higher or lower?" });
      expect(r).toMatchObject({ label: "lower", status: "ok" });
      expect(server.chatRequests()).toHaveLength(2);
      const truth = reportedUsage(replies);
      expect(truth).toEqual({ inputTokens: 251, outputTokens: 23, noUsage: 0 });
      expect(r.call?.usage).toEqual({ inputTokens: truth.inputTokens, outputTokens: truth.outputTokens });
      expect(r.call?.attempts).toBe(2);
      expect(r.call?.merged).toBe(2);
    } finally {
      await server.close();
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("every attempt unusable: the missing record still carries all attempts' tokens", async () => {
    const replies: ScriptedReply[] = [];
    const server = await startScriptedServer(() => {
      const r: ScriptedReply = { content: "no idea", usage: { prompt_tokens: 50, completion_tokens: 3 } };
      replies.push(r);
      return r;
    });
    const cache = mkdtempSync(join(tmpdir(), "medsynth-clf-"));
    try {
      const model = createChatModel(
        "openai:scripted-classifier",
        { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", maxRetries: 0, structuredRetries: 0, structuredMethod: "promptOnly", cache: false },
        { cacheDir: cache },
      );
      const r = await createLlmAnswerClassifier({ attempts: 3 }, { model }).classify({ conclusion: "x", question: "y" });
      expect(r.status).toBe("missing");
      expect(server.chatRequests()).toHaveLength(3);
      expect(r.call?.usage).toEqual({ inputTokens: 150, outputTokens: 9 });
    } finally {
      await server.close();
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe("direction check against MSLR expert effect-direction labels", () => {
  it("coarse agreement on a hand table (other/missing expert ratings excluded and counted)", () => {
    const r = (value: number | null, status = "rated") => ({ value, status });
    const d = directionAgreement([
      { predicted: "higher", expert: r(1) }, // effect = effect ✓
      { predicted: "lower", expert: r(-1) }, // ✓ (benefit/harm sign is not compared)
      { predicted: "no difference", expert: r(0) }, // ✓
      { predicted: "higher", expert: r(0) }, // ✗
      { predicted: "insufficient data", expert: r(null, "not-applicable") }, // ✓ unspecified
      { predicted: "uncertain effect", expert: r(1) }, // ✗
      { predicted: "higher", expert: r(null, "other") }, // excluded
      { predicted: null, expert: r(1) }, // excluded
    ]);
    expect(d).toMatchObject({ n: 6, agree: 4, excluded: 2 });
    expect(d.accuracy).toBeCloseTo(4 / 6, 12);
    expect(d.confusion["no effect"]).toEqual({ "no effect": 1, effect: 1 });
  });

  it("on the real Cochrane annotations the lexical classifier beats the majority-class baseline", async () => {
    const ds = await loadMslrAnnotations();
    const tgt = directionAgreement(ds.items.map((a) => ({ predicted: classifyDirectionLexically(a.targetSummary).label, expert: a.effectDirectionTarget })));
    const gen = directionAgreement(ds.items.map((a) => ({ predicted: classifyDirectionLexically(a.generatedSummary).label, expert: a.effectDirectionGenerated })));
    // 265 rows: one blank target rating, four blank/"other" generated ratings are excluded.
    expect([tgt.n, tgt.excluded, gen.n, gen.excluded]).toEqual([264, 1, 261, 4]);
    const baseline = (c: Record<string, Record<string, number>>, n: number) => Math.max(...Object.values(c).map((row) => Object.values(row).reduce((a, b) => a + b, 0))) / n;
    expect(tgt.accuracy!).toBeGreaterThan(baseline(tgt.confusion, tgt.n)); // 0.746 vs 0.727
    expect(gen.accuracy!).toBeGreaterThan(baseline(gen.confusion, gen.n)); // 0.923 vs 0.670
  });
});
