/**
 * The streaming results-file reader/writer: lines split across chunk boundaries (chunks of a few
 * bytes), byte offsets that read the same record back, torn tails (left out, cut off with repair),
 * malformed and over-long lines (numbered, skipped without being buffered), the latest record per
 * key, resuming from an offset, and the atomic writer.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AtomicResultsWriter,
  latestEntries,
  latestLineOffsets,
  latestRecords,
  leadingKey,
  newScanStats,
  readRecordAt,
  resultLines,
  resultRecords,
  skippedLinesText,
} from "../../results/results-file.ts";
import type { RunRecord } from "../../results/run-record.ts";

const rec = (key: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  key,
  itemId: `i:${key}`,
  dataset: "d",
  taskKind: "synthesis",
  model: "m",
  workflow: "pzs",
  params: {},
  repeat: 0,
  status: "ok",
  output: `out ${key} — ünïcödé`,
  reference: null,
  itemMeta: {},
  intermediate: {},
  generator: { calls: 1, inputTokens: 1, outputTokens: 1, latencyMs: 1, cached: false },
  startedAt: "",
  finishedAt: "",
  ...extra,
});

function file(text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), "results-file-")), "results.jsonl");
  writeFileSync(p, text);
  return p;
}

describe("resultLines / resultRecords", () => {
  const lines = [rec("a"), rec("b"), rec("c", { output: "x".repeat(300) })].map((r) => JSON.stringify(r));
  const text = `${lines[0]}\n${lines[1]}\nnot json\n\n{"no":"key"}\n${lines[2]}\n`;

  it("gives every line with its byte offset, whatever the chunk size (multi-byte characters split too)", () => {
    const p = file(text);
    for (const chunkBytes of [1, 3, 7, 64, 1 << 20]) {
      const stats = newScanStats();
      const got = [...resultLines(p, stats, { chunkBytes })];
      expect(got.map((l) => l.text)).toEqual(text.split("\n").slice(0, -1));
      expect(got.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6]);
      const buf = readFileSync(p);
      for (const l of got) expect(buf.subarray(l.offset, l.offset + l.length).toString("utf8")).toBe(l.text);
      expect(stats).toMatchObject({ lines: 6, endOffset: buf.length, truncatedTail: false });
    }
  });

  it("skips malformed lines with their numbers and reads records back by offset", () => {
    const p = file(text);
    const stats = newScanStats();
    const got = [...resultRecords(p, stats, { chunkBytes: 5 })];
    expect(got.map((r) => r.record.key)).toEqual(["a", "b", "c"]);
    expect(stats.malformedLines).toEqual([3, 5]);
    for (const r of got) expect(readRecordAt(p, r.offset, r.length)).toEqual(r.record);
    expect(() => readRecordAt(p, got[0].offset + 1, got[0].length)).toThrow(/no record at byte 1/);
  });

  it("leaves a torn last line out, and cuts it off the file with repair", () => {
    const p = file(`${lines[0]}\n${lines[1].slice(0, 20)}`);
    const stats = newScanStats();
    expect([...resultRecords(p, stats)].map((r) => r.record.key)).toEqual(["a"]);
    expect(stats.truncatedTail).toBe(true);
    expect(statSync(p).size).toBe(Buffer.byteLength(`${lines[0]}\n${lines[1].slice(0, 20)}`));
    [...resultRecords(p, newScanStats(), { repair: true })];
    expect(readFileSync(p, "utf8")).toBe(`${lines[0]}\n`);
  });

  it("skips a line over the length limit without buffering it, and goes on", () => {
    const p = file(`${lines[0]}\n${JSON.stringify(rec("big", { output: "y".repeat(5000) }))}\n${lines[1]}\n`);
    const stats = newScanStats();
    expect([...resultRecords(p, stats, { chunkBytes: 512, maxLineBytes: 2000 })].map((r) => r.record.key)).toEqual(["a", "b"]);
    expect(stats.malformedLines).toEqual([2]);
  });

  it("resumes from an earlier pass's end offset with continuing line numbers", () => {
    const p = file(`${lines[0]}\n`);
    const first = newScanStats();
    [...resultRecords(p, first)];
    appendFileSync(p, `garbage\n${lines[1]}\n`);
    const second = newScanStats();
    const got = [...resultRecords(p, second, { from: first.endOffset, linesBefore: first.lines })];
    expect(got.map((r) => [r.record.key, r.line])).toEqual([["b", 3]]);
    expect(second.malformedLines).toEqual([2]);
  });

  it("yields nothing for a missing file", () => {
    expect([...resultRecords("/nonexistent/results.jsonl")]).toEqual([]);
  });
});

describe("skippedLinesText", () => {
  it("lists the first five malformed line numbers in file order, how many more, and the torn line", () => {
    expect(skippedLinesText([], false)).toBeNull();
    expect(skippedLinesText([7], false)).toBe("1 malformed line(s) skipped (line 7)");
    expect(skippedLinesText([], true)).toBe("torn last line left out");
    expect(skippedLinesText([9, 2, 4, 30, 11, 12, 15], true, 31)).toBe("7 malformed line(s) skipped (lines 2, 4, 9, 11, 12 and 2 more), torn last line 31 left out");
  });
});

describe("latest record per key", () => {
  it("keeps where each key's last line is, in order of first appearance", () => {
    const p = file([rec("a", { status: "failed" }), rec("b"), rec("a", { output: "retried" })].map((r) => JSON.stringify(r) + "\n").join(""));
    const m = latestEntries(p);
    expect([...m.keys()]).toEqual(["a", "b"]);
    expect(m.get("a")?.status).toBe("ok");
    expect([...latestRecords(p)].map((r) => [r.record.key, r.record.output])).toEqual([
      ["a", "retried"],
      ["b", "out b — ünïcödé"],
    ]);
  });
});

describe("AtomicResultsWriter", () => {
  it("writes through a temporary file and replaces the target only on commit", () => {
    const p = file("old\n");
    const w = new AtomicResultsWriter(p);
    for (let i = 0; i < 3000; i++) w.write(rec(`k${i}`, { output: "z".repeat(500) }));
    expect(readFileSync(p, "utf8")).toBe("old\n");
    w.commit();
    expect([...resultRecords(p)].length).toBe(3000);
    expect(existsSync(w.tmp)).toBe(false);
    const aborted = new AtomicResultsWriter(p);
    aborted.write(rec("x"));
    aborted.abort();
    expect([...resultRecords(p)].length).toBe(3000);
    expect(existsSync(aborted.tmp)).toBe(false);
  });
});

describe("latestLineOffsets", () => {
  it("reads keys from the start of record lines, parses other lines, and numbers non-records", () => {
    const reordered = JSON.stringify({ status: "ok", key: "late" });
    const escaped = '{"key":"we\\"ird","status":"ok"}';
    const p = file([JSON.stringify(rec("a")), reordered, "not json", escaped, JSON.stringify(rec("a", { output: "again" }))].join("\n") + "\n");
    const stats = newScanStats();
    const m = latestLineOffsets(p, stats);
    expect([...m.keys()]).toEqual(["a", "late", 'we"ird']);
    expect(stats.malformedLines).toEqual([3]);
    expect(readRecordAt(p, m.get("a")!.offset, m.get("a")!.length).output).toBe("again");
    expect(leadingKey(JSON.stringify(rec("k1")))).toBe("k1");
    expect(leadingKey(escaped)).toBeNull();
  });
});
