/**
 * Published numbers of the three seed papers as data: one {@link PublishedValue} per printed cell,
 * with the paper, the table (or figure), the row's labels, the column header as printed, the value
 * as printed and, when the paper prints one, its ± and what the ± means.
 *
 * The transcriptions live in one file per paper (medmeta.ts, medconclusion.ts, rwesummary.ts);
 * each keeps the printed cells as strings, so a reader can hold them against the paper row by row
 * (tests/experiments/report/published-data.test.ts does so against `../shared/seeds/` when present).
 *
 * @see ../../../../shared/seeds/000_* (MedConclusion), 001_* (MedMeta), 002_* (RWESummary).
 */
import { z } from "zod";

/** The papers, by id. */
export const PAPER_IDS = ["medmeta", "medconclusion", "rwesummary"] as const;
/** A paper id. */
export type PaperId = (typeof PAPER_IDS)[number];

/**
 * What a printed ± (or interval) means:
 * - `ci95`: half-width of a 95 % confidence interval of the mean (MedMeta Table 2);
 * - `se`: one standard error (MedMeta Table 5);
 * - `loa95`: Bland–Altman 95 % limits of agreement, printed as an interval (MedMeta Table 3).
 */
export const PM_KINDS = ["ci95", "se", "loa95"] as const;
/** Meaning of a ± or an interval. */
export type PmKind = (typeof PM_KINDS)[number];

/** One published number (or printed verdict such as "Yes"). */
export const PublishedValueSchema = z
  .object({
    paper: z.enum(PAPER_IDS),
    /** "Table 2", "Figure 2" … as the paper names it. */
    table: z.string().min(1),
    /** Row labels (model, workflow, mode, judge, hypothesis, group …) as printed. */
    row: z.record(z.string(), z.string()),
    /** Column header as printed (without arrows). */
    column: z.string().min(1),
    /** The value: a number, or a printed word (e.g. "Yes" in a significance column). */
    value: z.union([z.number(), z.string()]),
    /** The cell exactly as printed (e.g. "2.90 ± 0.21", "+0.14", "89%"). */
    printed: z.string().min(1),
    /** The printed ± (half-width for `ci95`, the SE for `se`). */
    pm: z.number().nonnegative().optional(),
    pmKind: z.enum(PM_KINDS).optional(),
    /** A printed interval [low, high] (limits of agreement). */
    interval: z.tuple([z.number(), z.number()]).optional(),
  })
  .strict()
  .refine((v) => (v.pm === undefined && v.interval === undefined) === (v.pmKind === undefined), { message: "pmKind is set exactly when pm or interval is" });
/** One published number. */
export type PublishedValue = z.infer<typeof PublishedValueSchema>;

/**
 * Parse a printed numeric cell: "2.90 ± 0.21" → {value 2.90, pm 0.21}; "+0.14" → 0.14; "89%" →
 * 89 (percent kept as printed); "0.001" → 0.001.
 * @throws Error naming the cell when it is not a number (optionally with ±).
 */
export function parseCell(printed: string): { value: number; pm?: number } {
  const m = /^\s*([+-]?\d+(?:\.\d+)?)%?\s*(?:±\s*(\d+(?:\.\d+)?))?\s*$/.exec(printed);
  if (!m) throw new Error(`published cell "${printed}" is not a number (optionally "x ± y")`);
  return m[2] === undefined ? { value: Number(m[1]) } : { value: Number(m[1]), pm: Number(m[2]) };
}

/**
 * Values of one printed table whose rows share labels and whose cells are numbers (± optional).
 * @param base paper and table.
 * @param columns column headers as printed.
 * @param rows each row's labels and its printed cells, one per column.
 * @param pmKind meaning of any ± in the table.
 * @throws Error when a row has a different number of cells than columns, or a cell is not a number.
 */
export function numericTable(
  base: { paper: PaperId; table: string },
  columns: readonly string[],
  rows: readonly { row: Record<string, string>; cells: readonly string[] }[],
  pmKind?: PmKind,
): PublishedValue[] {
  const out: PublishedValue[] = [];
  for (const r of rows) {
    if (r.cells.length !== columns.length) throw new Error(`${base.paper} ${base.table}: row ${JSON.stringify(r.row)} has ${r.cells.length} cells for ${columns.length} columns`);
    r.cells.forEach((printed, i) => {
      const { value, pm } = parseCell(printed);
      out.push({ ...base, row: r.row, column: columns[i], value, printed, ...(pm !== undefined ? { pm, pmKind } : {}) });
    });
  }
  return out;
}

/**
 * Interval a published value claims for the true statistic: ±pm for `ci95`, ±1.96·SE for `se`, the
 * printed interval for `loa95`; null when the paper prints none.
 */
export function publishedInterval(v: PublishedValue): [number, number] | null {
  if (typeof v.value !== "number") return null;
  if (v.interval) return v.interval;
  if (v.pm === undefined) return null;
  const half = v.pmKind === "se" ? 1.96 * v.pm : v.pm;
  return [v.value - half, v.value + half];
}
