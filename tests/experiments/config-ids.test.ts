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
    const file = join(mkdtempSync(join(tmpdir(), "medsynth-config-ids-")), "exp.yaml");
    writeFileSync(
      file,
      YAML.stringify({
        name: "ext-small",
        output: "run",
        datasets: [{ name: "medevidence", sample: 1 }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "standard-rag", params: { kk: [3, 5] } }],
      }),
    );
    const err = await errorOf(dryRunCommand(file, {}, () => {}));
    expect(err.file).toBe(file);
    expect(err.message).toBe(`${file}: invalid config\n  - workflows.0.params.kk: standard-rag: Unrecognized key: "kk"`);
  });
});
