/**
 * Issue 27 item 3 (report at 10⁶ cells): the report's slim records (output kept as its word
 * count, shared frozen values, score columns computed once) give the same sections as the full
 * records, and the numbers are the hand-computed ones on a small run; the Bland–Altman chart
 * plots a stated systematic sample above its point limit, with bias and limits over all pairs;
 * a record that ran without its configured reranker keeps that label through the streamed read.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { buildSections, writeReportJson } from "../../../experiments/report/build.ts";
import type { ReportSection } from "../../../experiments/report/render.ts";
import { readReportRecords, reportProjection } from "../../../experiments/report/read-records.ts";
import { recordValues } from "../../../experiments/report/columns.ts";
import { blandAltmanChart } from "../../../experiments/report/charts.ts";
import { modelByVariantTable } from "../../../experiments/report/tables.ts";
import { outputWordCount } from "../../../results/run-record.ts";

/** 2 models × 2 K × 3 items; judge j0 scores (item + k) % 4, j1 scores item % 3; output of `item + 2` words. */
function run(): RunRecord[] {
  const out: RunRecord[] = [];
  for (const model of ["m1", "m2"])
    for (const k of [5, 10])
      for (let item = 0; item < 3; item++) {
        const s0 = (item + k) % 4;
        const s1 = item % 3;
        out.push({
          key: `${model}-${k}-${item}`,
          itemId: `i${item}`,
          dataset: "medevidence",
          taskKind: "synthesis",
          model,
          workflow: "standard-rag",
          params: { k },
          repeat: 0,
          status: "ok",
          output: Array.from({ length: item + 2 }, (_, w) => `w${w}`).join("  "),
          reference: "ref text",
          itemMeta: { medical_specialty: item % 2 ? "A" : "B" },
          intermediate: { evidence: [{ id: "1" }], goldenRecall: item / 2 },
          generator: { calls: 1, inputTokens: 10, outputTokens: 2, latencyMs: 1000 * (item + 1), cached: false },
          judgeScores: [
            { judgeId: "j0", rubricId: "r", scores: { q: s0 }, status: "ok", raw: "{}", call: { modelId: "jm0", cached: false, attempts: 1, latencyMs: 1 } },
            { judgeId: "j1", rubricId: "r", scores: { q: s1 }, status: "ok", raw: "{}", call: { modelId: "jm1", cached: false, attempts: 1, latencyMs: 1 } },
          ],
          metrics: { rougeL_fmeasure: (item + 1) / 10 },
          startedAt: "2026-01-01T00:00:00Z",
          finishedAt: "2026-01-01T00:00:01Z",
        } as unknown as RunRecord);
      }
  return out;
}

