import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord, JudgeScoreEntry } from "../../../experiments/types.ts";
import { modelByVariantTable, judgeVsJudgeTable, comparisonsTable, subgroupTable, statusTable, meanCi, perJudgeTable } from "../../../experiments/report/tables.ts";
import { recordValues } from "../../../experiments/report/columns.ts";
import { writeResultsAtomic } from "../../../results/results-file.ts";
import { buildSections, writeReport } from "../../../experiments/report/build.ts";
import { compareRecords } from "../../../experiments/report/compare.ts";
import { panelSection } from "../../../experiments/report/panel-section.ts";
import { uncertaintyTable, type UncertaintyRow } from "../../../experiments/report/uncertainty.ts";
import { bootstrapCi } from "../../../judges/stats/index.ts";

/** Builder of a small fixed record. */
function rec(itemId: string, workflow: string, rougeL: number | null, judges: [string, number | null][] = [], specialty = "cardiology", status: RunRecord["status"] = "ok"): RunRecord {
  const judgeScores: JudgeScoreEntry[] = judges.map(([judgeId, v]) => ({
    judgeId,
    rubricId: "medmeta",
    scores: { overall: v },
    status: v === null ? "missing" : "ok",
    ...(v === null ? { raw: "garbage" } : {}),
  }));
  return {
    key: `${itemId}-${workflow}`,
    itemId,
    dataset: "medevidence",
    taskKind: "synthesis",
    model: "m1",
    workflow,
    params: {},
    repeat: 0,
    status,
    output: status === "ok" ? "one two three" : null,
    reference: "ref",
    itemMeta: { specialty },
    intermediate: {},
    generator: { calls: 1, inputTokens: 10, outputTokens: 5, latencyMs: 2000, cached: false },
    judgeScores,
    metrics: rougeL === null ? {} : { rougeL },
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
  };
}

const records: RunRecord[] = [
  rec(
    "a",
    "golden-rag",
    0.2,
    [
      ["j1", 4],
      ["j2", null],
    ],
    "cardiology",
  ),
  rec(
    "b",
    "golden-rag",
    0.4,
    [
      ["j1", 3],
      ["j2", 5],
    ],
    "cardiology",
  ),
  rec(
    "c",
    "golden-rag",
    0.6,
    [
      ["j1", 2],
      ["j2", 4],
    ],
    "oncology",
  ),
  rec("a", "negated-rag", 0.1, [], "cardiology"),
  rec("b", "negated-rag", 0.4, [], "cardiology"),
  rec("c", "negated-rag", 0.3, [], "oncology"),
  rec("d", "negated-rag", null, [], "oncology", "failed"),
];

