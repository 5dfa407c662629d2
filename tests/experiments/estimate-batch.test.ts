/**
 * The batch line of `run --dry-run` (experiments/estimate.ts): with batching on, the estimate
 * says how many calls go through Batch APIs even when that is none (`batch: 0 of M calls`),
 * instead of printing nothing; without batching there is no batch line.
 */
import { describe, expect, it } from "vitest";
import type { Cell } from "../../experiments/cells.ts";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { estimateRun, formatEstimate } from "../../experiments/estimate.ts";
import type { RunnerItem } from "../../experiments/runner.ts";

const endpoint = { baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-x" };
const models = [{ id: "openai:gen-model", endpoint }];
const config = parseExperimentConfig({ name: "b", output: "runs/b", datasets: [{ name: "medevidence", sample: 1 }], models, workflows: [{ id: "pzs" }] }, null, {});
// one P-ZS cell: 1 generator call, no panel
const cells: Cell[] = [{ key: "k1", itemId: "t1", dataset: "medevidence", model: "openai:gen-model", workflow: "pzs", params: {}, repeat: 0 }];
const items = new Map<string, RunnerItem>([["medevidence\u0000t1", { kind: "synthesis", id: "t1", question: "Q?" } as unknown as RunnerItem]]);
const batchLine = (lines: string[]) => lines.find((l) => l.trim().startsWith("batch:"))?.trim();

describe("the dry run's batch line", () => {
  it("batching on, nothing batched: batch: 0 of 1 calls", () => {
    const est = estimateRun(config, cells, 0, items, null, { isBatched: () => false, batching: true });
    expect(est.generatorCalls.max).toBe(1);
    expect(est.batch).toEqual({ calls: 0, totalCalls: 1, share: 0, costUsd: null });
    expect(batchLine(formatEstimate(est))).toBe("batch: 0 of 1 calls go through Batch APIs (none of these calls is to a model whose calls are batched)");
    expect(formatEstimate(est).join("\n")).not.toMatch(/at the online price/);
  });

  it("batching on, no call at all (every cell finished): batch: 0 of 0 calls", () => {
    const est = estimateRun(config, [], 1, items, null, { isBatched: (id) => id.startsWith("openai:"), batching: true });
    expect(est.batch).toEqual({ calls: 0, totalCalls: 0, share: 0, costUsd: null });
    expect(batchLine(formatEstimate(est))).toBe("batch: 0 of 0 calls go through Batch APIs (no model call to make)");
  });

  it("batched calls keep their line; without batching there is none", () => {
    const on = estimateRun(config, cells, 0, items, null, { isBatched: (id) => id.startsWith("openai:"), batching: true });
    expect(batchLine(formatEstimate(on))).toMatch(/^batch: 1 of 1 calls \(100 %\) go through Batch APIs in waves/);
    const off = estimateRun(config, cells, 0, items, null, {});
    expect(off.batch).toBeUndefined();
    expect(batchLine(formatEstimate(off))).toBeUndefined();
  });
});
