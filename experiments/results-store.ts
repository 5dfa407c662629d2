/**
 * Append-only results store: `results.jsonl` in the run folder, one whole JSON line per finished
 * cell, written with a single append so a crash (even `kill -9`) never leaves a record half in
 * and never loses one already written. On open, a torn last line (a crash mid-write) is cut off
 * and counted; malformed lines elsewhere are skipped and counted with their line numbers.
 */
import { osErrorText } from "../models/config-file.ts";
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import type { RunRecord } from "./types.ts";

/** What was found when opening a results file. */
export interface ResultsLoad {
  records: RunRecord[];
  /** 1-based line numbers of malformed lines that were skipped. */
  malformedLines: number[];
  /** True when an unterminated last line was cut off. */
  truncatedTail: boolean;
}

/**
 * Read every record of a results file (missing file → empty).
 * @param repair when true, a torn last line is removed from the file so appends stay line-aligned.
 */
export function readResults(path: string, repair = false): ResultsLoad {
  if (!existsSync(path)) return { records: [], malformedLines: [], truncatedTail: false };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`results file ${path}: cannot read (${osErrorText(err)})`);
  }
  const lastNl = text.lastIndexOf("\n");
  const truncatedTail = text.length > 0 && lastNl !== text.length - 1;
  if (truncatedTail && repair) truncateSync(path, Buffer.byteLength(text.slice(0, lastNl + 1), "utf8"));
  const body = truncatedTail ? text.slice(0, lastNl + 1) : text;
  const records: RunRecord[] = [];
  const malformedLines: number[] = [];
  body.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const r = JSON.parse(line) as RunRecord;
      if (typeof r?.key !== "string") throw new Error("no key");
      records.push(r);
    } catch {
      malformedLines.push(i + 1);
    }
  });
  return { records, malformedLines, truncatedTail };
}

/**
 * The latest record per cell key (a later line for the same key — e.g. a retried failure —
 * supersedes an earlier one).
 */
export function latestByKey(records: RunRecord[]): Map<string, RunRecord> {
  const m = new Map<string, RunRecord>();
  for (const r of records) m.set(r.key, r);
  return m;
}

/** Appends records to a results file, one line per call. */
export class ResultsWriter {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }

  /** Append one record as a single write of one line. */
  append(record: RunRecord): void {
    try {
      appendFileSync(this.path, JSON.stringify(record) + "\n", "utf8");
    } catch (err) {
      throw new Error(`results file ${this.path}: cannot write (${osErrorText(err)})`);
    }
  }
}

/**
 * Rewrite a results file atomically (temp file + rename), e.g. after adding judge scores.
 */
export function writeResultsAtomic(path: string, records: RunRecord[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, records.map((r) => JSON.stringify(r)).join("\n") + (records.length ? "\n" : ""), "utf8");
  renameSync(tmp, path);
}
