/**
 * `medsynth corpus …` commands: ingest PubMed XML to JSONL, corpus statistics, and an optional
 * E-utilities fetch for users who are online.
 *
 * - `corpus ingest <xml|gz|dir>... --store <uri> [--jobs N] [--clean] [--storage-option k=v]…`: the
 *   parallel, resumable ingest into a Lance corpus store (corpus/ingest/run-ingest.ts): worker
 *   threads, per-file manifest, PubMed update files applied in order, a progress bar (files,
 *   entries, rate, ETA); a broken file is named with its byte offset, the others complete, exit 1.
 * - `corpus export --store <uri> --out corpus.jsonl`: the store's records as JSONL.
 * - `corpus ingest <xml|gz|dir>... --out corpus.jsonl [--clean] [--json]`: stream the files, write one
 *   {@link PubmedRecord} per line, print a counts table (or JSON). PubMed's update semantics apply
 *   as with `--store` (a DeleteCitation removes the PMID's record, a later file or higher Version
 *   replaces it, duplicates collapse; corpus/ingest/update-spool.ts), and the summary names the
 *   PMIDs deleted, deleted-but-unknown and superseded. The output is written at the end and not
 *   at all when no input yields anything. `--clean` applies the
 *   MedConclusion §3.1.1 cleaning and prints drop counts per reason (retracted papers and
 *   retraction notices are dropped too, counted; `--keep-retracted` keeps them). Book records
 *   (`PubmedBookArticle`) are skipped and named by PMID in the summary. A file with bytes invalid
 *   in its encoding (declared, else UTF-8) is named with the count on stderr and the command
 *   exits 1. A file that breaks
 *   (a truncated .gz, or a plain .xml that ends inside a record) keeps its records before the
 *   break, is named on stderr, and the command exits 1. A file that yields no PubMed record and is
 *   not a valid empty `<PubmedArticleSet>` (non-XML, JSON, empty file) is named in a warning; when
 *   no input yields anything (or no XML file is found), the command exits 1 naming them.
 * - `corpus stats <corpus.jsonl> [--json]`: counts of a JSONL corpus (malformed lines skipped and counted).
 * - `corpus fetch --term … --out … [--structured] [--min-date --max-date] [--max N]`: esearch
 *   (history) + batched efetch; a search matching more than NCBI's 10,000-record cap is split into
 *   publication-date windows (corpus/eutils-windows.ts) so every record comes back once; API key
 *   from `$NCBI_API_KEY` (never printed).
 */
import cliProgress from "cli-progress";
import type { PubmedRecord } from "../../corpus/types.ts";
import { PubmedRecordSchema } from "../../corpus/types.ts";
import { ingestPubmed, countRecord, emptyIngestCounts, type IngestCounts, type IngestReport } from "../../corpus/ingest.ts";
import { createRecordCleaner, type CleanOptions, type CleanResult } from "../../corpus/clean.ts";
import { createJsonlWriter, readJsonl, writeJsonl, type JsonlStats } from "../../corpus/jsonl.ts";
import { createUpdateSpool } from "../../corpus/ingest/update-spool.ts";
import type { UpdateReport } from "../../corpus/clean.ts";
import { createEutilsClient } from "../../corpus/eutils.ts";
import { emptyWindowStats, EUTILS_RETRIEVAL_CAP, fetchAllRecords } from "../../corpus/eutils-windows.ts";
import type { PubmedWarning } from "../../corpus/pubmed-xml.ts";
import type { StoreLocation } from "../../corpus/store/lance-store.ts";

const MAX_WARNINGS_SHOWN = 20;

