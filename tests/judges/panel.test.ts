import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { aggregateVerdicts, createPanel, loadPanelConfig, majorityVote, median, missingRates, parsePanelConfig, type PanelConfig } from "../../judges/panel.ts";
import { resolveRubric } from "../../judges/rubric.ts";
import type { JudgeScoreEntry, RunRecord } from "../../experiments/types.ts";
import { fetchChatModel } from "./fetch-chat-model.ts";

const FIX = join(import.meta.dirname, "..", "fixtures", "judges");

/** Record builder: REF1/REF2 in the reference let the server answer per record. */
function record(key: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    key,
    itemId: key,
    dataset: "medmeta",
    taskKind: "synthesis",
    model: "openai:llama-3-8b",
    workflow: "g-rag",
    params: {},
    repeat: 0,
    status: "ok",
    output: `generated conclusion for ${key}`,
    reference: `published conclusion ${key}`,
    itemMeta: {},
    intermediate: {},
    generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
    ...over,
  };
}

// Per model and record: the semantic-equivalence score each scripted judge answers.
const SCORES: Record<string, Record<string, number>> = { "model-a": { R1: 5, R2: 4 }, "model-b": { R1: 0, R2: 2 }, "model-e": { R1: 1, R2: 3 } };
const ans = (s: number) => JSON.stringify({ rationale: "r", scores: { semantic_equivalence: s } });

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    const user = req.body.messages.map((m: { content: unknown }) => String(m.content)).join("\n");
    const rec = user.includes("conclusion for R1") ? "R1" : "R2";
    const m = req.body.model as string;
    if (m === "model-a" || m === "model-e") return { content: ans(SCORES[m][rec]) };
    if (m === "model-b") return { content: "```json\n" + ans(SCORES[m][rec]) + "\n```" };
    if (m === "model-c") return { content: "Overall a solid conclusion, I would rate it well." };
    if (m === "model-d") return { content: ans(5), delayMs: 500 };
    if (m.startsWith("vote-")) {
      // vote-<rec1 answer><rec2 answer>, e.g. vote-1x: 1 for R1, garbage for R2
      const c = m[5 + (rec === "R1" ? 0 : 1)];
      return { content: c === "x" ? "yes" : JSON.stringify({ rationale: "r", scores: { completeness: Number(c) } }) };
    }
    return { status: 500 };
  });
});
afterAll(async () => server.close());

const modelFor = (spec: { model: string }) => fetchChatModel(server.baseURL, spec.model.replace(/^openai:/, ""));

const FIVE_JUDGES: PanelConfig = {
  rubric: "medmeta-semantic-equivalence",
  judges: [
    { id: "a", model: "openai:model-a" },
    { id: "b", model: "openai:model-b" },
    { id: "c", model: "openai:model-c", attempts: 2 },
    { id: "d", model: "openai:model-d", attempts: 1, timeoutMs: 100 },
    { id: "e", model: "openai:model-e" },
  ],
};

