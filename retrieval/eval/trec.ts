/**
 * TREC run and qrels files, so trec_eval / ranx can check our retrieval metrics.
 *
 * Run line:   `qid Q0 docid rank score tag` (rank 1-based, whitespace-separated).
 * Qrels line: `qid 0 docid rel` (the second column, "iteration", is written as 0 and ignored on read).
 * Ids must not contain whitespace. Reading skips blank lines and lines starting with `#`; a
 * malformed line throws with the file name and line number.
 *
 * How trec_eval reads a run (trec_eval 10.0, `form_res_rels.c`): per query it sorts the lines by
 * score descending, ties by docno descending (`strcmp`), and ignores the rank column entirely.
 * So that it ranks exactly as we do, {@link formatTrecRun} writes strictly decreasing scores: a
 * score that ties (or exceeds) the one written above it is written as the next double below that
 * one (a change in the 16th–17th significant digit, printed exactly), and {@link parseTrecRun}
 * reads the trec_eval way.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Qrels } from "./ir-metrics.ts";

/**
 * The one TREC file layout of medsynth (`medsynth retrieval eval --trec-out <dir>` and the
 * `<run>/trec/` folder of `medsynth run`): `<dir>/<dataset>.<mode>.run` per retrieval mode and
 * `<dir>/<dataset>.qrels`; characters other than letters, digits, `.`, `_` and `-` in the dataset
 * name (e.g. `beir:scifact`) become `_`.
 */
export function trecFilePaths(dir: string, dataset: string, mode: string): { run: string; qrels: string } {
  const base = dataset.replace(/[^A-Za-z0-9._-]+/g, "_");
  return { run: join(dir, `${base}.${mode.replace(/[^A-Za-z0-9._-]+/g, "_")}.run`), qrels: join(dir, `${base}.qrels`) };
}

/** Default number of hits per query written to TREC runs, so external tools compute uncut measures. */
export const TREC_EXPORT_DEPTH = 100;

/** One scored document of a TREC run. */
export interface TrecRunEntry {
  id: string;
  score: number;
}
/** A scored run: query id → entries, best first. */
export type TrecRun = Record<string, readonly TrecRunEntry[]>;

function checkId(kind: string, id: string): void {
  if (id.length === 0 || /\s/.test(id)) throw new Error(`TREC ${kind} id ${JSON.stringify(id)} is empty or contains whitespace`);
}

/** The largest double strictly below x (x finite). */
export function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  buf.setBigUint64(0, x > 0 ? bits - 1n : bits + 1n);
  return buf.getFloat64(0);
}

/**
 * Formats a run as TREC text. Lists are written in the given order (queries in insertion order);
 * ranks are the 1-based positions. Scores are made strictly decreasing down each list: an entry
 * whose score is not below the score written above it gets {@link nextDown} of that score, so
 * trec_eval (which sorts by score, then docno descending, and ignores ranks) sees our order. A
 * repeated id in a list is written once (its first position).
 * @param tag run tag (no whitespace), e.g. "medsynth-bm25".
 * @param depth at most this many entries per query (default: all).
 * @throws Error on an id or tag containing whitespace, or a non-finite score.
 */
export function formatTrecRun(run: TrecRun, tag: string, depth = Infinity): string {
  checkId("tag", tag);
  const lines: string[] = [];
  for (const [qid, entries] of Object.entries(run)) {
    checkId("query", qid);
    let prev = Infinity;
    const seen = new Set<string>();
    for (const e of entries) {
      if (seen.size >= depth) break;
      const id = String(e.id);
      checkId("doc", id);
      if (!Number.isFinite(e.score)) throw new Error(`TREC run: query ${qid} doc ${id} has a non-finite score ${e.score}`);
      if (seen.has(id)) continue;
      seen.add(id);
      const score = e.score < prev ? e.score : nextDown(prev);
      prev = score;
      lines.push(`${qid} Q0 ${id} ${seen.size} ${score} ${tag}`);
    }
  }
  return lines.length ? lines.join("\n") + "\n" : "";
}

