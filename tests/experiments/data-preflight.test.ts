/** `medsynth run` finds or pulls its datasets before any work, and stops before any model call when one cannot be had. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { loadExperimentConfig } from "../../experiments/config.ts";
import { configDataFiles } from "../../experiments/data-preflight.ts";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

function writeConfig(dir: string, cfg: Record<string, unknown>): string {
  const p = join(dir, "exp.yaml");
  writeFileSync(p, YAML.stringify({ output: "run", ...cfg }));
  return p;
}

const COHEN = [
  "ADHD.csv",
  "ADHD.json",
  "Antihistamines.csv",
  "Antihistamines.json",
  "Estrogens.csv",
  "Estrogens.json",
  "LICENSE",
  "NSAIDS.csv",
  "NSAIDS.json",
  "UrinaryIncontinence.csv",
  "UrinaryIncontinence.json",
  "index.csv",
].map((f) => `cohen2006/${f}`);

describe("data pre-flight of a run", () => {
  let server: ScriptedServer | null = null;
  afterAll(async () => {
    await server?.close();
  });

  it("lists the files of the datasets, the bundled retrieval corpus and the retrieval evaluation, once each", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-preflight-"));
    const own = join(dir, "own.jsonl");
    const cfg = loadExperimentConfig(
      writeConfig(dir, {
        name: "p",
        datasets: [{ name: "medevidence", sample: 2 }, { name: "ms2" }, { name: "rwe-glp1" }, { name: "pubmedqa", options: { path: own } }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "golden-rag" }, { id: "standard-rag" }],
        retrieval: { corpus: "bundled", mode: "bm25" },
        retrievalEval: { datasets: ["medevidence"], modes: ["bm25"], k: [5] },
        metrics: ["rouge"],
      }),
      {},
    );
    expect(configDataFiles(cfg)).toEqual(["medevidence/med-evidence-abstract.jsonl", "mslr/ms2-sample.json", "pubmedqa/ori_pqal.json", "pubmedqa/test_ground_truth.json", ...COHEN]);
    // nothing retrieves → the bundled corpus is not needed
    const noRetrieval = loadExperimentConfig(writeConfig(dir, { name: "q", datasets: [{ name: "medmeta" }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "pzs" }], metrics: ["rouge"] }), {});
    expect(configDataFiles(noRetrieval)).toEqual(["medmeta/MedMeta.csv"]);
  });

  it("with no mirror and no reachable upstream, stops with the dataset, upstream and pull command before any model call", async () => {
    server = await startScriptedServer(() => ({ content: "Anticoagulation lowered mortality." }));
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const dir = mkdtempSync(join(tmpdir(), "medsynth-preflight-"));
    const file = writeConfig(dir, {
      name: "offline",
      datasets: [{ name: "medmeta", sample: 2 }],
      models: [{ id: "openai:scripted-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false } }],
      workflows: [{ id: "pzs" }],
      metrics: ["rouge"],
    });
    const saved = { ...process.env };
    Object.assign(process.env, { MEDSYNTH_AUTO_MIRROR: "0", MEDSYNTH_DATA_DIR: join(dir, "empty-cache"), MEDSYNTH_UPSTREAM_BASE: dead, MEDSYNTH_DATA_MIRROR: "", MEDSYNTH_TEST_KEY: "k" });
    let err: Error;
    try {
      err = await runCommand(file, { progress: false }, () => {}).then(
        () => new Error("run did not stop"),
        (e: Error) => e,
      );
    } finally {
      for (const k of ["MEDSYNTH_AUTO_MIRROR", "MEDSYNTH_DATA_DIR", "MEDSYNTH_UPSTREAM_BASE", "MEDSYNTH_DATA_MIRROR", "MEDSYNTH_TEST_KEY"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    expect(err.message).toMatch(/^dataset "medmeta": medmeta\/MedMeta\.csv is not available/);
    expect(err.message).toContain("Upstream: https://raw.githubusercontent.com/hahuyhoang411/MedMeta/");
    expect(err.message).toContain("`node bin/medsynth.js datasets pull medmeta`");
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(dir, "run", "results.jsonl"))).toBe(false);
  });
});
