import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { createJudge, extractJsonObject } from "../../judges/judge.ts";
import { resolveRubric } from "../../judges/rubric.ts";
import { fetchChatModel } from "./fetch-chat-model.ts";

const MEDMETA = resolveRubric("medmeta-semantic-equivalence");
const MEDCONC = resolveRubric("medconclusion-dimensions");
const answer = (score: number) => JSON.stringify({ rationale: "same main finding", scores: { semantic_equivalence: score } });

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    switch (req.body?.model) {
      case "valid":
        return { content: answer(4) };
      case "fenced":
        return { content: "Here is my evaluation:\n```json\n" + answer(0) + "\n```\n" };
      case "garbage":
        return { content: "The generated conclusion is broadly in line. Score: high." };
      case "out-of-scale":
        return { content: answer(7) };
      case "slow":
        return { content: answer(5), delayMs: 600 };
      case "dims":
        return {
          content: JSON.stringify({ rationale: "r", scores: { semantic_similarity: 88, writing_style_similarity: 82, non_contradiction: 96, numeric_consistency: 100, formality_similarity: 92 } }),
        };
      default:
        return { status: 500 };
    }
  });
});
afterAll(async () => server.close());

const input = { candidate: "Drainage made no difference to lymphocyst formation.", reference: "Retroperitoneal drainage did not reduce lymphocyst formation." };

describe("judge", () => {
  it("valid JSON → ok with the score, rationale and call info; prompt carries both texts", async () => {
    const j = createJudge({ id: "j-valid" }, { model: fetchChatModel(server.baseURL, "valid"), rubric: MEDMETA });
    const before = server.chatRequests().length;
    const v = await j.score(input);
    expect(v).toMatchObject({
      judgeId: "j-valid",
      rubricId: "medmeta-semantic-equivalence",
      status: "ok",
      scores: { semantic_equivalence: 4 },
      rationale: "same main finding",
      repeat: 0,
      attempts: 1,
      modelId: "openai:valid",
    });
    expect(v.raw).toBeUndefined();
    expect(v.call?.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
    const req = server.chatRequests()[before].body;
    const user = req.messages.find((m: { role: string }) => m.role === "user").content as string;
    expect(user).toContain(input.candidate);
    expect(user).toContain(input.reference);
    expect(user).toContain("0 = Contradictory");
  });

  it("fenced JSON is recovered; a genuine 0 verdict stays 0", async () => {
    const j = createJudge({ id: "j-fenced", attempts: 3 }, { model: fetchChatModel(server.baseURL, "fenced"), rubric: MEDMETA });
    const v = await j.score(input);
    expect(v.status).toBe("ok");
    expect(v.scores).toEqual({ semantic_equivalence: 0 });
    expect(v.recovered).toBe(true);
    expect(v.attempts).toBe(1);
  });

  it("garbage → missing after exactly `attempts` calls, raw text kept, score null (never 0)", async () => {
    const j = createJudge({ id: "j-garbage", attempts: 3 }, { model: fetchChatModel(server.baseURL, "garbage"), rubric: MEDMETA });
    const before = server.chatRequests().length;
    const v = await j.score(input);
    expect(server.chatRequests().length - before).toBe(3);
    expect(v.status).toBe("missing");
    expect(v.scores).toEqual({ semantic_equivalence: null });
    expect(v.raw).toBe("The generated conclusion is broadly in line. Score: high.");
    expect(v.error).toMatch(/not JSON/);
    expect(v.attempts).toBe(3);
  });

  it("an out-of-scale score is missing, not clipped", async () => {
    const j = createJudge({ id: "j-oos", attempts: 1 }, { model: fetchChatModel(server.baseURL, "out-of-scale"), rubric: MEDMETA });
    const v = await j.score(input);
    expect(v.status).toBe("missing");
    expect(v.raw).toBe(answer(7));
  });

  it("timeout → missing with the timeout error and no raw text", async () => {
    const j = createJudge({ id: "j-slow", attempts: 1, timeoutMs: 100 }, { model: fetchChatModel(server.baseURL, "slow"), rubric: MEDMETA });
    const v = await j.score(input);
    expect(v.status).toBe("missing");
    expect(v.error).toMatch(/TimeoutError|abort/i);
    expect(v.raw).toBeUndefined();
    expect(v.scores.semantic_equivalence).toBeNull();
  });

  it("HTTP 500 → missing", async () => {
    const j = createJudge({ id: "j-500", attempts: 2 }, { model: fetchChatModel(server.baseURL, "broken"), rubric: MEDMETA });
    const v = await j.score(input);
    expect(v).toMatchObject({ status: "missing", error: "HTTP 500", attempts: 2 });
  });

  it("multi-dimension rubric returns every dimension", async () => {
    const j = createJudge({ id: "j-dims" }, { model: fetchChatModel(server.baseURL, "dims"), rubric: MEDCONC });
    const v = await j.score(input);
    expect(v.scores).toEqual({ semantic_similarity: 88, writing_style_similarity: 82, non_contradiction: 96, numeric_consistency: 100, formality_similarity: 92 });
  });

  it("a record without the input the rubric needs is missing with no call made", async () => {
    const j = createJudge({ id: "j-noref" }, { model: fetchChatModel(server.baseURL, "valid"), rubric: MEDMETA });
    const before = server.chatRequests().length;
    const v = await j.score({ candidate: "x", reference: null });
    expect(server.chatRequests().length).toBe(before);
    expect(v).toMatchObject({ status: "missing", attempts: 0 });
    expect(v.error).toMatch(/input "reference" is empty/);
  });

  it("rejects an invalid config naming the field", () => {
    expect(() => createJudge({ id: "x", attempts: 0 }, { model: fetchChatModel(server.baseURL, "valid"), rubric: MEDMETA })).toThrow(/judge x: attempts/);
  });
});

describe("extractJsonObject", () => {
  it("finds JSON in a fence, in prose, or not at all", () => {
    expect(extractJsonObject('```\n{"a":1}\n```')).toEqual({ a: 1 });
    expect(extractJsonObject('Answer: {"a": {"b": 2}} done')).toEqual({ a: { b: 2 } });
    expect(extractJsonObject("no json here")).toBeUndefined();
    expect(extractJsonObject("[1,2]")).toBeUndefined();
  });
});