describe("panel against a scripted server (valid, fenced, garbage, timeout)", () => {
  it("aggregates only present judges (mean), keeps per-judge scores and the raw text of missing ones", async () => {
    const panel = createPanel(FIVE_JUDGES, { modelFor });
    const r1 = await panel.judgeRecord(record("R1"));
    const r2 = await panel.judgeRecord(record("R2"));
    const agg1 = r1.aggregate["medmeta-semantic-equivalence"].semantic_equivalence;
    // present: a=5, b=0 (fenced), e=1 → (5+0+1)/3 = 2; garbage/timeout as 0 would give 6/5 = 1.2
    expect(agg1.value).toBe(2);
    expect(agg1.nPresent).toBe(3);
    expect(agg1.nJudges).toBe(5);
    expect(agg1.perJudge).toEqual({ a: 5, b: 0, c: null, d: null, e: 1 });
    const agg2 = r2.aggregate["medmeta-semantic-equivalence"].semantic_equivalence;
    expect(agg2.value).toBe(3); // (4+2+3)/3
    const c = r1.added.find((v) => v.judgeId === "c")!;
    expect(c.status).toBe("missing");
    expect(c.raw).toBe("Overall a solid conclusion, I would rate it well.");
    expect(c.scores.semantic_equivalence).toBeNull();
    const d = r1.added.find((v) => v.judgeId === "d")!;
    expect(d.status).toBe("missing");
    expect(d.error).toMatch(/Timeout|abort/i);
    expect(r1.judgeScores).toHaveLength(5);
    // attempts: a,b,e 1 each; c 2 (garbage retried); d 1 → 6 calls
    expect(r1.usage.calls).toBe(6);

    const rates = missingRates([...r1.judgeScores, ...r2.judgeScores]);
    expect(rates.map((r) => [r.judgeId, r.total, r.missing, r.rate])).toEqual([
      ["a", 2, 0, 0],
      ["b", 2, 0, 0],
      ["c", 2, 2, 1],
      ["d", 2, 2, 1],
      ["e", 2, 0, 0],
    ]);
  });

  it("median policy over present judges", async () => {
    const panel = createPanel({ ...FIVE_JUDGES, aggregation: "median" }, { modelFor });
    const r1 = await panel.judgeRecord(record("R1"));
    expect(r1.aggregate["medmeta-semantic-equivalence"].semantic_equivalence.value).toBe(1); // median of 5, 0, 1
  });

  it("resumes: verdicts already on the record are not asked again; retryMissing re-asks only missing ones", async () => {
    const panel = createPanel(
      {
        rubric: "medmeta-semantic-equivalence",
        judges: [
          { id: "a", model: "openai:model-a" },
          { id: "c", model: "openai:model-c", attempts: 1 },
        ],
      },
      { modelFor },
    );
    const first = await panel.judgeRecord(record("R1"));
    const before = server.chatRequests().length;
    const again = await panel.judgeRecord(record("R1", { judgeScores: first.judgeScores }));
    expect(server.chatRequests().length).toBe(before);
    expect(again.added).toHaveLength(0);
    expect(again.judgeScores).toEqual(first.judgeScores);
    const retried = await panel.judgeRecord(record("R1", { judgeScores: first.judgeScores }), { retryMissing: true });
    expect(server.chatRequests().length - before).toBe(1);
    expect(retried.added.map((v) => v.judgeId)).toEqual(["c"]);
    expect(retried.judgeScores.filter((e) => e.judgeId === "c")).toHaveLength(1);
  });

  it("repeats: each judge answers `repeats` times with distinct repeat indices; per-judge value is the mean of its repeats", async () => {
    const panel = createPanel({ rubric: "medmeta-semantic-equivalence", repeats: 2, judges: [{ id: "a", model: "openai:model-a" }] }, { modelFor });
    const r = await panel.judgeRecord(record("R2"));
    expect(r.added.map((v) => v.repeat).sort()).toEqual([0, 1]);
    expect(r.aggregate["medmeta-semantic-equivalence"].semantic_equivalence.value).toBe(4);
  });

  it("a failed record gets no verdicts", async () => {
    const panel = createPanel(FIVE_JUDGES, { modelFor });
    const r = await panel.judgeRecord(record("R1", { status: "failed", output: null }));
    expect(r.added).toEqual([]);
    expect(r.aggregate["medmeta-semantic-equivalence"].semantic_equivalence.value).toBeNull();
  });
});

describe("binary majority vote", () => {
  it("majorityVote: clear majorities and the tie rule (tie → 0, flagged)", () => {
    expect(majorityVote([1, 1, 0])).toEqual({ value: 1, tie: false });
    expect(majorityVote([0, 0, 1])).toEqual({ value: 0, tie: false });
    expect(majorityVote([1, 0])).toEqual({ value: 0, tie: true });
    expect(majorityVote([1, 1, 0, 0])).toEqual({ value: 0, tie: true });
    expect(majorityVote([])).toEqual({ value: null, tie: false });
  });

  it("panel: three RWE-style votes, one garbage → the two present votes split → tie → 0", async () => {
    const panel = createPanel(
      {
        rubric: "rwe-completeness",
        aggregation: "majority",
        judges: [
          { id: "j1", model: "openai:vote-11" },
          { id: "j2", model: "openai:vote-10" },
          { id: "j3", model: "openai:vote-0x", attempts: 1 },
        ],
      },
      { modelFor },
    );
    const src = { intermediate: { source: "outcomes: asthma OR 0.87 (0.67, 1.13), p = 0.28" } };
    const r1 = await panel.judgeRecord(record("R1", src));
    expect(r1.aggregate["rwe-completeness"].completeness).toMatchObject({ value: 1, nPresent: 3, perJudge: { j1: 1, j2: 1, j3: 0 } });
    expect(r1.aggregate["rwe-completeness"].completeness.tie).toBeUndefined();
    const r2 = await panel.judgeRecord(record("R2", src));
    expect(r2.aggregate["rwe-completeness"].completeness).toMatchObject({ value: 0, tie: true, nPresent: 2, perJudge: { j1: 1, j2: 0, j3: null } });
  });

  it("majority with a non-binary rubric is a config error", () => {
    expect(() => createPanel({ ...FIVE_JUDGES, aggregation: "majority" }, { modelFor })).toThrow(/majority.*binary.*medmeta-semantic-equivalence/);
  });

  it("RWESummary panel: the three metrics are separate calls for each judge", async () => {
    const rubrics = ["rwe-direction-of-effect", "rwe-numbers-accurate", "rwe-completeness"];
    const panel = createPanel({ rubric: rubrics, judges: [{ id: "j", model: "openai:model-a", attempts: 1 }] }, { modelFor });
    expect(panel.judges.map((j) => j.rubric.id)).toEqual(rubrics);
    const before = server.chatRequests().length;
    const r = await panel.judgeRecord(record("R1", { intermediate: { source: "study results" } }));
    expect(server.chatRequests().length - before).toBe(3);
    const users = server
      .chatRequests()
      .slice(before)
      .map((q) => String(q.body.messages.at(-1).content));
    expect(users.filter((u) => u.includes("Property: RWESummary: Completeness")).length).toBe(1);
    expect(users.filter((u) => u.includes("Property: RWESummary: Direction of effect")).length).toBe(1);
    // model-a answers with the MedMeta dimension → every RWE verdict is missing, none is 0
    expect(r.added.every((v) => v.status === "missing")).toBe(true);
  });
});

