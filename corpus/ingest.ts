/**
 * Ingest PubMed XML files and folders into a stream of records, with counts.
 *
 * Inputs are files (`.xml`, `.xml.gz`) or folders (searched recursively for those, sorted by
 * path). Files are read one after another with {@link parsePubmedFile}; a file that breaks
 * (missing, truncated gzip, or a plain .xml cut off inside a record) keeps the records read before
 * the break and is listed in `fileErrors`, and the run goes on with the next file. A file that
 * yields no PubMed entry and is not a valid empty `<PubmedArticleSet>` is listed in `emptyFiles`.
 * Book records (`PubmedBookArticle`) are counted apart and listed with their PMID in `books`; a
 * file with bytes invalid in its encoding is listed in `encodingErrors` with the count.
 */
import { createReadStream } from "node:fs";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import { join } from "node:path";
import type { PubmedRecord } from "./types.ts";
import { parsePubmedFile, PubmedFileError, type PubmedWarning } from "./pubmed-xml.ts";
import { isConclusionSegment } from "./conclusion-labels.ts";

/** Counts of an ingest run (deleted-citation entries counted apart from records). */
export interface IngestCounts {
  files: number;
  /** Records parsed (not counting deleted-citation entries). */
  records: number;
  withAbstract: number;
  /** Records whose abstract has at least one labelled segment. */
  structured: number;
  withConclusion: number;
  abstractSegments: number;
  meshHeadings: number;
  keywords: number;
  /** PMIDs listed in DeleteCitation elements. */
  deletedCitations: number;
  retracted: number;
  errata: number;
  /** Records skipped with a warning (malformed or truncated; book records are counted apart). */
  warnings: number;
  /** Book records (`PubmedBookArticle`) skipped: they have no MedlineCitation. */
  books: number;
  /** Retraction notices among the records. */
  retractionNotices: number;
}

/** Result of {@link ingestPubmed}. */
export interface IngestReport {
  counts: IngestCounts;
  /** Files that could not be read to their end (message names the file). */
  fileErrors: { file: string; recordsBefore: number; message: string }[];
  /** Per-file record counts, in input order. */
  perFile: { file: string; records: number; bytes: number }[];
  /**
   * Files read to their end that yielded no PubMed entry at all and are not a valid empty
   * `<PubmedArticleSet>` / `<MedlineCitationSet>` (e.g. a non-XML or JSON file, an empty file);
   * the message names the file and says why.
   */
  emptyFiles: { file: string; message: string }[];
  /** Book records skipped (`PubmedBookArticle`), with their PMID (null when it could not be read), in input order. */
  books?: { file: string; pmid: string | null }[];
  /**
   * Files with bytes invalid in their encoding (declared, or UTF-8 by default): how many ill-formed
   * sequences were decoded as U+FFFD, and where the first one is (UTF-8 only; else null). Always
   * set by {@link ingestPubmed}.
   */
  encodingErrors?: { file: string; encoding: string; invalidBytes: number; firstByteOffset: number | null; message: string }[];
}

/** Options of {@link ingestPubmed}. */
export interface IngestOptions {
  /** Receives every record, deleted entries included; awaited (back-pressure). */
  onRecord?: (record: PubmedRecord) => void | Promise<void>;
  onWarning?: (warning: PubmedWarning) => void;
  /** Progress in bytes read from disk across all files. */
  onProgress?: (p: { file: string; bytesRead: number; totalBytes: number }) => void;
}

/** Empty counters. */
export function emptyIngestCounts(): IngestCounts {
  return {
    files: 0,
    records: 0,
    withAbstract: 0,
    structured: 0,
    withConclusion: 0,
    abstractSegments: 0,
    meshHeadings: 0,
    keywords: 0,
    deletedCitations: 0,
    retracted: 0,
    errata: 0,
    warnings: 0,
    books: 0,
    retractionNotices: 0,
  };
}

/**
 * Add one record to counters.
 * @param counts - mutated.
 * @param record - a parsed record.
 */
