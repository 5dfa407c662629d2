/**
 * Call-layer robustness against real (local) HTTP servers: the cache key includes the endpoint,
 * per-attempt timeouts are retried while the caller's abort is not, and replies that are not JSON
 * are reported as such (retried when 5xx).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedServer, type ScriptedReply, type ScriptedServer, type Responder } from "../helpers/scripted-openai-server.ts";
import {
  AttemptTimeoutError,
  MalformedResponseError,
  callCacheKey,
  classifyError,
  createOpenAIChatModel,
  createOpenAIEmbeddingClient,
  endpointCacheId,
  EmbeddingError,
  runAttempt,
  withRetry,
} from "../../models/index.ts";
import type { ChatMessage, EndpointConfigInput } from "../../models/index.ts";

const KEY = "sk-robust-SECRET-0123456789abcdef";
const msgs: ChatMessage[] = [{ role: "user", content: "Same question." }];
const meta = { promptId: "t.same", promptVersion: "1" };

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-robust-"));
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  rmSync(dir, { recursive: true, force: true });
});

async function scripted(script: ScriptedReply[] | Responder): Promise<ScriptedServer> {
  const s = await startScriptedServer(script);
  closers.push(() => s.close());
  return s;
}

function chatModel(baseURL: string, cfg: EndpointConfigInput = {}) {
  return createOpenAIChatModel(
    "openai:same-name",
    { baseURL, apiKeyEnv: "K", maxRetries: 2, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 2000, ...cfg },
    { cacheDir: dir, env: { K: KEY }, random: () => 0 },
  );
}

/** A raw server answering every request with `status`, `contentType` and `body` verbatim (e.g. a proxy's HTML page). */
async function rawServer(
  reply: (req: IncomingMessage, n: number) => { status: number; contentType: string; body: string; headers?: Record<string, string> },
): Promise<{ baseURL: string; count: () => number }> {
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req) void _;
    const r = reply(req, n++);
    res.writeHead(r.status, { "content-type": r.contentType, ...(r.headers ?? {}) });
    res.end(r.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, count: () => n };
}

const NGINX_502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n";

