/**
 * End to end through the real wiring: `medsynth run` on bundled data (offline extractive
 * baseline + hybrid index) and on a scripted OpenAI-compatible server (resume, --retry-failed).
 */
import { describe, expect, it, afterAll } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { readResults } from "../../results/results-file.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

const quiet = () => {};

function writeConfig(dir: string, cfg: Record<string, unknown>): string {
  const p = join(dir, "exp.yaml");
  writeFileSync(p, YAML.stringify({ output: "run", ...cfg }));
  return p;
}

describe("medsynth run (offline demo shape)", () => {
  it("runs Golden/Standard/Negated-RAG with the extractive baseline, writes the report, and a re-run recomputes 0 cells", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-e2e-"));
    const file = writeConfig(dir, {
      name: "mini-demo",
      datasets: [{ name: "medevidence", sample: 6 }, { name: "ms2" }],
      models: [{ id: "extractive:mmr" }],
      workflows: [{ id: "golden-rag" }, { id: "standard-rag", params: { k: [5, 10] } }, { id: "negated-rag", params: { fraction: [0, 1] } }],
      retrieval: { corpus: "bundled", mode: "hybrid" },
      retrievalEval: { datasets: ["medevidence"], modes: ["bm25"], k: [10] },
      metrics: ["rouge", "count-ratios", "answer:lexical-direction"],
      comparisons: [{ metric: "answer_correct_lexical", a: { workflow: "golden-rag" }, b: { workflow: "negated-rag", fraction: 1 } }],
      report: { primaryMetric: "answer_correct_lexical", subgroups: ["medical_specialty"] },
    });
    const first = await runCommand(file, { progress: false }, quiet);
    expect(first.totalCells).toBe(7 * 5);
    expect(first.ran).toBe(35);
    expect(first.failed).toBe(0);
    const records = readResults(join(dir, "run", "results.jsonl")).records;
    expect(records).toHaveLength(35);
    // Standard-RAG keeps per-query provenance; Golden-RAG answers from the item's golden abstracts only.
    const std = records.find((r) => r.workflow === "standard-rag" && r.params.k === 10 && r.dataset === "medevidence")!;
    expect(JSON.stringify(std.intermediate)).toMatch(/quer/i);
    // MedEvidence BM25 recall@10 on all 284 questions matches the bm25s anchor (0.863).
    const rev = JSON.parse(readFileSync(join(dir, "run", "retrieval-eval.json"), "utf8")).rows[0];
    expect(rev.queries).toBe(284);
    expect(rev.recall).toBeCloseTo(0.865, 3);
    // The report's answer accuracy equals the mean over the results file.
    const golden = records.filter((r) => r.workflow === "golden-rag" && r.dataset === "medevidence");
    const acc = golden.reduce((a, r) => a + (r.metrics!.answer_correct_lexical as number), 0) / golden.length;
    const report = JSON.parse(readFileSync(join(dir, "run", "report.json"), "utf8"));
    const accTable = report.sections.flatMap((s: any) => s.tables).find((t: any) => t.id === "answer-accuracy-answer_correct_lexical");
    expect(accTable.values.find((v: any) => v.variant === "golden-rag").overall).toBeCloseTo(acc, 12);
    expect(existsSync(join(dir, "run", "report.html"))).toBe(true);
    expect(readFileSync(join(dir, "run", "report.html"), "utf8")).toContain("<svg");

    const second = await runCommand(file, { progress: false }, quiet);
    expect(second.ran).toBe(0);
    expect(second.skippedFinished).toBe(35);
    expect(second.retrievalRecomputed).toBe(false);
  }, 240_000);
});

describe("medsynth run against a scripted OpenAI-compatible server", () => {
  let server: ScriptedServer;
  let healthy = false;
  afterAll(async () => server?.close());

  it("records endpoint failures per item, skips finished cells, and --retry-failed re-runs only failures", async () => {
    server = await startScriptedServer((req) => {
      const prompt = JSON.stringify(req.body?.messages ?? "");
      if (!healthy && prompt.includes("FAILME")) return { status: 500 };
      return { content: "Compared with placebo, the intervention reduced the outcome." };
    });
    const dir = mkdtempSync(join(tmpdir(), "medsynth-e2e-llm-"));
    // Three tiny synthesis items in our own JSONL; the second one's question makes the server fail.
    const items = [1, 2, 3].map((i) => ({
      kind: "synthesis",
      id: `t${i}`,
      dataset: "tiny",
      question: i === 2 ? "FAILME: does drug B help?" : `Does drug ${i} help?`,
      referenceConclusion: "The intervention reduced the outcome compared with placebo.",
      referenceAnswer: "lower",
      evidenceCertainty: "moderate",
      goldenPmids: ["1"],
      goldenDocs: [{ id: "1", title: "Trial", text: "RESULTS: The intervention reduced the outcome. CONCLUSIONS: It works." }],
    }));
    const jsonl = join(dir, "tiny.jsonl");
    writeFileSync(jsonl, items.map((x) => JSON.stringify(x)).join("\n") + "\n");
    const file = writeConfig(dir, {
      name: "scripted",
      datasets: [{ name: "jsonl", options: { path: jsonl } }],
      models: [{ id: "openai:scripted-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", maxRetries: 1, retryBaseMs: 1, cache: false } }],
      workflows: [{ id: "golden-rag" }],
      metrics: ["rouge"],
    });
    const first = await runCommand(file, { progress: false }, quiet);
    expect(first.ran).toBe(3);
    expect(first.failed).toBe(1);
    const failed = readResults(join(dir, "run", "results.jsonl")).records.find((r) => r.status === "failed")!;
    expect(failed.itemId).toBe("t2");
    expect(failed.error).toMatch(/500/);
    expect(server.chatRequests()).toHaveLength(2 + 2); // two ok items + one failing item tried twice (maxRetries 1)

    const before = server.chatRequests().length;
    const again = await runCommand(file, { progress: false }, quiet);
    expect(again.ran).toBe(0);
    expect(server.chatRequests().length).toBe(before);

    healthy = true;
    const retry = await runCommand(file, { progress: false, retryFailed: true }, quiet);
    expect(retry.ran).toBe(1);
    expect(retry.failed).toBe(0);
    expect(server.chatRequests().length).toBe(before + 1);
    const latest = new Map(readResults(join(dir, "run", "results.jsonl")).records.map((r) => [r.key, r]));
    expect([...latest.values()].every((r) => r.status === "ok")).toBe(true);
    expect([...latest.values()].find((r) => r.itemId === "t2")!.metrics!.rouge1_fmeasure).toBeGreaterThan(0.5);
  }, 120_000);
});
