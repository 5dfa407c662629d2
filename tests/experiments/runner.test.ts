import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseExperimentConfig, ConfigError } from "../../experiments/config.ts";
import { runExperiment, sampleItems } from "../../experiments/runner.ts";
import { expandParams, expandCells } from "../../experiments/cells.ts";
import { readResults } from "../../results/results-file.ts";
import { fakeDeps, type FakeDepsState } from "./fake-runner-deps.ts";

function config(out: string, extra: Record<string, unknown> = {}) {
  return parseExperimentConfig({
    name: "t",
    output: out,
    datasets: [{ name: "fake" }],
    models: [{ id: "extractive:mmr" }],
    workflows: [{ id: "echo", params: { k: [5, 10] } }],
    ...extra,
  });
}

describe("config", () => {
  it("names the path of an unknown key", () => {
    expect(() => config("/tmp/x", { workflows: [{ id: "echo", parms: {} }] })).toThrow(/workflows\.0\.parms/);
  });
  it("names a misplaced key and a wrong type", () => {
    try {
      parseExperimentConfig({ name: "t", output: "o", datasets: [{ name: "a", k: 5 }], models: [{ id: "m" }], workflows: [{ id: "w" }], repeats: "two" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toContain("datasets.0.k");
      expect(paths).toContain("repeats");
    }
  });
  it("interpolates environment variables with defaults", () => {
    const c = parseExperimentConfig({ name: "t", output: "o", datasets: [{ name: "a" }], models: [{ id: "openai:${M:-gpt-x}", endpoint: { baseURL: "${URL}" } }], workflows: [{ id: "w" }] }, null, {
      URL: "http://127.0.0.1:1/v1",
    });
    expect(c.models[0].id).toBe("openai:gpt-x");
    expect(c.models[0].endpoint).toEqual({ baseURL: "http://127.0.0.1:1/v1" });
    expect(() => parseExperimentConfig({ name: "t", output: "o", datasets: [{ name: "a" }], models: [{ id: "${NOPE}" }], workflows: [{ id: "w" }] }, "x.yaml", {})).toThrow(
      /models\.0\.id: environment variable NOPE/,
    );
  });
});

describe("cells", () => {
  it("expands parameter sweeps as a Cartesian product", () => {
    expect(expandParams({ k: [5, 10], r: "none", f: [0, 1] })).toEqual([
      { f: 0, k: 5, r: "none" },
      { f: 0, k: 10, r: "none" },
      { f: 1, k: 5, r: "none" },
      { f: 1, k: 10, r: "none" },
    ]);
  });
  it("gives 2 items × 2 models × 2 params × 3 repeats = 24 distinct keys", () => {
    const cells = expandCells([{ dataset: "d", taskKind: "synthesis", itemIds: ["a", "b"] }], ["m1", "m2"], [{ id: "w", params: { k: [5, 10] } }], 3, () => "synthesis");
    expect(cells).toHaveLength(24);
    expect(new Set(cells.map((c) => c.key)).size).toBe(24);
    const none = expandCells([{ dataset: "d", taskKind: "rwe", itemIds: ["a"] }], ["m1"], [{ id: "w", params: {} }], 1, () => "synthesis");
    expect(none).toHaveLength(0);
  });
  it("samples deterministically by seed, keeping order", () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ id: String(i) }));
    const a = sampleItems(items, { sample: 5 }, 7).map((i) => i.id);
    expect(sampleItems(items, { sample: 5 }, 7).map((i) => i.id)).toEqual(a);
    expect(a).toHaveLength(5);
    expect([...a].sort((x, y) => +x - +y)).toEqual(a);
    expect(sampleItems(items, { sample: 5 }, 8).map((i) => i.id)).not.toEqual(a);
    expect(() => sampleItems(items, { ids: ["99"] }, 1)).toThrow(/unknown item ids 99/);
  });
});

