/**
 * One path rule for a config file (docs/experiment-configs.md#paths-in-a-config): relative input
 * paths (`datasets[].options.path`, `retrieval.corpus`) are relative to the config file's folder,
 * as `output` is; one found only relative to the current folder is still used with a deprecation
 * note; one found nowhere is an error naming the file, the field and both paths tried. The run's
 * config hash does not depend on where the file lies.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { ConfigError, configHash, loadExperimentConfig, parseExperimentConfig } from "../../experiments/config.ts";

const ITEM = JSON.stringify({ kind: "synthesis", id: "t1", dataset: "tiny", question: "Does drug A help?", referenceConclusion: "It helps.", goldenPmids: [] });
const raw = (path: string, corpus: string) => ({
  name: "paths",
  output: "run",
  datasets: [{ name: "medevidence" }, { name: "jsonl", options: { path } }],
  models: [{ id: "extractive:mmr" }],
  workflows: [{ id: "golden-rag" }],
  retrieval: { corpus },
});
function writeConfig(path: string, corpus: string): { dir: string; file: string } {
  const dir = join(mkdtempSync(join(tmpdir(), "medsynth-config-paths-")), "configs");
  mkdirSync(dir);
  const file = join(dir, "exp.yaml");
  writeFileSync(file, YAML.stringify(raw(path, corpus)));
  return { dir, file };
}

describe("relative paths in a config file", () => {
  it("dataset and corpus paths are relative to the config file's folder, like output", () => {
    const { dir, file } = writeConfig("items.jsonl", "data/corpus.jsonl");
    writeFileSync(join(dir, "items.jsonl"), ITEM + "\n");
    mkdirSync(join(dir, "data"));
    writeFileSync(join(dir, "data", "corpus.jsonl"), JSON.stringify({ id: "1", title: "T", text: "x" }) + "\n");
    const notes: string[] = [];
    const cfg = loadExperimentConfig(file, {}, (l) => notes.push(l));
    expect(cfg.output).toBe(join(dir, "run"));
    expect(cfg.datasets[1].options?.path).toBe(join(dir, "items.jsonl"));
    expect(cfg.datasets[0].options).toBeUndefined();
    expect(cfg.retrieval.corpus).toBe(join(dir, "data", "corpus.jsonl"));
    expect(notes).toEqual([]);
    // the hash is that of the paths as written, from whichever folder the config is loaded
    expect(configHash(cfg)).toBe(configHash(parseExperimentConfig(raw("items.jsonl", "data/corpus.jsonl"), file, {})));
  });

  it("a path found only relative to the current folder is used, with a deprecation note naming the file and field", () => {
    const rel = "tests/fixtures/medconclusion-hf/sample.jsonl"; // relative to the repo root, where vitest runs
    const { file } = writeConfig(rel, rel);
    const notes: string[] = [];
    const cfg = loadExperimentConfig(file, {}, (l) => notes.push(l));
    expect(cfg.datasets[1].options?.path).toBe(resolve(rel));
    expect(cfg.retrieval.corpus).toBe(resolve(rel));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain(`deprecated: ${file}: datasets[1].options.path`);
    expect(notes[1]).toContain(`deprecated: ${file}: retrieval.corpus`);
  });

  it("a path found nowhere is one error naming the config file, each field and every path tried", () => {
    const { dir, file } = writeConfig("nope.jsonl", "no-corpus.jsonl");
    let err: unknown = null;
    try {
      loadExperimentConfig(file, {}, () => {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain(file);
    expect(msg).toContain(
      `datasets[1].options.path: "nope.jsonl" not found; tried ${join(dir, "nope.jsonl")} (relative to the config file's folder) and ${resolve("nope.jsonl")} (relative to the current folder)`,
    );
    expect(msg).toContain(`retrieval.corpus: "no-corpus.jsonl" not found; tried ${join(dir, "no-corpus.jsonl")}`);
    expect((err as ConfigError).issues.map((i) => i.path)).toEqual(["datasets[1].options.path", "retrieval.corpus"]);
  });

  it("bundled, prepared: and store corpora and absolute paths are left as written", () => {
    for (const corpus of ["bundled", "prepared:medmeta", "lance:runs/pubmed-store", "s3://bucket/store"]) {
      const { file } = writeConfig("/abs/items.jsonl", corpus);
      const cfg = loadExperimentConfig(file, {}, () => {});
      expect(cfg.retrieval.corpus).toBe(corpus);
      expect(cfg.datasets[1].options?.path).toBe("/abs/items.jsonl");
    }
  });
});
