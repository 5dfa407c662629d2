import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { readResults } from "../../results/results-file.ts";
import { fakeDeps, type FakeDepsState } from "./fake-runner-deps.ts";

describe("kill -9 mid-run", () => {
  it("loses no finished record and repeats no finished cell", async () => {
    const out = mkdtempSync(join(tmpdir(), "medsynth-kill-"));
    const child = spawn(process.execPath, ["--import", "tsx", resolve(__dirname, "kill-child.ts"), out], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((res) => {
      let buf = "";
      child.stdout.on("data", (d) => {
        buf += String(d);
        if ((buf.match(/done/g) ?? []).length >= 12 && !child.killed) {
          child.kill("SIGKILL");
          res();
        }
      });
      child.on("exit", () => res());
    });
    await new Promise((r) => child.on("exit", r));
    const before = readResults(join(out, "results.jsonl"));
    expect(before.records.length).toBeGreaterThanOrEqual(12);
    expect(before.records.length).toBeLessThan(80);
    const finishedKeys = new Set(before.records.map((r) => r.key));

    const state: FakeDepsState = { calls: [], failOn: new Set(), delayMs: 0 };
    const cfg = parseExperimentConfig({
      name: "kill",
      output: out,
      concurrency: 2,
      datasets: [{ name: "fake" }],
      models: [{ id: "extractive:mmr" }],
      workflows: [{ id: "echo", params: { k: [5, 10] } }],
    });
    const s = await runExperiment(cfg, fakeDeps(40, state), { log: () => {} });
    expect(s.skippedFinished).toBe(finishedKeys.size);
    expect(s.ran).toBe(80 - finishedKeys.size);
    const after = readResults(join(out, "results.jsonl"));
    const keys = after.records.map((r) => r.key);
    expect(new Set(keys).size).toBe(80);
    expect(keys).toHaveLength(80);
    for (const k of finishedKeys) expect(keys).toContain(k);
  }, 60_000);
});
