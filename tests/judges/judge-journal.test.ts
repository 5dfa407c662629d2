/**
 * `medsynth judge` streams and journals: a run interrupted mid-way (the panel throws on its third
 * record, as a crash would stop it) keeps the verdicts it got in `<out>.journal.jsonl`; the next
 * run asks only for the records not yet judged, writes every verdict, and removes the journal.
 * (Before, verdicts were written every 20 records by rewriting the whole output, so an interrupted
 * run of fewer records lost them all and asked again.)
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runJudgeCommand } from "../../experiments/cli/judge-commands.ts";
import { createChatModel } from "../../models/registry.ts";
import { createPanel, loadPanelConfig, type Panel } from "../../judges/panel.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

const rec = (key: string): RunRecord => ({
  key,
  itemId: key,
  dataset: "medmeta",
  taskKind: "synthesis",
  model: "ollama:x",
  workflow: "g-rag",
  params: {},
  repeat: 0,
  status: "ok",
  output: `output ${key}`,
  reference: `reference ${key}`,
  itemMeta: {},
  intermediate: {},
  generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
  startedAt: "",
  finishedAt: "",
});

let server: ScriptedServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptedServer(() => ({ content: JSON.stringify({ rationale: "r", scores: { semantic_equivalence: 3 } }) }));
  dir = mkdtempSync(join(tmpdir(), "judge-journal-"));
  process.env.JUDGE_JOURNAL_TEST_KEY = "sk-test";
  writeFileSync(
    join(dir, "panel.yaml"),
    [
      "rubric: medmeta-semantic-equivalence",
      "endpoints:",
      `  local: { baseURL: "${server.baseURL}", apiKeyEnv: JUDGE_JOURNAL_TEST_KEY, structuredMethod: promptOnly, structuredRetries: 0, maxRetries: 0, cache: false, timeoutMs: 5000, concurrency: 1, requestsPerMinute: 0 }`,
      "judges:",
      "  - { id: j, model: 'openai:judge', endpoint: local, attempts: 1 }",
    ].join("\n"),
  );
  writeFileSync(join(dir, "results.jsonl"), ["a", "b", "c", "d", "e", "f"].map((k) => JSON.stringify(rec(k)) + "\n").join(""));
});
afterAll(async () => server.close());

/** The panel of panel.yaml, throwing on its `crashAt`-th record (0: never). */
function panelFactory(crashAt: number) {
  return (path: string): Panel => {
    const { config, baseDir } = loadPanelConfig(path);
    const real = createPanel(config, { baseDir, modelFor: (spec, endpoint) => createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }) });
    let n = 0;
    return {
      ...real,
      judgeRecord: async (r, o) => {
        if (++n === crashAt) throw new Error("interrupted");
        return real.judgeRecord(r, o);
      },
    } as Panel;
  };
}

const settled = async () => {
  let last = -1;
  while (server.chatRequests().length !== last) {
    last = server.chatRequests().length;
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
};

describe("judge journal", () => {
  it("keeps the verdicts of an interrupted run and asks only for the rest", async () => {
    const input = join(dir, "results.jsonl");
    const out = join(dir, "results.judged.jsonl");
    await expect(runJudgeCommand(input, { panel: join(dir, "panel.yaml"), concurrency: 1, panelFactory: panelFactory(3), log: () => {} })).rejects.toThrow(/interrupted/);
    const first = await settled();
    expect(first).toBeGreaterThanOrEqual(2);
    expect(existsSync(`${out}.journal.jsonl`)).toBe(true);
    expect(existsSync(out)).toBe(false);
    const s = await runJudgeCommand(input, { panel: join(dir, "panel.yaml"), concurrency: 1, panelFactory: panelFactory(0), log: () => {} });
    expect(server.chatRequests().length).toBe(6); // every record asked once over both runs
    expect(s).toMatchObject({ records: 6, judged: 6, newVerdicts: 6 - first });
    const judged = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunRecord);
    expect(judged.map((r) => [r.key, r.judgeScores?.[0]?.scores.semantic_equivalence])).toEqual(["a", "b", "c", "d", "e", "f"].map((k) => [k, 3]));
    expect(existsSync(`${out}.journal.jsonl`)).toBe(false);
  });
});
