/**
 * Issue 13 items 2 and 5: judges parsed as real servers answer (reasoning blocks, several JSON
 * objects, quoted numbers, cut-off answers) and every attempt's tokens counted, through the real
 * OpenAI call layer against the scripted server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportedUsage, startScriptedServer, type ScriptedReply, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { createJudge } from "../../judges/judge.ts";
import { resolveRubric } from "../../judges/rubric.ts";
import { createOpenAIChatModel } from "../../models/index.ts";
import { extractJsonText, stripReasoning } from "../../models/structured.ts";

const MEDMETA = resolveRubric("medmeta-semantic-equivalence");
const input = { candidate: "Drainage made no difference to lymphocyst formation.", reference: "Retroperitoneal drainage did not reduce lymphocyst formation." };
let dir: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-judge-faults-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});
async function judge(script: ScriptedReply[], method: "jsonSchema" | "promptOnly" = "jsonSchema", attempts = 2) {
  server = await startScriptedServer(script);
  const model = createOpenAIChatModel("openai:judge-model", { baseURL: server.baseURL, apiKeyEnv: "K", maxRetries: 0, structuredRetries: 1, structuredMethod: method }, { cacheDir: dir, env: {} });
  return createJudge({ id: "j", attempts }, { model, rubric: MEDMETA });
}

describe("parsing what judges send", () => {
  it("strips <think> blocks (an example quoted in the reasoning is not an answer) and reads the verdict after them", async () => {
    const content =
      '<think>The format is ```json\n{"rationale": "example", "scores": {"semantic_equivalence": 5}}\n``` — but here the finding differs in scope.</think>\n' +
      'Earlier I considered {"rationale": "draft", "scores": {"semantic_equivalence": "two"}} but on reflection:\n' +
      '{"rationale": "same direction, narrower population", "scores": {"semantic_equivalence": 3}}';
    const j = await judge([{ content }], "promptOnly");
    const v = await j.score(input);
    expect(v).toMatchObject({ status: "ok", scores: { semantic_equivalence: 3 }, rationale: "same direction, narrower population", attempts: 1 });
    expect(server!.chatRequests().length).toBe(1);
  });

  it("issue 25 item 8: two different valid verdicts in one answer are missing with the reason and the raw text, never the last one", async () => {
    // the judge's own verdict (4), then a quoted example of the format (0): the old parser recorded 0
    const content =
      'My verdict: {"rationale": "same finding and direction", "scores": {"semantic_equivalence": 4}}\n' +
      'For reference, a reply looks like {"rationale": "opposite direction", "scores": {"semantic_equivalence": 0}}';
    const j = await judge([{ content }], "promptOnly", 2);
    const v = await j.score(input);
    expect(v.status).toBe("missing");
    expect(v.scores).toEqual({ semantic_equivalence: null });
    expect(v.raw).toBe(content);
    expect(v.error).toMatch(/2 different valid answers/);
    // one re-ask (structuredRetries 1) naming the problem, then missing — no second whole-call attempt: 2 requests
    const reqs = server!.chatRequests();
    expect(reqs.length).toBe(2);
    expect(JSON.stringify(reqs[1].body.messages)).toMatch(/2 different valid answers/);
    // the same verdict given twice is one answer
    const same = '{"rationale": "r", "scores": {"semantic_equivalence": 4}} again: {"rationale": "r", "scores": {"semantic_equivalence": 4}}';
    await server!.close();
    const j2 = await judge([{ content: same }], "promptOnly", 1);
    expect(await j2.score(input)).toMatchObject({ status: "ok", scores: { semantic_equivalence: 4 } });
  });

  it("accepts an integer score given as a numeric string", async () => {
    const j = await judge([{ content: '{"rationale": "equivalent", "scores": {"semantic_equivalence": "4"}}' }]);
    const v = await j.score(input);
    expect(v).toMatchObject({ status: "ok", scores: { semantic_equivalence: 4 } });
    expect(server!.chatRequests().length).toBe(1);
  });

  it("a cut-off judge answer under jsonSchema is missing with its raw text kept; never a default score", async () => {
    const cut = '{"rationale": "The candidate matches the reference in direction but';
    const j = await judge([{ content: cut, finishReason: "length", usage: { prompt_tokens: 500, completion_tokens: 64 } }], "jsonSchema", 2);
    const v = await j.score(input);
    expect(v.status).toBe("missing");
    expect(v.scores).toEqual({ semantic_equivalence: null });
    expect(v.raw).toBe(cut);
    expect(v.error).toMatch(/truncated/);
    // both whole-call attempts hit the server (truncation is never cached) and both count
    expect(server!.chatRequests().length).toBe(2);
    expect(v.call).toMatchObject({ usage: { inputTokens: 1000, outputTokens: 128 }, attempts: 2, merged: 2, finishReason: "length" });
  });

  it("a verdict that ended missing counts the tokens of every request it made (the request log's sum)", async () => {
    const bad = (p: number, c: number): ScriptedReply => ({ content: "The candidate is fine. Score: high.", usage: { prompt_tokens: p, completion_tokens: c } });
    const script = [bad(500, 40), bad(560, 30), bad(505, 41), bad(565, 29)];
    const j = await judge(script, "jsonSchema", 2);
    const v = await j.score(input);
    expect(v.status).toBe("missing");
    const sent = server!.chatRequests().map((r) => r.reply!);
    expect(sent.length).toBe(4); // 2 attempts × (1 + structuredRetries)
    const truth = reportedUsage(sent);
    expect(truth).toEqual({ inputTokens: 2130, outputTokens: 140, noUsage: 0 });
    expect(v.call?.usage).toEqual({ inputTokens: truth.inputTokens, outputTokens: truth.outputTokens });
    expect(v.call?.attempts).toBe(4);
  });
});

describe("stripReasoning / extractJsonText", () => {
  it("handles closed, unclosed and opening-less reasoning blocks", () => {
    expect(stripReasoning('<think>a {"x":1}</think> answer')).toBe("answer");
    expect(stripReasoning("<thinking>half a thought {")).toBe("");
    expect(stripReasoning('reasoning without its opening tag</think>{"x":2}')).toBe('{"x":2}');
    expect(extractJsonText('```json\n{"a":1}\n``` then {"a": 2, "s": "a } in a string"}')).toBe('{"a": 2, "s": "a } in a string"}');
    expect(extractJsonText('{"a": 1} and a cut-off {"a": 2, "b"')).toBe('{"a": 1}');
  });
});
