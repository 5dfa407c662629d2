/**
 * Filtering, sorting and paging of the viewer's cell table, done by SQLite over the runs' on-disk
 * indexes (viewer/run-index.ts) so a browser only receives one page and the server never holds the
 * rows; the CSV/JSONL export streams exactly the filtered, sorted rows.
 *
 * Order: by the sort column with missing values (null) last in both directions, ties in table
 * order (run, then first appearance in the results file). A page is read as two ranges — rows with
 * a value (walked along the column's B-tree index), then rows without — so sorting 10⁶ cells never
 * sorts them all.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { sqlId } from "../results/cell-index.ts";
import { rowIdOf, type CellRow, type RunIndex } from "./run-index.ts";

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

/**
 * Check a sort column name.
 * @throws Error on an unknown column name
 */
export function checkSortColumn(column: string): void {
  const isScore = column.startsWith("panel:") || column.startsWith("metric:");
  if (!isScore && !(FIXED_SORT_COLUMNS as readonly string[]).includes(column)) {
    throw new Error(`unknown sort column "${column}"; valid: ${FIXED_SORT_COLUMNS.join(", ")} or a panel:/metric: score column`);
  }
}

/**
 * The run a query selects: its 0-based index, or undefined for all runs.
 * @throws Error `no run 7: 2 run(s) loaded (0-based)` when `run` is not the index of a loaded run (the server answers 400)
 */
export function queryRun(index: RunIndex, q: CellQuery): number | undefined {
  if (q.run === undefined) return undefined;
  const run = Number(q.run);
  if (!Number.isInteger(run) || !index.runs[run]) throw new Error(`no run ${q.run}: ${index.runs.length} run(s) loaded (0-based)`);
  return run;
}

const ROW_COLUMNS = ["id", "key", "itemId", "dataset", "model", "workflow", "params", "repeat", "status", "judge", "inputTokens", "outputTokens", "unknownUsageCalls", "latencyMs", "costUsd"];

/** The SQL source of a query: one run's table or the union of several, filters applied. */
interface Source {
  sql: string;
  params: unknown[];
  /** The sort column exists (in some run) as a SQL column. */
  sortable: boolean;
  /** More than one run: ties are ordered by run, then id. */
  multi: boolean;
}

/**
 * The SQL source of a query. With a sort column, equality filters are written `+col = ?` (no
 * index on them), so SQLite walks the sort column's index and stops after one page instead of
 * collecting every matching row and sorting them; the counts use the filter indexes.
 */
function sourceOf(index: RunIndex, q: CellQuery, forCount = false): Source {
  const run = queryRun(index, q);
  const runs = index.runs.filter((r) => run === undefined || r.index === run);
  const params: unknown[] = [];
  const parts = runs.map((r) => {
    const s = `r${r.index}`;
    const own = new Set(r.scoreColumns);
    const where: string[] = [];
    for (const f of ["dataset", "model", "workflow", "params", "status", "judge"] as const) {
      if (q[f] !== undefined) {
        where.push(`${q.sort && !forCount ? "+" : ""}${f} = ?`);
        params.push(q[f]);
      }
    }
    if (q.q !== undefined) {
      // a page tests row by row and stops after its rows; a count scans the texts once (and is cached)
      where.push(forCount ? `id IN (SELECT id FROM ${s}.texts WHERE instr(search, ?) > 0)` : `instr((SELECT search FROM ${s}.texts AS t WHERE t.id = cells.id), ?) > 0`);
      params.push(q.q.toLowerCase());
    }
    const scoreCols = index.scoreColumns.map((c) => (own.has(c) ? sqlId(c) : `NULL AS ${sqlId(c)}`));
    return `SELECT ${r.index} AS run, ${[...ROW_COLUMNS, ...scoreCols].join(", ")} FROM ${s}.cells${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`;
  });
  const sortable = !q.sort || (FIXED_SORT_COLUMNS as readonly string[]).includes(q.sort) || index.scoreColumns.includes(q.sort);
  if (!parts.length) return { sql: `SELECT 0 AS run, ${[...ROW_COLUMNS, ...index.scoreColumns.map((c) => `NULL AS ${sqlId(c)}`)].join(", ")} WHERE 0`, params: [], sortable, multi: false };
  return { sql: parts.length === 1 ? parts[0] : parts.join(" UNION ALL "), params, sortable, multi: parts.length > 1 };
}

type SqlRow = Record<string, unknown> & { run: number; id: number };

function toRow(index: RunIndex, r: SqlRow): CellRow {
  const scores: Record<string, number | null> = {};
  for (const c of index.scoreColumns) {
    const v = r[c];
    if (v !== undefined && v !== null) scores[c] = v as number;
  }
  return {
    id: rowIdOf(r.run, r.id),
    run: r.run,
    key: r.key as string,
    itemId: r.itemId as string,
    dataset: r.dataset as string,
    model: r.model as string,
    workflow: r.workflow as string,
    params: r.params as string,
    repeat: r.repeat as number,
    status: r.status as CellRow["status"],
    judge: r.judge as CellRow["judge"],
    inputTokens: (r.inputTokens as number | null) ?? null,
    outputTokens: (r.outputTokens as number | null) ?? null,
    unknownUsageCalls: (r.unknownUsageCalls as number | null) ?? 0,
    latencyMs: r.latencyMs as number,
    costUsd: (r.costUsd as number | null) ?? null,
    scores,
  };
}

