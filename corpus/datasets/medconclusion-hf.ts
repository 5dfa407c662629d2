/**
 * Loader for the published MedConclusion data (Hugging Face `harvardairobotics/MedConclusion`,
 * 5.7 M records, and `MedConclusion-Compact`, 100 K / 10 K / 30 K) from a file the user
 * downloaded: JSONL (optionally gzip), Parquet or CSV, streamed — JSONL and CSV line by line,
 * Parquet one row group at a time — so the full set never sits in memory; `limit` stops early.
 *
 * Columns. The dataset card lists no schema; the authors' generation script reads records with
 * `pmid` and `abstract`, a list of `{label, text}` segments with the conclusion among them, and
 * the paper (§3.1.2) adds journal metadata (subject category, SJR). Defaults therefore are
 * `pmid`, `abstract`, `title`, `journal`, `issn`, `year`, `sjr`, `category`, `quartile`; any of
 * them can be renamed with `columns` (e.g. `columns: {abstract: "structured_abstract"}`). The
 * `abstract` cell may be the list itself, JSON text of it, or the Python `str()` of it (what
 * pandas writes into a CSV).
 *
 * Each row becomes a MedConclusion task as the authors build it: an abstract whose segment list
 * is its first half twice is cut to that half (counted), conclusion segments (our label variants,
 * a superset of the authors' list) are the reference, the other segments the input. Journal
 * fields go to `journal` and `meta` (issn, sjr, category, quartile) for the journal subgroups.
 * Rows without an abstract, with an unparseable abstract, without a conclusion or with only
 * conclusion segments are skipped and counted.
 *
 * @see ../../../shared/seeds/000_* (MedConclusion §3); Harvard-AI-and-Robotics-Lab/MedConclusion
 *   `generate.py` (record shape, `remove_duplicates`).
 */
import { createReadStream, existsSync } from "node:fs";
import { z } from "zod";
import { ConclusionTaskSchema, type AbstractSegment, type ConclusionTask } from "../types.ts";
import { isConclusionSegment } from "../conclusion-labels.ts";
import { repairDuplicatedSegments } from "../clean.ts";
import { readLines } from "./jsonl.ts";
import { parsePythonLiteral } from "./python-literal.ts";
import { createSkipCounter, skippedOf, validateItem, type LoadedDataset, type SkipCounter } from "./loaded-dataset.ts";

/** Registry name of this loader. */
export const MEDCONCLUSION_HF_DATASET = "medconclusion-hf";

/** Column names read from each row (defaults; see the module comment). */
export const MedConclusionHfColumnsSchema = z
  .object({
    pmid: z.string().default("pmid"),
    abstract: z.string().default("abstract"),
    title: z.string().default("title"),
    journal: z.string().default("journal"),
    issn: z.string().default("issn"),
    year: z.string().default("year"),
    sjr: z.string().default("sjr"),
    category: z.string().default("category"),
    quartile: z.string().default("quartile"),
  })
  .strict();
/** {@link MedConclusionHfColumnsSchema} after parsing. */
export type MedConclusionHfColumns = z.infer<typeof MedConclusionHfColumnsSchema>;

/** Options of {@link loadMedConclusionHf}. */
export const MedConclusionHfOptionsSchema = z
  .object({
    /** The downloaded file: `.jsonl`, `.jsonl.gz`, `.parquet` or `.csv`. */
    path: z.string().min(1),
    /** File format; `auto` = from the extension. */
    format: z.enum(["auto", "jsonl", "parquet", "csv"]).default("auto"),
    /** Stop after this many tasks (default 1,000; the full set is 5.7 M). */
    limit: z.number().int().positive().default(1000),
    /** Rename columns (only the ones that differ). */
    columns: MedConclusionHfColumnsSchema.default(MedConclusionHfColumnsSchema.parse({})),
  })
  .strict();
/** Input of {@link MedConclusionHfOptionsSchema}. */
export type MedConclusionHfOptions = z.input<typeof MedConclusionHfOptionsSchema>;

/** Format of a file from its name. */
export function formatOf(path: string): "jsonl" | "parquet" | "csv" {
  if (/\.parquet$/i.test(path)) return "parquet";
  if (/\.csv(\.gz)?$/i.test(path)) return "csv";
  return "jsonl";
}

