/**
 * Issue 25 item 6: a missing `retrieval.corpus` file, a missing `promptDir` and a retrieval
 * embedder endpoint without its variables are config errors found before any model call (the
 * CLI exits 1 on a ConfigError), all named at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { ConfigError } from "../../experiments/config.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

let server: ScriptedServer;
const saved: Record<string, string | undefined> = {};
const VARS = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "MEDSYNTH_OPENAI_BASE_URL", "MEDSYNTH_OPENAI_API_KEY_ENV"];
beforeAll(async () => {
  server = await startScriptedServer(() => ({ content: "Drug A lowered mortality." }));
  for (const v of VARS) {
    saved[v] = process.env[v];
    delete process.env[v];
  }
});
afterAll(async () => {
  await server.close();
  for (const v of VARS)
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
});

describe("preflight of paths and retrieval endpoints", () => {
  it("names the missing corpus file, the missing promptDir and the embedder without its key, with 0 requests", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-preflight-paths-"));
    const items = join(dir, "tiny.jsonl");
    writeFileSync(
      items,
      JSON.stringify({
        kind: "synthesis",
        id: "t1",
        dataset: "tiny",
        question: "Does drug A help?",
        referenceConclusion: "It helps.",
        goldenPmids: ["1"],
        goldenDocs: [{ id: "1", title: "Trial", text: "Drug A lowered mortality." }],
      }) + "\n",
    );
    const file = join(dir, "exp.yaml");
    writeFileSync(
      file,
      YAML.stringify({
        name: "paths",
        output: "run",
        promptDir: "my-prompts",
        datasets: [{ name: "jsonl", options: { path: items } }],
        models: [{ id: "openai:scripted-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false } }],
        workflows: [{ id: "golden-rag" }, { id: "standard-rag" }],
        retrieval: { corpus: join(dir, "no-such-corpus.jsonl"), mode: "hybrid", options: { embedder: "openai:text-embedding-3-small" } },
        metrics: ["rouge"],
      }),
    );
    let err: unknown = null;
    await runCommand(file, { progress: false }, () => {}).catch((e) => (err = e));
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/retrieval\.corpus: .*no-such-corpus\.jsonl: no such corpus file/);
    expect(msg).toMatch(/promptDir: .*my-prompts: no such folder/);
    expect(msg).toMatch(/retrieval\.options\.embedder: embedder openai:text-embedding-3-small: .*OPENAI_API_KEY|retrieval\.options\.embedder: .*API key/);
    expect(server.requests.length).toBe(0);
  });

  it("a bm25-only retrieval does not need the embedder's endpoint; an existing corpus and promptDir pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-preflight-paths-"));
    const { resourceIssues } = await import("../../experiments/wiring.ts");
    const { parseExperimentConfig } = await import("../../experiments/config.ts");
    const corpus = join(dir, "corpus.jsonl");
    writeFileSync(corpus, JSON.stringify({ id: "1", title: "T", text: "x" }) + "\n");
    const cfg = parseExperimentConfig(
      {
        name: "ok",
        output: join(dir, "run"),
        promptDir: dir,
        datasets: [{ name: "medevidence" }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "standard-rag" }],
        retrieval: { corpus, mode: "bm25", options: { embedder: "openai:text-embedding-3-small" } },
      },
      "x.yaml",
      {},
    );
    expect(resourceIssues(cfg, {})).toEqual([]);
  });
});