export function countRecord(counts: IngestCounts, record: PubmedRecord): void {
  if (record.flags.deleted) {
    counts.deletedCitations++;
    return;
  }
  counts.records++;
  if (record.abstract.length > 0) counts.withAbstract++;
  if (record.abstract.some((s) => s.label !== null)) counts.structured++;
  if (record.abstract.some(isConclusionSegment)) counts.withConclusion++;
  counts.abstractSegments += record.abstract.length;
  counts.meshHeadings += record.meshHeadings.length;
  counts.keywords += record.keywords.length;
  if (record.flags.retracted) counts.retracted++;
  if (record.flags.erratum) counts.errata++;
  if (record.flags.retractionNotice === true) counts.retractionNotices++;
}

const XML_RE = /\.xml(\.gz)?$/i;

/**
 * Expand inputs to the list of XML files (`.xml`, `.xml.gz`): folders searched recursively,
 * symbolic links followed (a linked folder or file counts as what it points to; a folder reached
 * twice through links is searched once); the files of an input folder sorted by path.
 * @throws Error naming the input when it does not exist or is neither a file nor a folder, naming
 *   a broken link inside a folder, and naming a folder that holds no XML file.
 */
export async function expandPubmedInputs(inputs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const input of inputs) {
    let st;
    try {
      st = await stat(input);
    } catch {
      throw new Error(`input not found: ${input}`);
    }
    if (st.isFile()) out.push(input);
    else if (st.isDirectory()) {
      const files = await xmlFilesUnder(input, new Set());
      if (files.length === 0) throw new Error(`input folder ${input} holds no .xml or .xml.gz file (searched recursively, links followed)`);
      out.push(...files.sort());
    } else throw new Error(`input is neither a file nor a folder: ${input}`);
  }
  return out;
}

/** The XML files under `dir` (recursive, links followed; `seen`: real paths of folders already searched). */
async function xmlFilesUnder(dir: string, seen: Set<string>): Promise<string[]> {
  const real = await realpath(dir);
  if (seen.has(real)) return [];
  seen.add(real);
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      const target = await stat(path).catch(() => null);
      if (!target) throw new Error(`${path}: a broken symbolic link (its target does not exist)`);
      isDir = target.isDirectory();
      isFile = target.isFile();
    }
    if (isDir) out.push(...(await xmlFilesUnder(path, seen)));
    else if (isFile && XML_RE.test(e.name)) out.push(path);
  }
  return out;
}

/** How much of a file (decompressed) {@link whyNoPubmedRecords} looks at. */
const SNIFF_BYTES = 1 << 20;

/** The first `max` decompressed bytes of a file (gunzipped when it starts with the gzip magic), and whether that was all of it. */
async function readHead(path: string, max: number): Promise<{ text: string; complete: boolean }> {
  const fh = await open(path, "r");
  let gz = false;
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    gz = bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
  const file = createReadStream(path);
  const input = gz ? file.pipe(createGunzip()) : file;
  if (gz) file.on("error", (e) => input.destroy(e));
  const chunks: Buffer[] = [];
  let n = 0;
  let complete = true;
  try {
    for await (const c of input as AsyncIterable<Buffer>) {
      chunks.push(c);
      n += c.length;
      if (n >= max) {
        complete = false;
        break;
      }
    }
  } catch {
    complete = false;
  } finally {
    file.destroy();
    if (input !== file) input.destroy();
  }
  return { text: Buffer.concat(chunks).subarray(0, max).toString("latin1"), complete };
}

/**
 * Say why a file that yielded no PubMed entry is not a valid empty set.
 * @param path - a `.xml` / `.xml.gz` file (or anything given as input).
 * @returns null when the file is a well-formed, empty `<PubmedArticleSet>` or `<MedlineCitationSet>`
 *   (an XML declaration, DOCTYPE and comments allowed around it), else a short reason such as
 *   "empty file", "looks like JSON, not PubMed XML", "root element <foo> is not <PubmedArticleSet>".
 */
