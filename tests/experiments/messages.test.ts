/**
 * Issue 25 item 11: the messages a user reads. A truncation names the limit asked and what the
 * server produced (41 of 1,024 tokens is the server's limit, not maxTokens) and the failure
 * summary keeps that advice whole; PubMedQA prompts carry no `Title: (no title)` placeholder;
 * Standard-RAG's queries are documented as what they are (the plan's key questions);
 * env.json records the installed @xenova/transformers; `retrieval eval --trec-out` and a run's
 * trec/ folder use one file layout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { runRetrievalEval as runEvalCli } from "../../experiments/cli/retrieval-commands.ts";
import { runRetrievalEval as runEvalStage } from "../../experiments/retrieval-eval-stage.ts";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { packageVersions } from "../../experiments/wiring.ts";
import { shortenError } from "../../experiments/failures.ts";
import { getWorkflow } from "../../graphs/registry.ts";
import { createOpenAIChatModel } from "../../models/index.ts";
import { truncationAdvice } from "../../models/openai-chat.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { ConclusionTask } from "../../corpus/types.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    const p = JSON.stringify(req.body.messages);
    if (p.includes("CUT-EARLY")) return { content: "Compared with placebo, the", finishReason: "length", usage: { prompt_tokens: 900, completion_tokens: 41 } };
    return { content: "Drug A lowered mortality." };
  });
});
afterAll(async () => server.close());

describe("truncation messages", () => {
  it("say the limit asked and what the server produced; the advice fits the case", () => {
    expect(truncationAdvice("the answer", 1024, 41)).toMatch(/at 41 of the 1,024 output tokens asked \(maxTokens\).*raising maxTokens will not help/);
    expect(truncationAdvice("the answer", 1024, 1024)).toMatch(/at maxTokens 1,024 after 1,024 output tokens: raise maxTokens above 1,024$/);
    expect(truncationAdvice("the answer", undefined, 300)).toMatch(/no maxTokens was asked: set maxTokens/);
  });

  it("the run's failure summary keeps the advice at the end of a long error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-messages-"));
    writeFileSync(
      join(dir, "tiny.jsonl"),
      JSON.stringify({
        kind: "synthesis",
        id: "t1",
        dataset: "tiny",
        question: "CUT-EARLY: does drug A help?",
        referenceConclusion: "It helps.",
        referenceAnswer: "lower",
        evidenceCertainty: "moderate",
        goldenPmids: ["1"],
        goldenDocs: [{ id: "1", title: "Trial", text: "Mortality was lower." }],
      }) + "\n",
    );
    const file = join(dir, "exp.yaml");
    writeFileSync(
      file,
      YAML.stringify({
        name: "trunc",
        output: "run",
        datasets: [{ name: "jsonl", options: { path: join(dir, "tiny.jsonl") } }],
        models: [{ id: "openai:gen", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false, maxRetries: 0, maxTokens: 1024 } }],
        workflows: [{ id: "golden-rag" }],
        metrics: ["rouge"],
      }),
    );
    const printed: string[] = [];
    await runCommand(file, { progress: false, report: false }, (l) => printed.push(l));
    const line = printed.find((l) => l.trim().startsWith("truncated: 1"))!;
    expect(line).toMatch(/raise the server's limit or shorten the prompt\)$/);
    expect(line).toContain("41 of the 1,024");
    expect(shortenError("x".repeat(1000) + " advice at the end", 100)).toMatch(/…x* advice at the end$/);
    expect(shortenError("x".repeat(1000), 100)).toHaveLength(100);
  });
});

describe("prompts without placeholders", () => {
  it("a PubMedQA item without a title gets no 'Title:' line", async () => {
    const ds = await loadDataset("pubmedqa");
    const item = (ds.items as ConclusionTask[]).find((t) => !t.title)!;
    expect(item).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "medsynth-messages-"));
    const model = createOpenAIChatModel("openai:gen", { baseURL: server.baseURL, apiKeyEnv: "K", cache: false, maxRetries: 0 }, { cacheDir: dir, env: {} });
    const before = server.chatRequests().length;
    const r = await getWorkflow("conclusion-a")
      .create({ model }, {})
      .run(item as never, { repeat: 0 });
    expect(r.status).toBe("ok");
    const sent = JSON.stringify(server.chatRequests()[before].body.messages);
    expect(sent).not.toContain("(no title)");
    expect(sent).not.toMatch(/Title:/);
    expect(sent).toContain("Abstract without its conclusion");
  });
});

describe("docs agree with behaviour", () => {
  it("Standard-RAG's queries are the plan's key questions, and the configs guide says so", () => {
    const schema = getWorkflow("standard-rag").configSchema;
    expect((schema.parse({}) as { queryMode: string }).queryMode).toBe("key-questions");
    expect((schema.parse({ queryMode: "sub-questions" }) as { queryMode: string }).queryMode).toBe("key-questions");
    const row = readFileSync(resolve(__dirname, "../../docs/experiment-configs.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| `standard-rag` |"))!;
    expect(row).toMatch(/key questions as the queries \(`queryMode: key-questions`/);
    expect(row).not.toMatch(/the paper's P-CoT sub-questions/);
  });

  it("env.json's package versions are the installed ones (@xenova/transformers included)", () => {
    const installed = JSON.parse(readFileSync(resolve(__dirname, "../../node_modules/@xenova/transformers/package.json"), "utf8")).version;
    const v = packageVersions();
    expect(v["@xenova/transformers"]).toBe(installed);
    expect(Object.values(v)).not.toContain("?");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-messages-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ version: "0.0.1" }));
    expect(packageVersions(dir)["@xenova/transformers"]).toBe("not installed");
  });
});

describe("one TREC layout", () => {
  it("retrieval eval --trec-out and a run's trec/ folder write <dataset>.<mode>.run and <dataset>.qrels", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-trec-layout-"));
    const docs = Array.from({ length: 30 }, (_, i) => ({ id: `d${i}`, title: `Trial ${i} of therapy`, text: `Mortality and therapy outcome ${i}.` }));
    writeFileSync(join(dir, "corpus.jsonl"), docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
    const cliOut = join(dir, "cli");
    await runEvalCli(
      {
        corpus: join(dir, "corpus.jsonl"),
        dataset: "medevidence",
        mode: "bm25",
        k: "5",
        rerankCandidates: "20",
        trecOut: cliOut,
        embedder: "word-vectors",
        bm25Engine: "fast",
        fusion: "rrf",
        index: "none",
        candidates: "100",
      } as never,
      () => {},
      () => {},
    );
    const cfg = parseExperimentConfig(
      {
        name: "t",
        output: join(dir, "run"),
        datasets: [{ name: "medevidence", sample: 1 }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "golden-rag" }],
        retrieval: { corpus: join(dir, "corpus.jsonl"), mode: "bm25" },
        retrievalEval: { datasets: ["medevidence"], modes: ["bm25"], k: [5] },
      },
      null,
      {},
    );
    await runEvalStage(cfg, () => {});
    for (const folder of [cliOut, join(dir, "run", "trec")]) {
      expect(existsSync(join(folder, "medevidence.bm25.run")), folder).toBe(true);
      expect(existsSync(join(folder, "medevidence.qrels")), folder).toBe(true);
    }
    expect(readFileSync(join(cliOut, "medevidence.qrels"), "utf8")).toBe(readFileSync(join(dir, "run", "trec", "medevidence.qrels"), "utf8"));
  });
});