/** One row with its 1-based position in the file (line for JSONL/CSV, row for Parquet). */
export interface HfRow {
  row: number;
  value: Record<string, unknown> | null;
  /** Why the row could not be read (a stable reason, e.g. "malformed JSON"). */
  error?: string;
  /** Details of the error (the parser's message). */
  detail?: string;
}

/**
 * Stream the rows of a MedConclusion file.
 * @throws Error naming the file when it does not exist or is not Parquet when said to be.
 */
export async function* readMedConclusionRows(path: string, format: "jsonl" | "parquet" | "csv"): AsyncGenerator<HfRow> {
  if (!existsSync(path)) throw new Error(`dataset "${MEDCONCLUSION_HF_DATASET}": file not found: ${path}`);
  if (format === "jsonl") {
    let n = 0;
    for await (const line of readLines(path)) {
      n++;
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as unknown;
        yield v && typeof v === "object" && !Array.isArray(v) ? { row: n, value: v as Record<string, unknown> } : { row: n, value: null, error: "not a JSON object" };
      } catch (e) {
        yield { row: n, value: null, error: "malformed JSON", detail: (e as Error).message };
      }
    }
  } else if (format === "csv") {
    const { parse } = await import("csv-parse");
    const parser = createReadStream(path).pipe(parse({ columns: true, bom: true, relax_column_count: true }));
    let n = 1;
    for await (const rec of parser) yield { row: ++n, value: rec as Record<string, unknown> };
  } else {
    const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import("hyparquet");
    const file = await asyncBufferFromFile(path);
    let metadata;
    try {
      metadata = await parquetMetadataAsync(file);
    } catch (e) {
      throw new Error(`dataset "${MEDCONCLUSION_HF_DATASET}": ${path} is not a readable Parquet file (${(e as Error).message})`, { cause: e });
    }
    let start = 0;
    for (const rg of metadata.row_groups) {
      const end = start + Number(rg.num_rows);
      const rows = await parquetReadObjects({ file, metadata, rowStart: start, rowEnd: end });
      for (let i = 0; i < rows.length; i++) yield { row: start + i + 1, value: rows[i] as Record<string, unknown> };
      start = end;
    }
  }
}

/** The segments of an `abstract` cell (list, JSON text or Python literal), or an error text. */
export function parseAbstractCell(cell: unknown): { segments: { label: string | null; text: string }[] } | { error: string } {
  let v = cell;
  if (typeof v === "string") {
    const t = v.trim();
    if (!t) return { error: "empty abstract" };
    try {
      v = JSON.parse(t);
    } catch {
      try {
        v = parsePythonLiteral(t);
      } catch {
        return { error: "abstract is neither a list, JSON nor a Python literal" };
      }
    }
  }
  if (!Array.isArray(v)) return { error: "abstract is not a list of segments" };
  const segments: { label: string | null; text: string }[] = [];
  for (const s of v) {
    if (!s || typeof s !== "object") return { error: "abstract segment is not an object" };
    const o = s as Record<string, unknown>;
    const text = o.text ?? o.Text;
    const label = o.label ?? o.Label ?? null;
    if (typeof text !== "string") return { error: "abstract segment without text" };
    segments.push({ label: typeof label === "string" && label.trim() ? label.trim() : null, text });
  }
  return { segments };
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : typeof v === "number" || typeof v === "bigint" ? String(v) : null);
const num = (v: unknown): number | null => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && v.trim()) {
    const x = Number(v.trim().replace(",", "."));
    return Number.isFinite(x) ? x : null;
  }
  return null;
};
const categoryText = (v: unknown): string | null => (Array.isArray(v) ? v.map(String).join("; ") || null : str(v));

/**
 * One row → a MedConclusion task, or the reason it is skipped.
 * @param counters.repaired incremented when the abstract was its first half twice.
 */
