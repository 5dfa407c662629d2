import { OPENAI_API_BASE_URL } from "../../models/endpoint-config.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedServer, type ScriptedServer, type ScriptedReply, type Responder } from "../helpers/scripted-openai-server.ts";
import { createChatModel, createOpenAIChatModel } from "../../models/index.ts";
import type { ChatMessage, EndpointConfigInput } from "../../models/index.ts";

const KEY = "sk-test-SECRET-0123456789abcdef";
const msgs: ChatMessage[] = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Say hi." },
];
const meta = { promptId: "t.hi", promptVersion: "1" };

let dir: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-models-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function model(script: ScriptedReply[] | Responder, cfg: EndpointConfigInput = {}) {
  server = await startScriptedServer(script);
  const env = { TEST_KEY: KEY };
  return createOpenAIChatModel(
    "openai:scripted-chat",
    { baseURL: server.baseURL, apiKeyEnv: "TEST_KEY", maxRetries: 2, retryBaseMs: 10, retryMaxMs: 50, timeoutMs: 2000, ...cfg },
    { cacheDir: dir, env, random: () => 0 },
  );
}

describe("openai:<model> chat", () => {
  it("returns text, usage from the server, sends params, and a second identical call is a cache hit with 0 requests", async () => {
    const m = await model([{ content: "Hello there.", usage: { prompt_tokens: 42, completion_tokens: 5 } }], { temperature: 0.2, maxTokens: 64, seed: 7 });
    const r1 = await m.chat(msgs, { meta });
    expect(r1).toMatchObject({ ok: true, text: "Hello there.", call: { modelId: "openai:scripted-chat", cached: false, attempts: 1, usage: { inputTokens: 42, outputTokens: 5 } } });
    const body = server!.chatRequests()[0].body;
    expect(body).toMatchObject({
      model: "scripted-chat",
      temperature: 0.2,
      max_tokens: 64,
      seed: 7,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Say hi." },
      ],
    });
    expect(body.stream).toBeFalsy();
    expect(server!.chatRequests()[0].headers.authorization).toBe(`Bearer ${KEY}`);
    const r2 = await m.chat(msgs, { meta });
    expect(server!.requests.length).toBe(1);
    expect(r2).toMatchObject({ ok: true, text: "Hello there.", call: { cached: true, attempts: 0, usage: { inputTokens: 42, outputTokens: 5 } } });
    expect(r2.call.originalLatencyMs).toBe(r1.call.latencyMs);
  });

  it("an empty answer is a failure that is not cached: the next call asks again", async () => {
    let n = 0;
    const m = await model(() => (n++ === 0 ? { content: "   " } : { content: "Now an answer." }));
    const r1 = await m.chat(msgs, { meta });
    expect(r1.ok).toBe(false);
    if (!r1.ok) expect(r1.error).toMatch(/returned an empty answer \(finish_reason: stop\)/);
    const r2 = await m.chat(msgs, { meta });
    expect(r2).toMatchObject({ ok: true, text: "Now an answer.", call: { cached: false } });
    expect(server!.chatRequests()).toHaveLength(2);
  });

  it("a fresh model on the same cacheDir also hits; a different repeat, prompt version or temperature misses", async () => {
    const m = await model([{ content: "A" }]);
    await m.chat(msgs, { meta });
    const m2 = createOpenAIChatModel("openai:scripted-chat", { baseURL: server!.baseURL, apiKeyEnv: "TEST_KEY" }, { cacheDir: dir, env: { TEST_KEY: KEY } });
    expect((await m2.chat(msgs, { meta })).call.cached).toBe(true);
    expect(server!.requests.length).toBe(1);
    expect((await m.chat(msgs, { meta: { ...meta, repeat: 1 } })).call.cached).toBe(false);
    expect(server!.requests.length).toBe(2);
    expect((await m.chat(msgs, { meta: { ...meta, promptVersion: "2" } })).call.cached).toBe(false);
    expect(server!.requests.length).toBe(3);
    expect((await m.chat(msgs, { meta, params: { temperature: 1 } })).call.cached).toBe(false);
    expect(server!.requests.length).toBe(4);
    // repeat 0 and an absent repeat are the same call
    expect((await m.chat(msgs, { meta: { ...meta, repeat: 0 } })).call.cached).toBe(true);
    expect(server!.requests.length).toBe(4);
  });

  it("concurrent identical calls share one request", async () => {
    const m = await model([{ content: "shared", delayMs: 150 }]);
    const rs = await Promise.all([1, 2, 3, 4, 5].map(() => m.chat(msgs, { meta })));
    expect(server!.requests.length).toBe(1);
    expect(rs.map((r) => (r.ok ? r.text : r.error))).toEqual(["shared", "shared", "shared", "shared", "shared"]);
    expect(rs.filter((r) => !r.call.cached).length).toBe(1);
  });

  it("429 with Retry-After then 200 is retried after the requested wait", async () => {
    const m = await model([{ status: 429, headers: { "retry-after": "1" } }, { content: "after wait" }], { retryBaseMs: 1 });
    const t0 = Date.now();
    const r = await m.chat(msgs, { meta });
    const dt = Date.now() - t0;
    expect(r).toMatchObject({ ok: true, text: "after wait", call: { attempts: 2, cached: false } });
    expect(server!.requests.length).toBe(2);
    expect(dt).toBeGreaterThanOrEqual(950);
    expect(dt).toBeLessThan(5000);
  });

  it("429 without Retry-After is retried too (our backoff), HTTP-date Retry-After honoured", async () => {
    const when = new Date(Date.now() + 1500).toUTCString();
    const m = await model([{ status: 429 }, { status: 503, headers: { "retry-after": when } }, { content: "ok" }], { retryBaseMs: 1 });
    const t0 = Date.now();
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(true);
    expect(r.call.attempts).toBe(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400); // HTTP-date has 1 s resolution
  });

  it("500 is retried maxRetries times, then failure data; errors are never cached", async () => {
    const m = await model([{ status: 500 }], { maxRetries: 2 });
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    expect(server!.requests.length).toBe(3);
    expect(r.call).toMatchObject({ cached: false, attempts: 3 });
    if (!r.ok) expect(r.error).toMatch(/server error after 3 attempts/);
    const again = await m.chat(msgs, { meta });
    expect(again.ok).toBe(false);
    expect(server!.requests.length).toBe(6);
  });

  it("400 is not retried", async () => {
    const m = await model([{ status: 400 }]);
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    expect(server!.requests.length).toBe(1);
  });

  it("a request past timeoutMs fails after bounded retries (timeouts are retried)", async () => {
    const m = await model([{ content: "late", delayMs: 1500 }], { timeoutMs: 200, maxRetries: 1 });
    const t0 = Date.now();
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/timed out after 200 ms/);
    expect(r.call.attempts).toBe(2);
    expect(server!.requests.length).toBe(2);
    expect(Date.now() - t0).toBeLessThan(2500); // two 200 ms attempts, not two 1.5 s replies
  });

  it("an endpoint that is down gives failure data after bounded retries", async () => {
    const m = createOpenAIChatModel("openai:x", { baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "TEST_KEY", maxRetries: 1, retryBaseMs: 5 }, { cacheDir: dir, env: { TEST_KEY: KEY } });
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    expect(r.call.attempts).toBe(2);
  });

  it("the API key never appears in results or errors, even when the server echoes it", async () => {
    const m = await model((req) => ({ status: 401, body: { error: { message: `bad key ${String(req.headers.authorization)}` } } }));
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    const s = JSON.stringify(r);
    expect(s).toContain("bad key Bearer [REDACTED]");
    expect(s).not.toContain(KEY);
    const st = await m.structured(msgs, z.object({ a: z.number() }), { meta, schemaName: "a" });
    expect(JSON.stringify(st)).not.toContain(KEY);
  });

  it("reasoningEffort is sent as reasoning_effort; the cache files never hold the key", async () => {
    const m = await model([{ content: "r" }], { reasoningEffort: "low" });
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(true);
    expect(server!.chatRequests()[0].body.reasoning_effort).toBe("low");
    const files = readdirSync(join(dir, "calls"), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBe(1);
    const stored = readFileSync(join(files[0].parentPath, files[0].name), "utf8");
    expect(stored).toContain('"text":"r"');
    expect(stored).not.toContain(KEY);
  });

  it("an endpoint that refuses reasoning_effort: the call is re-sent once without it, and later calls leave it out", async () => {
    const m = await model(
      (req) =>
        req.body.reasoning_effort !== undefined
          ? { status: 400, body: { error: { message: "Unrecognized request argument supplied: reasoning_effort", type: "invalid_request_error", code: null } } }
          : { content: "no reasoning here" },
      { reasoningEffort: "medium" },
    );
    const err = console.error;
    const notes: string[] = [];
    console.error = (l: string) => void notes.push(l);
    try {
      const r1 = await m.chat(msgs, { meta });
      expect(r1).toMatchObject({ ok: true, text: "no reasoning here" });
      const r2 = await m.chat([{ role: "user", content: "Again." }], { meta });
      expect(r2.ok).toBe(true);
    } finally {
      console.error = err;
    }
    expect(server!.chatRequests().map((q) => q.body.reasoning_effort)).toEqual(["medium", undefined, undefined]);
    expect(m.reasoningEffortRejected).toBe(true);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/does not accept reasoning_effort/);
  });

  it("a 400 that is not about reasoning_effort stays a failure (no silent re-send)", async () => {
    const m = await model([{ status: 400, body: { error: { message: "context length exceeded", type: "invalid_request_error" } } }], { reasoningEffort: "medium" });
    const r = await m.chat(msgs, { meta });
    expect(r.ok).toBe(false);
    expect(server!.chatRequests()).toHaveLength(1);
    expect(m.reasoningEffortRejected).toBe(false);
  });

  it("a caller abort ends the call at once without retries", async () => {
    const m = await model([{ content: "slow", delayMs: 5000 }], { maxRetries: 3 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    const r = await m.chat(msgs, { meta, signal: ac.signal });
    expect(r.ok).toBe(false);
    expect(r.call.attempts).toBe(1);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("programmer errors throw: no meta, unknown ids, extractive ids as chat models, bad config", async () => {
    const m = await model([{ content: "x" }]);
    await expect(m.chat(msgs, {} as never)).rejects.toThrow(/meta/);
    expect(() => createChatModel("extractive:mmr")).toThrow(/extractive baseline, not a chat model/);
    expect(() => createChatModel("claude:x")).toThrow(/valid ids: openai:<model>/);
    expect(() => createOpenAIChatModel("openai:x", { baseURL: server!.baseURL, temprature: 1 } as never, { cacheDir: dir })).toThrow(/Unrecognized key|temprature/);
    expect(() => createOpenAIChatModel("openai:x", { baseURL: OPENAI_API_BASE_URL, apiKeyEnv: "NOPE_KEY" }, { cacheDir: dir, env: {} })).toThrow(/NOPE_KEY is not set/);
  });
});