describe("report tables (hand-computed)", () => {
  it("panel score leaves a missing judge out instead of scoring it 0", () => {
    expect(recordValues(records[0])["judge:medmeta.overall"]).toBe(4);
    expect(recordValues(records[1])["judge:medmeta.overall"]).toBe(4);
    expect(recordValues(records[6])).toEqual({});
  });

  it("uses the panel's recorded aggregate (majority vote with a tie → 0) over the plain mean", () => {
    const r = rec("x", "rwe-summary", null, [
      ["j1", 1],
      ["j2", 0],
    ]);
    r.judgeScores = r.judgeScores!.map((e) => ({ ...e, rubricId: "rwe-direction-of-effect", scores: { direction_of_effect: e.scores.overall } }));
    expect(recordValues(r)["judge:rwe-direction-of-effect.direction_of_effect"]).toBe(0.5);
    r.panel = { aggregation: "majority", scores: { "rwe-direction-of-effect": { direction_of_effect: { value: 0, nPresent: 2, nJudges: 2, tie: true } } } };
    expect(recordValues(r)["judge:rwe-direction-of-effect.direction_of_effect"]).toBe(0);
    expect(recordValues(r)["judge:rwe-direction-of-effect.direction_of_effect@j1"]).toBe(1);
  });

  it("mean ± 95 % CI: 0.2, 0.4, 0.6 → 0.400 ± 0.497 (t_{0.975,2} = 4.302653)", () => {
    const m = meanCi([0.2, 0.4, 0.6])!;
    expect(m.mean).toBeCloseTo(0.4, 12);
    expect((m.ciHigh! - m.ciLow!) / 2).toBeCloseTo((4.302652729749464 * 0.2) / Math.sqrt(3), 9);
    const t = modelByVariantTable(records, "rougeL");
    expect(t.header).toEqual(["model", "golden-rag", "negated-rag"]);
    expect(t.rows[0]).toEqual(["m1", "0.400 ± 0.497", "0.267 ± 0.379"]);
    const panel = modelByVariantTable(records, "judge:medmeta.overall");
    expect(panel.rows[0][1].startsWith("3.667 ± ")).toBe(true);
  });

  it("judge vs judge: means over records both judged, offsets from the mean of means", () => {
    const t = judgeVsJudgeTable(records)!;
    expect(t.rows).toEqual([
      ["medmeta.overall", "j1", "2", "2.500", "-1.000"],
      ["medmeta.overall", "j2", "2", "4.500", "1.000"],
    ]);
  });

  it("paired comparison: t = 1.5119, p = 0.2697, d_z = 0.8729 on d = (0.1, 0, 0.3)", () => {
    const t = comparisonsTable(records, [{ metric: "rougeL", a: { workflow: "golden-rag" }, b: { workflow: "negated-rag" }, label: "golden vs negated" }])!;
    const v = t.values![0] as any;
    expect(v.n).toBe(3);
    expect(v.t).toBeCloseTo(1.5118578920369088, 9);
    // df = 2: F(t) = 1/2 + t / (2·sqrt(2 + t²))
    const p = 2 * (1 - (0.5 + v.t / (2 * Math.sqrt(2 + v.t * v.t))));
    expect(v.p).toBeCloseTo(p, 9);
    expect(v.p).toBeCloseTo(0.2697, 4);
    expect(v.dz).toBeCloseTo(0.8728715609439696, 9);
    expect(v.pHolm).toBeCloseTo(v.p, 12);
  });

  it("subgroups sorted by mean with n", () => {
    const t = subgroupTable(records, "specialty", "rougeL", 5, 1)!;
    expect(t.rows.map((r) => [r[1], r[2]])).toEqual([
      ["oncology", "2"],
      ["cardiology", "4"],
    ]);
    expect((t.values![0] as any).mean).toBeCloseTo(0.45, 12);
    expect((t.values![1] as any).mean).toBeCloseTo(0.275, 12);
  });

  it("panel section: missing rates per judge and per-judge offsets (missing left out)", () => {
    const sec = panelSection(records)!;
    expect(sec.tables[0].rows).toEqual([
      ["j1", "3", "0", "0", "0.000"],
      ["j2", "3", "1", "0", "0.333"],
    ]);
    const diag = sec.tables.find((t) => t.id === "panel-medmeta-overall")!;
    // units: a (j1 4), b (3, 5), c (2, 4): panel means 4, 4, 3; j1 offsets 0, −1, −1 → −2/3; j2 offsets +1, +1 → +1
    expect(diag.rows.find((r) => r[0] === "mean offset from panel" && r[1] === "j1")![2]).toMatch(/^-0\.667 /);
    expect(diag.rows.find((r) => r[0] === "mean offset from panel" && r[1] === "j2")![2]).toMatch(/^1\.000 /);
  });

  it("status table counts ok/failed/skipped per variant", () => {
    expect(statusTable(records).rows).toEqual([
      ["m1", "golden-rag", "3", "0", "0", "45"],
      ["m1", "negated-rag", "3", "1", "0", "60"],
    ]);
  });

  it("status table: outputs kept although truncated get their own column and a caption, only when present", () => {
    expect(statusTable(records).header).not.toContain("ok, truncated");
    const marked = records.map((r, i) => (i === 0 || i === 1 ? { ...r, truncated: true as const } : r));
    const t = statusTable(marked);
    expect(t.header).toEqual(["model", "workflow", "ok", "ok, truncated", "failed", "skipped", "generator tokens"]);
    expect(t.rows).toEqual([
      ["m1", "golden-rag", "3", "2", "0", "0", "45"],
      ["m1", "negated-rag", "3", "0", "1", "0", "60"],
    ]);
    expect(t.caption).toMatch(/onTruncated: keep-marked/);
  });

  it("compare: B − A deltas per metric", () => {
    const a = records.filter((r) => r.workflow === "golden-rag");
    const b = a.map((r) => ({ ...r, metrics: { rougeL: (r.metrics!.rougeL as number) + 0.1 } }));
    const d = compareRecords(a, b).find((x) => x.column === "rougeL")!;
    expect(d.n).toBe(3);
    expect(d.delta).toBeCloseTo(0.1, 12);
    expect(d.t).toBeNull(); // no variation in the differences: no test
  });

  it("comparisons with constant differences still show mean A, mean B and the gap (t undefined)", () => {
    const a = records.filter((r) => r.workflow === "golden-rag");
    const both = [...a, ...a.map((r) => ({ ...r, workflow: "pzs", key: `${r.key}-pzs`, metrics: { rougeL: (r.metrics!.rougeL as number) + 0.5 } }))];
    const t = comparisonsTable(both, [{ metric: "rougeL", a: { workflow: "pzs" }, b: { workflow: "golden-rag" }, label: "gap" }])!;
    // A = 0.7, 0.9, 1.1 (mean 0.9); B = 0.2, 0.4, 0.6 (mean 0.4); every difference 0.5
    expect(t.rows[0]).toEqual(["gap", "rougeL", "3", "0.900", "0.400", "0.500", "–", "–", "–", "–", "–"]);
  });

  it("compare tests each workflow variant on its own instead of pooling them", () => {
    // run B adds +0.1 to golden-rag and −0.2 to negated-rag (items a, b, c in both)
    const a = records.filter((r) => r.status === "ok");
    const b = a.map((r) => ({ ...r, metrics: { rougeL: (r.metrics!.rougeL as number) + (r.workflow === "golden-rag" ? 0.1 : -0.2) } }));
    const d = compareRecords(a, b).filter((x) => x.column === "rougeL");
    expect(d.map((x) => [x.variant, x.n])).toEqual([
      ["m1 · golden-rag", 3],
      ["m1 · negated-rag", 3],
    ]);
    expect(d[0].delta).toBeCloseTo(0.1, 12);
    expect(d[1].delta).toBeCloseTo(-0.2, 12);
    expect(d[1].meanA).toBeCloseTo((0.1 + 0.4 + 0.3) / 3, 12);
  });

  it("writes markdown, standalone html with inline svg, and json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-report-"));
    writeResultsAtomic(join(dir, "results.jsonl"), records);
    const files = await writeReport(dir, { primaryMetric: "rougeL", subgroups: ["specialty"], comparisons: [{ metric: "rougeL", a: { workflow: "golden-rag" }, b: { workflow: "negated-rag" } }] });
    const md = readFileSync(files.markdown, "utf8");
    expect(md).toContain("| m1 | 0.400 ± 0.497 | 0.267 ± 0.379 |");
    const html = readFileSync(files.html, "utf8");
    expect(html).toContain("<svg");
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(files.charts.length).toBeGreaterThan(0);
    for (const c of files.charts) expect(existsSync(c)).toBe(true);
  });
});