export function rowToConclusionTask(row: Record<string, unknown>, rowNo: number, columns: MedConclusionHfColumns, counters: { repaired: number }): { task: ConclusionTask } | { skip: string } {
  if (row[columns.abstract] === undefined || row[columns.abstract] === null) return { skip: "no abstract" };
  const parsed = parseAbstractCell(row[columns.abstract]);
  if ("error" in parsed) return { skip: parsed.error };
  const repaired = repairDuplicatedSegments(parsed.segments);
  if (repaired.repaired) counters.repaired++;
  const segs: AbstractSegment[] = repaired.segments.map((s) => ({ label: s.label, nlmCategory: null, text: s.text.normalize("NFKC").trim() })).filter((s) => s.text);
  const conclusions = segs.filter(isConclusionSegment);
  const sections = segs.filter((s) => !isConclusionSegment(s));
  if (!conclusions.length) return { skip: "no conclusion segment" };
  if (!sections.length) return { skip: "only conclusion segments" };
  const pmid = str(row[columns.pmid]);
  const year = num(row[columns.year]);
  const journal = str(row[columns.journal]);
  const issn = str(row[columns.issn]);
  const candidate = {
    id: `${MEDCONCLUSION_HF_DATASET}:${pmid ?? `row${rowNo}`}`,
    dataset: MEDCONCLUSION_HF_DATASET,
    pmid: pmid && /^\d+$/.test(pmid) ? pmid : null,
    title: str(row[columns.title]),
    sections,
    referenceConclusion: conclusions.map((s) => s.text).join(" "),
    journal: journal || issn ? { title: journal, isoAbbreviation: null, issn, nlmUniqueId: null } : null,
    year: year !== null && Number.isInteger(year) ? year : null,
    meta: { issn, journal, sjr: num(row[columns.sjr]), category: categoryText(row[columns.category]), quartile: str(row[columns.quartile]) },
  };
  const v = validateItem(ConclusionTaskSchema, candidate);
  return v.ok ? { task: v.value } : { skip: `invalid ${v.reason.split(":")[0]}` };
}

/**
 * Stream MedConclusion tasks from a published-format file, counting skipped rows in `skipped`
 * and warnings (row-level problems, first 20 named) in `warnings`.
 */
export async function* medConclusionHfTasks(
  options: MedConclusionHfOptions,
  sink: { skipped?: SkipCounter; warnings?: string[]; counters?: { repaired: number } } = {},
): AsyncGenerator<ConclusionTask> {
  const opts = MedConclusionHfOptionsSchema.parse(options);
  const format = opts.format === "auto" ? formatOf(opts.path) : opts.format;
  const skipped = sink.skipped ?? createSkipCounter();
  const warnings = sink.warnings ?? [];
  const counters = sink.counters ?? { repaired: 0 };
  let n = 0;
  for await (const r of readMedConclusionRows(opts.path, format)) {
    const res = r.value ? rowToConclusionTask(r.value, r.row, opts.columns, counters) : { skip: r.error ?? "unreadable row" };
    if ("skip" in res) {
      skipped.add(res.skip);
      if (skipped.count <= 20) warnings.push(`${opts.path} ${format === "parquet" ? "row" : "line"} ${r.row}: ${res.skip}${r.detail ? ` (${r.detail})` : ""}; skipped`);
      continue;
    }
    yield res.task;
    if (++n >= opts.limit) return;
  }
}

/**
 * Load the first `limit` tasks of a published-format MedConclusion file (dataset registry entry
 * "medconclusion-hf").
 * @throws Error naming the file when it is missing or unreadable; ZodError on bad options.
 */
export async function loadMedConclusionHf(options: MedConclusionHfOptions): Promise<LoadedDataset<ConclusionTask>> {
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const counters = { repaired: 0 };
  const items: ConclusionTask[] = [];
  for await (const t of medConclusionHfTasks(options, { skipped, warnings, counters })) items.push(t);
  if (skipped.count > 20)
    warnings.push(
      `${skipped.count - 20} more skipped rows not listed (${Object.entries(skipped.reasons)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")})`,
    );
  if (counters.repaired) warnings.push(`${counters.repaired} abstract(s) were their first half twice (a known PubMed/Hugging Face artefact) and were cut to that half`);
  return { name: MEDCONCLUSION_HF_DATASET, taskKind: "conclusion", items, warnings, skipped: skippedOf(skipped) };
}
