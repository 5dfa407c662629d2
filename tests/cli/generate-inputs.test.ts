/** `medsynth generate` input handling: --corpus (bundled default), --path for jsonl, --config errors, exit code when every item fails. */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { writeJsonl } from "../../corpus/jsonl.ts";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { generateExitCode, runGenerate, type GenerateOptions } from "../../experiments/cli/generate-commands.ts";
import { runCli } from "./run-cli.ts";

const base: GenerateOptions = { workflow: "standard-rag", dataset: "medevidence", model: "extractive:mmr", limit: "1", repeat: "0", retrieval: "bm25" };

let dir: string;
let tiny: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-generate-cli-"));
  process.env.MEDSYNTH_CACHE_DIR = join(dir, "cache");
  tiny = join(dir, "tiny.jsonl");
  // No term in common with any MedEvidence question: BM25 finds nothing, so every item fails.
  writeFileSync(tiny, ['{"id":"z1","title":"zzzz","text":"qqqq wwww"}', '{"id":"z2","title":"xxxx","text":"yyyy"}'].join("\n") + "\n");
});

describe("generate --corpus", () => {
  it("standard-rag retrieves from the bundled 3,340-doc corpus by default", async () => {
    const log: string[] = [];
    const results = await runGenerate(
      base,
      () => {},
      (l) => log.push(l),
    );
    expect(log[0]).toBe("# corpus: bundled, 3340 docs (pubmedqa 1000, medevidence 329, cohen2006 2011)");
    expect(results.map((r) => r.result.status)).toEqual(["ok"]);
    expect(generateExitCode(results)).toBe(0);
  });

  it("takes a corpus file; when every item fails the exit code is 1", async () => {
    const log: string[] = [];
    const results = await runGenerate(
      { ...base, limit: "2", corpus: tiny },
      () => {},
      (l) => log.push(l),
    );
    expect(log[0]).toBe(`# corpus: ${tiny}, 2 docs`);
    expect(results.map((r) => r.result.status)).toEqual(["failed", "failed"]);
    expect(results[0].result.error).toMatch(/retrieval returned no documents/);
    expect(generateExitCode(results)).toBe(1);
    expect(generateExitCode([...results, { result: { ...results[0].result, status: "ok" } }])).toBe(0);
  });

  it("the real CLI exits 1 naming the failure", () => {
    const r = runCli(["generate", "--workflow", "standard-rag", "--dataset", "medevidence", "--model", "extractive:mmr", "--retrieval", "bm25", "--corpus", tiny, "--limit", "2"], {
      env: { MEDSYNTH_CACHE_DIR: join(dir, "cache") },
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^--- 2 items: 0 ok, 2 failed, 0 skipped/m);
    expect(r.stderr).toMatch(/medsynth: generate: no item succeeded \(2 of 2 failed\) \(first error: merge: retrieval returned no documents/);
  });

  it("rejects --corpus for a workflow that does not retrieve", async () => {
    await expect(runGenerate({ ...base, workflow: "pzs", corpus: tiny })).rejects.toThrow(/^--corpus: only standard-rag retrieves/);
  });
});

describe("generate --dataset jsonl --path", () => {
  it("needs --path, then loads `corpus ingest` output as conclusion tasks", async () => {
    const opts: GenerateOptions = { workflow: "conclusion-a", dataset: "jsonl", model: "extractive:lead", limit: "5", repeat: "0", retrieval: "bm25" };
    await expect(runGenerate(opts)).rejects.toThrow(/^--dataset jsonl needs --path <tasks\.jsonl>/);
    const recs: PubmedRecord[] = [];
    const bio = datasetDirSync("pubmed-xml/biopython");
    await ingestPubmed(
      ["pubmed1.xml", "pubmed4.xml", "pubmed5.xml"].map((f) => join(bio, f)),
      { onRecord: (r) => void recs.push(r) },
    );
    const path = join(dir, "ingested.jsonl");
    await writeJsonl(path, recs);
    const log: string[] = [];
    const results = await runGenerate(
      { ...opts, path },
      () => {},
      (l) => log.push(l),
    );
    expect(results.map((r) => [r.itemId, r.result.status])).toEqual([
      ["jsonl:27797938", "ok"],
      ["jsonl:28775130", "ok"],
    ]);
    expect(log[0]).toMatch(/^# dataset jsonl: 2 items; skipped 2 \(no conclusion: 2; first: /);
  });
});

describe("generate --config errors", () => {
  it("name the field, one line per problem", async () => {
    await expect(runGenerate({ ...base, config: '{"k":-3}' })).rejects.toThrow(/^--config k: expected a number ≥ 1 \(got -3\)$/);
    await expect(runGenerate({ ...base, config: '{"k":0,"bogus":1}' })).rejects.toThrow(/^--config k: expected a number ≥ 1 \(got 0\)\n--config bogus: not a setting of workflow 'standard-rag'$/);
    await expect(runGenerate({ ...base, config: "[1]" })).rejects.toThrow(/^--config must be a JSON object/);
  });
});