describe("slim report records", () => {
  it("give the sections of the full records and the hand-computed means", async () => {
    const full = run();
    const slim = full.map((r) => reportProjection(r));
    expect(slim[0].output).toBeNull();
    expect(outputWordCount(slim[2])).toBe(4);
    // Score columns computed once and shared: the same frozen object on every call.
    expect(recordValues(slim[0])).toBe(recordValues(slim[0]));
    expect(Object.isFrozen(recordValues(slim[0]))).toBe(true);
    expect(Object.isFrozen(slim[0].params)).toBe(true);
    expect(Object.isFrozen(full[0].params)).toBe(false);
    // Items 0, 1, 2: words 2, 3, 4; j0 at k=5: 1, 2, 3 → panel mean of j0 and j1 (0, 1, 2): 0.5, 1.5, 2.5.
    expect(recordValues(slim[1])).toEqual({ rougeL_fmeasure: 0.2, "judge:r.q@j0": 2, "judge:r.q@j1": 1, "judge:r.q": 1.5, goldenRecall: 0.5, latencySeconds: 2, outputWords: 3 });
    const t = modelByVariantTable(slim, "judge:r.q");
    expect(t.header).toEqual(["model", "standard-rag k=5", "standard-rag k=10"]);
    // k=10: j0 = (item + 2) % 4 = 2, 3, 0; j1 = 0, 1, 2 → panel 1, 2, 1 → mean 4/3.
    expect(t.values!.map((v) => [v.model, v.variant, v.n, v.mean])).toEqual([
      ["m1", "standard-rag k=5", 3, 1.5],
      ["m1", "standard-rag k=10", 3, 4 / 3],
      ["m2", "standard-rag k=5", 3, 1.5],
      ["m2", "standard-rag k=10", 3, 4 / 3],
    ]);
    const settings = { subgroups: ["medical_specialty"], comparisons: [{ metric: "judge:r.q", a: { k: 5 }, b: { k: 10 } }] };
    expect(JSON.stringify(await buildSections(slim, settings))).toBe(JSON.stringify(await buildSections(full, settings)));
    const unc = (await buildSections(slim, {})).flatMap((s) => s.tables).find((x) => x.id.startsWith("uncertainty-"))!;
    expect(unc.values!.length).toBe(4);
  });

  it("keep the label of a cell that ran without its configured reranker through the streamed read", () => {
    const r = { ...run()[0], params: { k: 5, reranker: "ce" }, intermediate: { reranker: null } } as RunRecord;
    const path = join(mkdtempSync(join(tmpdir(), "slim-report-")), "results.jsonl");
    writeFileSync(path, JSON.stringify(r) + "\n");
    const [slim] = readReportRecords(path, null).records;
    expect(slim.intermediate).toEqual({ reranker: null });
  });
});

describe("Bland–Altman chart at scale", () => {
  it("plots every pair up to the limit and a stated systematic sample above it; bias over all pairs", async () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const b = [1, 1, 3, 3, 5, 5, 7, 7, 9, 9];
    const all = (await blandAltmanChart("ba", "t", a, b))!;
    expect(all.title).toBe("t");
    expect(all.data.length).toBe(11);
    const s = (await blandAltmanChart("ba", "t", a, b, 4))!;
    // Pairs ⌊i·10/4⌋ = 0, 2, 5, 7: differences 0, 0, 1, 1.
    expect(s.data.slice(0, 4).map((d) => ({ mean: d.mean, diff: d.diff }))).toEqual([
      { mean: 1, diff: 0 },
      { mean: 3, diff: 0 },
      { mean: 5.5, diff: 1 },
      { mean: 7.5, diff: 1 },
    ]);
    // Bias = mean of all 10 differences (0,1,0,1,…) = 0.5, n = 10.
    expect(s.data[4]).toMatchObject({ bias: 0.5, n: 10, plotted: 4 });
    expect(s.title).toBe("t (4 of 10 pairs plotted: a systematic sample, every 2.5th pair in report order; bias and limits of agreement over all pairs)");
  });
});

describe("report.json written a section at a time", () => {
  it("is JSON.stringify(report, null, 2) byte for byte", async () => {
    const dir = mkdtempSync(join(tmpdir(), "report-json-"));
    const sections = [
      ...(await buildSections(run(), {})),
      {
        heading: 'quote " and\nnewline',
        text: "x",
        tables: [
          {
            id: "e",
            title: "empty",
            header: [],
            rows: [],
            values: [{ a: [], b: {}, c: null, d: undefined, e: [undefined, NaN, -0, Infinity, () => 1], f: new Date(0), g: { h: { i: [[], [{}], "\u2028 \ud800"] } }, 'k"ey': 1.5e-7 }],
          },
        ],
        charts: [],
      },
    ] as ReportSection[];
    for (const ss of [sections, []]) {
      const want = JSON.stringify(
        { title: "t ü", sections: ss.map((s) => ({ heading: s.heading, tables: s.tables, charts: s.charts.map((c) => ({ id: c.id, title: c.title, data: c.data })) })) },
        null,
        2,
      );
      writeReportJson(join(dir, "r.json"), "t ü", ss);
      expect(readFileSync(join(dir, "r.json"), "utf8")).toBe(want);
    }
  });
});
