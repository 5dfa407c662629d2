import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CallCache, callCacheKey } from "../../models/call-cache.ts";

describe("CallCache", () => {
  it("stores entries under calls/<2 hex>/<key>.json and reads them back", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-cache-"));
    const cache = new CallCache(root);
    const key = callCacheKey({ kind: "chat", provider: "openai", model: "m", messages: ["hi"] });
    await cache.put(key, { text: "answer" });
    expect(readdirSync(join(root, "calls", key.slice(0, 2)))).toEqual([`${key}.json`]);
    expect(await cache.get(key)).toEqual({ text: "answer" });
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps storing after its folder was removed during the run (the shard folder is made again)", async () => {
    const root = mkdtempSync(join(tmpdir(), "medsynth-cache-"));
    const cache = new CallCache(root);
    const a = callCacheKey({ kind: "chat", provider: "openai", model: "m", messages: ["a"] });
    await cache.put(a, 1);
    rmSync(join(root, "calls"), { recursive: true, force: true });
    // Same shard folder as `a` (the one the instance remembers having made).
    let b = "";
    for (let i = 0; !b || b.slice(0, 2) !== a.slice(0, 2); i++) b = callCacheKey({ kind: "chat", provider: "openai", model: "m", messages: [`b${i}`] });
    await cache.put(b, 2);
    expect(await cache.get(b)).toBe(2);
    expect(await cache.get(a)).toBeUndefined();
    rmSync(root, { recursive: true, force: true });
  });
});
