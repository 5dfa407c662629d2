/**
 * An unknown workflow id, an unknown dataset name or bad dataset options stop `run` and
 * `run --dry-run` with one error naming the config file, each field path and the valid ids.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { dryRunCommand, runCommand } from "../../experiments/cli/run-commands.ts";
import { ConfigError } from "../../experiments/config.ts";
import { datasetNames } from "../../corpus/datasets/registry.ts";
import { listWorkflowIds } from "../../graphs/registry.ts";

/** Writes `config` as exp.yaml in a fresh temporary folder; returns its path. */
function configFile(config: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), "medsynth-config-ids-")), "exp.yaml");
  writeFileSync(file, YAML.stringify(config));
  return file;
}

/** A one-item offline config (medevidence, the extractive baseline, golden-rag) with `extra` laid over it, written by {@link configFile}. */
function smallConfig(name: string, extra: Record<string, unknown> = {}): string {
  return configFile({ name, output: "run", datasets: [{ name: "medevidence", sample: 1 }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "golden-rag" }], ...extra });
}

function badConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), "medsynth-config-ids-")), "exp.yaml");
  writeFileSync(
    file,
    YAML.stringify({
      name: "ids",
      output: "run",
      datasets: [{ name: "medevidence", sample: 1 }, { name: "medevidense" }, { name: "jsonl" }, { name: "pubmedqa", options: { limt: 3 } }],
      models: [{ id: "extractive:mmr" }],
      workflows: [{ id: "golden-rag" }, { id: "pzs" }, { id: "golden-reg" }],
    }),
  );
  return file;
}

async function errorOf(p: Promise<unknown>): Promise<ConfigError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe("unknown ids and bad dataset options", () => {
  for (const [label, call] of [
    ["run --dry-run", (f: string) => dryRunCommand(f, {}, () => {})],
    ["run", (f: string) => runCommand(f, { progress: false, report: false }, () => {})],
  ] as const) {
    it(`${label}: one error naming the file, each field path and the valid ids`, async () => {
      const file = badConfig();
      const err = await errorOf(call(file));
      expect(err.file).toBe(file);
      expect(err.message.startsWith(`${file}: invalid config`)).toBe(true);
      expect(err.issues.map((i) => i.path)).toEqual(["workflows[2].id", "datasets[1].name", "datasets[2].options.path", "datasets[3].options.limt"]);
      expect(err.message).toContain(`workflows[2].id: unknown workflow "golden-reg"; valid ids: ${listWorkflowIds().join(", ")}`);
      expect(err.message).toContain(`datasets[1].name: unknown dataset "medevidense"; valid names: ${datasetNames().join(", ")}`);
      expect(err.message).toMatch(/datasets\[2\]\.options\.path: dataset "jsonl": /);
      expect(err.message).toMatch(/datasets\[3\]\.options\.limt: dataset "pubmedqa": /);
    });
  }
});

describe("workflow parameters checked against the workflow's schema", () => {
  it("an unknown parameter key is named once with the config file, whatever the values it lists", async () => {
    const file = smallConfig("ext-small", { workflows: [{ id: "standard-rag", params: { kk: [3, 5] } }] });
    const err = await errorOf(dryRunCommand(file, {}, () => {}));
    expect(err.file).toBe(file);
    expect(err.message).toBe(`${file}: invalid config\n  - workflows.0.params.kk: standard-rag: Unrecognized key: "kk"`);
  });
});

describe("retrieval options checked against the retriever's schema", () => {
  it("run --dry-run: a bad value or unknown key in retrieval.options (or a named setting) is one error naming each path and the value", async () => {
    const file = smallConfig("retrieval-options", {
      retrieval: {
        options: { engine: "disk", bm25Disk: { threads: "abc" }, bogusKey: 1 },
        settings: { fast: { bm25: { k1: -1 } }, fine: { mode: "bm25" } },
      },
    });
    const err = await errorOf(dryRunCommand(file, {}, () => {}));
    expect(err.issues.map((i) => i.path)).toEqual(["retrieval.options.bm25Disk.threads", "retrieval.options.bogusKey", "retrieval.settings.fast.bm25.k1"]);
    expect(err.message).toContain('retrieval.options.bm25Disk.threads: expected "auto" or a whole number from 1 to 64 (got "abc")');
    expect(err.message).toContain("retrieval.options.bogusKey: unknown key");
    expect(err.message).toMatch(/retrieval\.settings\.fast\.bm25\.k1: expected a number ≥ 0 \(got -1\)/);
    // `run` stops the same way before any cell (no cell fails with a raw schema dump).
    const run = await errorOf(runCommand(file, { progress: false, report: false }, () => {}));
    expect(run.issues.map((i) => i.path)).toEqual(err.issues.map((i) => i.path));
  });
});

describe("on-disk BM25 threads under an engine that never uses them", () => {
  it("engine memory|lance with bm25Disk.threads is an error naming the field (as --engine memory --bm25-threads on the CLI); disk and auto keep it", async () => {
    const cfg = (engine: string) =>
      smallConfig("threads-engine", {
        retrieval: { options: { engine, bm25Disk: { threads: 2 } } },
      });
    for (const engine of ["memory", "lance"]) {
      const err = await errorOf(dryRunCommand(cfg(engine), {}, () => {}));
      expect(err.issues.map((i) => i.path)).toEqual(["retrieval.options.bm25Disk.threads"]);
      expect(err.message).toContain(`retrieval.options.bm25Disk.threads: has no effect with engine ${engine}`);
    }
    for (const engine of ["disk", "auto"]) await expect(dryRunCommand(cfg(engine), {}, () => {})).resolves.toBeTruthy();
  });
  it("threads 0 and 65 get the same wording as other bad values; a non-object gets 'an object'", async () => {
    const file = smallConfig("threads-wording", {
      retrieval: { options: { engine: "disk", bm25Disk: { threads: 0 } }, settings: { a: { bm25Disk: { threads: 65 } }, b: { bm25: "fast" } } },
    });
    const err = await errorOf(dryRunCommand(file, {}, () => {}));
    expect(err.message).toContain('retrieval.options.bm25Disk.threads: expected "auto" or a whole number from 1 to 64 (got 0)');
    expect(err.message).toContain('retrieval.settings.a.bm25Disk.threads: expected "auto" or a whole number from 1 to 64 (got 65)');
    expect(err.message).toContain('retrieval.settings.b.bm25: expected an object (got "fast")');
  });
});