describe("runner", () => {
  it("runs every cell once, skips finished cells on re-run, and retries only failures", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const state: FakeDepsState = { calls: [], failOn: new Set(["q2"]), delayMs: 0 };
    const cfg = config(out);
    const s1 = await runExperiment(cfg, fakeDeps(3, state), { log: () => {} });
    expect(s1.totalCells).toBe(6);
    expect(s1.ran).toBe(6);
    expect(s1.failed).toBe(2);
    const r1 = readResults(join(out, "results.jsonl")).records;
    expect(r1).toHaveLength(6);
    expect(r1.find((r) => r.itemId === "q1" && r.params.k === 5)!.output).toBe("Answer 1 k=5");
    expect(r1.find((r) => r.itemId === "q2")!.error).toBe("endpoint down");
    expect(r1[0].generator).toEqual({
      calls: 1,
      requests: 1,
      cachedCalls: 0,
      inputTokens: 10,
      outputTokens: 3,
      cachedInputTokens: 0,
      cachedOutputTokens: 0,
      unknownUsageCalls: 0,
      batchCalls: 0,
      batchInputTokens: 0,
      batchOutputTokens: 0,
      latencyMs: 5,
      cached: false,
      modelLatencyMs: 5,
    });
    expect(JSON.parse(readFileSync(join(out, "spec.json"), "utf8")).configHash).toBe(s1.configHash);

    state.calls.length = 0;
    const s2 = await runExperiment(cfg, fakeDeps(3, state), { log: () => {} });
    expect(s2.ran).toBe(0);
    expect(s2.skippedFinished).toBe(6);
    expect(state.calls).toEqual([]);

    state.failOn.clear();
    const s3 = await runExperiment(cfg, fakeDeps(3, state), { retryFailed: true, log: () => {} });
    expect(s3.ran).toBe(2);
    expect(state.calls.sort()).toEqual(['q2/extractive:mmr/{"k":10}/0', 'q2/extractive:mmr/{"k":5}/0']);
    const recs = readResults(join(out, "results.jsonl")).records;
    expect(recs).toHaveLength(8);
    const latest = new Map(recs.map((r) => [r.key, r]));
    expect([...latest.values()].filter((r) => r.status === "failed")).toHaveLength(0);
  });

  it("cuts a torn last line and re-runs only that cell", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const state: FakeDepsState = { calls: [], failOn: new Set(), delayMs: 0 };
    const cfg = config(out);
    await runExperiment(cfg, fakeDeps(2, state), { log: () => {} });
    const path = join(out, "results.jsonl");
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    writeFileSync(path, lines.slice(0, 3).join("\n") + "\n" + lines[3].slice(0, 40));
    state.calls.length = 0;
    const logs: string[] = [];
    const s = await runExperiment(cfg, fakeDeps(2, state), { log: (l) => logs.push(l) });
    expect(s.ran).toBe(1);
    expect(logs.join("\n")).toMatch(/cut off an unfinished last line/);
    const recs = readResults(path);
    expect(recs.records).toHaveLength(4);
    expect(recs.truncatedTail).toBe(false);
  });

  it("skips malformed lines with their numbers and keeps the rest", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const state: FakeDepsState = { calls: [], failOn: new Set(), delayMs: 0 };
    await runExperiment(config(out), fakeDeps(1, state), { log: () => {} });
    appendFileSync(join(out, "results.jsonl"), "{not json}\n");
    const r = readResults(join(out, "results.jsonl"));
    expect(r.records).toHaveLength(2);
    expect(r.malformedLines).toEqual([3]);
  });

  it("inference time of cached calls is their original generation time, not the cache-hit time", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const deps = fakeDeps(1, { calls: [], failOn: new Set(), delayMs: 0 });
    const create = deps.createWorkflow;
    deps.createWorkflow = async (m, id, p) => {
      const w = await create(m, id, p);
      return {
        id,
        run: async (t: any, o) => ({
          ...(await w.run(t, o)),
          calls: [
            { modelId: m.id, cached: true, latencyMs: 2, originalLatencyMs: 800, usage: null, attempts: 0 },
            { modelId: m.id, cached: false, latencyMs: 300, usage: null, attempts: 1 },
          ],
        }),
      };
    };
    await runExperiment(config(out), deps, { log: () => {} });
    const r = readResults(join(out, "results.jsonl")).records[0];
    expect(r.generator.modelLatencyMs).toBe(1100);
    expect(r.generator.cached).toBe(false);
  });

  it("a score output (feasibility) becomes a metric and is never judged or compared as text", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const deps = fakeDeps(1, { calls: [], failOn: new Set(), delayMs: 0 });
    const create = deps.createWorkflow;
    let judged = 0;
    deps.judge = async () => {
      judged++;
      return { scores: [], calls: [] };
    };
    deps.createWorkflow = async (m, id, p) => {
      const w = await create(m, id, p);
      return { id, outputKind: "score" as const, run: async (t: any, o) => ({ ...(await w.run(t, o)), output: "4.33" }) };
    };
    await runExperiment(config(out), deps, { log: () => {} });
    const r = readResults(join(out, "results.jsonl")).records[0];
    expect(r.metrics).toEqual({ echo_score: 4.33 });
    expect(r.outputKind).toBe("score");
    expect(judged).toBe(0);
    expect(r.judgeScores).toBeUndefined();
  });

  it("records an empty model answer as a failure, never as an output", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const deps = fakeDeps(2, { calls: [], failOn: new Set(), delayMs: 0 });
    const create = deps.createWorkflow;
    deps.createWorkflow = async (m, id, p) => {
      const w = await create(m, id, p);
      return { id, run: async (t: any, o) => ({ ...(await w.run(t, o)), output: t.id === "q2" ? "  " : "fine" }) };
    };
    const s = await runExperiment(config(out), deps, { log: () => {} });
    expect(s.failed).toBe(2);
    const recs = readResults(join(out, "results.jsonl")).records.filter((r) => r.itemId === "q2");
    expect(recs.map((r) => [r.status, r.output, r.error, r.metrics])).toEqual([
      ["failed", null, "the model returned an empty answer", undefined],
      ["failed", null, "the model returned an empty answer", undefined],
    ]);
  });

  it("stops on abort without writing interrupted cells", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-run-"));
    const state: FakeDepsState = { calls: [], failOn: new Set(), delayMs: 30 };
    const ac = new AbortController();
    const cfg = config(out, { concurrency: 1 });
    const s = await runExperiment(cfg, fakeDeps(10, state), { signal: ac.signal, log: () => {}, onProgress: (p) => p.done === 3 && ac.abort() });
    expect(s.aborted).toBe(true);
    expect(s.ran).toBe(3);
    expect(readResults(join(out, "results.jsonl")).records).toHaveLength(3);
    const again = await runExperiment(cfg, fakeDeps(10, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    expect(again.ran).toBe(17);
    expect(again.skippedFinished).toBe(3);
  });
});
