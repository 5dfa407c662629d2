/**
 * Lines of results.jsonl the report leaves out (malformed lines, a torn last line) are said: in
 * the returned warnings (printed on stderr by the CLI), in report.md / report.html's intro and in
 * report.json's `skippedLines`; `medsynth compare` returns the same warning. A clean file's report
 * has none of them.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeReport } from "../../../experiments/report/build.ts";
import { compareRuns } from "../../../experiments/report/compare.ts";
import { readReportRecords } from "../../../experiments/report/read-records.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "viewer", "results.jsonl");
const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);

/** A run folder whose results.jsonl is `text`. */
function runDir(text: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "report-skipped-")), "run");
  mkdirSync(dir);
  writeFileSync(join(dir, "results.jsonl"), text);
  return dir;
}

// 15 fixture records; line 3 is not JSON, line 9 has no key, and the 18th line is torn (no newline).
const damaged = [...lines.slice(0, 2), "{not json", ...lines.slice(2, 7), '{"itemId":"x"}', ...lines.slice(7, 15)].join("\n") + "\n" + lines[0].slice(0, 40);

describe("report of a results file with skipped lines", () => {
  it("reads the line numbers: malformed 3 and 9, torn line 18", () => {
    const dir = runDir(damaged);
    const read = readReportRecords(join(dir, "results.jsonl"), null);
    expect(read.records.length).toBe(15);
    expect(read.malformedLines).toEqual([3, 9]);
    expect(read.truncatedTail).toBe(true);
    expect(read.tornLine).toBe(18);
  });

  it("warns, and says so in report.md, report.html and report.json", async () => {
    const dir = runDir(damaged);
    const path = join(dir, "results.jsonl");
    const files = await writeReport(dir);
    const text = "2 malformed line(s) skipped (lines 3, 9), torn last line 18 left out";
    expect(files.warnings).toEqual([`${path}: ${text}`]);
    expect(readFileSync(files.markdown, "utf8")).toContain(`Left out of ${path}: ${text}.`);
    expect(readFileSync(files.html, "utf8")).toContain(`Left out of ${path}: ${text}.`);
    const json = JSON.parse(readFileSync(files.json, "utf8"));
    expect(Object.keys(json)).toEqual(["title", "skippedLines", "sections"]);
    expect(json.skippedLines).toEqual({ file: path, malformedLines: 2, firstMalformedLines: [3, 9], tornLastLine: 18 });
  });

  it("says nothing for a clean file", async () => {
    const dir = runDir(lines.join("\n") + "\n");
    const files = await writeReport(dir);
    expect(files.warnings).toBeUndefined();
    expect(readFileSync(files.markdown, "utf8")).not.toContain("Left out of");
    expect(Object.keys(JSON.parse(readFileSync(files.json, "utf8")))).toEqual(["title", "sections"]);
  });

  it("compare warns about each damaged file", () => {
    const a = runDir(damaged);
    const b = runDir(lines.join("\n") + "\n");
    expect(compareRuns(a, b).warnings).toEqual([`${join(a, "results.jsonl")}: 2 malformed line(s) skipped (lines 3, 9), torn last line 18 left out`]);
    expect(compareRuns(b, b).warnings).toEqual([]);
  });
});