describe("aggregation and missing rates on hand-built verdicts", () => {
  const rub = resolveRubric("medmeta-semantic-equivalence");
  const v = (judgeId: string, s: number | null, rubricId = rub.id): JudgeScoreEntry => ({ judgeId, rubricId, scores: { semantic_equivalence: s }, status: s === null ? "missing" : "ok" });

  it("median of an even number of judges is the mean of the middle two", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const agg = aggregateVerdicts([v("a", 4), v("b", 1), v("c", 3), v("d", 2), v("e", null)], [rub], ["a", "b", "c", "d", "e"], "median");
    expect(agg[rub.id].semantic_equivalence.value).toBe(2.5);
  });

  it("missing rates are pooled over verdicts (weighted), not averaged over rubrics", () => {
    const entries = [v("a", 1, "r1"), v("a", 2, "r1"), v("a", 3, "r1"), v("a", null, "r1"), v("a", 4, "r2"), v("a", null, "r2"), v("b", 1, "r1")];
    const [a, b] = missingRates(entries);
    expect(a.total).toBe(6);
    expect(a.missing).toBe(2);
    expect(a.rate).toBeCloseTo(2 / 6, 12); // the unweighted mean of 0.25 and 0.5 would be 0.375
    expect(a.byRubric).toEqual({ r1: { total: 4, missing: 1, rate: 0.25 }, r2: { total: 2, missing: 1, rate: 0.5 } });
    expect(b).toMatchObject({ judgeId: "b", total: 1, missing: 0, rate: 0 });
  });
});

describe("panel config", () => {
  it("loads panel.yaml with defaults", () => {
    const { config, baseDir } = loadPanelConfig(join(FIX, "panel.yaml"));
    expect(baseDir).toBe(FIX);
    expect(config.aggregation).toBe("mean");
    expect(config.repeats).toBe(1);
    expect(config.judges[1]).toMatchObject({ id: "judge-b", attempts: 1, params: { temperature: 0 } });
    expect(config.judges[1].timeoutMs).toBeUndefined(); // unset: the endpoint's timeoutMs applies
  });

  it("names unknown keys, duplicate judges and undefined endpoints", () => {
    expect(() => parsePanelConfig({ rubric: "x", judges: [{ id: "a", model: "m", temprature: 0 }] }, "p.yaml")).toThrow(/p\.yaml: judges\.0: .*"temprature"/);
    expect(() =>
      parsePanelConfig({
        rubric: "x",
        judges: [
          { id: "a", model: "m" },
          { id: "a", model: "n" },
        ],
      }),
    ).toThrow(/judges\.1\.id: duplicate judge id "a"/);
    expect(() => parsePanelConfig({ rubric: "x", judges: [{ id: "a", model: "m", endpoint: "gpu" }] })).toThrow(/judges\.0\.endpoint: endpoint "gpu" is not defined/);
  });

  it("passes the named endpoint to the model factory", () => {
    const seen: unknown[] = [];
    createPanel(loadPanelConfig(join(FIX, "panel.yaml")).config, { modelFor: (spec, ep) => (seen.push([spec.id, ep]), modelFor(spec)) });
    expect(seen).toEqual([
      ["judge-a", { baseURL: "http://127.0.0.1:1/v1" }],
      ["judge-b", { baseURL: "http://127.0.0.1:1/v1" }],
    ]);
  });
});

describe("panel through the model layer's OpenAI-compatible ChatModel", () => {
  it("valid, fenced and garbage answers → 5, 0 and missing; mean over present judges = 2.5", async () => {
    const { createOpenAIChatModel } = await import("../../models/openai-chat.ts");
    const realModelFor = (spec: { model: string }) =>
      createOpenAIChatModel(
        spec.model,
        {
          baseURL: server.baseURL,
          apiKeyEnv: "JUDGE_TEST_KEY",
          structuredMethod: "promptOnly",
          structuredRetries: 1,
          maxRetries: 0,
          cache: false,
          timeoutMs: 5000,
          concurrency: 4,
          requestsPerMinute: 0,
        },
        { env: { JUDGE_TEST_KEY: "sk-test" } },
      );
    const panel = createPanel(
      {
        rubric: "medmeta-semantic-equivalence",
        judges: [
          { id: "a", model: "openai:model-a" },
          { id: "b", model: "openai:model-b" },
          { id: "c", model: "openai:model-c", attempts: 1 },
        ],
      },
      { modelFor: realModelFor },
    );
    const r = await panel.judgeRecord(record("R1"));
    const agg = r.aggregate["medmeta-semantic-equivalence"].semantic_equivalence;
    expect(agg.perJudge).toEqual({ a: 5, b: 0, c: null });
    expect(agg.value).toBe(2.5);
    const c = r.added.find((v) => v.judgeId === "c")!;
    expect(c.status).toBe("missing");
    expect(c.raw).toBe("Overall a solid conclusion, I would rate it well.");
  });
});