describe("uncertainty table: bootstrap CI over items and item-clustered SE when repeats > 1", () => {
  it("two repeats of items a, b, c: clustered SE by hand; bootstrap = bootstrapCi of the item means", () => {
    const rs: RunRecord[] = [];
    const vals: Record<string, [number, number]> = { a: [0.2, 0.4], b: [0.6, 0.6], c: [0.1, 0.3] };
    for (const [item, pair] of Object.entries(vals)) pair.forEach((v, repeat) => rs.push({ ...rec(item, "golden-rag", v), key: `${item}-${repeat}`, repeat }));
    const t = uncertaintyTable(rs, "rougeL")!;
    const row = t.values![0] as unknown as UncertaintyRow;
    expect(row).toMatchObject({ n: 6, items: 3, repeats: 2 });
    expect(row.mean).toBeCloseTo(2.2 / 6, 15);
    // mean 11/30; item residual sums: a 0.6 − 22/30 = −2/15, b 1.2 − 22/30 = 7/15, c 0.4 − 22/30 = −1/3.
    // SE² = 3/2 · (4/225 + 49/225 + 25/225) / 36 = 3/2 · 78/225 / 36
    expect(row.clustered!.se).toBeCloseTo(Math.sqrt((1.5 * 78) / 225 / 36), 12);
    const b = bootstrapCi([0.3, 0.6, 0.2]);
    expect(row.bootstrap).toEqual({ lower: b.lower, upper: b.upper, iterations: 2000, seed: "medsynth" });
    expect(t.header).toContain("clustered SE");
  });

  it("no repeats: no clustered column value", () => {
    const row = uncertaintyTable(records, "rougeL")!.values![0] as unknown as UncertaintyRow;
    expect(row.repeats).toBe(1);
    expect(row.clustered).toBeNull();
    expect(row.bootstrap).not.toBeNull();
  });
});

