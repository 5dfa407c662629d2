/**
 * Issue 25 item 9: a whitespace-only output is "without output", as "" is: no ROUGE/BLEU value
 * (never a 0 counted in the means) in `medsynth metrics` and in the run's metric stage.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runMetricsCommand } from "../../experiments/cli/judge-commands.ts";
import { computeRecordMetrics } from "../../experiments/metrics-stage.ts";
import type { RunRecord } from "../../experiments/types.ts";

const rec = (key: string, output: string | null): RunRecord => ({
  key,
  itemId: key,
  dataset: "d",
  taskKind: "synthesis",
  model: "m",
  workflow: "golden-rag",
  params: {},
  repeat: 0,
  status: "ok",
  output,
  reference: "the cat sat on the mat",
  itemMeta: {},
  intermediate: {},
  generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
  startedAt: "",
  finishedAt: "",
});

describe("whitespace-only outputs are without output", () => {
  it("medsynth metrics skips them and leaves them out of the means", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ws-out-"));
    const file = join(dir, "results.jsonl");
    writeFileSync(file, [rec("a", "the cat sat on the mat"), rec("b", " \n\t "), rec("c", "")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const s = await runMetricsCommand(file, { metrics: ["rouge", "bleu"], log: () => {} });
    expect(s).toMatchObject({ records: 3, scored: 1, skipped: 2 });
    // identical texts: ROUGE-1 F1 = 1 and BLEU = 1; the blank output would have pulled both means to 0.5
    expect(s.means.rouge1_fmeasure).toEqual({ mean: 1, n: 1, nulls: 0 });
    expect(s.means.bleu.mean).toBeCloseTo(1, 12);
    const out = readFileSync(s.out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunRecord);
    expect(out[1].metrics).toBeUndefined();
  });

  it("the run's metric stage gives a whitespace-only output no metric", async () => {
    const m = await computeRecordMetrics(rec("b", "   \n"), ["rouge", "bleu"]);
    expect(m.metrics).toEqual({});
  });
});
