import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, parseExperimentConfig } from "../../experiments/config.ts";
import { runExperiment, planExperiment } from "../../experiments/runner.ts";
import { changedSettings } from "../../experiments/settings-change.ts";
import { fakeDeps } from "./fake-runner-deps.ts";

const cfg = (out: string, extra: Record<string, unknown> = {}) =>
  parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "m" }], workflows: [{ id: "echo" }], ...extra });
const deps = () => fakeDeps(3, { calls: [], failOn: new Set(), delayMs: 0 });

describe("settings outside the cell keys (retrieval, seed, promptDir)", () => {
  it("lists each changed setting, the retrieval block key by key", () => {
    const a = cfg("o", { retrieval: { corpus: "bundled", options: {} } });
    const b = cfg("o", { retrieval: { corpus: "lance:/data/store", options: {} }, seed: 7 });
    expect(changedSettings(a as unknown as Record<string, unknown>, b)).toEqual(['retrieval.corpus: "bundled" → "lance:/data/store"', "seed: 42 → 7"]);
    expect(changedSettings(a as unknown as Record<string, unknown>, cfg("o", { concurrency: 9, repeats: 2 }))).toEqual([]);
  });

  it("speed-only retriever options (on-disk BM25 threads, page cache and strategy) never count as a change; other bm25Disk keys do", () => {
    const opts = (bm25Disk: Record<string, unknown>) => cfg("o", { retrieval: { corpus: "bundled", options: { engine: "disk", bm25Disk }, settings: { s: { bm25Disk } } } });
    const a = opts({ threads: 2, pageCacheMiB: 64, strategy: "pruned" });
    expect(changedSettings(a as unknown as Record<string, unknown>, opts({ threads: 1 }))).toEqual([]);
    expect(changedSettings(a as unknown as Record<string, unknown>, opts({ threads: "auto", pageCacheMiB: 512, strategy: "taat" }))).toEqual([]);
    expect(changedSettings(a as unknown as Record<string, unknown>, opts({ threads: 2, dir: "/elsewhere" }))).toEqual([
      'retrieval.options: {"engine":"disk"} → {"bm25Disk":{"dir":"/elsewhere"},"engine":"disk"}',
      'retrieval.settings: {"s":{}} → {"s":{"bm25Disk":{"dir":"/elsewhere"}}}',
    ]);
  });

  it("a run into a folder whose results were computed with another corpus is refused (dry-run too); --reuse-changed-settings reuses them with a warning", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-settings-"));
    const first = await runExperiment(cfg(out), deps(), { log: () => {} });
    expect(first.ran).toBe(3);
    const spec = readFileSync(join(out, "spec.json"), "utf8");
    const moved = cfg(out, { retrieval: { corpus: "lance:/data/store", options: {} } });
    const refusal = /holds results computed with other settings that are not part of the cell keys: retrieval\.corpus: "bundled" → "lance:\/data\/store"\. .*--reuse-changed-settings/;
    await expect(runExperiment(moved, deps(), { log: () => {} })).rejects.toThrow(refusal);
    await expect(runExperiment(moved, deps(), { log: () => {} })).rejects.toBeInstanceOf(ConfigError);
    await expect(planExperiment(moved, deps(), { log: () => {} })).rejects.toThrow(refusal);
    // nothing was rewritten by the refused run
    expect(readFileSync(join(out, "spec.json"), "utf8")).toBe(spec);
    const lines: string[] = [];
    const again = await runExperiment(moved, deps(), { log: (l) => lines.push(l), reuseChangedSettings: true });
    expect(again).toMatchObject({ ran: 0, skippedFinished: 3 });
    expect(lines.join("\n")).toMatch(/warning: .*finished cells computed with other settings are reused as they are \(retrieval\.corpus: "bundled" → "lance:\/data\/store"\)/);
    // the same settings again: no refusal (spec.json now holds them)
    expect((await runExperiment(moved, deps(), { log: () => {} })).ran).toBe(0);
  });

  it("a changed matrix (more repeats, another concurrency) resumes as before", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-settings-"));
    await runExperiment(cfg(out), deps(), { log: () => {} });
    const more = await runExperiment(cfg(out, { repeats: 2, concurrency: 5 }), deps(), { log: () => {} });
    expect(more).toMatchObject({ ran: 3, skippedFinished: 3 });
  });
});
