/** Issue 13 item 14: the RWESummary weighted score says when min–max is driven by noise. */
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { rweNoiseTable } from "../../../experiments/report/rwe-noise.ts";

function rec(model: string, i: number, latencyMs: number, verdict: number): RunRecord {
  return {
    key: `${model}-${i}`,
    itemId: `s${i}`,
    dataset: "rwesummary",
    taskKind: "rwe",
    model,
    workflow: "rwe-summary",
    params: {},
    repeat: 0,
    status: "ok",
    output: "summary",
    reference: null,
    itemMeta: {},
    intermediate: {},
    generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs, cached: false, modelLatencyMs: latencyMs },
    judgeScores: [{ judgeId: "j", rubricId: "rwe-completeness", scores: { completeness: verdict }, status: "ok" }],
    startedAt: "",
    finishedAt: "",
  };
}

describe("rweNoiseTable", () => {
  it("inference time 0.06 s vs 0.04 s with overlapping CIs is flagged; so is a 3/3 vs 0/3 jury gap (Wilson intervals overlap at n = 3)", () => {
    // model A: 40, 80, 60 ms (mean 0.060 s); model B: 20, 60, 40 ms (mean 0.040 s); completeness 1,1,1 vs 0,0,0
    const records = [...[40, 80, 60].map((l, i) => rec("A", i, l, 1)), ...[20, 60, 40].map((l, i) => rec("B", i, l, 0))];
    const t = rweNoiseTable(records)!;
    // mean 0.06, sd 0.02, n 3: t(0.975, 2) = 4.303 → half-width 0.0497
    expect(t.rows).toEqual([
      ["A", "3", "0.060", "0.010 – 0.110"],
      ["B", "3", "0.040", "-0.010 – 0.090"],
    ]);
    expect(t.caption).toContain("inference_time (lowest 0.040 vs highest 0.060; their 95 % CIs overlap)");
    // binary jury metrics carry Wilson intervals: 3/3 → [0.438, 1] and 0/3 → [0, 0.562] overlap, so
    // with three studies per model even an all-vs-nothing jury gap is within noise
    expect(t.caption).toMatch(/rwe-completeness\.completeness \(lowest 0\.0+ vs highest 1\.0+; their 95 % CIs overlap\)/);
  });
});

describe("report layout (issue 13 item 13)", () => {
  it("HTML has a table of contents, one heading per section, scroll boxes for tables, no title repeated under its own heading", async () => {
    const { reportToHtml } = await import("../../../experiments/report/render.ts");
    const t = { id: "x", title: "Paired comparisons", header: ["a"], rows: [["1"]] };
    const html = reportToHtml("r", "intro", [
      { heading: "Paired comparisons", tables: [t], charts: [] },
      { heading: "Overview", tables: [{ ...t, title: "Cells" }], charts: [] },
      { heading: "Paired comparisons", tables: [{ ...t, title: "More" }], charts: [] },
    ]);
    expect(html.match(/<h2>Paired comparisons<\/h2>/g)).toHaveLength(1);
    expect(html).not.toContain("<h3>Paired comparisons</h3>");
    expect(html).toContain("<h3>More</h3>");
    expect(html).toContain('<nav class="toc"><h2>Contents</h2><ol><li><a href="#paired-comparisons">Paired comparisons</a></li><li><a href="#overview">Overview</a></li></ol></nav>');
    expect(html.match(/<div class="tablewrap"><table>/g)).toHaveLength(3);
  });
});