/** Render `[label, value]` rows as an aligned two-column table. */
export function formatCountsTable(rows: [string, number | string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  const v = Math.max(...rows.map(([, x]) => (typeof x === "number" ? x.toLocaleString("en-US") : x).length));
  return rows.map(([k, x]) => `${k.padEnd(w)}  ${(typeof x === "number" ? x.toLocaleString("en-US") : x).padStart(v)}`).join("\n");
}

function countsRows(c: IngestCounts): [string, number][] {
  return [
    ["files", c.files],
    ["records", c.records],
    ["with abstract", c.withAbstract],
    ["structured", c.structured],
    ["with conclusion", c.withConclusion],
    ["abstract segments", c.abstractSegments],
    ["MeSH headings", c.meshHeadings],
    ["keywords", c.keywords],
    ["deleted citations", c.deletedCitations],
    ["retracted", c.retracted],
    ["retraction notices", c.retractionNotices],
    ["errata", c.errata],
    ["skipped (warnings)", c.warnings],
    ["book records (skipped)", c.books],
  ];
}

/** How many PMIDs each update summary line names (the JSON report lists them all). */
const MAX_UPDATE_PMIDS_SHOWN = 20;

/** Counts and PMID lists of an {@link UpdateReport}, for `--json` output. */
export function updateCounts(u: UpdateReport): {
  deleteEntries: number;
  deleted: number;
  deleteOfUnknown: number;
  superseded: number;
  pmids: { deleted: string[]; deleteOfUnknown: string[]; superseded: string[] };
} {
  return {
    deleteEntries: u.deleteEntries,
    deleted: u.deleted.length,
    deleteOfUnknown: u.deleteOfUnknown.length,
    superseded: u.superseded.length,
    pmids: { deleted: u.deleted, deleteOfUnknown: u.deleteOfUnknown, superseded: u.superseded },
  };
}

/**
 * The summary lines of what PubMed's update semantics did: one line of counts, then one line per
 * non-empty class naming its PMIDs (up to {@link MAX_UPDATE_PMIDS_SHOWN}, then "… N more").
 * @param u - the resolution's update report.
 * @returns e.g. ["updates: 1 record deleted, 2 deletes of unknown PMIDs, 1 superseded", "  deleted (record removed): PMIDs 103", …].
 */
export function updateSummary(u: UpdateReport): string[] {
  const n = (k: number, one: string, many: string) => `${k.toLocaleString("en-US")} ${k === 1 ? one : many}`;
  const list = (pmids: string[]) =>
    `PMIDs ${pmids.slice(0, MAX_UPDATE_PMIDS_SHOWN).join(", ")}${pmids.length > MAX_UPDATE_PMIDS_SHOWN ? `, … ${(pmids.length - MAX_UPDATE_PMIDS_SHOWN).toLocaleString("en-US")} more` : ""}`;
  const lines = [
    `\nupdates (DeleteCitation, later file / higher Version): ${n(u.deleted.length, "record deleted", "records deleted")}, ${n(u.deleteOfUnknown.length, "delete of an unknown PMID", "deletes of unknown PMIDs")}, ${n(u.superseded.length, "entry superseded", "entries superseded")}`,
  ];
  if (u.deleted.length) lines.push(`  deleted (record removed by a DeleteCitation): ${list(u.deleted)}`);
  if (u.deleteOfUnknown.length) lines.push(`  delete of unknown PMID (no record of it read before the DeleteCitation): ${list(u.deleteOfUnknown)}`);
  if (u.superseded.length) lines.push(`  superseded (an entry replaced by a later file or a higher Version of its PMID): ${list(u.superseded)}`);
  return lines;
}

/** How many book PMIDs the text summary lists (the JSON report lists them all). */
const MAX_BOOK_PMIDS_SHOWN = 20;

/**
 * The summary line naming skipped book records (`PubmedBookArticle`) by PMID, or null when none.
 * @param books - `IngestReport.books`.
 * @returns e.g. "book records skipped (PubmedBookArticle, no MedlineCitation): 2 — PMIDs 123, 456".
 */
export function bookSummary(books: IngestReport["books"] = []): string | null {
  if (books.length === 0) return null;
  const ids = books.slice(0, MAX_BOOK_PMIDS_SHOWN).map((b) => b.pmid ?? `? (${b.file})`);
  const more = books.length > MAX_BOOK_PMIDS_SHOWN ? `, … ${books.length - MAX_BOOK_PMIDS_SHOWN} more` : "";
  return `book records skipped (PubmedBookArticle, no MedlineCitation): ${books.length} — PMIDs ${ids.join(", ")}${more}`;
}

function warningPrinter(json: boolean): { onWarning: (w: PubmedWarning) => void; flush: () => void } {
  let n = 0;
  return {
    onWarning(w) {
      // Book records and invalid bytes have their own lines in the summary.
      if (w.kind === "book" || w.kind === "encoding") return;
      n++;
      if (n <= MAX_WARNINGS_SHOWN) process.stderr.write(`warning: ${w.message}\n`);
    },
    flush() {
      if (n > MAX_WARNINGS_SHOWN && !json) process.stderr.write(`warning: … ${n - MAX_WARNINGS_SHOWN} more warnings\n`);
    },
  };
}

/**
 * Why an ingest run as a whole failed for lack of input, or null: no XML file found in the
 * inputs, or no input file yielded any PubMed entry while some of them are not valid empty sets
 * (files that broke are reported through `fileErrors` on their own).
 */
export function ingestFailure(inputs: readonly string[], report: IngestReport): string | null {
  if (report.perFile.length === 0) return `no .xml or .xml.gz file found in ${inputs.join(", ")}`;
  const entries = report.counts.records + report.counts.deletedCitations;
  if (entries > 0 || report.emptyFiles.length === 0) return null;
  return `no PubMed records in any input; nothing usable in ${report.emptyFiles.map((f) => f.file).join(", ")}`;
}

/** `corpus ingest` (the action of the command registered in corpus-register.ts). */
export async function corpusIngestCommand(inputs: string[], opts: IngestCliOptions): Promise<void> {
  if ((opts.store === undefined) === (opts.out === undefined)) throw new Error("corpus ingest: give exactly one of --store <uri> (Lance corpus store) or --out <file.jsonl>");
  if (opts.store !== undefined) await ingestStoreCommand(inputs, opts, opts.store);
  else await ingestJsonlCommand(inputs, opts, opts.out as string);
}

/** `corpus export`: the records of a Lance corpus store as JSONL. */
export async function corpusExportCommand(opts: { store: string; storageOption: Record<string, string>; out: string }): Promise<void> {
  const { openLanceRecordStore } = await import("../../corpus/store/lance-store.ts");
  const store = await openLanceRecordStore(storeLocation(opts.store, opts.storageOption));
  const writer = createJsonlWriter(opts.out);
  let n = 0;
  for await (const batch of store.scanRecords(2000)) {
    for (const r of batch) await writer.write(r.record);
    n += batch.length;
  }
  await writer.close();
  console.log(`wrote ${n.toLocaleString("en-US")} records to ${opts.out}`);
}

/** Options of `corpus rag-export` (raw, from commander). */
export interface RagExportCliOptions {
  store: string;
  storageOption: Record<string, string>;
  out?: string;
  /** false with `--no-table`. */
  table: boolean;
  versionRetention?: string;
  json?: boolean;
}

/**
 * `corpus rag-export`: the lean RAG corpus of a store (one snippet per PMID, MedRAG's fields) as
 * the store's `rag` table (indexes over the store then build from it) and/or MedRAG JSONL
 * (corpus/store/rag-table.ts).
 */
export async function corpusRagExportCommand(opts: RagExportCliOptions): Promise<void> {
  const { parseRetention } = await import("../../corpus/store/lance-store.ts");
  const retentionSeconds = parseRetention(opts.versionRetention ?? "0");
  const { ragExport } = await import("../../corpus/store/rag-table.ts");
  const rep = await ragExport(storeLocation(opts.store, opts.storageOption), { table: opts.table, jsonl: opts.out, retentionSeconds, log: (l) => process.stderr.write(`${l}\n`) });
  if (opts.json) {
    console.log(JSON.stringify({ store: opts.store, ...rep }, null, 2));
    return;
  }
  const where = [rep.table ? `the store's rag table (id, title, content)` : null, rep.jsonl ? `${rep.jsonl} (id, title, content, contents)` : null].filter(Boolean).join(" and ");
  console.log(`wrote ${rep.docs.toLocaleString("en-US")} snippets, one per PMID, to ${where} in ${rep.seconds.toFixed(1)} s`);
}

/** `corpus stats`: counts of a JSONL corpus of PubMed records. */
export async function corpusStatsCommand(path: string, opts: { json: boolean }): Promise<void> {
  const counts = emptyIngestCounts();
  const stats: JsonlStats = { lines: 0, records: 0, skipped: 0 };
  const languages = new Map<string, number>();
  let minYear = Infinity;
  let maxYear = -Infinity;
  for await (const rec of readJsonl(path, { schema: PubmedRecordSchema, stats, onWarning: (w) => process.stderr.write(`warning: ${w.message}\n`) })) {
    countRecord(counts, rec);
    for (const l of rec.languages) languages.set(l, (languages.get(l) ?? 0) + 1);
    const y = rec.pubDate ? Number(rec.pubDate.slice(0, 4)) : NaN;
    if (Number.isFinite(y)) {
      minYear = Math.min(minYear, y);
      maxYear = Math.max(maxYear, y);
    }
  }
  counts.files = 1;
  const langs = Object.fromEntries([...languages.entries()].sort((a, b) => b[1] - a[1]));
  const years = Number.isFinite(minYear) ? `${minYear}–${maxYear}` : "n/a";
  if (opts.json) console.log(JSON.stringify({ path, ...counts, malformedLines: stats.skipped, languages: langs, years }, null, 2));
  else {
    const rows = countsRows(counts).filter(([k]) => k !== "files" && k !== "skipped (warnings)" && k !== "book records (skipped)");
    console.log(
      formatCountsTable([
        ...rows,
        ["malformed lines skipped", stats.skipped],
        ["years", years],
        [
          "languages",
          Object.entries(langs)
            .slice(0, 5)
            .map(([k, v]) => `${k} ${v}`)
            .join(", "),
        ],
      ]),
    );
  }
}

/** `corpus fetch`: PubMed records through NCBI E-utilities into a JSONL file. */
export async function corpusFetchCommand(opts: { term: string; out: string; structured: boolean; minDate?: string; maxDate?: string; max: string; baseUrl?: string }): Promise<void> {
  const max = Number(opts.max);
  if (!Number.isInteger(max) || max < 1) throw new Error(`--max must be a positive integer, got ${opts.max}`);
  const client = createEutilsClient({ apiKey: process.env.NCBI_API_KEY || null, ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) });
  const found = await client.esearch({ term: opts.term, hasStructuredAbstract: opts.structured, minDate: opts.minDate, maxDate: opts.maxDate, usehistory: true, retmax: 0 });
  if (!found.webEnv || !found.queryKey) throw new Error("esearch returned no history reference (WebEnv)");
  const count = Math.min(found.count, max);
  const writer = createJsonlWriter(opts.out);
  const warn = warningPrinter(false);
  const counts = emptyIngestCounts();
  const windows = emptyWindowStats();
  // Past NCBI's cap one result set cannot serve every record: fetch date window by window.
  const records =
    count > EUTILS_RETRIEVAL_CAP
      ? fetchAllRecords(
          client,
          { term: opts.term, hasStructuredAbstract: opts.structured },
          { minDate: opts.minDate, maxDate: opts.maxDate },
          { max: count, stats: windows, onWarning: warn.onWarning },
        )
      : client.fetchRecords({ webEnv: found.webEnv, queryKey: found.queryKey, count }, warn.onWarning);
  for await (const rec of records) {
    countRecord(counts, rec);
    if (!rec.flags.deleted) await writer.write(rec);
  }
  if (windows.windows > 0)
    process.stderr.write(
      `${found.count.toLocaleString("en-US")} matches exceed the ${EUTILS_RETRIEVAL_CAP.toLocaleString("en-US")}-record cap: fetched in ${windows.windows} date window(s)${windows.duplicates ? `, ${windows.duplicates} repeated record(s) dropped` : ""}\n`,
    );
  for (const w of windows.overflow)
    process.stderr.write(
      `warning: ${w.minDate} alone matches ${w.count.toLocaleString("en-US")} records; only the first ${EUTILS_RETRIEVAL_CAP.toLocaleString("en-US")} of that day could be fetched (narrow the term)\n`,
    );
  await writer.close();
  warn.flush();
  console.log(formatCountsTable([["matched", found.count], ...countsRows(counts).filter(([k]) => k !== "files")]));
  console.log(`\nwrote ${counts.records.toLocaleString("en-US")} records to ${opts.out}`);
}