describe("MedConclusion: primary and secondary judge reported separately (Tables 2 and 5)", () => {
  const conclusion = (itemId: string, workflow: string, j1: number, j2: number | null): RunRecord => ({
    ...rec(itemId, workflow, 0.5, [
      ["primary-j", j1],
      ["secondary-j", j2],
    ]),
    taskKind: "conclusion",
    dataset: "pubmedqa",
  });
  const rs = [
    conclusion("a", "conclusion-a", 80, 60),
    conclusion("b", "conclusion-a", 90, 70),
    conclusion("c", "conclusion-a", 70, null),
    conclusion("a", "conclusion-b", 50, 40),
    conclusion("b", "conclusion-b", 60, 50),
  ];

  it("per-judge table: one column per judge in panel order, panel aggregate last (hand-computed means)", () => {
    const t = perJudgeTable(rs, "judge:medmeta.overall")!;
    expect(t.header).toEqual(["model", "workflow", "primary-j (primary)", "secondary-j (secondary)", "panel"]);
    const v = (variant: string, judge: string) => (t.values as { variant: string; judge: string; mean: number; n: number }[]).find((x) => x.variant === variant && x.judge === judge)!;
    expect(v("conclusion-a", "primary-j")).toMatchObject({ mean: 80, n: 3 }); // (80+90+70)/3
    expect(v("conclusion-a", "secondary-j")).toMatchObject({ mean: 65, n: 2 }); // (60+70)/2, the missing one left out
    expect(v("conclusion-a", "panel").mean).toBeCloseTo((70 + 80 + 70) / 3, 12); // per-record means 70, 80, 70
    expect(v("conclusion-b", "primary-j")).toMatchObject({ mean: 55, n: 2 });
    expect(v("conclusion-b", "secondary-j")).toMatchObject({ mean: 45, n: 2 });
    expect(
      perJudgeTable(
        rs.map((r) => ({ ...r, judgeScores: r.judgeScores!.slice(0, 1) })),
        "judge:medmeta.overall",
      ),
    ).toBeNull();
  });

  it("the conclusion section leads with the per-judge table instead of the panel mean", async () => {
    const sections = await buildSections(rs, {});
    const conc = sections.find((s) => s.heading.startsWith("Conclusion generation"))!;
    const ids = conc.tables.map((t) => t.id);
    expect(ids).toContain("per-judge-conclusion-judge:medmeta.overall");
    expect(ids).not.toContain("main-conclusion-judge:medmeta.overall");
    expect(ids.indexOf("per-judge-conclusion-judge:medmeta.overall")).toBeLessThan(ids.indexOf("all-conclusion"));
  });
});
