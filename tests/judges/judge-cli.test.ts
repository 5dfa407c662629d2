import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { runJudgeCommand, runMetricsCommand } from "../../experiments/cli/judge-commands.ts";
import { registerJudgeCommands } from "../../experiments/cli/judge-register.ts";
import type { RunRecord } from "../../experiments/types.ts";

const rec = (key: string, over: Partial<RunRecord> = {}): RunRecord => ({
  key,
  itemId: key,
  dataset: "medmeta",
  taskKind: "synthesis",
  model: "openai:gpt-5.4",
  workflow: "g-rag",
  params: {},
  repeat: 0,
  status: "ok",
  output: `the cat sat on the mat ${key}`,
  reference: `the cat sat on a mat ${key}`,
  itemMeta: {},
  intermediate: {},
  generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
  startedAt: "",
  finishedAt: "",
  ...over,
});

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer((req) => {
    const m = req.body.model as string;
    if (m === "good") return { content: JSON.stringify({ rationale: "r", scores: { semantic_equivalence: 4 } }) };
    return { content: "no idea" };
  });
  dir = mkdtempSync(join(tmpdir(), "judge-cli-"));
  process.env.JUDGE_CLI_TEST_KEY = "sk-test";
  writeFileSync(
    join(dir, "panel.yaml"),
    [
      "rubric: medmeta-semantic-equivalence",
      "endpoints:",
      `  local: { baseURL: "${server.baseURL}", apiKeyEnv: JUDGE_CLI_TEST_KEY, structuredMethod: promptOnly, structuredRetries: 0, maxRetries: 0, cache: false, timeoutMs: 5000, concurrency: 4, requestsPerMinute: 0 }`,
      "judges:",
      "  - { id: good-judge, model: 'openai:good', endpoint: local, attempts: 1 }",
      "  - { id: gpt-judge, model: 'openai:gpt-4o-mini', endpoint: local, attempts: 1 }",
    ].join("\n"),
  );
  const lines = [rec("k1"), rec("k2"), rec("k3", { status: "failed", output: null })].map((r) => JSON.stringify(r));
  writeFileSync(join(dir, "results.jsonl"), lines.join("\n") + "\n{not json\n");
});
afterAll(async () => server.close());

describe("medsynth judge", () => {
  it("adds verdicts, prints the per-judge missing-rate table and the family warning, and resumes without new calls", async () => {
    const logs: string[] = [];
    const before = server.chatRequests().length;
    const s = await runJudgeCommand(join(dir, "results.jsonl"), { panel: join(dir, "panel.yaml"), log: (l) => logs.push(l) });
    expect(server.chatRequests().length - before).toBe(4); // 2 records × 2 judges
    expect(s).toMatchObject({ records: 3, judged: 2, skippedNotOk: 1, newVerdicts: 4, malformedLines: [4] });
    expect(s.out).toBe(join(dir, "results.judged.jsonl"));
    const out = readFileSync(s.out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunRecord);
    expect(out.map((r) => r.judgeScores?.length ?? 0)).toEqual([2, 2, 0]);
    const k1 = out[0].judgeScores!;
    expect(k1.find((e) => e.judgeId === "good-judge")).toMatchObject({ status: "ok", scores: { semantic_equivalence: 4 } });
    expect(k1.find((e) => e.judgeId === "gpt-judge")).toMatchObject({ status: "missing", raw: "no idea", scores: { semantic_equivalence: null } });
    expect(out[0].judge).toMatchObject({ calls: 2 });
    const table = s.table.split("\n");
    expect(table[0]).toMatch(/^judge\s+model\s+verdicts\s+missing\s+missing rate\s+no input$/);
    expect(table[2]).toMatch(/^good-judge\s+openai:good\s+2\s+0\s+0\.0%\s+0$/);
    expect(table[3]).toMatch(/^gpt-judge\s+openai:gpt-4o-mini\s+2\s+2\s+100\.0%\s+0$/);
    expect(logs.some((l) => /judge gpt-judge \(openai:gpt-4o-mini\) shares the openai model family with generator\(s\) openai:gpt-5\.4/.test(l))).toBe(true);

    // resume: same output file → nothing asked again; --retry-missing asks only the missing judge
    const again = await runJudgeCommand(join(dir, "results.jsonl"), { panel: join(dir, "panel.yaml"), log: () => {} });
    expect(server.chatRequests().length - before).toBe(4);
    expect(again.newVerdicts).toBe(0);
    const retry = await runJudgeCommand(join(dir, "results.jsonl"), { panel: join(dir, "panel.yaml"), retryMissing: true, log: () => {} });
    expect(server.chatRequests().length - before).toBe(6);
    expect(retry.newVerdicts).toBe(2);
    const out2 = readFileSync(s.out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunRecord);
    expect(out2.map((r) => r.judgeScores?.length ?? 0)).toEqual([2, 2, 0]);
  });

  it("is registered on the program with a required --panel", async () => {
    const program = new Command().exitOverride().configureOutput({ writeErr: () => {} });
    registerJudgeCommands(program);
    await expect(program.parseAsync(["node", "medsynth", "judge", join(dir, "results.jsonl")])).rejects.toThrow(/--panel/);
    await expect(program.parseAsync(["node", "medsynth", "judge", join(dir, "nope.jsonl"), "--panel", "p.yaml"])).rejects.toThrow(/nope\.jsonl does not exist/);
  });
});

describe("medsynth metrics", () => {
  it("scores records with a reference (counts alias), stores metrics, skips failed ones", async () => {
    const s = await runMetricsCommand(join(dir, "results.jsonl"), { metrics: ["counts"], log: () => {} });
    expect(s).toMatchObject({ records: 3, scored: 2, skipped: 1 });
    const out = readFileSync(s.out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunRecord);
    expect(Object.keys(out[0].metrics ?? {}).length).toBeGreaterThan(0);
    // "the cat sat on the mat k1" vs "the cat sat on a mat k1": 7 words each → word-count ratio 1
    const wordRatio = Object.entries(out[0].metrics!).find(([k]) => /word/i.test(k));
    expect(wordRatio?.[1]).toBe(1);
    expect(out[2].metrics).toBeUndefined();
    await expect(runMetricsCommand(join(dir, "results.jsonl"), { metrics: ["nope"], log: () => {} })).rejects.toThrow(/unknown metric "nope".*rouge/);
  });
});
