/**
 * Batch execution through the call layer: chat and structured calls of a model in a batch session
 * go out as one batch per wave with the same request bodies as online calls, come back mapped by
 * custom_id whatever the output order, are cached like online answers, and failed / expired lines
 * are retried online or in a new batch and counted; a new session re-attaches to submitted batches.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createOpenAIChatModel } from "../../models/openai-chat.ts";
import { BatchCollector, progressLine } from "../../models/batch-collector.ts";
import { createHttpBatchApi, parseBatchResults } from "../../models/batch-api.ts";
import { bodyHash, startFakeBatchServer, type FakeBatchServer } from "../helpers/fake-batch-server.ts";

let server: FakeBatchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers "re: <last user message>"; structured requests get {"answer": "<msg>"}. */
const responder = (body: any) => {
  const last = [...body.messages].reverse().find((m: any) => m.role === "user")?.content ?? "";
  return body.response_format ? { content: JSON.stringify({ answer: last }) } : { content: `re: ${last}`, usage: { prompt_tokens: last.length, completion_tokens: 3 } };
};
const endpoint = (baseURL: string) => ({ baseURL, apiKeyEnv: "FAKE_KEY", retryBaseMs: 1, retryMaxMs: 2, timeoutMs: 5000 });
const env = { FAKE_KEY: "sk-test-123456" };
const session = (dir: string, settings: Record<string, unknown> = {}) =>
  new BatchCollector(
    join(dir, "batches.jsonl"),
    (url, key) => createHttpBatchApi(url, key),
    { pollMs: 10, idleMs: 300, ...settings },
    () => {},
    true,
  );
const meta = (i: number) => ({ meta: { promptId: "p", promptVersion: "1", repeat: i } });
const Answer = z.object({ answer: z.string() });

async function calls(model: ReturnType<typeof createOpenAIChatModel>, n: number) {
  return Promise.all([
    ...Array.from({ length: n }, (_, i) => model.chat([{ role: "user", content: `question ${i}` }], meta(i))),
    model.structured([{ role: "user", content: "structured one" }], Answer, { ...meta(0), schemaName: "answer" }),
  ]);
}

