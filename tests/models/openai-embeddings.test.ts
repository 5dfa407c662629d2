import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashedVector, startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { createEmbeddingClient, createOpenAIEmbeddingClient, EmbeddingError } from "../../models/index.ts";

const KEY = "sk-embed-SECRET-abcdef012345";
let dir: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-emb-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("openai:<model> embeddings", () => {
  it("asks for float vectors in batches, keeps order, caches per text", async () => {
    server = await startScriptedServer([{}]);
    const e = createOpenAIEmbeddingClient("openai:scripted-embed", { baseURL: server.baseURL, apiKeyEnv: "K", batchSize: 2 }, { cacheDir: dir, env: { K: KEY } });
    const texts = ["alpha", "beta\nline", "gamma"];
    const v = await e.embed(texts);
    expect(v.map((x) => Array.from(x))).toEqual(texts.map((t) => Array.from(Float32Array.from(hashedVector(t)))));
    expect(server.requests.length).toBe(2);
    // batches may reach the server in either order (they are sent concurrently)
    const batches = server.requests.slice(0, 2).map((r) => r.body);
    for (const b of batches) expect(b).toMatchObject({ model: "scripted-embed", encoding_format: "float" });
    expect(batches.every((b) => b.input.length <= 2)).toBe(true);
    expect(batches.flatMap((b) => b.input).sort()).toEqual([...texts].sort());
    const again = await e.embedDetailed(["gamma", "alpha", "delta"]);
    expect(server.requests.length).toBe(3);
    expect(server.requests[2].body.input).toEqual(["delta"]);
    expect(again.info).toMatchObject({ cachedTexts: 2, requests: 1, cached: false });
    expect(Array.from(again.vectors[1])).toEqual(Array.from(v[0]));
  });

  it("retries 429 then succeeds; a dead endpoint throws EmbeddingError without the key", async () => {
    server = await startScriptedServer((_req, n) => (n === 0 ? { status: 429, headers: { "retry-after": "0" } } : {}));
    const e = createEmbeddingClient("openai:scripted-embed", { baseURL: server.baseURL, apiKeyEnv: "K", retryBaseMs: 1 }, { cacheDir: dir, env: { K: KEY } });
    expect((await e.embed(["x"]))[0].length).toBe(8);
    expect(server.requests.length).toBe(2);
    await server.close();
    server = await startScriptedServer((req) => ({ status: 500, body: { error: { message: `boom ${String(req.headers.authorization)}` } } }));
    const bad = createEmbeddingClient("openai:scripted-embed", { baseURL: server.baseURL, apiKeyEnv: "K", retryBaseMs: 1, maxRetries: 1 }, { cacheDir: dir, env: { K: KEY } });
    const err = await bad.embed(["y"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect(err.message).toMatch(/server error after 2 attempts/);
    expect(err.message).not.toContain(KEY);
    expect(server.requests.length).toBe(2);
    expect(() => createEmbeddingClient("wink:100d")).toThrow(/valid ids: openai:<model>/);
  });
});
