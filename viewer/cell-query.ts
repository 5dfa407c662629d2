/**
 * Filtering, sorting and paging of the viewer's cell table, done on the server so a browser only
 * receives one page, and the CSV/JSONL export of exactly the filtered, sorted rows.
 */
import { z } from "zod";
import type { CellRow, RunIndex } from "./run-index.ts";

/** Columns every row has that can be sorted on (score columns are `panel:…` / `metric:…`). */
export const FIXED_SORT_COLUMNS = ["itemId", "dataset", "model", "workflow", "params", "status", "judge", "inputTokens", "outputTokens", "latencyMs", "costUsd"] as const;

/** Page size limit: the table never ships more rows than this at once. */
export const MAX_PAGE_SIZE = 500;

/** A cell-table query, as read from the URL's search parameters (all optional). */
export const CellQuerySchema = z
  .object({
    run: z.string().optional(),
    dataset: z.string().optional(),
    model: z.string().optional(),
    workflow: z.string().optional(),
    params: z.string().optional(),
    status: z.enum(["ok", "failed", "skipped"]).optional(),
    judge: z.enum(["ok", "missing", "none"]).optional(),
    /** Case-insensitive substring searched in outputs. */
    q: z.string().optional(),
    sort: z.string().optional(),
    dir: z.enum(["asc", "desc"]).default("asc"),
    page: z.coerce.number().int().min(0).default(0),
    size: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  })
  .strict();
/** A parsed {@link CellQuerySchema}. */
export type CellQuery = z.infer<typeof CellQuerySchema>;

/**
 * Parse URL search parameters into a query; empty values count as absent.
 * @throws ZodError on an unknown parameter or an invalid value (the server answers 400)
 */
export function parseCellQuery(params: URLSearchParams): CellQuery {
  const obj: Record<string, string> = {};
  for (const [k, v] of params) if (v !== "") obj[k] = v;
  return CellQuerySchema.parse(obj);
}

/** The rows matching the query's filters and search, in the query's sort order. */
export function filterAndSort(index: RunIndex, q: CellQuery): CellRow[] {
  const needle = q.q?.toLowerCase();
  const run = q.run === undefined ? undefined : Number(q.run);
  const rows = index.rows.filter(
    (r) =>
      (run === undefined || r.run === run) &&
      (q.dataset === undefined || r.dataset === q.dataset) &&
      (q.model === undefined || r.model === q.model) &&
      (q.workflow === undefined || r.workflow === q.workflow) &&
      (q.params === undefined || r.params === q.params) &&
      (q.status === undefined || r.status === q.status) &&
      (q.judge === undefined || r.judge === q.judge) &&
      (needle === undefined || r.searchText.includes(needle)),
  );
  return q.sort ? sortRows(rows, q.sort, q.dir) : rows;
}


/**
 * The value getter of a sort column.
 * @throws Error on an unknown column name
 */
export function sortValue(column: string): (r: CellRow) => string | number | null {
  const isScore = column.startsWith("panel:") || column.startsWith("metric:");
  if (!isScore && !(FIXED_SORT_COLUMNS as readonly string[]).includes(column)) {
    throw new Error(`unknown sort column "${column}"; valid: ${FIXED_SORT_COLUMNS.join(", ")} or a panel:/metric: score column`);
  }
  return isScore ? (r) => r.scores[column] ?? null : (r) => (r as unknown as Record<string, string | number | null>)[column] ?? null;
}

/** Compare two sort keys: missing values (null) last in both directions, ties by row id. */
function compareKeys(a: { v: string | number | null; id: number }, b: { v: string | number | null; id: number }, sign: number): number {
  if (a.v === null || b.v === null) return a.v === b.v ? a.id - b.id : a.v === null ? 1 : -1;
  const c = typeof a.v === "number" && typeof b.v === "number" ? a.v - b.v : a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  return c !== 0 ? sign * c : a.id - b.id;
}

/**
 * Sort rows by one column: the sort keys are read once per row (decorate–sort–undecorate), so a
 * sort of 100,000 rows compares plain values instead of looking up score maps ~1.7 M times.
 * Missing values sort last in both directions; ties keep table order (row id).
 * @throws Error on an unknown column name
 */
export function sortRows(rows: readonly CellRow[], column: string, dir: "asc" | "desc"): CellRow[] {
  const get = sortValue(column);
  const sign = dir === "desc" ? -1 : 1;
  const keyed = rows.map((r) => ({ r, v: get(r), id: r.id }));
  keyed.sort((a, b) => compareKeys(a, b, sign));
  return keyed.map((k) => k.r);
}

/** What the table route returns: one page of rows (without their search text) and the total. */
export interface CellPage {
  total: number;
  page: number;
  size: number;
  rows: Omit<CellRow, "searchText">[];
}

/** Strip the search column from a row for the wire. */
export function publicRow(r: CellRow): Omit<CellRow, "searchText"> {
  const { searchText: _s, ...rest } = r;
  return rest;
}

const resultCache = new WeakMap<RunIndex, Map<string, CellRow[]>>();
const CACHE_SIZE = 8;

/**
 * {@link filterAndSort} with a small per-index cache (the last 8 distinct filter + sort
 * combinations), so paging through one view does not filter and sort again. Rows never change
 * while a server runs, so entries never go stale.
 */
export function filterAndSortCached(index: RunIndex, q: CellQuery): CellRow[] {
  const key = JSON.stringify([q.run, q.dataset, q.model, q.workflow, q.params, q.status, q.judge, q.q, q.sort, q.dir]);
  let cache = resultCache.get(index);
  if (!cache) resultCache.set(index, (cache = new Map()));
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const rows = filterAndSort(index, q);
  cache.set(key, rows);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return rows;
}

/** One page of the filtered, sorted rows. */
export function queryCells(index: RunIndex, q: CellQuery): CellPage {
  const rows = filterAndSortCached(index, q);
  const start = q.page * q.size;
  return { total: rows.length, page: q.page, size: q.size, rows: rows.slice(start, start + q.size).map(publicRow) };
}

/** Column names of the CSV export: fixed columns, then the score columns present. */
export function exportColumns(index: RunIndex): string[] {
  return ["run", "key", "itemId", "dataset", "model", "workflow", "params", "repeat", "status", "judge", "inputTokens", "outputTokens", "latencyMs", "costUsd", ...index.scoreColumns];
}

/** One export row as column → value (null/absent → empty). */
export function exportRecord(index: RunIndex, r: CellRow): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {
    run: index.runs[r.run].name,
    key: r.key,
    itemId: r.itemId,
    dataset: r.dataset,
    model: r.model,
    workflow: r.workflow,
    params: r.params,
    repeat: r.repeat,
    status: r.status,
    judge: r.judge,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    latencyMs: r.latencyMs,
    costUsd: r.costUsd,
  };
  for (const c of index.scoreColumns) out[c] = r.scores[c] ?? null;
  return out;
}
