/**
 * Retrieval → synthesis coupling (issue 18.4): the per-setting table and the Spearman
 * correlations of a fixed results file (tests/fixtures/coupling/results.jsonl: settings A and B
 * × items i1–i4 of Standard-RAG, one failed cell, one Golden-RAG cell, one missing judge answer)
 * equal hand values (ρ) and scipy 1.x `spearmanr` (p); the report carries the section; the
 * experiment config takes named retrieval settings as a matrix axis of Standard-RAG.
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readResults } from "../../../results/results-file.ts";
import { couplingOf, couplingSection } from "../../../experiments/report/coupling-section.ts";
import { writeReport } from "../../../experiments/report/build.ts";
import { loadExperimentConfig, parseExperimentConfig } from "../../../experiments/config.ts";
import { expandCells } from "../../../experiments/cells.ts";
import { retrievalParamIssue, validateAgainstRegistries } from "../../../experiments/wiring.ts";

const FIXTURE = fileURLToPath(new URL("../../fixtures/coupling/results.jsonl", import.meta.url));
const records = readResults(FIXTURE).records;

describe("coupling table from a fixed results file", () => {
  const c = couplingOf(records)!;

  it("per setting: cells, mean golden recall, mean scores (missing judge left out)", () => {
    expect(c.outcomes).toEqual(["judge:medmeta.overall", "rougeL"]);
    expect(c.rows.map((r) => [r.setting, r.model, r.cells])).toEqual([
      ["A", "m1", 4],
      ["B", "m1", 4],
    ]);
    // A: recall (1 + .5 + 0 + .5)/4; rougeL (.5 + .3 + .1 + .2)/4; judge (4 + 3 + 1)/3 (i4 missing)
    expect(c.rows[0].goldenRecall).toBeCloseTo(0.5, 12);
    expect(c.rows[0].outcomes.rougeL).toBeCloseTo(0.275, 12);
    expect(c.rows[0].outcomes["judge:medmeta.overall"]).toBeCloseTo(8 / 3, 12);
    // B: recall (.5 + 0 + 0 + 1)/4; rougeL (.4 + .2 + .3 + .6)/4; judge (3 + 2 + 2 + 5)/4; the failed i5 is not a cell
    expect(c.rows[1].goldenRecall).toBeCloseTo(0.375, 12);
    expect(c.rows[1].outcomes.rougeL).toBeCloseTo(0.375, 12);
    expect(c.rows[1].outcomes["judge:medmeta.overall"]).toBeCloseTo(3, 12);
  });

  it("Spearman per cell: pooled and per setting, with n and p", () => {
    const get = (o: string, s: string) => c.correlations.find((x) => x.outcome === o && x.scope === s)!;
    // rougeL pooled, n 8: average ranks of recall [7.5 5 2 5 5 2 2 7.5], of rougeL [7 4.5 1 2.5 6 2.5 4.5 8];
    // Σdxdy 31.5, Σdx² 37.5, Σdy² 41 → ρ = 31.5/√1537.5; scipy p 0.016318814833186.
    expect(get("rougeL", "all settings")).toMatchObject({ n: 8, status: "ok" });
    expect(get("rougeL", "all settings").rho).toBeCloseTo(31.5 / Math.sqrt(1537.5), 12);
    expect(get("rougeL", "all settings").p).toBeCloseTo(0.016318814833186, 8);
    // Within A (n 4): ranks [4 2.5 1 2.5] vs [4 3 1 2] → ρ = 4.5/√22.5 = 3/√10; scipy p 0.051316701949486.
    expect(get("rougeL", "A").rho).toBeCloseTo(3 / Math.sqrt(10), 12);
    expect(get("rougeL", "A").p).toBeCloseTo(0.051316701949486, 8);
    expect(get("rougeL", "B").rho).toBeCloseTo(3 / Math.sqrt(10), 12);
    // Judge pooled: 7 pairs (A/i4 has no judge score); scipy ρ 0.962250448649376, p 0.000521066989504.
    expect(get("judge:medmeta.overall", "all settings")).toMatchObject({ n: 7, status: "ok" });
    expect(get("judge:medmeta.overall", "all settings").rho).toBeCloseTo(0.962250448649376, 12);
    expect(get("judge:medmeta.overall", "all settings").p).toBeCloseTo(0.000521066989504, 9);
    // A, 3 pairs in the same order: ρ 1, scipy p 0 (ours: ρ 1 − 1e-16 in floating point, p ≈ 1e-8).
    expect(get("judge:medmeta.overall", "A").n).toBe(3);
    expect(get("judge:medmeta.overall", "A").rho).toBeCloseTo(1, 12);
    expect(get("judge:medmeta.overall", "A").p).toBeCloseTo(0, 6);
    expect(c.correlations.map((x) => `${x.outcome}|${x.scope}`)).toEqual([
      "judge:medmeta.overall|all settings",
      "judge:medmeta.overall|A",
      "judge:medmeta.overall|B",
      "rougeL|all settings",
      "rougeL|A",
      "rougeL|B",
    ]);
  });

  it("no section for a run without retrieval settings; the report carries it when there are", async () => {
    expect(couplingSection(records.map((r) => ({ ...r, params: { k: 5 } })))).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), "medsynth-coupling-"));
    copyFileSync(FIXTURE, join(dir, "results.jsonl"));
    const files = await writeReport(dir);
    const md = readFileSync(files.markdown, "utf8");
    expect(md).toContain("## Retrieval → synthesis coupling");
    expect(md).toContain("| A | m1 | 4 | 0.500 | 2.667 | 0.275 |");
    expect(md).toContain("| rougeL | all settings | 8 | 0.803 | 0.0163 |");
  });
});

describe("retrieval settings as a matrix axis of Standard-RAG", () => {
  const base = {
    name: "coupling",
    output: "out",
    datasets: [{ name: "medevidence", sample: 2 }],
    models: [{ id: "extractive:lead" }],
    retrieval: { corpus: "bundled", mode: "bm25", settings: { "k1-0.9": { bm25: { k1: 0.9 } }, "k1-2": { bm25: { k1: 2 } } } },
  };

  it("a list of setting names expands into one cell per setting; names are checked", () => {
    const cfg = parseExperimentConfig({ ...base, workflows: [{ id: "standard-rag", params: { k: 5, retrieval: ["k1-0.9", "k1-2"] } }] });
    const cells = expandCells([{ dataset: "medevidence", taskKind: "synthesis", itemIds: ["q1"] }], ["extractive:lead"], cfg.workflows, 1, () => "synthesis");
    expect(cells.map((c) => c.params)).toEqual([
      { k: 5, retrieval: "k1-0.9" },
      { k: 5, retrieval: "k1-2" },
    ]);
    expect(new Set(cells.map((c) => c.key)).size).toBe(2);
    expect(retrievalParamIssue(cfg, "standard-rag", "k1-2")).toBeNull();
    expect(retrievalParamIssue(cfg, "standard-rag", "nope")).toBe('unknown retrieval setting "nope"; settings: k1-0.9, k1-2');
    expect(retrievalParamIssue(cfg, "pcot", "k1-2")).toBe('only standard-rag takes a retrieval setting (got "k1-2" on pcot)');
    const bad = parseExperimentConfig({ ...base, retrieval: { ...base.retrieval, settings: { x: { bm25: { k1: -1 } } } }, workflows: [{ id: "standard-rag", params: { retrieval: ["x", "y"] } }] });
    expect(() => validateAgainstRegistries(loadExperimentConfig(fileURLToPath(new URL("../../../experiments/configs/sweeps/coupling.yaml", import.meta.url))), {})).not.toThrow();
    expect(() => validateAgainstRegistries(bad, { ...process.env })).toThrow(/workflows\.0\.params\.retrieval: unknown retrieval setting "y"; settings: x[\s\S]*retrieval\.settings\.x\.bm25\.k1:/);
  });
});
