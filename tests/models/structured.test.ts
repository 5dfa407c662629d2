import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedServer, type ScriptedServer, type ScriptedReply } from "../helpers/scripted-openai-server.ts";
import { createOpenAIChatModel, extractJsonText, parseStructuredAnswer, toEndpointJsonSchema, type EndpointConfigInput } from "../../models/index.ts";

const Verdict = z.object({ score: z.number().int().min(0).max(5), reason: z.string() });
const msgs = [{ role: "user" as const, content: "Rate it." }];
const meta = { promptId: "judge.rate", promptVersion: "3" };
let dir: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-structured-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});
async function model(script: ScriptedReply[], cfg: EndpointConfigInput = {}) {
  server = await startScriptedServer(script);
  return createOpenAIChatModel("openai:scripted-judge", { baseURL: server.baseURL, apiKeyEnv: "K", maxRetries: 1, retryBaseMs: 1, ...cfg }, { cacheDir: dir, env: { K: "sk-structured-key-123456" } });
}

describe("structured outputs", () => {
  it("jsonSchema: sends response_format json_schema (strict) and parses a valid answer; the hit re-validates with 0 requests", async () => {
    const m = await model([{ content: '{"score": 4, "reason": "solid"}', usage: { prompt_tokens: 30, completion_tokens: 9 } }]);
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r).toMatchObject({ ok: true, value: { score: 4, reason: "solid" }, validationAttempts: 1, call: { attempts: 1, usage: { inputTokens: 30, outputTokens: 9 } } });
    const rf = server!.chatRequests()[0].body.response_format;
    expect(rf.type).toBe("json_schema");
    expect(rf.json_schema.name).toBe("verdict");
    expect(rf.json_schema.strict).toBe(true);
    expect(rf.json_schema.schema.required).toEqual(["score", "reason"]);
    const again = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(again).toMatchObject({ ok: true, value: { score: 4, reason: "solid" }, call: { cached: true, attempts: 0 } });
    expect(server!.requests.length).toBe(1);
  });

  it("accepts a ```json fenced``` answer", async () => {
    const m = await model([{ content: 'Here you go:\n```json\n{"score": 2, "reason": "thin"}\n```' }], { structuredMethod: "jsonMode" });
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r).toMatchObject({ ok: true, value: { score: 2, reason: "thin" } });
    const body = server!.chatRequests()[0].body;
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body.messages.at(-1).content).toMatch(/JSON Schema/);
  });

  it("functionCalling: sends a forced tool and reads the tool-call arguments", async () => {
    const m = await model([{ toolCall: { name: "verdict", arguments: '{"score":5,"reason":"clear"}' } }], { structuredMethod: "functionCalling" });
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r).toMatchObject({ ok: true, value: { score: 5, reason: "clear" }, text: '{"score":5,"reason":"clear"}' });
    const body = server!.chatRequests()[0].body;
    expect(body.tools[0].function.name).toBe("verdict");
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "verdict" } });
  });

  it("garbage ends as {ok:false, raw} after exactly structuredRetries+1 requests, not cached; the retry carries a correction", async () => {
    const m = await model([{ content: "garbage answer, no json" }], { structuredRetries: 2 });
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.raw).toBe("garbage answer, no json");
      expect(r.error).toMatch(/failed validation 3 times/);
    }
    expect(r.validationAttempts).toBe(3);
    expect(server!.requests.length).toBe(3);
    expect(server!.chatRequests()[0].body.response_format.type).toBe("json_schema");
    expect(server!.chatRequests()[0].body.response_format.$parseRaw).toBeUndefined();
    const second = server!.chatRequests()[1].body.messages;
    expect(second.map((x: { role: string }) => x.role)).toEqual(["user", "assistant", "user"]);
    expect(second[1].content).toBe("garbage answer, no json");
    await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(server!.requests.length).toBe(6);
  });

  it("an out-of-range value is retried, and a later valid answer wins", async () => {
    const m = await model([{ content: '{"score": 9, "reason": "x"}' }, { content: '{"score": 3, "reason": "x"}' }]);
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r).toMatchObject({ ok: true, value: { score: 3 }, validationAttempts: 2, call: { attempts: 2 } });
  });

  it("a different schema misses the cache", async () => {
    const m = await model([{ content: '{"score": 1, "reason": "r"}' }]);
    await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    await m.structured(msgs, Verdict.extend({ reason: z.string().max(5) }), { meta, schemaName: "verdict" });
    expect(server!.requests.length).toBe(2);
  });
});

describe("structured helpers", () => {
  it("extractJsonText handles fences, bare JSON and JSON inside prose", () => {
    expect(extractJsonText('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(extractJsonText("```\n[1,2]\n```")).toBe("[1,2]");
    expect(extractJsonText('  {"a":1} ')).toBe('{"a":1}');
    expect(extractJsonText('The answer is {"a": {"b": 2}} done')).toBe('{"a": {"b": 2}}');
    expect(extractJsonText("no json")).toBeNull();
  });
  it("parseStructuredAnswer names the failing path", () => {
    const r = parseStructuredAnswer('{"score":"high","reason":"x"}', Verdict);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/score/);
  });
  it("toEndpointJsonSchema flags schemas with optional fields as not strict-compatible", () => {
    expect(toEndpointJsonSchema(Verdict).strictCompatible).toBe(true);
    expect(toEndpointJsonSchema(Verdict.extend({ note: z.string().optional() })).strictCompatible).toBe(false);
  });
});