describe("batch session", () => {
  it("one wave = one batch; answers mapped by custom_id from a shuffled output; same bodies as online; cached like online", async () => {
    server = await startFakeBatchServer({ responder });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const batch = session(dir);
    const model = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "cache-b"), batch });
    const out = await calls(model, 6);
    expect(server.batches).toHaveLength(1);
    expect(server.batchLines).toHaveLength(7);
    expect(server.onlineBodies).toHaveLength(0);
    for (let i = 0; i < 6; i++) expect(out[i]).toMatchObject({ ok: true, text: `re: question ${i}`, call: { batch: true, usage: { inputTokens: `question ${i}`.length, outputTokens: 3 } } });
    expect(out[6]).toMatchObject({ ok: true, value: { answer: "structured one" } });
    // The output file really was out of order.
    const outFile = parseBatchResults(await (await fetch(`${server.baseURL}/files/${server.batches[0].output_file_id}/content`)).text(), "x").map((l) => l.custom_id);
    expect(outFile).not.toEqual(server.batchLines.map((l) => l.customId));
    // Online: the very same request bodies.
    const online = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "cache-o") });
    await calls(online, 6);
    expect(server.onlineBodies.map(bodyHash).sort()).toEqual(server.batchLines.map((l) => bodyHash(l.body)).sort());
    // Cached: asking again sends nothing.
    const again = await model.chat([{ role: "user", content: "question 2" }], meta(2));
    expect(again).toMatchObject({ ok: true, text: "re: question 2", call: { cached: true } });
    expect(server.batches).toHaveLength(1);
    expect(batch.stats).toMatchObject({ batches: 1, linesSubmitted: 7, retriedOnline: 0 });
  });

  it("a failed line (HTTP 500) is retried online by default and counted; with onFailedLine batch it goes into a new batch", async () => {
    const failing = new Set(["question 1", "question 4"]);
    let failOn = 1; // the n-th submission of a failing request fails
    server = await startFakeBatchServer({ responder, failLine: (_id, n, body) => (n === failOn && failing.has(body.messages.at(-1).content) ? 500 : null) });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const batch = session(dir);
    const model = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c1"), batch });
    const p = calls(model, 6);
    const out = await p;
    expect(out.slice(0, 6).map((r) => (r.ok ? (r as { text: string }).text : r.error))).toEqual([0, 1, 2, 3, 4, 5].map((i) => `re: question ${i}`));
    expect(batch.stats).toMatchObject({ failedLines: 2, retriedOnline: 2, retriedInBatch: 0 });
    expect(server.onlineBodies.map((b) => b.messages.at(-1).content).sort()).toEqual(["question 1", "question 4"]);
    const journal = readFileSync(join(dir, "batches.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(journal.filter((e) => e.event === "retried").map((e) => e.how)).toEqual(["online", "online"]);

    // Same faults, retried in a new batch.
    const dir2 = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const batch2 = session(dir2, { onFailedLine: "batch" });
    const model2 = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir2, "c"), batch: batch2 });
    const before = server.batches.length;
    failOn = 2; // these ids were submitted once above
    const onlineBefore = server.onlineBodies.length;
    const out2 = await calls(model2, 6);
    expect(out2.every((r) => r.ok)).toBe(true);
    expect(server.onlineBodies.length).toBe(onlineBefore);
    expect(server.batches.length - before).toBe(2);
    const ids = server.batchLines.filter((l) => failing.has(l.body.messages.at(-1).content)).map((l) => l.customId);
    expect(
      server.batches
        .at(-1)!
        .lines.map((l) => l.custom_id)
        .sort(),
    ).toEqual([...new Set(ids)].sort());
    expect(batch2.stats).toMatchObject({ retriedInBatch: 2, retriedOnline: 0 });
  });

  it("an expired batch's unanswered requests are retried online; nothing is lost", async () => {
    server = await startFakeBatchServer({ responder, expireAfter: (no) => (no === 1 ? 3 : null), shuffle: false });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const batch = session(dir);
    const model = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c"), batch });
    const out = await calls(model, 6);
    expect(out.every((r) => r.ok)).toBe(true);
    expect(server.batches[0].status).toBe("expired");
    expect(batch.stats).toMatchObject({ missingLines: 4, retriedOnline: 4 });
    expect(server.onlineBodies).toHaveLength(4);
  });

  it("a new session over the same journal re-attaches to a submitted batch and submits nothing again", async () => {
    server = await startFakeBatchServer({ responder, pollsToComplete: 1_000_000 });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const first = session(dir);
    const ac = new AbortController();
    const m1 = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c"), batch: first });
    const pending = Promise.all(Array.from({ length: 4 }, (_, i) => m1.chat([{ role: "user", content: `question ${i}` }], { ...meta(i), signal: ac.signal })));
    while (server.batches.length === 0 || server.batches[0].polls < 2) await new Promise((r) => setTimeout(r, 5));
    ac.abort(); // the process "dies" mid-poll; its batch keeps running on the server
    await pending;
    await first.close();
    server.batches[0].polls = 1_000_000 - 1; // the server finishes it on the next poll
    const second = session(dir);
    const m2 = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c"), batch: second });
    const out = await Promise.all(Array.from({ length: 4 }, (_, i) => m2.chat([{ role: "user", content: `question ${i}` }], meta(i))));
    expect(out.map((r) => (r.ok ? r.text : r.error))).toEqual([0, 1, 2, 3].map((i) => `re: question ${i}`));
    expect(server.batches).toHaveLength(1);
    expect([...server.submissions().values()].every((n) => n === 1)).toBe(true);
    expect(second.stats).toMatchObject({ batches: 0, reattached: 4 });
  });

  it("calls that ask after a re-attached batch's results arrived are counted as re-attached too (one at a time)", async () => {
    server = await startFakeBatchServer({ responder, pollsToComplete: 1_000_000 });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-batch-"));
    const first = session(dir);
    const ac = new AbortController();
    const m1 = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c"), batch: first });
    const pending = Promise.all(Array.from({ length: 4 }, (_, i) => m1.chat([{ role: "user", content: `question ${i}` }], { ...meta(i), signal: ac.signal })));
    while (server.batches.length === 0 || server.batches[0].polls < 2) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await pending;
    await first.close();
    server.batches[0].polls = 1_000_000 - 1;
    const second = session(dir);
    const m2 = createOpenAIChatModel("openai:m1", endpoint(server.baseURL), { env, cacheDir: join(dir, "c"), batch: second });
    // The first call follows the batch to its end; the next three find its results already there.
    for (let i = 0; i < 4; i++) expect(await m2.chat([{ role: "user", content: `question ${i}` }], meta(i))).toMatchObject({ ok: true, text: `re: question ${i}` });
    expect(server.batches).toHaveLength(1);
    expect(second.stats).toMatchObject({ batches: 0, reattached: 4, linesDone: 4 });
  });

  it("progress line: state, lines done, failed, ETA", () => {
    const line = progressLine({ id: "batch_1", status: "in_progress", input_file_id: "f", request_counts: { total: 100, completed: 20, failed: 5 } }, "gpt", 0, 50_000);
    expect(line).toBe("batch batch_1 (gpt): in_progress, 25/100 lines done, 5 failed; 50s elapsed ETA 150s".replace("150s", "3m"));
  });
});
