/**
 * How the report reads a results file: one streamed pass keeping a slim projection of each record
 * (what the report's sections read), never the whole file in one string. Used by `medsynth report`
 * and `medsynth compare`.
 */
import { existsSync, statSync } from "node:fs";
import { newScanStats, resultRecords, skippedLinesText } from "../../results/results-file.ts";
import type { JudgeScoreEntry, RunRecord } from "../types.ts";
import { OUTPUT_WORDS, outputWordCount } from "../../results/run-record.ts";

/**
 * Shared values of the slim records of one read: strings (item ids, models, reference texts …)
 * and objects that many records carry alike (parameters, item metadata, judge verdicts without
 * their raw text, panel aggregates, labels), each kept once. Objects are frozen (read-only) when
 * shared. The objects table stops growing at {@link POOL_LIMIT} distinct values, the strings table
 * at {@link STRING_POOL_LIMIT} (later values are kept per record), so a run whose values are all
 * distinct costs little more than without sharing (a string entry shares the string it keeps:
 * ~40 bytes of table; an object entry keeps its JSON text as the key).
 */
export interface ProjectionPool {
  strings: Map<string, string>;
  objects: Map<string, unknown>;
}

/** Most distinct values a {@link ProjectionPool} table keeps. */
export const POOL_LIMIT = 50_000;

/**
 * Most distinct strings a {@link ProjectionPool} keeps. Larger than {@link POOL_LIMIT}: a run
 * has several strings per item (item id, reference text, question …), and at 10⁶ demo-like cells
 * (35,714 items × 3 strings) a 50,000 limit left about half the records with their own copy of
 * the item's reference text (~400 bytes each).
 */
export const STRING_POOL_LIMIT = 1_000_000;

/** An empty {@link ProjectionPool}. */
export function newProjectionPool(): ProjectionPool {
  return { strings: new Map(), objects: new Map() };
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

/**
 * The slim, read-only form of a record the report keeps in memory: everything its sections read,
 * without the bulk they never read — the output text replaced by its word count (kept under
 * {@link OUTPUT_WORDS}; `output` is null, read the count with `outputWordCount`), `intermediate`
 * reduced to the fields the sections use ({@link REPORT_INTERMEDIATE_FIELDS}), judge answers' raw
 * text and the record's raw answer dropped, a judge verdict's call info reduced to its model id
 * (what the panel section reads), the timestamps dropped (empty strings; no section reads them);
 * repeated strings and objects shared through `pool` (one per item, model, parameter set …, not
 * one per cell) and frozen. The report computes a slim record's score columns once
 * (`recordValues`); its fields must not be changed.
 */
export function reportProjection(r: RunRecord, pool: ProjectionPool = newProjectionPool()): RunRecord {
  const intern = (v: string): string => {
    const had = pool.strings.get(v);
    if (had !== undefined) return had;
    if (pool.strings.size < STRING_POOL_LIMIT) pool.strings.set(v, v);
    return v;
  };
  const share = <T>(v: T): T => {
    if (v === undefined || v === null || typeof v !== "object") return v;
    const key = JSON.stringify(v);
    const had = pool.objects.get(key);
    if (had !== undefined) return had as T;
    if (pool.objects.size >= POOL_LIMIT) return v;
    // A frozen copy: the caller's object stays as it was.
    const copy = deepFreeze(structuredClone(v));
    pool.objects.set(key, copy);
    return copy;
  };
  const inter = (r.intermediate ?? {}) as Record<string, unknown>;
  const keptInter: Record<string, unknown> = {};
  for (const k of REPORT_INTERMEDIATE_FIELDS) if (inter[k] !== undefined) keptInter[k] = inter[k];
  const itemMeta: RunRecord["itemMeta"] = {};
  for (const [k, v] of Object.entries(r.itemMeta ?? {})) itemMeta[k] = typeof v === "string" ? intern(v) : v;
  // One object literal with the fields every record has, in one order (one hidden class, fields
  // stored in the object), then the optional fields it carries: ~250 bytes less a record than a
  // spread of the record (measured on demo-like records).
  const slim: RunRecord = {
    key: r.key,
    itemId: intern(r.itemId),
    dataset: intern(r.dataset),
    taskKind: r.taskKind,
    model: intern(r.model),
    workflow: intern(r.workflow),
    params: share(r.params),
    repeat: r.repeat,
    status: r.status,
    output: null,
    reference: typeof r.reference === "string" ? intern(r.reference) : r.reference,
    itemMeta: share(itemMeta),
    intermediate: share(keptInter),
    generator: r.generator,
    startedAt: "",
    finishedAt: "",
  };
  const o = slim as unknown as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    if (k in slim || k === "raw") continue;
    const v = (r as unknown as Record<string, unknown>)[k];
    if (k === "error" && typeof v === "string") o[k] = intern(v);
    else if (k === "judgeScores" && Array.isArray(v)) o[k] = share((v as JudgeScoreEntry[]).map(({ raw: _r, call, ...e }) => (call ? { ...e, call: { modelId: call.modelId } as typeof call } : e)));
    else if (k === "judge" || k === "panel" || k === "labels" || k === "metricNotes") o[k] = share(v);
    else o[k] = v;
  }
  Object.defineProperty(slim, OUTPUT_WORDS, { value: outputWordCount(r), enumerable: false });
  return slim;
}

