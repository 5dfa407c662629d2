/**
 * `medsynth run --batch` end to end through the CLI against the fake Batch API server: a P-ZS matrix
 * with a 3-judge panel is killed with SIGKILL while its first batch is being polled, re-run, and
 * finishes with exactly the requests an online run of the same config sends (same bodies, compared
 * by hash), every custom_id submitted once, and the same outputs and verdicts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readdirSync } from "node:fs";
import { chatBody } from "../helpers/scripted-openai-server.ts";
import { bodyHash, startFakeBatchServer, type FakeBatchOptions, type FakeBatchServer } from "../helpers/fake-batch-server.ts";
import { batchPanelResponder, writeBatchSetup } from "../helpers/batch-setup.ts";

const BIN = resolve("bin/medsynth.js");
let server: FakeBatchServer;
const fake: FakeBatchOptions = { pollsToComplete: 1_000_000, responder: batchPanelResponder };
let dir: string;

beforeAll(async () => {
  server = await startFakeBatchServer(fake);
  dir = mkdtempSync(join(tmpdir(), "medsynth-batch-e2e-"));
  writeBatchSetup({ dir, baseURL: server.baseURL, items: 5, dataset: "tiny", apiKeyEnv: "MEDSYNTH_TEST_KEY", configs: ["online", "batch", "files"] });
});
afterAll(async () => server?.close());

const env = (cache: string) => ({
  ...process.env,
  NO_COLOR: "1",
  MEDSYNTH_TEST_KEY: "sk-test-abcdef",
  MEDSYNTH_CACHE_DIR: join(dir, cache),
  MEDSYNTH_BATCH_POLL_MS: "40",
  MEDSYNTH_BATCH_IDLE_MS: "1000",
});
/** Run the CLI without blocking this process's event loop (the fake server lives here). */
function cli(args: string[], cache: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const c = spawn(process.execPath, [BIN, ...args], { env: env(cache) });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d) => (stdout += d));
    c.stderr.on("data", (d) => (stderr += d));
    c.on("exit", (status) => done({ status, stdout, stderr }));
  });
}
const records = (run: string) =>
  readFileSync(join(dir, run, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("medsynth run --batch", () => {
  it("--dry-run refuses an invalid --batch-retry, naming the option", async () => {
    const { dryRunCommand } = await import("../../experiments/cli/run-commands.ts");
    await expect(dryRunCommand(join(dir, "batch.yaml"), { batch: true, batchRetry: "foo" }, () => {})).rejects.toThrow(/--batch-retry: expected online or batch, got "foo"/);
  });

  it("--dry-run names the batch share and prices it at the batch rate", async () => {
    const { dryRunCommand } = await import("../../experiments/cli/run-commands.ts");
    const lines: string[] = [];
    // 5 cells: 5 generator calls + 5 × 3 judge verdicts, all through batches with --batch.
    const est = await dryRunCommand(join(dir, "batch.yaml"), { batch: true }, (l) => lines.push(l));
    expect(est.batch).toMatchObject({ calls: 20, totalCalls: 20, share: 1 });
    // Only the generator is priced (2 / 8 USD per 1M tokens): at the batch rate (default half) the cost halves.
    expect(est.batch!.costUsd).toBeCloseTo(est.costUsd! / 2, 12);
    expect(lines.join("\n")).toMatch(/batch: 20 of 20 calls \(100 %\) go through Batch APIs/);
    expect((await dryRunCommand(join(dir, "online.yaml"), {}, () => {})).batch).toBeUndefined();
    // A panel endpoint with `batch: true`: the 15 verdicts are batched, the generator's 5 calls are not.
    writeFileSync(join(dir, "panel-batch.yaml"), readFileSync(join(dir, "panel.yaml"), "utf8").replace("endpoints:\n  judges:\n", "endpoints:\n  judges:\n    batch: true\n"));
    writeFileSync(join(dir, "mixed.yaml"), readFileSync(join(dir, "online.yaml"), "utf8").replace("panel: panel.yaml", "panel: panel-batch.yaml"));
    const mixed = await dryRunCommand(join(dir, "mixed.yaml"), {}, () => {});
    expect(mixed.batch).toMatchObject({ calls: 15, totalCalls: 20, share: 0.75 });
    expect(mixed.batch!.costUsd).toBeCloseTo(mixed.costUsd!, 12);
  });

  it("--dry-run --batch with no call to batch says `batch: 0 of 0 calls` rather than nothing", async () => {
    const { dryRunCommand } = await import("../../experiments/cli/run-commands.ts");
    // the offline extractive baseline makes no model call
    const online = readFileSync(join(dir, "online.yaml"), "utf8");
    const extractive = online.replace(/models:\n( {2}.*\n)+?workflows:/, "models:\n  - id: extractive:mmr\nworkflows:").replace("panel: panel.yaml\n", "");
    writeFileSync(join(dir, "extractive.yaml"), extractive);
    const lines: string[] = [];
    const est = await dryRunCommand(join(dir, "extractive.yaml"), { batch: true }, (l) => lines.push(l));
    expect(est.batch).toEqual({ calls: 0, totalCalls: 0, share: 0, costUsd: null });
    expect(lines.map((l) => l.trim())).toContain("batch: 0 of 0 calls go through Batch APIs (no model call to make)");
    expect((await dryRunCommand(join(dir, "extractive.yaml"), {}, () => {})).batch).toBeUndefined();
  });

  it("kill -9 mid-poll, re-run: re-attached, nothing resubmitted, the same requests and results as online", async () => {
    const online = await cli(["run", join(dir, "online.yaml"), "--no-progress", "--no-report"], "cache-online");
    expect(online.status, online.stderr).toBe(0);
    const onlineHashes = server.onlineBodies.map(bodyHash).sort();
    expect(onlineHashes).toHaveLength(5 + 5 * 3); // 5 generations + 15 verdicts

    const child = spawn(process.execPath, [BIN, "run", join(dir, "batch.yaml"), "--batch", "--no-progress", "--no-report"], { env: env("cache-batch"), stdio: "ignore" });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !(server.batches.length > 0 && server.batches[0].polls >= 2)) await new Promise((r) => setTimeout(r, 20));
    expect(server.batches).toHaveLength(1); // the generation wave
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(join(dir, "batch", "batches.jsonl"))).toBe(true);
    fake.pollsToComplete = 2;

    const rerun = await cli(["run", join(dir, "batch.yaml"), "--batch", "--no-progress", "--no-report"], "cache-batch");
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/batches: \d+ batch\(es\) submitted with 15 request\(s\).*5 answered by batches of an earlier run \(re-attached, not resubmitted\)/);
    // The generation batch (before the kill), then the verdict wave: one batch per judge model (more if a wave is cut by the quiet time on a loaded machine).
    expect(server.batches[0].lines.map((l) => l.body.model)).toEqual(Array(5).fill("gen-model"));
    for (const b of server.batches) expect(new Set(b.lines.map((l) => l.body.model)).size).toBe(1);
    // The verdict wave holds every cell's verdicts (the panel's concurrency of 4 does not cap it): 5 per judge model.
    expect(server.batches.slice(1).map((b) => b.lines.length)).toEqual([5, 5, 5]);
    expect(server.batchLines).toHaveLength(20);
    expect([...server.submissions().values()].every((n) => n === 1)).toBe(true);
    expect(server.onlineBodies).toHaveLength(20); // the online run's only
    expect(server.batchLines.map((l) => bodyHash(l.body)).sort()).toEqual(onlineHashes);

    const key = (r: any) => r.key;
    const strip = (rs: any[]) =>
      rs.map((r) => [r.key, r.output, JSON.stringify(r.judges?.map((j: any) => [j.judgeId ?? j.id, j.scores ?? j.score]) ?? null)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const a = records("online");
    const b = records("batch");
    expect(b.map(key).sort()).toEqual(a.map(key).sort());
    expect(strip(b)).toEqual(strip(a));
    expect(JSON.stringify(b)).toMatch(/"batch":true/);
  }, 90_000);

  it("batch export / import (vllm run-batch files): waves written, results imported, the run finishes with the online run's outputs", async () => {
    const onlineBefore = server.onlineBodies.length;
    const dirOf = join(dir, "files", "batch-files");
    const answered = new Set<string>();
    let finished = false;
    for (let wave = 1; wave <= 8 && !finished; wave++) {
      const exp = await cli(["batch", "export", join(dir, "files.yaml"), "--no-report"], "cache-files");
      expect(exp.status, exp.stderr).toBe(0);
      const pending = existsSync(dirOf) ? readdirSync(dirOf).filter((f) => /\.jsonl$/.test(f) && !f.endsWith(".output.jsonl") && !answered.has(f)) : [];
      if (!/wave written/.test(exp.stdout)) {
        // No call left: the run finished (2 waves — generation, verdicts — or a few more when a wave is cut by the quiet time).
        expect(pending).toEqual([]);
        expect(exp.stdout).toMatch(/5 cells: \d run now \(0 failed/);
        expect(wave).toBeGreaterThanOrEqual(3);
        finished = true;
        break;
      }
      expect(exp.stdout).toMatch(/wave written: \d+ request file\(s\)/);
      if (wave === 1) {
        // Every pending cell runs at once in a batch run: the first wave holds more generation requests than the config's concurrency (2).
        const genLines = pending.flatMap((f) => readFileSync(join(dirOf, f), "utf8").trim().split("\n")).length;
        expect(genLines).toBeGreaterThan(2);
      }
      // Stand-in for `vllm run-batch -i <file> -o <out>`: the same responder answers each line.
      const outs: string[] = [];
      for (const f of pending) {
        const lines = readFileSync(join(dirOf, f), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        const out = join(dir, `vllm-${f}`);
        writeFileSync(
          out,
          lines
            .map((l, i) => JSON.stringify({ id: `vllm-${i}`, custom_id: l.custom_id, response: { status_code: 200, body: chatBody({ body: l.body }, fake.responder(l.body)) }, error: null }))
            .reverse()
            .join("\n") + "\n",
        );
        outs.push(out);
        answered.add(f);
      }
      const imp = await cli(["batch", "import", join(dir, "files.yaml"), ...outs], "cache-files");
      expect(imp.status, imp.stderr).toBe(0);
      expect(imp.stdout).toMatch(/imported \d+ result line/);
    }
    expect(finished).toBe(true);
    expect(server.onlineBodies.length).toBe(onlineBefore); // nothing went to the endpoint
    const strip = (rs: any[]) => rs.map((r) => [r.key, r.output]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(strip(records("files"))).toEqual(strip(records("online")));
  }, 180_000);
  it("batch export after a partial import: the unanswered requests go into the next wave, never online; the run finishes with the online run's outputs", async () => {
    writeBatchSetup({ dir, baseURL: server.baseURL, items: 5, dataset: "tiny", apiKeyEnv: "MEDSYNTH_TEST_KEY", configs: ["partial"] });
    const onlineBefore = server.onlineBodies.length;
    const dirOf = join(dir, "partial", "batch-files");
    const answered = new Set<string>();
    let finished = false;
    let halved = false;
    for (let wave = 1; wave <= 12 && !finished; wave++) {
      const exp = await cli(["batch", "export", join(dir, "partial.yaml"), "--no-report"], "cache-partial");
      expect(exp.status, exp.stderr).toBe(0);
      expect(exp.stdout).not.toMatch(/[1-9]\d* online/);
      // No cell has finished in the first wave: the summary says so rather than naming a file not yet written.
      if (wave === 1) expect(exp.stdout).toMatch(/results: none yet \(no cell has finished; .*results\.jsonl is written when one does\)/);
      const pending = existsSync(dirOf) ? readdirSync(dirOf).filter((f) => /\.jsonl$/.test(f) && !f.endsWith(".output.jsonl") && !answered.has(f)) : [];
      if (!/wave written/.test(exp.stdout)) {
        expect(pending).toEqual([]);
        finished = true;
        break;
      }
      const outs: string[] = [];
      for (const f of pending) {
        let lines = readFileSync(join(dirOf, f), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        // The first wave's results come back half done (a vllm run-batch stopped part way).
        if (!halved && lines.length > 1) {
          lines = lines.slice(0, Math.floor(lines.length / 2));
          halved = true;
        }
        const out = join(dir, `partial-${f}`);
        writeFileSync(
          out,
          lines
            .map((l, i) => JSON.stringify({ id: `vllm-${i}`, custom_id: l.custom_id, response: { status_code: 200, body: chatBody({ body: l.body }, fake.responder(l.body)) }, error: null }))
            .join("\n") + "\n",
        );
        outs.push(out);
        answered.add(f);
      }
      const imp = await cli(["batch", "import", join(dir, "partial.yaml"), ...outs], "cache-partial");
      expect(imp.status, imp.stderr).toBe(0);
    }
    expect(halved).toBe(true);
    expect(finished).toBe(true);
    expect(server.onlineBodies.length).toBe(onlineBefore); // nothing went to the endpoint
    const strip = (rs: any[]) => rs.map((r) => [r.key, r.output]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(strip(records("partial"))).toEqual(strip(records("online")));
  }, 180_000);
});
