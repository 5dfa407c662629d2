/**
 * Issue 13 items 1, 2 (call level) and 4: truncated answers, usage the server did not send, and
 * server error bodies, against the scripted server whose request log is the ground truth.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedServer, type ScriptedServer, type ScriptedReply } from "../helpers/scripted-openai-server.ts";
import { createOpenAIChatModel, type EndpointConfigInput } from "../../models/index.ts";

const Verdict = z.object({ score: z.number().int().min(0).max(5), reason: z.string() });
const msgs = [{ role: "user" as const, content: "Summarise." }];
const meta = { promptId: "t.sum", promptVersion: "1" };
let dir: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-faults-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});
async function model(script: ScriptedReply[], cfg: EndpointConfigInput = {}) {
  server = await startScriptedServer(script);
  return createOpenAIChatModel(
    "openai:scripted",
    { baseURL: server.baseURL, apiKeyEnv: "K", maxRetries: 1, retryBaseMs: 1, structuredRetries: 1, ...cfg },
    { cacheDir: dir, env: { K: "sk-faults-key-123456" } },
  );
}

describe("truncated answers (finish_reason length)", () => {
  it("a cut-off chat answer is a failure with its partial text, never cached: the next call asks again", async () => {
    const m = await model([
      { content: "The pooled estimate favours the interv", finishReason: "length", usage: { prompt_tokens: 40, completion_tokens: 16 } },
      { content: "The pooled estimate favours the intervention.", usage: { prompt_tokens: 40, completion_tokens: 9 } },
    ]);
    const r1 = await m.chat(msgs, { meta, params: { maxTokens: 16 } });
    expect(r1.ok).toBe(false);
    if (r1.ok) return;
    expect(r1.reason).toBe("truncated");
    expect(r1.raw).toBe("The pooled estimate favours the interv");
    expect(r1.error).toMatch(/truncated.*finish_reason "length".*maxTokens 16/);
    expect(r1.call).toMatchObject({ finishReason: "length", cached: false, attempts: 1, usage: { inputTokens: 40, outputTokens: 16 } });
    const r2 = await m.chat(msgs, { meta, params: { maxTokens: 16 } });
    expect(server!.chatRequests().length).toBe(2);
    expect(r2).toMatchObject({ ok: true, text: "The pooled estimate favours the intervention.", call: { finishReason: "stop", cached: false } });
    const r3 = await m.chat(msgs, { meta, params: { maxTokens: 16 } });
    expect(r3).toMatchObject({ ok: true, call: { cached: true, finishReason: "stop" } });
    expect(server!.chatRequests().length).toBe(2);
  });

  it("with onTruncated: keep-marked a cut-off chat answer is an output marked truncated, still never cached", async () => {
    const m = await model(
      [
        { content: "The pooled estimate favours the interv", finishReason: "length", usage: { prompt_tokens: 40, completion_tokens: 16 } },
        { content: "The pooled estimate favours the intervention.", usage: { prompt_tokens: 40, completion_tokens: 9 } },
      ],
      { onTruncated: "keep-marked" },
    );
    const r1 = await m.chat(msgs, { meta, params: { maxTokens: 16 } });
    expect(r1).toMatchObject({
      ok: true,
      truncated: true,
      text: "The pooled estimate favours the interv",
      call: { finishReason: "length", cached: false, usage: { inputTokens: 40, outputTokens: 16 } },
    });
    const r2 = await m.chat(msgs, { meta, params: { maxTokens: 16 } });
    expect(server!.chatRequests().length).toBe(2); // asked again: a kept truncation is not a cached success
    expect(r2.ok ? r2.truncated : "failed").toBeUndefined();
    expect(r2).toMatchObject({ ok: true, text: "The pooled estimate favours the intervention.", call: { finishReason: "stop" } });
  });

  it("onTruncated accepts only fail or keep-marked", async () => {
    await expect(model([], { onTruncated: "keep" as never })).rejects.toThrow(/onTruncated/);
  });

  it("a cut-off structured answer fails at once (no re-ask) with its raw text", async () => {
    const m = await model([{ content: '{"score": 4, "reason": "the trials are small and', finishReason: "length" }]);
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r).toMatchObject({ ok: false, reason: "truncated", raw: '{"score": 4, "reason": "the trials are small and', call: { finishReason: "length", structuredMethod: "jsonSchema" } });
    expect(server!.chatRequests().length).toBe(1);
  });
});

describe("usage the server did not send", () => {
  it("is marked unknown, never 0; a structured call sums usage over its re-asks", async () => {
    const m = await model([{ content: "An answer.", omitUsage: true }]);
    const r = await m.chat(msgs, { meta });
    expect(r).toMatchObject({ ok: true, call: { usage: null, usageUnknown: true } });
    await server!.close();
    const m2 = await model([
      { content: "not json", usage: { prompt_tokens: 100, completion_tokens: 5 } },
      { content: '{"score": 3, "reason": "ok"}', usage: { prompt_tokens: 120, completion_tokens: 8 } },
    ]);
    const s = await m2.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(s).toMatchObject({ ok: true, call: { usage: { inputTokens: 220, outputTokens: 13 }, attempts: 2 } });
    expect(s.call.usageUnknown).toBeUndefined();
  });
});

describe("server error bodies", () => {
  it("a vLLM-shaped 400 keeps the server's message; on a structured request it suggests structuredMethod", async () => {
    const body = { object: "error", message: "guided_json is not supported by this model", type: "BadRequestError", param: null, code: 400 };
    const m = await model([{ status: 400, body }]);
    const r = await m.structured(msgs, Verdict, { meta, schemaName: "verdict" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContain("guided_json is not supported by this model");
    expect(r.error).not.toContain("(no body)");
    expect(r.error).toMatch(/structuredMethod "jsonSchema".*functionCalling, jsonMode, promptOnly/);
    expect(r.reason).toBe("http");
    expect(r.call.structuredMethod).toBe("jsonSchema");
    expect(server!.chatRequests().length).toBe(1); // a 400 is not retried
    const c = await m.chat(msgs, { meta });
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.error).toContain("guided_json is not supported");
      expect(c.error).not.toMatch(/structuredMethod/);
    }
  });
});