/** The two ordered ranges of a query: rows with a value in the sort column, then rows without. */
function ranges(src: Source, q: CellQuery): { sql: string; params: unknown[] }[] {
  const base = `SELECT * FROM (${src.sql})`;
  const ties = src.multi ? "run, id" : "id";
  if (!q.sort || !src.sortable) return [{ sql: `${base} ORDER BY ${ties}`, params: src.params }];
  const c = sqlId(q.sort);
  const dir = q.dir === "desc" ? "DESC" : "ASC";
  return [
    { sql: `${base} WHERE ${c} IS NOT NULL ORDER BY ${c} ${dir}, ${ties}`, params: src.params },
    { sql: `${base} WHERE ${c} IS NULL ORDER BY ${ties}`, params: src.params },
  ];
}

/** What the table route returns: one page of rows and the total. */
export interface CellPage {
  total: number;
  page: number;
  size: number;
  rows: CellRow[];
}

const countCache = new WeakMap<RunIndex, Map<string, number>>();

/**
 * A count over the index, remembered per index version (the runs' build ids are part of the key,
 * so an extended or rebuilt index is counted again): paging through one view counts once.
 */
function cachedCount(index: RunIndex, sql: string, params: unknown[]): number {
  let cache = countCache.get(index);
  if (!cache) countCache.set(index, (cache = new Map()));
  const key = JSON.stringify([index.runs.map((r) => r.buildId), sql, params]);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const n = (index.db.prepare(sql).get(...params) as { n: number }).n;
  cache.set(key, n);
  if (cache.size > 256) cache.delete(cache.keys().next().value as string);
  return n;
}

/** Matches of a search without other filters: one scan of each run's texts (one row per cell), no join. */
function searchCount(index: RunIndex, q: CellQuery): number {
  const run = queryRun(index, q);
  let n = 0;
  for (const r of index.runs)
    if (run === undefined || r.index === run) n += cachedCount(index, `SELECT count(*) AS n FROM r${r.index}.texts WHERE instr(search, ?) > 0`, [(q.q as string).toLowerCase()]);
  return n;
}

/**
 * One page of the filtered, sorted rows.
 * @throws Error on an unknown sort column
 */
export function queryCells(index: RunIndex, q: CellQuery): CellPage {
  if (q.sort) checkSortColumn(q.sort);
  const src = sourceOf(index, q);
  const parts = ranges(src, q);
  const unfiltered = !["dataset", "model", "workflow", "params", "status", "judge", "q"].some((f) => q[f as keyof CellQuery] !== undefined);
  const counted = sourceOf(index, q, true);
  const onlySearch = q.q !== undefined && !["dataset", "model", "workflow", "params", "status", "judge"].some((f) => q[f as keyof CellQuery] !== undefined);
  const total = unfiltered && q.run === undefined ? index.totalCells : onlySearch ? searchCount(index, q) : cachedCount(index, `SELECT count(*) AS n FROM (${counted.sql})`, counted.params);
  const start = q.page * q.size;
  const rows: CellRow[] = [];
  // the counts bound each range's LIMIT: a scan (a search's, a filter's) stops at the last row
  // there is instead of running on to the end looking for more, and a page past the end reads nothing
  const read = (part: { sql: string; params: unknown[] }, limit: number, offset: number) => {
    if (limit > 0) for (const r of index.db.prepare(`${part.sql} LIMIT ? OFFSET ?`).all(...part.params, limit, offset) as SqlRow[]) rows.push(toRow(index, r));
  };
  if (parts.length === 1) {
    read(parts[0], Math.min(q.size, total - start), start);
  } else {
    const withValue = cachedCount(index, `SELECT count(*) AS n FROM (${counted.sql}) WHERE ${sqlId(q.sort as string)} IS NOT NULL`, counted.params);
    if (start < withValue) read(parts[0], Math.min(q.size, withValue - start), start);
    const offset = Math.max(0, start - withValue);
    read(parts[1], Math.min(q.size - rows.length, total - withValue - offset), offset);
  }
  return { total, page: q.page, size: q.size, rows };
}

/**
 * Every row matching the query's filters and search, in its sort order, one at a time (paging
 * ignored): what the export streams. An open iterator holds its connection busy, so a reader that
 * awaits between rows passes its own `db` ({@link RunIndex.connect}).
 * @throws Error on an unknown sort column or a run index out of range, when called (before the
 *   first row: the server can still answer 400)
 */
export function filterAndSort(index: RunIndex, q: CellQuery, db: Database.Database = index.db): Generator<CellRow> {
  if (q.sort) checkSortColumn(q.sort);
  const parts = ranges(sourceOf(index, q), q);
  return (function* () {
    for (const part of parts) {
      for (const r of db.prepare(part.sql).iterate(...part.params) as IterableIterator<SqlRow>) yield toRow(index, r);
    }
  })();
}

/** Column names of the CSV export: fixed columns, then the score columns present. */
export function exportColumns(index: RunIndex): string[] {
  return [
    "run",
    "key",
    "itemId",
    "dataset",
    "model",
    "workflow",
    "params",
    "repeat",
    "status",
    "judge",
    "inputTokens",
    "outputTokens",
    "unknownUsageCalls",
    "latencyMs",
    "costUsd",
    ...index.scoreColumns,
  ];
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
    unknownUsageCalls: r.unknownUsageCalls,
    latencyMs: r.latencyMs,
    costUsd: r.costUsd,
  };
  for (const c of index.scoreColumns) out[c] = r.scores[c] ?? null;
  return out;
}
