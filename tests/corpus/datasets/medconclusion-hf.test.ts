/**
 * Loader for the published MedConclusion format on tiny fixtures written for the test
 * (tests/fixtures/medconclusion-hf/): the same four records as JSONL (plus one malformed line),
 * CSV (abstract as pandas writes it: Python `str()` of the list) and Parquet (two row groups,
 * written by make-parquet.mjs with hyparquet-writer; nested.parquet holds
 * the abstract as a native list<struct<label, text>> column). Rows: a normal abstract; one whose segment
 * list is its first half twice; one without a conclusion; one with a Python-literal abstract and
 * a "CONCLUSIONS AND RELEVANCE" label.
 */
import { describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { loadMedConclusionHf, medConclusionHfTasks, parseAbstractCell } from "../../../corpus/datasets/medconclusion-hf.ts";
import { parsePythonLiteral } from "../../../corpus/datasets/python-literal.ts";
import { getDataset } from "../../../corpus/datasets/registry.ts";

const dir = resolve(import.meta.dirname, "../../fixtures/medconclusion-hf");

function expectTheThreeTasks(items: Awaited<ReturnType<typeof loadMedConclusionHf>>["items"]) {
  expect(items.map((t) => t.id)).toEqual(["medconclusion-hf:30000001", "medconclusion-hf:30000002", "medconclusion-hf:30000004"]);
  const [a, b, c] = items;
  expect(a.sections.map((s) => s.label)).toEqual(["BACKGROUND", "METHODS", "RESULTS"]);
  expect(a.referenceConclusion).toBe("Beta blockers lowered mortality modestly.");
  expect(a.journal).toEqual({ title: "Journal Alpha", isoAbbreviation: null, issn: "0007-9235", nlmUniqueId: null });
  expect(a.year).toBe(2021);
  expect(a.meta).toEqual({ issn: "0007-9235", journal: "Journal Alpha", sjr: 3.2, category: "Cardiology and Cardiovascular Medicine; Medicine (miscellaneous)", quartile: "Q1" });
  // duplicated segment list cut to its first half: 2 input sections, one conclusion
  expect(b.sections.map((s) => s.label)).toEqual(["OBJECTIVE", "RESULTS"]);
  expect(b.referenceConclusion).toBe("Exercise helped.");
  expect(c.sections.map((s) => s.text)).toEqual(["It's unclear whether statins affect memory.", "No change in recall (Δ 0.1)."]);
  expect(c.referenceConclusion).toBe("Statins did not impair memory.");
}

describe("medconclusion-hf loader", () => {
  it("JSONL: maps the columns, repairs the doubled abstract, skips and counts bad rows", async () => {
    const d = await loadMedConclusionHf({ path: `${dir}/sample.jsonl` });
    expectTheThreeTasks(d.items);
    expect(d.skipped).toEqual({ count: 2, reasons: { "no conclusion segment": 1, "malformed JSON": 1 } });
    expect(d.warnings).toContain("1 abstract(s) were their first half twice (a known PubMed/Hugging Face artefact) and were cut to that half");
    expect(d.warnings.some((w) => /sample\.jsonl line 3: malformed JSON \(Expected property name .*\); skipped$/.test(w))).toBe(true);
  });

  it("CSV with Python-literal abstracts gives the same tasks", async () => {
    const d = await loadMedConclusionHf({ path: `${dir}/sample.csv` });
    expectTheThreeTasks(d.items);
    expect(d.skipped.count).toBe(1);
  });

  it("Parquet, read row group by row group, gives the same tasks", async () => {
    const d = await loadMedConclusionHf({ path: `${dir}/sample.parquet` });
    expectTheThreeTasks(d.items);
    expect(d.skipped).toEqual({ count: 1, reasons: { "no conclusion segment": 1 } });
  });

  it("Parquet with a native list<struct<label, text>> abstract column", async () => {
    const d = await loadMedConclusionHf({ path: `${dir}/nested.parquet` });
    expect(d.items.map((t) => [t.id, t.sections.length, t.referenceConclusion])).toEqual([
      ["medconclusion-hf:30000001", 3, "Beta blockers lowered mortality modestly."],
      ["medconclusion-hf:30000002", 2, "Exercise helped."],
    ]);
  });

  it("streams: limit stops early; renamed columns; through the registry", async () => {
    const got = [];
    for await (const t of medConclusionHfTasks({ path: `${dir}/sample.jsonl`, limit: 1 })) got.push(t.id);
    expect(got).toEqual(["medconclusion-hf:30000001"]);
    const renamed = await loadMedConclusionHf({ path: `${dir}/sample.jsonl`, columns: { abstract: "structured" } });
    expect(renamed.items).toEqual([]);
    expect(renamed.skipped.reasons["no abstract"]).toBe(4);
    const e = getDataset("medconclusion-hf");
    expect(e.taskKind).toBe("conclusion");
    expect((await e.load({ path: `${dir}/sample.csv`, limit: 2 })).items).toHaveLength(2);
    await expect(e.load({ path: `${dir}/nope.jsonl` })).rejects.toThrow(/file not found: .*nope\.jsonl/);
    await expect(e.load({ path: `${dir}/sample.jsonl`, format: "parquet" })).rejects.toThrow(/is not a readable Parquet file/);
  });
});

describe("abstract cells", () => {
  it("Python literals as pandas writes them", () => {
    expect(parsePythonLiteral(`[{'a': "it's", 'b': None, 'c': (1, -2.5e1), 'd': True}]`)).toEqual([{ a: "it's", b: null, c: [1, -25], d: true }]);
    expect(() => parsePythonLiteral("[1, os.system('x')]")).toThrow(/unexpected character at offset 4/);
  });
  it("list, JSON text, or an error naming what is wrong", () => {
    expect(parseAbstractCell([{ label: "RESULTS", text: "t" }])).toEqual({ segments: [{ label: "RESULTS", text: "t" }] });
    expect(parseAbstractCell('[{"Label": "", "Text": "t"}]')).toEqual({ segments: [{ label: null, text: "t" }] });
    expect(parseAbstractCell("plain text")).toEqual({ error: "abstract is neither a list, JSON nor a Python literal" });
    expect(parseAbstractCell("{}")).toEqual({ error: "abstract is not a list of segments" });
  });
});