describe("cache key includes the endpoint", () => {
  it("endpointCacheId normalises the base URL and drops credentials, query and fragment", () => {
    expect(endpointCacheId("http://127.0.0.1:8000/v1/")).toBe("http://127.0.0.1:8000/v1");
    expect(endpointCacheId("http://127.0.0.1:8000/v1//")).toBe("http://127.0.0.1:8000/v1");
    expect(endpointCacheId("HTTPS://API.Example.com:443/v1")).toBe("https://api.example.com/v1");
    expect(endpointCacheId("https://user:sk-secret@gw.example.org/v1?api-key=sk-secret#x")).toBe("https://gw.example.org/v1");
    const base = { kind: "chat", provider: "openai", model: "m", messages: [] };
    expect(callCacheKey({ ...base, endpoint: "http://127.0.0.1:1/v1" })).not.toBe(callCacheKey({ ...base, endpoint: "http://127.0.0.1:2/v1" }));
  });

  it("chat: same model name and messages on two servers → each server answers; the same server twice → 0 requests", async () => {
    const a = await scripted([{ content: "answer from A" }]);
    const b = await scripted([{ content: "answer from B" }]);
    const ra = await chatModel(a.baseURL).chat(msgs, { meta });
    const rb = await chatModel(b.baseURL).chat(msgs, { meta });
    expect(ra).toMatchObject({ ok: true, text: "answer from A", call: { cached: false } });
    expect(rb).toMatchObject({ ok: true, text: "answer from B", call: { cached: false } });
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
    // same server again (a fresh model object, and a trailing-slash spelling of its URL): cache hits
    const ra2 = await chatModel(a.baseURL).chat(msgs, { meta });
    const ra3 = await chatModel(`${a.baseURL}/`).chat(msgs, { meta });
    const rb2 = await chatModel(b.baseURL).chat(msgs, { meta });
    expect([ra2.ok && ra2.text, ra3.ok && ra3.text, rb2.ok && rb2.text]).toEqual(["answer from A", "answer from A", "answer from B"]);
    expect([ra2.call.cached, ra3.call.cached, rb2.call.cached]).toEqual([true, true, true]);
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
    // cacheNamespace stays an extra separator on one server
    expect((await chatModel(a.baseURL, { cacheNamespace: "weights-v2" }).chat(msgs, { meta })).call.cached).toBe(false);
    expect(a.requests.length).toBe(2);
    // the stored entries name the endpoint, never the key
    const files = readdirSync(join(dir, "calls"), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    const stored = files.map((f) => readFileSync(join(f.parentPath, f.name), "utf8"));
    expect(stored.length).toBe(3);
    expect(stored.filter((t) => t.includes(`"endpoint":"${a.baseURL}"`)).length).toBe(2);
    expect(stored.filter((t) => t.includes(`"endpoint":"${b.baseURL}"`)).length).toBe(1);
    expect(stored.join("\n")).not.toContain(KEY);
  });

  it("an unreachable endpoint does not get another server's cached answer", async () => {
    const local = await scripted([{ content: "local answer" }]);
    expect((await chatModel(local.baseURL).chat(msgs, { meta })).ok).toBe(true);
    const dead = await chatModel("http://127.0.0.1:9/v1", { maxRetries: 0 }).chat(msgs, { meta });
    expect(dead.ok).toBe(false);
    expect(dead.call.cached).toBe(false);
  });

  it("structured: two servers, same schema and messages → separate answers", async () => {
    const schema = z.object({ n: z.number() });
    const a = await scripted([{ content: '{"n":1}' }]);
    const b = await scripted([{ content: '{"n":2}' }]);
    const ra = await chatModel(a.baseURL).structured(msgs, schema, { meta, schemaName: "n" });
    const rb = await chatModel(b.baseURL).structured(msgs, schema, { meta, schemaName: "n" });
    expect([ra.ok && ra.value.n, rb.ok && rb.value.n]).toEqual([1, 2]);
    const ra2 = await chatModel(a.baseURL).structured(msgs, schema, { meta, schemaName: "n" });
    expect(ra2).toMatchObject({ ok: true, value: { n: 1 }, call: { cached: true } });
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
  });

  it("embeddings: two servers, same model name and text → each server is asked once", async () => {
    const a = await scripted((): ScriptedReply => ({ embeddings: [[1, 0]] }));
    const b = await scripted((): ScriptedReply => ({ embeddings: [[0, 1]] }));
    const emb = (u: string) => createOpenAIEmbeddingClient("openai:same-embed", { baseURL: u, apiKeyEnv: "K" }, { cacheDir: dir, env: { K: KEY } });
    expect(Array.from((await emb(a.baseURL).embed(["text"]))[0])).toEqual([1, 0]);
    expect(Array.from((await emb(b.baseURL).embed(["text"]))[0])).toEqual([0, 1]);
    expect(Array.from((await emb(a.baseURL).embed(["text"]))[0])).toEqual([1, 0]);
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
  });
});

describe("per-attempt timeouts are retried; the caller's abort is not", () => {
  it("classifies our timeout as retryable and a caller abort as not", () => {
    expect(classifyError(new AttemptTimeoutError(50))).toEqual({ kind: "timeout", retryable: true });
    expect(classifyError(Object.assign(new Error("Request was aborted."), { name: "AbortError" }))).toMatchObject({ kind: "aborted", retryable: false });
  });

  it("runAttempt: its own timer → AttemptTimeoutError; caller abort → the caller's reason; a client ignoring the signal still ends on time", async () => {
    const never = () => new Promise<string>(() => undefined);
    const t0 = Date.now();
    const e1 = await runAttempt({ timeoutMs: 60 }, never).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AttemptTimeoutError);
    expect((e1 as Error).message).toBe("request timed out after 60 ms");
    expect(Date.now() - t0).toBeLessThan(2000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("user stop")), 20);
    const e2 = await runAttempt({ timeoutMs: 5000, signal: ac.signal }, never).catch((e: unknown) => e);
    expect((e2 as Error).message).toBe("user stop");
    // the attempt's signal is what a client sees
    let seen: AbortSignal | undefined;
    const e3 = await runAttempt({ timeoutMs: 30 }, (s) => {
      seen = s;
      return new Promise((_, rej) => s.addEventListener("abort", () => rej(Object.assign(new Error("Request was aborted."), { name: "AbortError" }))));
    }).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(AttemptTimeoutError);
    expect(seen?.aborted).toBe(true);
    expect(await runAttempt({ timeoutMs: 1000 }, async () => 7)).toBe(7);
  });

  it("chat: delay > timeoutMs → exactly maxRetries + 1 requests, then a failure that says it timed out", async () => {
    const s = await scripted([{ content: "late", delayMs: 1500 }]);
    const t0 = Date.now();
    const r = await chatModel(s.baseURL, { timeoutMs: 150, maxRetries: 2 }).chat(msgs, { meta });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/timeout error after 3 attempts: request timed out after 150 ms/);
    expect(r.call.attempts).toBe(3);
    expect(s.requests.length).toBe(3);
    expect(Date.now() - t0).toBeLessThan(4000); // each attempt ends at its timeout, not at the server's reply
  });

  it("chat: CallOptions.timeoutMs overrides the endpoint's per-attempt timeout (and is retried)", async () => {
    const s = await scripted([{ content: "late", delayMs: 1000 }]);
    const m = chatModel(s.baseURL, { timeoutMs: 5000, maxRetries: 1 });
    const r = await m.chat(msgs, { meta, timeoutMs: 120 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/timeout error after 2 attempts: request timed out after 120 ms/);
    expect(s.requests.length).toBe(2);
    await expect(m.chat(msgs, { meta, timeoutMs: 0 })).rejects.toThrow(/timeoutMs must be a positive number/);
  });

  it("chat: a timeout followed by a fast answer succeeds on the retry", async () => {
    // A generous per-attempt limit, so a busy machine's ordinary reply is never mistaken for a timeout.
    const s = await scripted([{ content: "late", delayMs: 4000 }, { content: "on time" }]);
    const r = await chatModel(s.baseURL, { timeoutMs: 1000, maxRetries: 2 }).chat(msgs, { meta });
    expect(r).toMatchObject({ ok: true, text: "on time", call: { attempts: 2 } });
    expect(s.requests.length).toBe(2);
  });

  it("structured: timeouts are retried the same way", async () => {
    const s = await scripted([{ content: '{"n":1}', delayMs: 1000 }]);
    const r = await chatModel(s.baseURL, { timeoutMs: 100, maxRetries: 1 }).structured(msgs, z.object({ n: z.number() }), { meta, schemaName: "n" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/timed out after 100 ms/);
    expect(s.requests.length).toBe(2);
  });

  it("chat: a caller abort during the request → failure at once, 1 request, no retry", async () => {
    const ac = new AbortController();
    // abort while the server holds the request (not on a wall-clock guess of when it arrives)
    const s = await scripted((): ScriptedReply => {
      setTimeout(() => ac.abort(), 50);
      return { content: "slow", delayMs: 5000 };
    });
    const t0 = Date.now();
    const r = await chatModel(s.baseURL, { timeoutMs: 5000, maxRetries: 3 }).chat(msgs, { meta, signal: ac.signal });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/aborted by the caller's signal/);
    expect(r.call.attempts).toBe(1);
    expect(s.requests.length).toBe(1);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("chat: a caller's own AbortSignal.timeout is the caller's abort (not retried) and the error says so", async () => {
    const s = await scripted([{ content: "slow", delayMs: 1000 }]);
    const r = await chatModel(s.baseURL, { timeoutMs: 5000, maxRetries: 3 }).chat(msgs, { meta, signal: AbortSignal.timeout(100) });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/aborted by the caller's signal \(TimeoutError/);
    expect(r.call.attempts).toBe(1);
    expect(s.requests.length).toBeLessThanOrEqual(1); // under load the abort may come before the request lands
  });

  it("embeddings: delay > timeoutMs → maxRetries + 1 requests, EmbeddingError that says it timed out", async () => {
    const s = await scripted((): ScriptedReply => ({ delayMs: 1500 }));
    const e = createOpenAIEmbeddingClient("openai:emb", { baseURL: s.baseURL, apiKeyEnv: "K", timeoutMs: 150, maxRetries: 1, retryBaseMs: 5 }, { cacheDir: dir, env: { K: KEY } });
    const t0 = Date.now();
    const err = await e.embed(["x"]).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as Error).message).toMatch(/timeout error after 2 attempts: request timed out after 150 ms/);
    expect(s.requests.length).toBe(2);
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it("embeddings: a caller abort → no retry", async () => {
    const ac = new AbortController();
    const s = await scripted((): ScriptedReply => {
      setTimeout(() => ac.abort(), 50);
      return { delayMs: 5000 };
    });
    const e = createOpenAIEmbeddingClient("openai:emb", { baseURL: s.baseURL, apiKeyEnv: "K", timeoutMs: 5000, maxRetries: 3, retryBaseMs: 5 }, { cacheDir: dir, env: { K: KEY } });
    const t0 = Date.now();
    await expect(e.embed(["x"], { signal: ac.signal })).rejects.toThrow();
    expect(s.requests.length).toBe(1);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describe("non-JSON and malformed replies", () => {
  it("classifies a malformed 5xx/429 like any 5xx/429 and a malformed 2xx/4xx as not retryable", () => {
    expect(classifyError(new MalformedResponseError({ status: 502, body: "<html>" }))).toMatchObject({ kind: "server", retryable: true, status: 502 });
    expect(classifyError(new MalformedResponseError({ status: 503, body: "<html>", headers: new Headers({ "retry-after": "2" }) }))).toMatchObject({
      kind: "server",
      retryable: true,
      retryAfterMs: 2000,
    });
    expect(classifyError(new MalformedResponseError({ status: 429, body: "slow down" }))).toMatchObject({ kind: "rate-limit", retryable: true });
    expect(classifyError(new MalformedResponseError({ status: 200, body: "<html>" }))).toEqual({ kind: "malformed", retryable: false, status: 200 });
    expect(classifyError(new MalformedResponseError({ status: 404, body: "404 page not found" }))).toEqual({ kind: "malformed", retryable: false, status: 404 });
    const long = new MalformedResponseError({ status: 200, contentType: "text/html", body: `<p>${"x".repeat(300)}</p>` });
    expect(long.message).toBe(`endpoint returned a non-JSON response (HTTP 200, content-type text/html): <p>${"x".repeat(97)}…`);
  });

  it("chat: an HTML 200 → failure naming the non-JSON reply, HTTP status and body start; not retried", async () => {
    const s = await rawServer(() => ({ status: 200, contentType: "text/html", body: "<!DOCTYPE html><html><body>Captive portal: please log in</body></html>" }));
    const r = await chatModel(s.baseURL).chat(msgs, { meta });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/malformed error \(not retried\): endpoint returned a non-JSON response \(HTTP 200, content-type text\/html\): <!DOCTYPE html><html><body>Captive portal: please log in/);
      expect(r.error).not.toMatch(/Cannot read properties/);
    }
    expect(s.count()).toBe(1);
  });

  it("chat: an HTML 502 is retried like any 5xx, then reported as non-JSON with its status", async () => {
    const s = await rawServer(() => ({ status: 502, contentType: "text/html", body: NGINX_502 }));
    const r = await chatModel(s.baseURL, { maxRetries: 2 }).chat(msgs, { meta });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error).toMatch(/server error after 3 attempts: endpoint returned a non-JSON response \(HTTP 502, content-type text\/html\): <html> <head><title>502 Bad Gateway<\/title><\/head>/);
    expect(s.count()).toBe(3);
  });

  it("chat: an HTML 502 then a good answer succeeds; JSON sent as text/plain is accepted", async () => {
    const good = JSON.stringify({
      id: "x",
      object: "chat.completion",
      created: 1,
      model: "same-name",
      choices: [{ index: 0, message: { role: "assistant", content: "fine" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    const s = await rawServer((_req, n) => (n === 0 ? { status: 502, contentType: "text/html", body: NGINX_502 } : { status: 200, contentType: "text/plain; charset=utf-8", body: good }));
    const r = await chatModel(s.baseURL).chat(msgs, { meta });
    expect(r).toMatchObject({ ok: true, text: "fine", call: { attempts: 2, usage: { inputTokens: 3, outputTokens: 1 } } });
  });

  it("chat: JSON without `choices`, invalid JSON and an empty 200 are named as malformed", async () => {
    const bodies = [
      {
        contentType: "application/json",
        body: '{"detail":"model not loaded"}',
        re: /malformed response \(no "choices" array\) \(HTTP 200, content-type application\/json\): \{"detail":"model not loaded"\}/,
      },
      { contentType: "application/json", body: '{"choices": [', re: /malformed JSON response \(HTTP 200, content-type application\/json\): \{"choices": \[/ },
      { contentType: "application/json", body: "", re: /empty response \(HTTP 200, content-type application\/json\) \(empty body\)/ },
    ];
    for (const b of bodies) {
      const s = await rawServer(() => ({ status: 200, contentType: b.contentType, body: b.body }));
      const r = await chatModel(s.baseURL).chat(msgs, { meta });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(b.re);
      expect(s.count()).toBe(1);
    }
  });

  it("the key never appears, even when the HTML page echoes the Authorization header", async () => {
    const s = await rawServer((req) => ({ status: 503, contentType: "text/html", body: `<html>denied ${String(req.headers.authorization)}</html>` }));
    const r = await chatModel(s.baseURL, { maxRetries: 0 }).chat(msgs, { meta });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("<html>denied Bearer [REDACTED]</html>");
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it("embeddings: an HTML 502 is retried and surfaces as EmbeddingError naming the non-JSON reply", async () => {
    const s = await rawServer(() => ({ status: 502, contentType: "text/html", body: NGINX_502 }));
    const e = createOpenAIEmbeddingClient("openai:emb", { baseURL: s.baseURL, apiKeyEnv: "K", maxRetries: 1, retryBaseMs: 5 }, { cacheDir: dir, env: { K: KEY } });
    const err = await e.embed(["x"]).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as Error).message).toMatch(/server error after 2 attempts: endpoint returned a non-JSON response \(HTTP 502, content-type text\/html\)/);
    expect(s.count()).toBe(2);
  });

  it("withRetry stops at once when the caller's signal has aborted, whatever the error", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stop now"));
    let n = 0;
    const r = await withRetry(
      async () => {
        n++;
        throw new AttemptTimeoutError(10);
      },
      { maxRetries: 3, baseMs: 1, maxMs: 1, maxRetryAfterMs: 10 },
      { signal: ac.signal },
    );
    expect(r).toMatchObject({ ok: false, attempts: 1, gaveUp: "aborted by the caller's signal (Error: stop now)" });
    expect(n).toBe(1);
  });
});
