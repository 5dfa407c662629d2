/**
 * The bounded report (`medsynth report` of a large run): the heap cap's rule, and the report
 * written in a capped worker thread is byte for byte the one written in this thread.
 */
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BOUNDED_MIN_BYTES, reportHeapLimitMb, REPORT_HEAP_MIN_MB, writeReportBounded } from "../../../experiments/report/bounded.ts";
import { writeReport } from "../../../experiments/report/build.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "viewer", "results.jsonl");
const MiB = 2 ** 20;

describe("reportHeapLimitMb", () => {
  it("no cap below 256 MiB; 1,536 MiB up to 5,120 MiB; then 0.3 × the file's MiB (10⁶ demo-like cells, 5,339 MiB: 1,602)", () => {
    expect(reportHeapLimitMb(BOUNDED_MIN_BYTES - 1, {}, [])).toBeNull();
    expect(reportHeapLimitMb(BOUNDED_MIN_BYTES, {}, [])).toBe(REPORT_HEAP_MIN_MB);
    expect(reportHeapLimitMb(5120 * MiB, {}, [])).toBe(1536);
    expect(reportHeapLimitMb(5339 * MiB, {}, [])).toBe(1602);
  });
  it("MEDSYNTH_REPORT_HEAP_MB wins (0 = none); a --max-old-space-size the process runs with is left as it is", () => {
    expect(reportHeapLimitMb(10, { MEDSYNTH_REPORT_HEAP_MB: "900" }, [])).toBe(900);
    expect(reportHeapLimitMb(6000 * MiB, { MEDSYNTH_REPORT_HEAP_MB: "0" }, [])).toBeNull();
    expect(() => reportHeapLimitMb(0, { MEDSYNTH_REPORT_HEAP_MB: "1.5g" }, [])).toThrow(/MEDSYNTH_REPORT_HEAP_MB must be a whole number of MiB/);
    expect(reportHeapLimitMb(6000 * MiB, { NODE_OPTIONS: "--max-old-space-size=4096" }, [])).toBeNull();
    expect(reportHeapLimitMb(6000 * MiB, {}, ["--max-old-space-size=3000"])).toBeNull();
  });
});

describe("writeReportBounded", () => {
  it("a capped worker thread writes the same report.json, report.md and report.html as writeReport", async () => {
    const a = mkdtempSync(join(tmpdir(), "bounded-a-"));
    const b = mkdtempSync(join(tmpdir(), "bounded-b-"));
    cpSync(FIXTURE, join(a, "results.jsonl"));
    cpSync(FIXTURE, join(b, "results.jsonl"));
    await writeReport(a);
    const files = await writeReportBounded(b, { heapMb: 256 });
    expect(files.json).toBe(join(b, "report.json"));
    for (const f of ["report.json", "report.md", "report.html"]) expect(readFileSync(join(b, f), "utf8").replaceAll(b, "DIR")).toBe(readFileSync(join(a, f), "utf8").replaceAll(a, "DIR"));
  }, 60_000);
  it("a folder without results.jsonl: the error names it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bounded-none-"));
    await expect(writeReportBounded(dir, { heapMb: 256 })).rejects.toThrow(`${dir}: no results.jsonl`);
  }, 60_000);
});
