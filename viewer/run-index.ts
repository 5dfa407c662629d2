/**
 * The viewer's in-memory index of one or more run folders: every cell of `results.jsonl` (latest
 * record per key, read through experiments' results store) as a compact row with the columns the
 * cell table filters, sorts and searches on, so a page of 100,000 cells is a scan and a sort, and
 * only the page travels to the browser.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { latestByKey, readResults } from "../results/results-file.ts";
import type { RunRecord } from "../experiments/types.ts";

/** Price per 1M tokens (USD) by model id, as in a run config's `prices`. */
export type Prices = Record<string, { input: number; output: number }>;

/** One run folder as loaded. */
export interface LoadedRun {
  /** Index of the run in the viewer (0-based, in command-line order). */
  index: number;
  dir: string;
  /** Display name: the config's `name` from spec.json, else the folder name. */
  name: string;
  records: RunRecord[];
  /** 1-based numbers of malformed lines of results.jsonl that were skipped. */
  malformedLines: number[];
  /** True when a torn (unterminated) last line was left out. */
  truncatedTail: boolean;
  prices: Prices;
}

/** One cell of the table: the fields filters, sorting and search read. */
export interface CellRow {
  /** Position in {@link RunIndex.rows} (stable id within one viewer process). */
  id: number;
  run: number;
  key: string;
  itemId: string;
  dataset: string;
  model: string;
  workflow: string;
  /** Parameters as `k=5 fraction=0.5` (sorted keys); empty when none. */
  params: string;
  repeat: number;
  status: RunRecord["status"];
  /** "ok" every verdict usable, "missing" at least one judge answer missing, "none" not judged. */
  judge: "ok" | "missing" | "none";
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  /** Generator cost in USD from the run's prices; null when the model has no price (or cached). */
  costUsd: number | null;
  /** Score columns: `panel:<rubric>.<dimension>` (panel aggregate) and `metric:<id>`. */
  scores: Record<string, number | null>;
  /** Lower-cased output for search (empty when none). */
  searchText: string;
}

/** Loaded runs plus the row table over all of them. */
export interface RunIndex {
  runs: LoadedRun[];
  rows: CellRow[];
  /** The record behind each row (same positions as `rows`). */
  records: RunRecord[];
  /** Sorted distinct values per filterable column. */
  facets: { run: string[]; dataset: string[]; model: string[]; workflow: string[]; params: string[]; status: string[]; judge: string[] };
  /** Sorted score column names present in any row. */
  scoreColumns: string[];
}

/** `k=5 fraction=0.5`: the parameters with sorted keys (values JSON-encoded when not scalar). */
export function paramsLabel(params: Record<string, unknown> | undefined): string {
  if (!params) return "";
  return Object.keys(params)
    .sort()
    .map((k) => {
      const v = params[k];
      return `${k}=${typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v)}`;
    })
    .join(" ");
}

/**
 * Read one run folder: `results.jsonl` (malformed lines skipped and counted) and, when present,
 * `spec.json` for the run name and prices.
 * @throws Error when the folder has no results.jsonl
 */
export function loadRun(dir: string, index = 0): LoadedRun {
  const abs = resolve(dir);
  const file = join(abs, "results.jsonl");
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${abs}: no results.jsonl in this folder (is it a run folder?)`);
  const load = readResults(file);
  let name = basename(abs);
  let prices: Prices = {};
  const specPath = join(abs, "spec.json");
  if (existsSync(specPath)) {
    try {
      const spec = JSON.parse(readFileSync(specPath, "utf8")) as { config?: { name?: string; prices?: Prices } };
      if (typeof spec.config?.name === "string") name = spec.config.name;
      if (spec.config?.prices && typeof spec.config.prices === "object") prices = spec.config.prices;
    } catch {
      // an unreadable spec.json only costs the name and prices; the results are what matter
    }
  }
  return { index, dir: abs, name, records: [...latestByKey(load.records).values()], malformedLines: load.malformedLines, truncatedTail: load.truncatedTail, prices };
}

/** Judge state of a record: see {@link CellRow.judge}. */
export function judgeState(r: RunRecord): CellRow["judge"] {
  if (!r.judgeScores || r.judgeScores.length === 0) return "none";
  return r.judgeScores.some((j) => j.status !== "ok") ? "missing" : "ok";
}

/** Generator cost in USD of one record under `prices` (per 1M tokens); null without a price or when cached. */
export function cellCost(r: RunRecord, prices: Prices): number | null {
  const p = prices[r.model];
  if (!p) return null;
  if (r.generator?.cached) return 0;
  return ((r.generator?.inputTokens ?? 0) * p.input + (r.generator?.outputTokens ?? 0) * p.output) / 1e6;
}

/** The score columns of one record: panel aggregates and metrics (non-finite → null). */
export function recordScores(r: RunRecord): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [rubric, dims] of Object.entries(r.panel?.scores ?? {})) {
    for (const [dim, v] of Object.entries(dims ?? {})) out[`panel:${rubric}.${dim}`] = typeof v?.value === "number" && Number.isFinite(v.value) ? v.value : null;
  }
  for (const [m, v] of Object.entries(r.metrics ?? {})) out[`metric:${m}`] = typeof v === "number" && Number.isFinite(v) ? v : null;
  return out;
}

/** One table row from a record. */
export function toRow(r: RunRecord, id: number, run: LoadedRun): CellRow {
  return {
    id,
    run: run.index,
    key: r.key,
    itemId: String(r.itemId),
    dataset: String(r.dataset),
    model: String(r.model),
    workflow: String(r.workflow),
    params: paramsLabel(r.params),
    repeat: r.repeat ?? 0,
    status: r.status,
    judge: judgeState(r),
    inputTokens: r.generator?.inputTokens ?? 0,
    outputTokens: r.generator?.outputTokens ?? 0,
    latencyMs: r.generator?.latencyMs ?? 0,
    costUsd: cellCost(r, run.prices),
    scores: recordScores(r),
    searchText: typeof r.output === "string" ? r.output.toLowerCase() : "",
  };
}

/**
 * Load run folders and build the row table.
 * @param dirs run folders (each with results.jsonl)
 * @throws Error naming the folder when one has no results.jsonl
 */
export function buildRunIndex(dirs: readonly string[]): RunIndex {
  const runs = dirs.map((d, i) => loadRun(d, i));
  const rows: CellRow[] = [];
  const records: RunRecord[] = [];
  for (const run of runs) {
    for (const r of run.records) {
      rows.push(toRow(r, rows.length, run));
      records.push(r);
    }
  }
  const distinct = (f: (r: CellRow) => string) => [...new Set(rows.map(f))].sort();
  const cols = new Set<string>();
  for (const r of rows) for (const c of Object.keys(r.scores)) cols.add(c);
  return {
    runs,
    rows,
    records,
    facets: {
      run: runs.map((r) => String(r.index)),
      dataset: distinct((r) => r.dataset),
      model: distinct((r) => r.model),
      workflow: distinct((r) => r.workflow),
      params: distinct((r) => r.params),
      status: distinct((r) => r.status),
      judge: distinct((r) => r.judge),
    },
    scoreColumns: [...cols].sort(),
  };
}

/** The record behind a row. */
export function recordOf(index: RunIndex, row: CellRow): RunRecord {
  return index.records[row.id];
}