/** Formats qrels as TREC text (`qid 0 docid rel`), queries and docs in JS object key order (integer-like ids ascending, then insertion order). */
export function formatTrecQrels(qrels: Qrels): string {
  const lines: string[] = [];
  for (const [qid, rels] of Object.entries(qrels)) {
    checkId("query", qid);
    for (const [doc, rel] of Object.entries(rels)) {
      checkId("doc", doc);
      if (!Number.isInteger(rel)) throw new Error(`TREC qrels: query ${qid} doc ${doc} has a non-integer grade ${rel}`);
      lines.push(`${qid} 0 ${doc} ${rel}`);
    }
  }
  return lines.length ? lines.join("\n") + "\n" : "";
}

/**
 * Parses TREC run text the way trec_eval reads it: entries of each query sorted by score
 * descending, ties by docno descending (byte order, as C `strcmp`); the rank column is checked to
 * be a number but otherwise ignored (trec_eval does not use it).
 * @param source name used in errors (a file path).
 * @returns the run and its tag (of the first line; null if empty).
 * @throws Error `source:line: …` on a line without 6 fields, a non-numeric rank/score, or Q0 missing.
 */
export function parseTrecRun(text: string, source = "run"): { run: Record<string, TrecRunEntry[]>; tag: string | null } {
  const tmp: Record<string, { id: string; score: number }[]> = {};
  let tag: string | null = null;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const f = line.split(/\s+/);
    if (f.length !== 6) throw new Error(`${source}:${i + 1}: expected 6 fields "qid Q0 docid rank score tag", got ${f.length}`);
    const [qid, q0, id, rankS, scoreS, t] = f;
    if (q0 !== "Q0" && q0 !== "0") throw new Error(`${source}:${i + 1}: second field must be Q0, got ${JSON.stringify(q0)}`);
    const rank = Number(rankS);
    const score = Number(scoreS);
    if (!Number.isFinite(rank) || !Number.isFinite(score)) throw new Error(`${source}:${i + 1}: rank and score must be numbers`);
    tag ??= t;
    (tmp[qid] ??= []).push({ id, score });
  });
  const run: Record<string, TrecRunEntry[]> = {};
  for (const [qid, es] of Object.entries(tmp)) {
    es.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    run[qid] = es.map(({ id, score }) => ({ id, score }));
  }
  return { run, tag };
}

/**
 * Parses TREC qrels text (`qid iter docid rel`).
 * @throws Error `source:line: …` on a line without 4 fields or a non-integer grade.
 */
export function parseTrecQrels(text: string, source = "qrels"): Qrels {
  const qrels: Qrels = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const f = line.split(/\s+/);
    if (f.length !== 4) throw new Error(`${source}:${i + 1}: expected 4 fields "qid 0 docid rel", got ${f.length}`);
    const rel = Number(f[3]);
    if (!Number.isInteger(rel)) throw new Error(`${source}:${i + 1}: relevance must be an integer, got ${JSON.stringify(f[3])}`);
    (qrels[f[0]] ??= {})[f[2]] = rel;
  });
  return qrels;
}

/** Writes {@link formatTrecRun} output to `path` (at most `depth` entries per query, default all). */
export function writeTrecRun(path: string, run: TrecRun, tag: string, depth = Infinity): void {
  writeFileSync(path, formatTrecRun(run, tag, depth));
}
/** Writes {@link formatTrecQrels} output to `path`. */
export function writeTrecQrels(path: string, qrels: Qrels): void {
  writeFileSync(path, formatTrecQrels(qrels));
}
/** Reads a TREC run file ({@link parseTrecRun}); errors name the path and line. */
export function readTrecRun(path: string): { run: Record<string, TrecRunEntry[]>; tag: string | null } {
  return parseTrecRun(readFileSync(path, "utf8"), path);
}
/** Reads a TREC qrels file ({@link parseTrecQrels}); errors name the path and line. */
export function readTrecQrels(path: string): Qrels {
  return parseTrecQrels(readFileSync(path, "utf8"), path);
}