export async function whyNoPubmedRecords(path: string): Promise<string | null> {
  const { text, complete } = await readHead(path, SNIFF_BYTES);
  const body = text
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, "")
    .replace(/<\?xml[\s\S]*?\?>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/gi, "")
    .trim();
  if (body === "") return complete ? "empty file" : "no XML content";
  if (/^[[{]/.test(body)) return "looks like JSON, not PubMed XML";
  const root = /^<([A-Za-z_][\w.:-]*)/.exec(body)?.[1];
  if (!root) return "not XML";
  if (root !== "PubmedArticleSet" && root !== "MedlineCitationSet") return `root element <${root}> is not <PubmedArticleSet> or <MedlineCitationSet>`;
  if (!complete) return `no <PubmedArticle> or <MedlineCitation> in the first ${SNIFF_BYTES / 1048576} MiB`;
  const valid = new RegExp(`^<${root}\\b[^>]*?(\\/>|>[\\s\\S]*</${root}\\s*>)$`).test(body);
  return valid ? null : `<${root}> is never closed (truncated?)`;
}

/**
 * Ingest files/folders of PubMed XML (see the module comment).
 * @param inputs - files and folders.
 * @param options - callbacks.
 * @returns counts, per-file figures and file errors (never throws for a broken file).
 * @throws Error when an input does not exist.
 */
export async function ingestPubmed(inputs: readonly string[], options: IngestOptions = {}): Promise<IngestReport> {
  const files = await expandPubmedInputs(inputs);
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const counts = emptyIngestCounts();
  const books: NonNullable<IngestReport["books"]> = [];
  const encodingErrors: NonNullable<IngestReport["encodingErrors"]> = [];
  const report: IngestReport = { counts, fileErrors: [], perFile: [], emptyFiles: [], books, encodingErrors };
  let doneBytes = 0;
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    counts.files++;
    let n = 0;
    let entries = 0;
    let skippedHere = 0;
    let truncated: PubmedWarning | null = null;
    let broke = false;
    try {
      for await (const rec of parsePubmedFile(file, {
        onWarning: (w) => {
          if (w.kind === "book") {
            counts.books++;
            books.push({ file, pmid: w.pmid });
          } else if (w.kind === "encoding") {
            encodingErrors.push({
              file,
              encoding: w.encoding ?? "UTF-8",
              invalidBytes: w.invalidBytes ?? 0,
              firstByteOffset: /^utf-?8$/i.test(w.encoding ?? "UTF-8") ? w.byteOffset : null,
              message: w.message,
            });
          } else {
            counts.warnings++;
            skippedHere++;
          }
          if (w.kind === "truncated") truncated = w;
          options.onWarning?.(w);
        },
        onProgress: (b) => options.onProgress?.({ file, bytesRead: doneBytes + b, totalBytes }),
      })) {
        if (!rec.flags.deleted) n++;
        entries++;
        countRecord(counts, rec);
        if (options.onRecord) await options.onRecord(rec);
      }
    } catch (err) {
      if (!(err instanceof PubmedFileError)) throw err;
      report.fileErrors.push({ file, recordsBefore: err.recordsBefore, message: err.message });
      broke = true;
    }
    const cut = truncated as PubmedWarning | null;
    if (!broke && cut) {
      // A plain file that ends inside a record is as broken as a truncated .gz.
      report.fileErrors.push({ file, recordsBefore: entries, message: `${file}: truncated: ends inside a record (byte offset ${cut.byteOffset}${cut.pmid ? `, PMID ${cut.pmid}` : ""})` });
      broke = true;
    }
    if (!broke && entries === 0) {
      const why = await whyNoPubmedRecords(file);
      if (why !== null || skippedHere > 0) {
        report.emptyFiles.push({ file, message: `${file}: no PubMed records (${why ?? `all ${skippedHere} entries skipped with warnings`})` });
      }
    }
    doneBytes += sizes[i];
    options.onProgress?.({ file, bytesRead: doneBytes, totalBytes });
    report.perFile.push({ file, records: n, bytes: sizes[i] });
  }
  return report;
}
