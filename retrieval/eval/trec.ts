/**
 * TREC run and qrels files, so trec_eval / ranx can check our retrieval metrics.
 *
 * Run line:   `qid Q0 docid rank score tag` (rank 1-based, whitespace-separated).
 * Qrels line: `qid 0 docid rel` (the second column, "iteration", is written as 0 and ignored on read).
 * Ids must not contain whitespace. Reading skips blank lines and lines starting with `#`; a
 * malformed line throws with the file name and line number.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Qrels } from "./ir-metrics.ts";

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

/**
 * Formats a run as TREC text. Ranks are the 1-based positions in each list (lists are written in
 * the given order; queries in insertion order).
 * @param tag run tag (no whitespace), e.g. "medsynth-bm25".
 * @throws Error on an id or tag containing whitespace, or a non-finite score.
 */
export function formatTrecRun(run: TrecRun, tag: string): string {
  checkId("tag", tag);
  const lines: string[] = [];
  for (const [qid, entries] of Object.entries(run)) {
    checkId("query", qid);
    entries.forEach((e, i) => {
      checkId("doc", e.id);
      if (!Number.isFinite(e.score)) throw new Error(`TREC run: query ${qid} doc ${e.id} has a non-finite score ${e.score}`);
      lines.push(`${qid} Q0 ${e.id} ${i + 1} ${e.score} ${tag}`);
    });
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
 * Parses TREC run text. Entries of each query are sorted by score descending (ties: by the file's
 * rank column, then line order) — trec_eval's ordering.
 * @param source name used in errors (a file path).
 * @returns the run and its tag (of the first line; null if empty).
 * @throws Error `source:line: …` on a line without 6 fields, a non-numeric rank/score, or Q0 missing.
 */
export function parseTrecRun(text: string, source = "run"): { run: Record<string, TrecRunEntry[]>; tag: string | null } {
  const tmp: Record<string, { id: string; score: number; rank: number; line: number }[]> = {};
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
    (tmp[qid] ??= []).push({ id, score, rank, line: i });
  });
  const run: Record<string, TrecRunEntry[]> = {};
  for (const [qid, es] of Object.entries(tmp)) {
    es.sort((a, b) => b.score - a.score || a.rank - b.rank || a.line - b.line);
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

/** Writes {@link formatTrecRun} output to `path`. */
export function writeTrecRun(path: string, run: TrecRun, tag: string): void {
  writeFileSync(path, formatTrecRun(run, tag));
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
