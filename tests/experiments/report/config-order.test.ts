/**
 * Issue 13.13: report tables list models, workflow variants and metrics in the config's order,
 * whatever order results.jsonl holds the records in (concurrent cells finish in any order).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import seedrandom from "seedrandom";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { columnsOf, sortByConfig } from "../../../experiments/report/columns.ts";
import { writeResultsAtomic } from "../../../results/results-file.ts";
import { writeReport } from "../../../experiments/report/build.ts";

const MODELS = ["zeta-model", "alpha-model"]; // config order, deliberately not alphabetical
const WORKFLOWS = ["standard-rag", "golden-rag"];
const ITEMS = ["i1", "i2", "i3"];

/** One ok record; metrics written in the config's `metrics` order (bleu before rougeL before count ratios), as the metrics stage does. */
function rec(model: string, workflow: string, itemId: string, v: number): RunRecord {
  return {
    key: `${model}|${workflow}|${itemId}`,
    itemId,
    dataset: "medevidence",
    taskKind: "synthesis",
    model,
    workflow,
    params: {},
    repeat: 0,
    status: "ok",
    output: "one two three",
    reference: "ref",
    itemMeta: {},
    intermediate: {},
    generator: { calls: 1, inputTokens: 10, outputTokens: 5, latencyMs: 1000, cached: false },
    metrics: { bleu: v / 10, rougeL: v / 5, wordRatio: 1 },
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
  };
}

const planned: RunRecord[] = MODELS.flatMap((m, mi) => WORKFLOWS.flatMap((w, wi) => ITEMS.map((i, ii) => rec(m, w, i, mi + wi + ii))));

/** Seeded Fisher–Yates shuffle. */
function shuffled<T>(xs: readonly T[], seed: string): T[] {
  const rng = seedrandom(seed);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A run folder with spec.json (config order), cells.json (plan order) and the records in `order`. */
function runDir(order: RunRecord[], withCells = true): string {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-order-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "spec.json"),
    JSON.stringify({ config: { name: "order", models: MODELS.map((id) => ({ id })), workflows: WORKFLOWS.map((id) => ({ id })), metrics: ["bleu", "rouge", "count-ratios"] } }),
  );
  if (withCells) writeFileSync(join(dir, "cells.json"), JSON.stringify({ configHash: "h", keys: planned.map((r) => r.key) }));
  writeResultsAtomic(join(dir, "results.jsonl"), order);
  return dir;
}

/** Header and first-column cells of the report.json table `id`. */
function table(dir: string, id: string): { header: string[]; firstColumn: string[] } {
  const rep = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as { sections: { tables: { id: string; header: string[]; rows: string[][] }[] }[] };
  const t = rep.sections.flatMap((s) => s.tables).find((x) => x.id === id);
  if (!t) throw new Error(`no table ${id}`);
  return { header: t.header, firstColumn: t.rows.map((r) => r[0]) };
}

describe("report columns in the config's order", () => {
  it("sortByConfig: plan order from cell keys; config model/workflow order for records outside the plan", () => {
    expect(sortByConfig(shuffled(planned, "s1"), { cellKeys: planned.map((r) => r.key) }).map((r) => r.key)).toEqual(planned.map((r) => r.key));
    const outside = sortByConfig(shuffled(planned, "s2"), { models: MODELS, workflows: WORKFLOWS });
    expect([...new Set(outside.map((r) => r.model))]).toEqual(MODELS);
    expect([...new Set(outside.filter((r) => r.model === "zeta-model").map((r) => r.workflow))]).toEqual(WORKFLOWS);
  });

  it("columnsOf keeps the metrics in the order the records carry them (config order), not alphabetical", () => {
    expect(columnsOf(planned)).toEqual(["bleu", "rougeL", "wordRatio", "latencySeconds", "outputWords"]);
  });

  it("shuffled results.jsonl, three different shuffles: the same tables, models, workflows and metrics as the config lists them", async () => {
    const seen: string[] = [];
    for (const seed of ["a", "b", "c"]) {
      const dir = runDir(shuffled(planned, seed));
      await writeReport(dir);
      const main = table(dir, "main-synthesis-rougeL");
      expect(main.header).toEqual(["model", ...WORKFLOWS]);
      expect(main.firstColumn).toEqual(MODELS);
      const all = table(dir, "all-synthesis");
      const metricOrder = all.header.map((h) => ["bleu", "rougeL", "wordRatio"].find((m) => h.startsWith(m))).filter(Boolean);
      expect([...new Set(metricOrder)]).toEqual(["bleu", "rougeL", "wordRatio"]);
      const status = table(dir, "status");
      expect(status.firstColumn).toEqual(MODELS.flatMap((m) => WORKFLOWS.map(() => m)));
      seen.push(readFileSync(join(dir, "report.md"), "utf8").replace(/medsynth-order-[A-Za-z0-9]+/g, "DIR"));
    }
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
  }, 60_000);

  it("without cells.json (older run folders) the config's models and workflows still set the order", async () => {
    const dir = runDir(shuffled(planned, "d"), false);
    await writeReport(dir);
    const main = table(dir, "main-synthesis-rougeL");
    expect(main.header).toEqual(["model", ...WORKFLOWS]);
    expect(main.firstColumn).toEqual(MODELS);
  }, 60_000);
});
