/**
 * Issue 13 "Done when", end to end through `medsynth run` against the scripted OpenAI-compatible
 * server, whose request log is the ground truth: a truncated answer is a failure that is asked
 * again on the next run; the tokens and cost in results, the run summary and the report equal the
 * sums over the server's log (generator and judges apart); a run with unset judge variables makes
 * 0 requests and lists every config error at once; exit codes mean something.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { dryRunCommand, runCommand } from "../../experiments/cli/run-commands.ts";
import { existsSync } from "node:fs";
import { readResults } from "../../results/results-file.ts";
import { runUsage } from "../../experiments/usage-summary.ts";
import { EXIT_CELLS_FAILED, EXIT_OK } from "../../experiments/exit-codes.ts";
import { startScriptedServer, type ScriptedRequest, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

const quiet = () => {};
const verdict = (s: number) => JSON.stringify({ rationale: "same finding", scores: { semantic_equivalence: s } });
let server: ScriptedServer;
let truncations = 0;
let dir: string;
const savedCache = process.env.MEDSYNTH_CACHE_DIR;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-faults-e2e-"));
  process.env.MEDSYNTH_CACHE_DIR = join(dir, "cache");
  server = await startScriptedServer((req) => {
    const prompt = JSON.stringify(req.body?.messages ?? "");
    const model = req.body?.model;
    const len = prompt.length;
    if (model === "gen-model") {
      if (prompt.includes("TRUNCME") && truncations === 0) {
        truncations++;
        return { content: "Compared with placebo, the interv", finishReason: "length", usage: { prompt_tokens: 300 + (len % 17), completion_tokens: 32 } };
      }
      const drug = /drug (\w+)/.exec(prompt)?.[1] ?? "X";
      return { content: `Compared with placebo, drug ${drug} reduced the outcome.`, usage: { prompt_tokens: 300 + (len % 17), completion_tokens: 12 + (len % 5) } };
    }
    if (model === "judge-a") return { content: verdict(4), usage: { prompt_tokens: 700 + (len % 13), completion_tokens: 20 } };
    if (model === "judge-b") return { content: "I would say the candidate is quite close. Score: high.", usage: { prompt_tokens: 650 + (len % 11), completion_tokens: 15 } };
    return { status: 404, body: { error: { message: `unknown model ${model}` } } };
  });
});
afterAll(async () => {
  await server?.close();
  if (savedCache === undefined) delete process.env.MEDSYNTH_CACHE_DIR;
  else process.env.MEDSYNTH_CACHE_DIR = savedCache;
});
afterEach(() => {
  process.exitCode = undefined;
});

/** Tokens the server reported, per model, over a slice of its request log. */
function logSums(reqs: ScriptedRequest[]): Record<string, { requests: number; inputTokens: number; outputTokens: number }> {
  const out: Record<string, { requests: number; inputTokens: number; outputTokens: number }> = {};
  for (const r of reqs) {
    const m = `openai:${r.body.model}`;
    const e = (out[m] ??= { requests: 0, inputTokens: 0, outputTokens: 0 });
    e.requests++;
    e.inputTokens += r.reply?.usage?.prompt_tokens ?? 11;
    e.outputTokens += r.reply?.usage?.completion_tokens ?? 7;
  }
  return out;
}

function setup(name: string, panel: Record<string, unknown>, models?: unknown[]) {
  const sub = mkdtempSync(join(dir, `${name}-`));
  const items = [1, 2, 3].map((i) => ({
    kind: "synthesis",
    id: `t${i}`,
    dataset: "tiny",
    question: i === 2 ? "TRUNCME: does drug B help?" : `Does drug ${i} help?`,
    referenceConclusion: "The intervention reduced the outcome compared with placebo.",
    referenceAnswer: "lower",
    evidenceCertainty: "moderate",
    goldenPmids: ["1"],
    goldenDocs: [{ id: "1", title: "Trial", text: "RESULTS: The intervention reduced the outcome. CONCLUSIONS: It works." }],
  }));
  const jsonl = join(sub, "tiny.jsonl");
  writeFileSync(jsonl, items.map((x) => JSON.stringify(x)).join("\n") + "\n");
  writeFileSync(join(sub, "panel.yaml"), YAML.stringify(panel));
  const file = join(sub, "exp.yaml");
  writeFileSync(
    file,
    YAML.stringify({
      name,
      output: "run",
      datasets: [{ name: "jsonl", options: { path: jsonl } }],
      models: models ?? [{ id: "openai:gen-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", maxRetries: 1, retryBaseMs: 1, maxTokens: 64 } }],
      workflows: [{ id: "golden-rag" }],
      metrics: ["rouge"],
      panel: "panel.yaml",
      prices: { "openai:gen-model": { input: 2, output: 8 }, "openai:judge-a": { input: 0.5, output: 1.5 } },
    }),
  );
  return { file, run: join(sub, "run") };
}

