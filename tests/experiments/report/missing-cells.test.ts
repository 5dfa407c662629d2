/**
 * A report says how many cells of the run's matrix have no record: a run folder whose cells.json
 * lists cells not in results.jsonl, and a partial merge (cells.json `matrixCells`); a shard
 * folder counts only its own cells. A complete run's report has no such note.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeReport } from "../../../experiments/report/build.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "viewer", "results.jsonl");
const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
const keys = lines.map((l) => (JSON.parse(l) as { key: string }).key);

/** A run folder with the first `withRecord` fixture records and `cells` as its cells.json. */
function runDir(withRecord: number, cells: Record<string, unknown>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "report-missing-")), "run");
  mkdirSync(dir);
  writeFileSync(join(dir, "results.jsonl"), lines.slice(0, withRecord).join("\n") + "\n");
  writeFileSync(join(dir, "cells.json"), JSON.stringify({ configHash: "h", ...cells }) + "\n");
  return dir;
}

const note = (missing: number, of: number, have: number) =>
  `${missing} of the ${of} cells of the run's matrix (cells.json) have no record (not run yet, or in shards not merged): the tables cover the ${have} that have one.`;

describe("cells without a record", () => {
  it("counts the plan's cells that have no record", async () => {
    const files = await writeReport(runDir(10, { keys }));
    expect(new Set(keys).size).toBe(15);
    expect(readFileSync(files.markdown, "utf8")).toContain(note(5, 15, 10));
    expect(readFileSync(files.html, "utf8")).toContain(note(5, 15, 10));
    const json = JSON.parse(readFileSync(files.json, "utf8"));
    expect(Object.keys(json)).toEqual(["title", "missingCells", "sections"]);
    expect(json.missingCells).toEqual({ matrixCells: 15, withRecord: 10, missing: 5 });
  });

  it("counts a partial merge's missing shards from matrixCells", async () => {
    // 10 cells merged (all with a record) of an 18-cell matrix.
    const files = await writeReport(runDir(10, { keys: keys.slice(0, 10), matrixCells: 18 }));
    expect(readFileSync(files.markdown, "utf8")).toContain(note(8, 18, 10));
    expect(JSON.parse(readFileSync(files.json, "utf8")).missingCells).toEqual({ matrixCells: 18, withRecord: 10, missing: 8 });
  });

  it("counts only a shard folder's own cells", async () => {
    const files = await writeReport(runDir(4, { keys: keys.slice(0, 5), shard: { index: 1, count: 3 }, matrixCells: 15 }));
    expect(readFileSync(files.markdown, "utf8")).toContain(note(1, 5, 4));
  });

  it("says nothing when every cell has a record", async () => {
    const files = await writeReport(runDir(15, { keys }));
    expect(readFileSync(files.markdown, "utf8")).not.toContain("have no record");
    expect(Object.keys(JSON.parse(readFileSync(files.json, "utf8")))).toEqual(["title", "sections"]);
  });
});
