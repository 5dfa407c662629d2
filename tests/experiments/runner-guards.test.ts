import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseExperimentConfig, ConfigError } from "../../experiments/config.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { validateAgainstRegistries } from "../../experiments/wiring.ts";
import { writeReport, settingsNotes } from "../../experiments/report/build.ts";
import { compareRuns } from "../../experiments/report/compare.ts";
import { readResults } from "../../results/results-file.ts";
import { tryAcquireLock } from "../../corpus/file-lock.ts";
import { fakeDeps } from "./fake-runner-deps.ts";

const base = { name: "g", datasets: [{ name: "medevidence" }], models: [{ id: "extractive:mmr" }] };

describe("config checked against the registries before anything runs", () => {
  it("names bad model ids, workflow parameters and rerankers by path", () => {
    const cfg = parseExperimentConfig({
      ...base,
      output: "o",
      models: [{ id: "gpt-4o" }, { id: "extractive:foo" }],
      workflows: [
        { id: "standard-rag", params: { k: [5, "ten"], reranker: "bogus" } },
        { id: "negated-rag", params: { fraction: [0, 1.5], kk: 1 } },
      ],
      metrics: ["rouge", "nope"],
    });
    try {
      validateAgainstRegistries(cfg);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toEqual(
        expect.arrayContaining(["models.0.id", "models.1.id", "workflows.0.params.k", "workflows.0.params.reranker", "workflows.1.params.fraction", "workflows.1.params.kk", "metrics"]),
      );
      expect((e as Error).message).toMatch(/models\.0\.id: unknown model id "gpt-4o"; valid ids: openai:<model>, extractive:mmr, extractive:lead/);
    }
  });

  it("a rejected config leaves the folder's spec.json untouched", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-guard-"));
    const good = parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m" }], workflows: [{ id: "echo" }] });
    await runExperiment(good, fakeDeps(2, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    const before = readFileSync(join(out, "spec.json"), "utf8");
    const bad = parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m" }], workflows: [{ id: "golden_rag" }] });
    await expect(runExperiment(bad, fakeDeps(2, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} })).rejects.toThrow(/unknown workflow "golden_rag"; valid: echo/);
    expect(readFileSync(join(out, "spec.json"), "utf8")).toBe(before);
  });
});

describe("one run per folder, and the report covers the current spec", () => {
  it("refuses a second run while a live process holds the folder", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-guard-"));
    const cfg = parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m" }], workflows: [{ id: "echo" }] });
    // The first run holds the folder until the test opens the gate (no timing assumptions).
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const held = fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 });
    const create = held.createWorkflow;
    held.createWorkflow = async (m, id, p) => {
      const w = await create(m, id, p);
      return { id, run: async (t: any, o) => (await gate, w.run(t, o)) };
    };
    const slow = runExperiment(cfg, held, { log: () => {} });
    await expect(runExperiment(cfg, fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} })).rejects.toThrow(/another medsynth run \(pid \d+\) is writing to this folder/);
    open();
    await slow;
    expect(readResults(join(out, "results.jsonl")).records).toHaveLength(3);
  });

  it("takes over a lock left by a dead process", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-lock-"));
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    writeFileSync(join(dir, "x.lock"), dead);
    const got = tryAcquireLock(join(dir, "x.lock"));
    expect(got.acquired).toBe(true);
    expect(readFileSync(join(dir, "x.lock"), "utf8")).toBe(String(process.pid));
    const second = tryAcquireLock(join(dir, "x.lock"));
    expect(second).toEqual({ acquired: false, pid: process.pid });
    if (got.acquired) got.release();
    expect(existsSync(join(dir, "x.lock"))).toBe(false);
  });

  it("reports only the cells of the current config, with notes for settings that match nothing", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-guard-"));
    const mk = (k: number[]) => parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m" }], workflows: [{ id: "echo", params: { k } }] });
    await runExperiment(mk([5, 10]), fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    await runExperiment(mk([5]), fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    expect(readResults(join(out, "results.jsonl")).records).toHaveLength(6);
    const files = await writeReport(out, { primaryMetric: "accuracy", comparisons: [{ metric: "exact", a: { k: 5 }, b: { k: 7 } }] });
    const md = readFileSync(files.markdown, "utf8");
    expect(md).toMatch(/^3 records from .*3 records of earlier configs in the same folder are left out/m);
    expect(md).not.toContain("echo k=10");
    expect(md).toContain('primaryMetric "accuracy" is not a column of these records');
    expect(md).toContain('filter b {"k":7} selects no record');
    expect(settingsNotes([], { subgroups: ["year"] })).toEqual(['subgroup field "year" is not set on any item.']);
  });

  it("compare says how many records of each run had no partner", async () => {
    const a = mkdtempSync(join(tmpdir(), "medsynth-cmpA-"));
    const b = mkdtempSync(join(tmpdir(), "medsynth-cmpB-"));
    const mk = (out: string) => parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m1" }], workflows: [{ id: "echo" }] });
    await runExperiment(mk(a), fakeDeps(4, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    await runExperiment(mk(b), fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    const r = compareRuns(a, b);
    expect(r.pairing).toBe("cell");
    expect(r.warnings).toEqual([`3 record pair(s) compared; left out, without a partner: 1 of 4 in ${a}, 0 of 3 in ${b}`]);
    expect(compareRuns(a, a).warnings).toEqual([]);
  });

  it("compare pairs two models' runs by item when they share no cell", async () => {
    const a = mkdtempSync(join(tmpdir(), "medsynth-cmpA-"));
    const b = mkdtempSync(join(tmpdir(), "medsynth-cmpB-"));
    const mk = (out: string, model: string) => parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: model }], workflows: [{ id: "echo" }] });
    await runExperiment(mk(a, "m1"), fakeDeps(4, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    await runExperiment(mk(b, "m2"), fakeDeps(4, { calls: [], failOn: new Set(), delayMs: 0 }), { log: () => {} });
    const r = compareRuns(a, b);
    expect(r.pairing).toBe("item");
    expect(r.deltas.find((d) => d.column === "exact")!.n).toBe(4);
    expect(() => compareRuns(a, join(b, "nope"))).toThrow(`${join(b, "nope")}: no such folder`);
    expect(() => compareRuns(a, tmpdir())).toThrow(/not a run folder \(no results.jsonl\)/);
  });
});
