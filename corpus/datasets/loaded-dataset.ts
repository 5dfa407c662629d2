/**
 * The common return shape of every dataset loader, plus small helpers the loaders share
 * (locating registered data files, counting skipped records, validating items).
 */
import { readFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import type { z } from "zod";
import { datasetDir, datasetFile, datasetFileSync } from "./files.ts";
import type { CorpusDoc } from "../types.ts";
import type { Qrels } from "../qrels.ts";

/** What kind of items a dataset yields. */
export type DatasetTaskKind = "conclusion" | "synthesis" | "rwe" | "qrels" | "annotations";

/** Records a loader dropped: total count and count per reason (reason text is stable, no ids). */
export interface SkippedCounts {
  count: number;
  reasons: Record<string, number>;
}

/**
 * Result of loading one dataset.
 *
 * - `name`: registry name of the dataset (e.g. "pubmedqa").
 * - `taskKind`: what `items` are — "conclusion" → ConclusionTask, "synthesis" → SynthesisTask,
 *   "rwe" → RweStudy, "qrels" → QrelsTopic, "annotations" → MslrAnnotation.
 * - `items`: the zod-validated items, in source order (PubMedQA: ascending PMID).
 * - `warnings`: human-readable data-quality findings, each naming file and record
 *   (e.g. "MedMeta.csv row 2: …"). Never used to silently fix data.
 * - `skipped`: records that could not be turned into a valid item.
 * - `docs`: optional retrieval documents the dataset carries (MedEvidence sources, Cohen abstracts).
 * - `qrels`: optional relevance judgments (queryId → docId → gain, gain > 0 = relevant).
 */
export interface LoadedDataset<T = unknown> {
  name: string;
  taskKind: DatasetTaskKind;
  items: T[];
  warnings: string[];
  skipped: SkippedCounts;
  docs?: CorpusDoc[];
  qrels?: Qrels;
}

/** Mutable skip counter used while loading. */
export interface SkipCounter extends SkippedCounts {
  /** Count one skipped record under `reason`. */
  add(reason: string): void;
}

/** Create an empty {@link SkipCounter}. */
export function createSkipCounter(): SkipCounter {
  const counter: SkipCounter = {
    count: 0,
    reasons: {},
    add(reason: string) {
      counter.count += 1;
      counter.reasons[reason] = (counter.reasons[reason] ?? 0) + 1;
    },
  };
  return counter;
}

/** Plain-data copy of a skip counter (drops the `add` method). */
export function skippedOf(counter: SkipCounter): SkippedCounts {
  return { count: counter.count, reasons: { ...counter.reasons } };
}

/**
 * Absolute path of a registered data file, without network: `<dataDir>/<rel>` when a data folder
 * is given, else a verified cache or local-mirror copy ({@link datasetFileSync}).
 * @param rel registry path, e.g. "pubmedqa/ori_pqal.json".
 * @throws DatasetUnavailableError (dataset, upstream, pull command) when there is no local copy.
 */
export function dataPath(dataDir: string | undefined, rel: string): string {
  return dataDir ? resolve(dataDir, rel) : datasetFileSync(rel);
}

/**
 * Absolute path of a registered data file for a loader: `<dataDir>/<rel>` when a data folder is
 * given (the caller's own copy, not checked), else a verified copy from the dataset registry,
 * pulled on first use ({@link datasetFile}).
 * @param rel registry path, e.g. "pubmedqa/ori_pqal.json".
 * @throws DatasetUnavailableError naming dataset, upstream and pull command.
 */
export async function dataFilePath(dataDir: string | undefined, rel: string): Promise<string> {
  return dataDir ? resolve(dataDir, rel) : datasetFile(rel);
}

/**
 * Like {@link dataFilePath} for a registry folder (every registered file under `rel`, e.g. "cohen2006").
 * @throws DatasetUnavailableError naming dataset, upstream and pull command.
 */
export async function dataFolderPath(dataDir: string | undefined, rel: string): Promise<string> {
  return dataDir ? resolve(dataDir, rel) : datasetDir(rel);
}

/**
 * Read a UTF-8 text file (a leading BOM is removed).
 * @throws Error naming the file and the dataset when it does not exist or cannot be read.
 */
export function readDataFile(path: string, dataset: string): string {
  if (!existsSync(path)) {
    throw new Error(`dataset "${dataset}": file not found: ${path} (check the path / dataDir option)`);
  }
  const text = readFileSync(path, "utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parse a JSON file.
 * @throws Error naming the file when it is not valid JSON.
 */
export function readJsonFile(path: string, dataset: string): unknown {
  const text = readDataFile(path, dataset);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`dataset "${dataset}": ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Validate one produced item; on failure returns the first issue as "field: message" and every
 * issue the same way (each missing or invalid field, in schema order).
 * @returns `{ok: true, value}` or `{ok: false, reason, issues}` (each names the failing field path).
 */
export function validateItem<S extends z.ZodType>(schema: S, item: unknown): { ok: true; value: z.infer<S> } | { ok: false; reason: string; issues: string[] } {
  const r = schema.safeParse(item);
  if (r.success) return { ok: true, value: r.data };
  const issues = r.error.issues.map((issue) => {
    const keys = (issue as { keys?: string[] }).keys;
    const base = issue.path.join(".");
    const field = keys?.length ? keys.map((k) => (base ? `${base}.${k}` : k)).join(", ") : base || "(root)";
    return `${field}: ${issue.message}`;
  });
  const first = r.error.issues[0];
  const field = first && first.path.length > 0 ? first.path.join(".") : "(root)";
  return { ok: false, reason: `${field}: ${first?.message ?? "invalid"}`, issues };
}

/** Parse a year out of "2011", 2011, "2007-05-01"; null when absent or unparseable. */
export function parseYear(value: unknown): number | null {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string") {
    const m = /^\s*(\d{4})/.exec(value);
    if (m) return Number(m[1]);
  }
  return null;
}
