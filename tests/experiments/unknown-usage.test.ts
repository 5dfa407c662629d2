/**
 * Issue 25 item 4: when no call reported usage, tokens are unknown — null in the records, "–" in
 * the report's tables, the progress line and the printed summary — and "≥ N (k calls unknown)"
 * when only some calls reported usage; never 0 tokens or $0.0000.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { runCommand } from "../../experiments/cli/run-commands.ts";
import { readResults } from "../../results/results-file.ts";
import { formatTokenCount, formatCostUsd } from "../../models/usage.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

let server: ScriptedServer;
let partial = false;
beforeAll(async () => {
  // no usage at all, or (partial) usage only on answers to the question of item t1
  server = await startScriptedServer((req) =>
    partial && JSON.stringify(req.body.messages).includes("drug 1")
      ? { content: "Drug 1 lowered mortality.", usage: { prompt_tokens: 100, completion_tokens: 20 } }
      : { content: "The drug lowered mortality.", omitUsage: true },
  );
});
afterAll(async () => server.close());

function setup(name: string): { file: string; run: string } {
  const dir = mkdtempSync(join(tmpdir(), `medsynth-unknown-usage-${name}-`));
  const items = [1, 2].map((i) => ({
    kind: "synthesis",
    id: `t${i}`,
    dataset: "tiny",
    question: `Does drug ${i} lower mortality?`,
    referenceConclusion: "It lowered mortality.",
    referenceAnswer: "lower",
    evidenceCertainty: "moderate",
    goldenPmids: ["1"],
    goldenDocs: [{ id: "1", title: "Trial", text: "Mortality was lower." }],
  }));
  writeFileSync(join(dir, "tiny.jsonl"), items.map((x) => JSON.stringify(x)).join("\n") + "\n");
  const file = join(dir, "exp.yaml");
  writeFileSync(
    file,
    YAML.stringify({
      name,
      output: "run",
      datasets: [{ name: "jsonl", options: { path: join(dir, "tiny.jsonl") } }],
      models: [{ id: "openai:gen", endpoint: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_KEY", cache: false, maxRetries: 0 } }],
      workflows: [{ id: "golden-rag" }],
      metrics: ["rouge"],
      prices: { "openai:gen": { input: 1, output: 2 } },
    }),
  );
  return { file, run: join(dir, "run") };
}

describe("unknown token usage", () => {
  it("formats: exact, lower bound, unknown", () => {
    expect(formatTokenCount(1234, 0)).toBe("1,234");
    expect(formatTokenCount(120, 1)).toBe("≥ 120 (1 call unknown)");
    expect(formatTokenCount(0, 2)).toBe("– (2 calls unknown)");
    expect(formatTokenCount(null, 0)).toBe("–");
    expect(formatCostUsd(0.5, 1, false)).toBe("≥ $0.5000");
    expect(formatCostUsd(0, 2, true)).toBe("–");
  });

  it("no usage from any call: null in records, '–' in the report, the progress line and the summary", async () => {
    partial = false;
    const { file, run } = setup("none");
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((l: unknown) => void logged.push(String(l)));
    const printed: string[] = [];
    try {
      await runCommand(file, { progress: false }, (l) => printed.push(l));
    } finally {
      spy.mockRestore();
    }
    const recs = readResults(join(run, "results.jsonl")).records;
    expect(recs).toHaveLength(2);
    for (const r of recs) expect(r.generator).toMatchObject({ calls: 1, inputTokens: null, outputTokens: null, unknownUsageCalls: 1 });
    const progress = logged.filter((l) => /^\d+\/\d+ cells/.test(l));
    expect(progress.length).toBeGreaterThan(0);
    for (const l of progress) {
      expect(l).not.toMatch(/\b0 tokens|\$0\.0000/);
      expect(l).toMatch(/tokens spent – \(\d calls? unknown\), cost –/);
    }
    const summary = printed.filter((l) => l.startsWith("tokens "));
    expect(summary.join("\n")).toMatch(/tokens unknown/);
    expect(summary.join("\n")).not.toMatch(/\b0 in \/ 0 out|\$0\.0000/);
    const report = JSON.parse(readFileSync(join(run, "report.json"), "utf8"));
    const tables = report.sections.flatMap((s: any) => s.tables);
    const status = tables.find((t: any) => t.id === "status");
    expect(status.rows[0][status.header.indexOf("generator tokens")]).toBe("– (2 calls unknown)");
    expect(status.values[0].tokens).toBeNull();
    const usage = tables.find((t: any) => t.id === "usage");
    const total = usage.rows.find((r: string[]) => r[0] === "total");
    expect(total[usage.header.indexOf("input tokens")]).toMatch(/^–/);
    expect(total[usage.header.indexOf("cost")]).toBe("–");
    expect(usage.values.find((v: any) => v.role === "total").inputTokens).toBeNull();
    const md = readFileSync(join(run, "report.md"), "utf8");
    expect(md).not.toMatch(/\$0\.0000/);
  });

  it("usage from some calls only: the known tokens as a lower bound, '≥ N (k calls unknown)'", async () => {
    partial = true;
    const { file, run } = setup("partial");
    await runCommand(file, { progress: false }, () => {});
    const recs = readResults(join(run, "results.jsonl")).records;
    const known = recs.find((r) => r.itemId === "t1")!;
    expect(known.generator).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    const report = JSON.parse(readFileSync(join(run, "report.json"), "utf8"));
    const tables = report.sections.flatMap((s: any) => s.tables);
    const status = tables.find((t: any) => t.id === "status");
    expect(status.rows[0][status.header.indexOf("generator tokens")]).toBe("≥ 120 (1 call unknown)");
    const usage = tables.find((t: any) => t.id === "usage");
    const total = usage.rows.find((r: string[]) => r[0] === "total");
    expect(total[usage.header.indexOf("input tokens")]).toBe("≥ 100 (1 call unknown)");
    // 100 in × $1 + 20 out × $2 per 1M tokens = $0.00014, a lower bound
    expect(total[usage.header.indexOf("cost")]).toBe("≥ $0.0001");
  });
});
