import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backoffDelay, CallCache, callCacheKey, classifyError, createRateLimiter, parseRetryAfter, stableStringify, summarizeUsage, withRetry, TokenBucket } from "../../models/index.ts";

const root = mkdtempSync(join(tmpdir(), "medsynth-cache-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("retry", () => {
  it("parses Retry-After seconds and HTTP-dates", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parseRetryAfter("Wed, 21 Oct 2026 07:28:03 GMT", now)).toBe(3000);
    expect(parseRetryAfter("Wed, 21 Oct 2026 07:27:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
  it("classifies statuses and reads headers", () => {
    expect(classifyError({ status: 429, headers: new Headers({ "retry-after": "3" }) })).toEqual({ kind: "rate-limit", retryable: true, status: 429, retryAfterMs: 3000 });
    expect(classifyError({ status: 503, headers: { "retry-after-ms": "250" } })).toMatchObject({ kind: "server", retryable: true, retryAfterMs: 250 });
    expect(classifyError({ status: 401 })).toMatchObject({ kind: "client", retryable: false });
    expect(classifyError(Object.assign(new Error("x"), { name: "AbortError" }))).toMatchObject({ retryable: false });
    expect(classifyError(new Error("Connection error."))).toMatchObject({ kind: "network", retryable: true });
  });
  it("backoff doubles, is capped, and jitters in [0.5, 1)", () => {
    const p = { baseMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4].map((r) => backoffDelay(r, p, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect(backoffDelay(2, p, () => 0.999999)).toBe(400);
  });
  it("stops on non-retryable errors, after maxRetries, and on a too-long Retry-After", async () => {
    const policy = { maxRetries: 3, baseMs: 1, maxMs: 2, maxRetryAfterMs: 1000 };
    let n = 0;
    const r1 = await withRetry(async () => {
      n++;
      throw { status: 400 };
    }, policy);
    expect([r1.ok, r1.attempts, n]).toEqual([false, 1, 1]);
    n = 0;
    const r2 = await withRetry(async () => {
      n++;
      throw { status: 502 };
    }, policy);
    expect([r2.ok, r2.attempts, n]).toEqual([false, 4, 4]);
    const r3 = await withRetry(async () => {
      throw { status: 429, headers: { "retry-after": "3600" } };
    }, policy);
    expect(r3.ok ? "" : r3.gaveUp).toMatch(/retry after 3600000 ms/);
    n = 0;
    const r4 = await withRetry(async () => {
      if (++n < 3) throw { status: 500 };
      return "ok";
    }, policy);
    expect(r4).toEqual({ ok: true, value: "ok", attempts: 3 });
  });
});

describe("rate limits", () => {
  it("never runs more than `concurrency` at once", async () => {
    const l = createRateLimiter({ concurrency: 2, requestsPerMinute: 0 });
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        l.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 10));
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });
  it("token bucket spaces starts at 60000/rpm ms after the burst", async () => {
    const b = new TokenBucket(600, 1); // one token per 100 ms
    const t0 = Date.now();
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      await b.take();
      times.push(Date.now() - t0);
    }
    expect(times[0]).toBeLessThan(80);
    expect(times[1]).toBeGreaterThanOrEqual(90);
    expect(times[2]).toBeGreaterThanOrEqual(190);
    expect(times[2]).toBeLessThan(1000);
  });
});

describe("call cache", () => {
  it("keys are order-insensitive for object keys and sensitive to content", () => {
    expect(stableStringify({ b: 1, a: [1, { d: 2, c: undefined }] })).toBe('{"a":[1,{"d":2}],"b":1}');
    const base = { kind: "chat", provider: "openai", model: "m", messages: [{ role: "user", content: "x" }], promptId: "p", promptVersion: "1", repeat: 0 };
    expect(callCacheKey(base)).toBe(callCacheKey({ ...base }));
    expect(callCacheKey(base)).not.toBe(callCacheKey({ ...base, repeat: 1 }));
    expect(callCacheKey(base)).toMatch(/^[0-9a-f]{64}$/);
  });
  it("stores successes atomically, skips failures, shares in-flight work", async () => {
    const c = new CallCache(root);
    let runs = 0;
    const compute = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 20));
      return { ok: true, v: 1 };
    };
    const rs = await Promise.all([1, 2, 3].map(() => c.getOrCompute("ab".padEnd(64, "0"), compute, (v) => v.ok)));
    expect(runs).toBe(1);
    expect(rs.map((r) => r.source).sort()).toEqual(["miss", "shared", "shared"]);
    expect((await c.getOrCompute("ab".padEnd(64, "0"), compute, (v) => v.ok)).source).toBe("hit");
    expect(readdirSync(join(root, "calls", "ab"))).toEqual(["ab".padEnd(64, "0") + ".json"]);
    const fail = async () => {
      runs++;
      return { ok: false, v: 0 };
    };
    await c.getOrCompute("cd".padEnd(64, "0"), fail, (v) => v.ok);
    await c.getOrCompute("cd".padEnd(64, "0"), fail, (v) => v.ok);
    expect(runs).toBe(3);
  });
});

describe("usage", () => {
  it("sums calls, separating cache hits", () => {
    const s = summarizeUsage([
      { modelId: "m", cached: false, latencyMs: 100, usage: { inputTokens: 10, outputTokens: 3 }, attempts: 2 },
      { modelId: "m", cached: true, latencyMs: 1, originalLatencyMs: 80, usage: { inputTokens: 5, outputTokens: 2 }, attempts: 0 },
      { modelId: "m", cached: false, latencyMs: 50, usage: null, attempts: 1 },
      undefined,
    ]);
    expect(s).toEqual({ calls: 3, cached: 1, attempts: 3, inputTokens: 15, outputTokens: 5, freshInputTokens: 10, freshOutputTokens: 3, missingUsage: 1, latencyMs: 151, originalLatencyMs: 230 });
  });
});