/** Options of `corpus ingest` (raw, from commander). */
export interface IngestCliOptions {
  store?: string;
  storageOption: Record<string, string>;
  jobs?: string;
  compression?: string;
  /** `--version-retention`: how long superseded table versions are kept (default 0). */
  versionRetention?: string;
  out?: string;
  clean: boolean;
  keepRetracted: boolean;
  json: boolean;
  progress: boolean;
}

/** Cleaning options of `corpus ingest`: null without `--clean`; `--keep-retracted` keeps retracted papers and notices. */
function cleanOptionsOf(opts: IngestCliOptions): CleanOptions | null {
  if (!opts.clean) return null;
  return opts.keepRetracted ? { dropRetracted: false, dropRetractionNotices: false } : {};
}

function storeLocation(uri: string, storageOptions: Record<string, string>): StoreLocation {
  return Object.keys(storageOptions).length ? { uri, storageOptions } : { uri };
}

/** `corpus ingest --store`: the parallel, resumable ingest (corpus/ingest/run-ingest.ts). */
async function ingestStoreCommand(inputs: string[], opts: IngestCliOptions, uri: string): Promise<void> {
  const jobs = opts.jobs === undefined ? undefined : Number(opts.jobs);
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1)) throw new Error(`--jobs must be a positive integer, got ${opts.jobs}`);
  const { STORE_COMPRESSIONS } = await import("../../corpus/store/lance-store.ts");
  const compression = STORE_COMPRESSIONS.find((c) => c === (opts.compression ?? "none"));
  if (!compression) throw new Error(`--compression must be one of ${STORE_COMPRESSIONS.join(", ")}, got ${opts.compression}`);
  const { parseRetention } = await import("../../corpus/store/lance-store.ts");
  const versionRetentionSeconds = parseRetention(opts.versionRetention ?? "0");
  const { ingestToStore } = await import("../../corpus/ingest/run-ingest.ts");
  const bar =
    opts.progress && !opts.json && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: "ingest [{bar}] {percentage}% | files {files} | {entries} entries | {rate} rec/s | ETA {eta_formatted}", stream: process.stderr, etaBuffer: 50 },
          cliProgress.Presets.shades_classic,
        )
      : null;
  let started = false;
  const report = await ingestToStore(inputs, {
    store: storeLocation(uri, opts.storageOption),
    clean: cleanOptionsOf(opts),
    jobs,
    compression,
    versionRetentionSeconds,
    log: (l) => process.stderr.write(`${l}\n`),
    onFile: (r) => {
      if (r.status === "failed") process.stderr.write(`${bar ? "\n" : ""}error: ${r.error}\n`);
    },
    onProgress: (p) => {
      if (!bar) return;
      const payload = { files: `${p.filesDone}/${p.filesTotal}`, entries: p.entries.toLocaleString("en-US"), rate: p.seconds > 0 ? Math.round(p.entries / p.seconds).toLocaleString("en-US") : "0" };
      if (!started) {
        bar.start(Math.max(1, p.bytesTotal), 0, payload);
        started = true;
      }
      bar.update(p.bytesRead, payload);
    },
  });
  bar?.stop();
  const sum = (f: (e: (typeof report.manifest)[number]) => number) => report.manifest.reduce((a, e) => a + f(e), 0);
  const c = report.meta.counts;
  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          store: uri,
          processed: report.processed.map(({ peakHeapBytes: _h, peakExternalBytes: _x, ...e }) => e),
          peakWorkerHeapBytes: report.peakWorkerHeapBytes,
          peakWorkerExternalBytes: report.peakWorkerExternalBytes,
          finalizeKeyBytes: report.finalizeKeyBytes,
          phaseSeconds: report.phaseSeconds,
          skipped: report.skipped,
          failed: report.failed.map((f) => ({ file: f.file, error: f.error, byteOffset: f.byteOffset })),
          finalized: report.meta.finalized,
          counts: c,
          updates: report.updates && updateCounts(report.updates),
        },
        null,
        2,
      ),
    );
  } else {
    console.log(
      formatCountsTable([
        ["files in store", report.manifest.length],
        ["processed now", report.processed.length],
        ["skipped (already done)", report.skipped.length],
        ["failed", report.failed.length],
        // Sums over every file in the store (this run's and earlier runs'), as "files in store".
        ["records read (all files)", sum((e) => e.records)],
        ["deleted citations (all files)", sum((e) => e.deletes)],
        ["skipped (warnings, all files)", sum((e) => e.warnings)],
        ["book records (skipped, all files)", sum((e) => e.books ?? 0)],
      ]),
    );
    const books = bookSummary(report.processed.flatMap((e) => (e.bookPmids ?? []).map((pmid) => ({ file: e.file, pmid }))));
    if (books) console.log(books);
    if (c && report.meta.finalized) {
      console.log(`\n${report.meta.clean ? "cleaning (MedConclusion §3.1.1) and updates" : "updates"} of the last finalisation — dropped by reason (kept: records in the store):`);
      console.log(
        formatCountsTable([
          ...Object.entries(c.dropped).filter(([k, v]) => report.meta.clean !== null || v > 0 || k === "deleted" || k === "superseded"),
          ...(c.deleteOfUnknown === undefined ? [] : [["delete of unknown PMID (not a record)", c.deleteOfUnknown] as [string, number]]),
          ["kept", c.kept],
          ["keywords dropped (non-ASCII)", c.keywordsDropped.nonAscii],
          ["keywords dropped (overlong)", c.keywordsDropped.overlong],
          ["keywords dropped (empty)", c.keywordsDropped.empty],
        ]),
      );
      if (report.updates) for (const line of updateSummary(report.updates)) console.log(line);
      console.log(`\nstore ${uri}: ${c.kept.toLocaleString("en-US")} records`);
    } else {
      console.log(`\nstore ${uri}: not finalised — ${report.failed.length} file(s) failed; fix or remove them and re-run (only unfinished files are read again)`);
    }
  }
  if (report.failed.length > 0) process.exitCode = 1;
}