/** The `intermediate` fields report sections read (columns.ts: `reranker` for the variant label; robustness-section.ts). */
export const REPORT_INTERMEDIATE_FIELDS = ["goldenRecall", "perturbation", "negatedIds", "critic", "reranker"] as const;

/**
 * Read a results file for the report in one streamed pass: the latest record per key (in order of
 * first appearance) and every record including superseded attempts (`spent`, for the tokens spent),
 * each in its {@link reportProjection}; a record appearing once is one object in both lists. With
 * `keys`, records of other cells (earlier configs in the same folder) are counted and left out;
 * malformed lines and a torn last line are skipped and listed (`skippedLinesNote` in read-records.ts).
 */
export function readReportRecords(resultsPath: string, keys: ReadonlySet<string> | null): ReportRead {
  const latest = new Map<string, RunRecord>();
  const superseded: RunRecord[] = [];
  const pool = newProjectionPool();
  const others = new Set<string>();
  const stats = newScanStats();
  for (const { record } of resultRecords(resultsPath, stats)) {
    if (keys && !keys.has(record.key)) {
      others.add(record.key);
      continue;
    }
    const slim = reportProjection(record, pool);
    const prev = latest.get(record.key);
    if (prev) superseded.push(prev);
    latest.set(record.key, slim);
  }
  const records = [...latest.values()];
  return {
    records,
    spent: superseded.length ? [...records, ...superseded] : records,
    otherRecords: others.size,
    malformedLines: stats.malformedLines,
    truncatedTail: stats.truncatedTail,
    tornLine: stats.truncatedTail ? stats.lines + 1 : null,
  };
}

/** What {@link readReportRecords} read, and what it left out of the file. */
export interface ReportRead {
  /** The latest record per key, in order of first appearance (slim projections). */
  records: RunRecord[];
  /** Every record including superseded attempts (for the tokens spent). */
  spent: RunRecord[];
  /** Keys of records left out because they are not cells of `keys`. */
  otherRecords: number;
  /** 1-based numbers of the malformed lines that were skipped (not JSON, or no string `key`). */
  malformedLines: number[];
  /** True when an unterminated (torn) last line was left out. */
  truncatedTail: boolean;
  /** The torn last line's 1-based number, or null when the file ends with a whole line. */
  tornLine: number | null;
}

/**
 * The lines a read left out, in words naming the file (`<path>: 2 malformed line(s) skipped
 * (lines 5, 9), torn last line 18 left out`), or null when it left none out.
 */
export function skippedLinesNote(resultsPath: string, read: Pick<ReportRead, "malformedLines" | "truncatedTail" | "tornLine">): string | null {
  const text = skippedLinesText(read.malformedLines, read.truncatedTail, read.tornLine ?? undefined);
  return text ? `${resultsPath}: ${text}` : null;
}

/**
 * Why `dir` is not a run folder, in words naming it: it does not exist, is not a folder, or has no
 * results.jsonl.
 */
export function notARunFolder(dir: string): string {
  if (!existsSync(dir)) return `${dir}: no such folder`;
  if (!statSync(dir).isDirectory()) return `${dir}: not a folder (give the run folder that holds results.jsonl)`;
  return `${dir}: no results.jsonl (is this a run folder?)`;
}