describe("issue 13: faults end to end", () => {
  it("unset judge variables and a bad endpoint: every error at once, 0 requests", async () => {
    const before = server.requests.length;
    const { file } = setup(
      "unset",
      {
        id: "p",
        rubric: "medmeta-semantic-equivalence",
        endpoints: { judges: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY" } },
        judges: [
          { id: "a", model: "openai:${MEDSYNTH_TEST_UNSET_JUDGE_1}", endpoint: "judges" },
          { id: "b", model: "openai:${MEDSYNTH_TEST_UNSET_JUDGE_2}", endpoint: "judges" },
        ],
      },
      [
        { id: "openai:gen-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY" } },
        { id: "openai:gen-model-2", endpoint: { baseURL: "https://api.openai.com/v1", apiKeyEnv: "MEDSYNTH_TEST_UNSET_KEY" } },
      ],
    );
    let message = "";
    await runCommand(file, { progress: false }, quiet).catch((e: Error) => (message = e.message));
    expect(message).toContain("MEDSYNTH_TEST_UNSET_JUDGE_1");
    expect(message).toContain("MEDSYNTH_TEST_UNSET_JUDGE_2");
    expect(message).toMatch(/models\.1: .*MEDSYNTH_TEST_UNSET_KEY/);
    expect(server.requests.length).toBe(before);
  });

  it("--dry-run checks everything and estimates cells, calls, tokens and cost with 0 requests and nothing written", async () => {
    const { file, run } = setup("dry", {
      id: "p",
      rubric: "medmeta-semantic-equivalence",
      endpoints: { judges: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY" } },
      judges: [
        { id: "a", model: "openai:judge-a", endpoint: "judges" },
        { id: "b", model: "openai:judge-b", endpoint: "judges", attempts: 1 },
      ],
    });
    const before = server.requests.length;
    const lines: string[] = [];
    const est = await dryRunCommand(file, {}, (l) => lines.push(l));
    expect(est).toMatchObject({
      cells: 3,
      pending: 3,
      finished: 0,
      generatorCalls: { min: 3, max: 3, worst: 3 },
      judgeCalls: { min: 6, max: 6, worst: 36 },
      metricCalls: { min: 0, max: 0, worst: 0 },
      unpriced: ["openai:judge-b"],
    });
    // golden-rag: 1 call per cell at maxTokens 64 → 3 × 64 output tokens, plus 6 × 6 judge answers of 150
    expect(est.outputTokens).toBe(3 * 64 + 36 * 150);
    expect(est.costUsd).toBeGreaterThan(0);
    expect(lines[0]).toBe("estimate: 3 cells (3 to run, 0 already finished)");
    expect(server.requests.length).toBe(before);
    expect(existsSync(run)).toBe(false);
  });

  it("truncation fails and is asked again; tokens and cost in results, summary and report equal the server's log", async () => {
    const panel = {
      id: "p",
      rubric: "medmeta-semantic-equivalence",
      endpoints: { judges: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", maxRetries: 0 } },
      judges: [
        { id: "a", model: "openai:judge-a", endpoint: "judges" },
        { id: "b", model: "openai:judge-b", endpoint: "judges" },
      ],
    };
    const { file, run } = setup("truth", panel);
    const start = server.requests.length;
    const first = await runCommand(file, { progress: false }, quiet);
    expect(process.exitCode).toBe(EXIT_CELLS_FAILED);
    expect(first.ran).toBe(3);
    expect(first.failed).toBe(1);
    expect(first.failuresByReason).toEqual({ truncated: 1 });
    const recs = readResults(join(run, "results.jsonl")).records;
    const bad = recs.find((r) => r.status === "failed")!;
    expect(bad).toMatchObject({ itemId: "t2", failureReason: "truncated", raw: "Compared with placebo, the interv" });
    // judge-b never gives a verdict: 2 ok records × (1 verdict a + 1 missing b)
    expect(first.judgeVerdicts).toEqual({ total: 4, missing: 2 });

    const log1 = logSums(server.requests.slice(start));
    expect(log1["openai:gen-model"].requests).toBe(3);
    expect(log1["openai:judge-a"].requests).toBe(2);
    expect(log1["openai:judge-b"].requests).toBe(2 * 2 * 3); // 2 records × 2 attempts × (1 + structuredRetries 2)
    const fromResults = runUsage(recs, {});
    expect(fromResults.generator.byModel["openai:gen-model"]).toMatchObject({ requests: 3, inputTokens: log1["openai:gen-model"].inputTokens, outputTokens: log1["openai:gen-model"].outputTokens });
    for (const m of ["openai:judge-a", "openai:judge-b"]) expect(fromResults.judge.byModel[m]).toMatchObject(log1[m]);
    expect(first.usage.judge.byModel["openai:judge-b"]).toMatchObject(log1["openai:judge-b"]);
    const cost = (log1["openai:gen-model"].inputTokens * 2 + log1["openai:gen-model"].outputTokens * 8 + log1["openai:judge-a"].inputTokens * 0.5 + log1["openai:judge-a"].outputTokens * 1.5) / 1e6;
    expect(first.usage.total.costUsd).toBeCloseTo(cost, 12);
    expect(first.usage.unpriced).toEqual(["openai:judge-b"]);

    // Next run: the truncated answer was not cached, so it is asked again.
    const mid = server.requests.length;
    const retry = await runCommand(file, { progress: false, retryFailed: true }, quiet);
    expect(retry.ran).toBe(1);
    expect(retry.failed).toBe(0);
    expect(process.exitCode).toBe(EXIT_OK);
    const log2 = logSums(server.requests.slice(mid));
    expect(log2["openai:gen-model"].requests).toBe(1);

    // The report sums every record of the run's cells: equal to the whole request log.
    const all = logSums(server.requests.slice(start));
    const report = JSON.parse(readFileSync(join(run, "report.json"), "utf8"));
    const usage = report.sections.flatMap((s: any) => s.tables).find((t: any) => t.id === "usage");
    const row = (role: string, model: string) => usage.values.find((v: any) => v.role === role && v.model === model);
    expect(row("generator", "openai:gen-model")).toMatchObject(all["openai:gen-model"]);
    expect(row("judges", "openai:judge-a")).toMatchObject(all["openai:judge-a"]);
    expect(row("judges", "openai:judge-b")).toMatchObject({ ...all["openai:judge-b"], costUsd: null });
    const totalCost = (all["openai:gen-model"].inputTokens * 2 + all["openai:gen-model"].outputTokens * 8 + all["openai:judge-a"].inputTokens * 0.5 + all["openai:judge-a"].outputTokens * 1.5) / 1e6;
    expect(row("total", "").costUsd).toBeCloseTo(totalCost, 12);
    expect(row("total", "").requests).toBe(Object.values(all).reduce((a, x) => a + x.requests, 0));
  }, 120_000);
  it("with onTruncated: keep-marked the cut-off answer is kept as an ok output marked truncated, counted in the report", async () => {
    truncations = 0; // the server cuts the next TRUNCME answer again
    const panel = {
      id: "p",
      rubric: "medmeta-semantic-equivalence",
      endpoints: { judges: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", maxRetries: 0 } },
      judges: [{ id: "a", model: "openai:judge-a", endpoint: "judges" }],
    };
    // maxTokens 63: a cache key of its own, so the earlier runs' cached answers are not reused.
    const models = [{ id: "openai:gen-model", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", maxRetries: 1, retryBaseMs: 1, maxTokens: 63, onTruncated: "keep-marked" } }];
    const { file, run } = setup("keep", panel, models);
    const res = await runCommand(file, { progress: false }, quiet);
    expect(res.failed).toBe(0);
    const recs = readResults(join(run, "results.jsonl")).records;
    const t2 = recs.find((r) => r.itemId === "t2")!;
    expect(t2).toMatchObject({ status: "ok", truncated: true, output: "Compared with placebo, the interv" });
    expect(recs.filter((r) => r.truncated).length).toBe(1);
    const report = JSON.parse(readFileSync(join(run, "report.json"), "utf8"));
    const status = report.sections.flatMap((s: any) => s.tables).find((t: any) => t.id === "status");
    expect(status.header).toContain("ok, truncated");
    expect(status.rows).toEqual([["openai:gen-model", "golden-rag", "3", "1", "0", "0", expect.any(String)]]);
  });
});