/** `corpus ingest --out`: one thread into a JSONL file (import/export format), update semantics applied. */
async function ingestJsonlCommand(inputs: string[], opts: IngestCliOptions, out: string): Promise<void> {
  const cleanOptions = cleanOptionsOf(opts);
  const cleaner = cleanOptions ? createRecordCleaner(cleanOptions) : null;
  // Without cleaning, records go to a spool beside the output; the output is written at the end.
  const spool = cleaner ? null : createUpdateSpool(out);
  const warn = warningPrinter(opts.json);
  const bar =
    opts.progress && !opts.json && process.stderr.isTTY
      ? new cliProgress.SingleBar({ format: "ingest [{bar}] {percentage}% | {value}/{total} MiB | {records} records", stream: process.stderr }, cliProgress.Presets.shades_classic)
      : null;
  let started = false;
  let records = 0;
  let report: IngestReport;
  try {
    report = await ingestPubmed(inputs, {
      onWarning: warn.onWarning,
      onProgress: ({ bytesRead, totalBytes }) => {
        if (!bar) return;
        const mib = (b: number) => Math.round((b / 1048576) * 10) / 10;
        if (!started) {
          bar.start(mib(totalBytes), 0, { records: 0 });
          started = true;
        }
        bar.update(mib(bytesRead), { records });
      },
      onRecord: async (rec: PubmedRecord) => {
        records++;
        if (cleaner) cleaner.add(rec);
        else await spool?.add(rec);
      },
    });
  } catch (e) {
    await spool?.discard();
    throw e;
  }
  bar?.stop();
  const failure = ingestFailure(inputs, report);
  let cleaned: CleanResult | null = null;
  let written = 0;
  let updates: UpdateReport | null = null;
  if (failure)
    await spool?.discard(); // nothing usable: no (empty) output file is created
  else if (cleaner) {
    cleaned = cleaner.finish();
    written = await writeJsonl(out, cleaned.kept);
    updates = cleaned.updates;
  } else if (spool) ({ written, updates } = await spool.finish());
  warn.flush();
  for (const w of report.emptyFiles) process.stderr.write(`warning: ${w.message}\n`);
  for (const e of report.fileErrors) process.stderr.write(`error: ${e.message} (kept ${e.recordsBefore} records read before the break)\n`);
  const encodingErrors = report.encodingErrors ?? [];
  for (const e of encodingErrors) process.stderr.write(`error: ${e.message}\n`);
  if (failure) process.stderr.write(`error: ${failure}; ${out} not written\n`);
  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          out: failure ? null : out,
          written,
          counts: report.counts,
          updates: updates && updateCounts(updates),
          perFile: report.perFile,
          fileErrors: report.fileErrors,
          emptyFiles: report.emptyFiles,
          books: report.books,
          encodingErrors: report.encodingErrors,
          clean: cleaned && { dropped: cleaned.dropped, keywordsDropped: cleaned.keywordsDropped, duplicatedSegmentsRepaired: cleaned.duplicatedSegmentsRepaired, kept: cleaned.kept.length },
        },
        null,
        2,
      ),
    );
  } else {
    console.log(formatCountsTable(countsRows(report.counts)));
    const books = bookSummary(report.books);
    if (books) console.log(books);
    if (updates) for (const line of updateSummary(updates)) console.log(line);
    if (cleaned) {
      console.log("\ncleaning (MedConclusion §3.1.1) — dropped by reason:");
      console.log(
        formatCountsTable([
          ...Object.entries(cleaned.dropped),
          ["kept", cleaned.kept.length],
          ["keywords dropped (non-ASCII)", cleaned.keywordsDropped.nonAscii],
          ["keywords dropped (overlong)", cleaned.keywordsDropped.overlong],
          ["keywords dropped (empty)", cleaned.keywordsDropped.empty],
          ["duplicated segment lists repaired", cleaned.duplicatedSegmentsRepaired],
        ]),
      );
    }
    if (!failure) console.log(`\nwrote ${written.toLocaleString("en-US")} records to ${out}`);
  }
  if (report.fileErrors.length > 0 || encodingErrors.length > 0 || failure) process.exitCode = 1;
}
