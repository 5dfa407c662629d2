/**
 * MedConclusion §5 journal subgroups from a small file in SCImago's export format
 * (tests/fixtures/scimago/scimagojr-sample.csv: semicolons, decimal commas, several ISSNs per
 * journal, a title with a quoted semicolon, an ISSN without its leading zeros, a row without ISSN).
 *
 * Journal means of rouge1 below are [0.30, 0.35, 0.42, 0.40, 0.33] at SJR [0.5, 1.2, 2.8, 4.1, 0.9];
 * reference (scipy 1.10.1, Debian python3):
 *   stats.linregress(sjr, mean) → slope 0.02890109890109891, pvalue 0.04857709517874438, stderr 0.008974956995848256
 *   stats.spearmanr(sjr, mean)  → statistic 0.8999999999999998, pvalue 0.03738607346849874
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunRecord } from "../../../experiments/types.ts";
import { loadScimago, normalizeIssn, parseScimago } from "../../../corpus/datasets/scimago.ts";
import { sjrSection } from "../../../experiments/report/sjr-section.ts";
import type { ReportSection } from "../../../experiments/report/render.ts";
import { writeResultsAtomic } from "../../../results/results-file.ts";
import { writeReport } from "../../../experiments/report/build.ts";

const CSV = resolve(import.meta.dirname, "../../fixtures/scimago/scimagojr-sample.csv");

function rec(i: number, issn: string | null, rouge1: number): RunRecord {
  return {
    key: `k${i}`,
    itemId: `pubmed:${i}`,
    dataset: "medconclusion-hf",
    taskKind: "conclusion",
    model: "m1",
    workflow: "conclusion-a",
    params: {},
    repeat: 0,
    status: "ok",
    output: "x",
    reference: "y",
    itemMeta: issn === null ? {} : { issn },
    intermediate: {},
    generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
    metrics: { rouge1 },
    startedAt: "",
    finishedAt: "",
  };
}
// Alpha by its electronic ISSN; Delta written with its leading zeros (SCImago dropped them); Epsilon with a lower-case x.
const records = [
  rec(1, "0007-9235", 0.28),
  rec(2, "0007-9235", 0.32),
  rec(3, "1234-5678", 0.35),
  rec(4, "1234-5678", 0.35),
  rec(5, "2049-3630", 0.4),
  rec(6, "2049-3630", 0.44),
  rec(7, "0000-1111", 0.4),
  rec(8, "0000-1111", 0.4),
  rec(9, "1050-642x", 0.31),
  rec(10, "1050-642x", 0.35),
  rec(11, "9999-9999", 0.5),
  rec(12, null, 0.5),
];

describe("SCImago file", () => {
  const idx = loadScimago(CSV);
  it("reads semicolons, decimal commas, several ISSNs, categories without quartile", () => {
    expect(idx.journals).toHaveLength(6);
    const gamma = idx.byIssn.get("20493630")!;
    expect(gamma.title).toBe("Gamma; Letters");
    expect(gamma.sjr).toBe(2.8);
    expect(gamma.quartile).toBe("Q1");
    expect(gamma.categories).toEqual(["Oncology", "Cancer Research"]);
    expect(idx.byIssn.get("00079235")!.title).toBe("Journal Alpha");
    expect(idx.byIssn.get("00001111")!.title).toBe("Delta Heart");
    expect(idx.warnings).toEqual([expect.stringContaining("No ISSN Series): no ISSN")]);
  });
  it("normalises ISSNs and names a file that is not SCImago's format", () => {
    expect(normalizeIssn("1050-642x")).toBe("1050642X");
    expect(() => parseScimago("a,b\n1,2\n", "x.csv")).toThrow(/x\.csv: no column\(s\) Title, Issn, SJR/);
  });
});

describe("SJR section (MedConclusion §5)", () => {
  let section: ReportSection;
  beforeAll(async () => {
    section = await sjrSection(records, loadScimago(CSV), { minCategoryN: 2, chart: false });
  });
  const table = (id: string) => section.tables.find((t) => t.id === id)!;

  it("gives each item its SJR, quartile and categories", () => {
    const items = table("sjr-items").values as { itemId: string; sjr: number | null; quartile: string | null; categories: string[] }[];
    expect(items.find((v) => v.itemId === "pubmed:5")).toMatchObject({ sjr: 2.8, quartile: "Q1", categories: ["Oncology", "Cancer Research"] });
    expect(items.find((v) => v.itemId === "pubmed:7")).toMatchObject({ sjr: 4.1 });
  });

  it("counts and lists unmatched records by ISSN", () => {
    const u = table("sjr-unmatched");
    expect(u.title).toBe("Items not joined to a journal: 2 of 12");
    expect(u.rows).toEqual([
      ["(no ISSN)", "1", "pubmed:12"],
      ["99999999", "1", "pubmed:11"],
    ]);
  });

  it("Spearman ρ and OLS slope of journal means on SJR match scipy", () => {
    const v = table("sjr-association").values!.find((x) => x.metric === "rouge1") as {
      journals: number;
      records: number;
      spearman: { estimate: number; p: number };
      ols: { slope: number; slopeSe: number; p: number };
    };
    expect(v.journals).toBe(5);
    expect(v.records).toBe(10);
    expect(v.spearman.estimate).toBeCloseTo(0.9, 12);
    expect(v.spearman.p).toBeCloseTo(0.03738607346849874, 9);
    expect(v.ols.slope).toBeCloseTo(0.02890109890109891, 12);
    expect(v.ols.slopeSe).toBeCloseTo(0.008974956995848256, 12);
    expect(v.ols.p).toBeCloseTo(0.04857709517874438, 9);
  });

  it("ranks subject categories by mean with n (by hand)", () => {
    const rows = table("sjr-categories").rows.filter((r) => r[0] === "rouge1");
    // Cancer Research (0.40, 0.44) 0.42; Oncology (0.35, 0.35, 0.40, 0.44) 0.385;
    // Cardiology (0.28, 0.32, 0.40, 0.40) 0.35; Medicine (misc.) (0.28, 0.32, 0.31, 0.35) 0.315.
    expect(rows).toEqual([
      ["rouge1", "1", "Cancer Research", "2", "0.420"],
      ["rouge1", "2", "Oncology", "4", "0.385"],
      ["rouge1", "3", "Cardiology and Cardiovascular Medicine", "4", "0.350"],
      ["rouge1", "4", "Medicine (miscellaneous)", "4", "0.315"],
    ]);
    const strict = table("sjr-categories");
    expect(strict.caption).toContain("at least 2 records");
  });

  it("writeReport takes the SCImago file from the config (report.scimago) and draws the chart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sjr-report-"));
    mkdirSync(dir, { recursive: true });
    writeResultsAtomic(join(dir, "results.jsonl"), records);
    writeFileSync(join(dir, "spec.json"), JSON.stringify({ config: { name: "sjr", report: { subgroups: [], scimago: CSV } } }));
    const files = await writeReport(dir);
    const md = readFileSync(files.markdown, "utf8");
    expect(md).toContain("Journal subgroups: SJR and subject category (MedConclusion §5)");
    expect(md).toContain("10 of 12 items joined to a journal");
    expect(files.charts.some((c) => c.endsWith("sjr-scatter.svg"))).toBe(true);
    expect(readFileSync(files.charts.find((c) => c.endsWith("sjr-scatter.svg"))!, "utf8")).toContain("<svg");
  });
});
