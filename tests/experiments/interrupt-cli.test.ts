/**
 * Issue 25 item 10: SIGINT or SIGTERM — to the `medsynth run` process or to its process group —
 * while cells run stops scheduling at once, aborts the in-flight model calls, keeps every
 * finished record, writes no report and exits 130 within seconds. Real child processes of the
 * CLI (`bin/medsynth.js`: the compiled dist/, so run `node scripts/build.mjs` first) against the
 * scripted server with slow answers, and
 * an offline matrix whose cells make no request (the demo's case: the signal used to be handled
 * only after the last cell).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { readResults } from "../../results/results-file.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

const BIN = resolve(__dirname, "../../bin/medsynth.js");
let server: ScriptedServer;
beforeAll(async () => {
  // the first two answers come at once, every later one only after 20 s (in flight when the signal comes)
  server = await startScriptedServer((_req, n) => ({ content: "Drug A lowered mortality.", delayMs: n < 2 ? 0 : 20_000 }));
});
afterAll(async () => server.close());

function lines(file: string): number {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/** Run the CLI, send `signal` (to the group when `group`) once `ready()` holds; exit code, seconds from signal to exit, stderr. */
async function interrupt(cfg: string, signal: NodeJS.Signals, group: boolean, ready: () => boolean): Promise<{ code: number | null; seconds: number; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "run", cfg, "--no-progress"], { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"], detached: group });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += String(d)));
  child.stdout.on("data", () => {});
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  let sentAt = 0;
  const poll = setInterval(() => {
    if (sentAt || !ready()) return;
    sentAt = Date.now();
    if (group) process.kill(-child.pid!, signal);
    else child.kill(signal);
  }, 50);
  const code = await exited;
  clearInterval(poll);
  expect(sentAt, `the run ended before the signal was sent:\n${stderr}`).toBeGreaterThan(0);
  return { code, seconds: (Date.now() - sentAt) / 1000, stderr };
}

describe("interrupting medsynth run", () => {
  it("SIGINT to the process with model calls in flight: 130 within seconds, the finished records kept, no report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-sigint-"));
    const items = Array.from({ length: 8 }, (_, i) => ({
      kind: "synthesis",
      id: `t${i}`,
      dataset: "tiny",
      question: `Does drug ${i} help?`,
      referenceConclusion: "It helps.",
      referenceAnswer: "lower",
      evidenceCertainty: "moderate",
      goldenPmids: ["1"],
      goldenDocs: [{ id: "1", title: "Trial", text: "Mortality was lower." }],
    }));
    writeFileSync(join(dir, "tiny.jsonl"), items.map((x) => JSON.stringify(x)).join("\n") + "\n");
    const cfg = join(dir, "exp.yaml");
    writeFileSync(
      cfg,
      YAML.stringify({
        name: "sigint",
        output: "run",
        concurrency: 2,
        datasets: [{ name: "jsonl", options: { path: join(dir, "tiny.jsonl") } }],
        models: [{ id: "openai:gen", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false, maxRetries: 0, timeoutMs: 60_000 } }],
        workflows: [{ id: "golden-rag" }],
        metrics: ["rouge"],
      }),
    );
    const results = join(dir, "run", "results.jsonl");
    const r = await interrupt(cfg, "SIGINT", false, () => lines(results) >= 2 && server.chatRequests().length >= 4);
    expect(r.code, r.stderr).toBe(130);
    expect(r.seconds).toBeLessThan(5);
    const recs = readResults(results);
    expect(recs.malformedLines).toEqual([]);
    expect(recs.records.map((x) => x.status)).toEqual(["ok", "ok"]);
    expect(server.chatRequests().length).toBe(4); // nothing scheduled after the signal
    expect(existsSync(join(dir, "run", "report.html"))).toBe(false);
  }, 60_000);

  it("SIGTERM to the process group while cells make no request (extractive baseline): stops at once, 130", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-sigterm-"));
    const cfg = join(dir, "exp.yaml");
    writeFileSync(
      cfg,
      YAML.stringify({
        name: "sigterm",
        output: "run",
        concurrency: 2,
        datasets: [{ name: "medevidence", sample: 150 }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "golden-rag" }, { id: "negated-rag", params: { fraction: [0, 1] } }],
        metrics: ["rouge"],
      }),
    );
    const results = join(dir, "run", "results.jsonl");
    const r = await interrupt(cfg, "SIGTERM", true, () => lines(results) >= 3);
    expect(r.code, r.stderr).toBe(130);
    expect(r.seconds).toBeLessThan(5);
    const recs = readResults(results);
    expect(recs.malformedLines).toEqual([]);
    // the old runner ran all 450 cells before it saw the signal
    expect(recs.records.length).toBeLessThan(100);
    expect(existsSync(join(dir, "run", "report.html"))).toBe(false);
  }, 60_000);
});
