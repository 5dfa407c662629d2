/**
 * Ingest one input file into row batches: hash it, stream its records through the parser
 * (`parsePubmedFile`), turn each into a store row while streaming (per-record cleaning applied,
 * `rows.ts`), write it straight into a column-wise batch (`arrow-batch.ts`) and hand full batches
 * to `append`. Memory is bounded by one batch (its encoded bytes) plus the parser's window,
 * whatever the file size. Runs inside an ingest worker thread, or in-process.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { getHeapStatistics } from "node:v8";
import { parsePubmedFile, PubmedFileError, type PubmedWarning } from "../pubmed-xml.ts";
import { recordDropReason, type DropReason } from "../clean.ts";
import { recordToRow, type ParsedCleanOptions } from "./rows.ts";
import { RowBatchBuilder } from "./arrow-batch.ts";
import type { ManifestEntry } from "./manifest.ts";
import { whyNoPubmedRecords } from "../ingest.ts";

/** Progress is reported every this many entries. */
const PROGRESS_EVERY = 2000;

/** One file to ingest. */
export interface FileJob {
  path: string;
  /** Base name (the manifest key and each row's `sourceFile`). */
  file: string;
  fileIndex: number;
  /** Parsed clean options, or null: no cleaning. */
  clean: ParsedCleanOptions;
  /**
   * Rows per append (default 16,000; the table is compacted after the build). Fewer, larger
   * appends make fewer fragments, and the final compaction cheaper: 121 k bench entries compacted
   * in ~1.0 s after 16,000-row / 16 MiB appends vs ~1.8 s after 5,000-row ones (same window).
   */
  batchRows?: number;
  /**
   * Append once the batch's record JSON reaches this many UTF-8 bytes (default 16 MiB: each
   * worker holds about three batches' bytes — its builder and two IPC buffers —, so this bounds
   * its memory; 32 MiB measured ~100 MiB more process peak RSS for no clear compaction gain).
   */
  batchChars?: number;
}

/** Result of {@link ingestFile}: the manifest entry plus the worker's peak heap. */
export interface FileResult extends ManifestEntry {
  /** Peak V8 heap used by the thread that parsed the file, sampled per batch (bytes). */
  peakHeapBytes: number;
  /** Peak memory of the thread's ArrayBuffers and other V8-external allocations (batch buffers), sampled per batch (bytes). */
  peakExternalBytes: number;
}

/** SHA-256 (hex) of a file's bytes, streamed. */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(c as Buffer);
  return h.digest("hex");
}

/**
 * Ingest one file (see the module comment). Never throws for a broken file: it gives
 * `status: "failed"` with the message (file and byte offset) when it cannot be read to its end
 * (truncated or corrupt gzip, I/O error), ends inside a record, holds bytes invalid in its encoding
 * (offset of the first; the same cases in which `corpus ingest --out` exits 1), or yields no
 * PubMed entry without being a valid empty set (JSON, another XML root, an empty file). Rows
 * already appended stay; the caller purges a failed file's rows before retrying it.
 * `PubmedBookArticle` records are skipped and counted (`books`, `bookPmids`), not failures.
 * @param job - the file and options.
 * @param append - receives each full batch (a {@link RowBatchBuilder}, `length` rows; call its
 *   `finish` to get the Arrow table), awaited (back-pressure); the builder is reset and reused
 *   once the returned promise resolves, so `append` must be done with the table by then.
 * @param onProgress - entries read and bytes read from disk so far in this file.
 * @param onWarning - each parser warning (skipped record).
 * @param reuse - a builder to fill instead of a new one when its capacity is the job's batch size
 *   (a worker keeps one across files: a new builder's ~50 MB of buffers cost ~0.2 s of page faults
 *   per file on hosts where fresh memory is expensive).
 */
export async function ingestFile(
  job: FileJob,
  append: (batch: RowBatchBuilder) => Promise<void>,
  onProgress?: (p: { entries: number; bytesRead: number }) => void,
  onWarning?: (w: PubmedWarning) => void,
  reuse?: RowBatchBuilder,
): Promise<FileResult> {
  const batchRows = job.batchRows ?? 16_000;
  const clean = job.clean;
  const batchChars = job.batchChars ?? 16 * 1024 * 1024;
  const dropped: Partial<Record<DropReason, number>> = {};
  const res: FileResult = {
    file: job.file,
    path: job.path,
    fileIndex: job.fileIndex,
    status: "done",
    sha256: "",
    bytes: 0,
    entries: 0,
    records: 0,
    deletes: 0,
    dropped,
    warnings: 0,
    books: 0,
    bookPmids: [],
    error: null,
    byteOffset: null,
    peakHeapBytes: 0,
    peakExternalBytes: 0,
  };
  const sampleHeap = () => {
    res.peakHeapBytes = Math.max(res.peakHeapBytes, getHeapStatistics().used_heap_size);
    res.peakExternalBytes = Math.max(res.peakExternalBytes, process.memoryUsage().external);
  };
  try {
    res.bytes = (await stat(job.path)).size;
  } catch (err) {
    return { ...res, status: "failed", error: `${job.path}: cannot read: ${err instanceof Error ? err.message : String(err)}`, byteOffset: 0 };
  }
  // The file's SHA-256, computed in the parser's read pass (no second read of the file); a file
  // not read to its end (parse error, I/O error) is hashed again on its own.
  const hash = createHash("sha256");
  let hashed = 0;
  const onFileChunk = (c: Buffer) => {
    hash.update(c);
    hashed += c.length;
  };
  const withSha = async (r: FileResult): Promise<FileResult> => {
    try {
      r.sha256 = hashed === res.bytes ? hash.digest("hex") : await sha256File(job.path);
    } catch (err) {
      if (r.status === "done") return { ...r, status: "failed", error: `${job.path}: cannot read: ${err instanceof Error ? err.message : String(err)}`, byteOffset: 0 };
    }
    return r;
  };
  const batch = reuse !== undefined && reuse.capacity === batchRows ? reuse : new RowBatchBuilder(batchRows);
  batch.reset();
  let bytesRead = 0;
  let truncated: PubmedWarning | null = null;
  let encoding: PubmedWarning | null = null;
  const flush = async () => {
    if (batch.length === 0) return;
    sampleHeap();
    await append(batch);
    batch.reset();
  };
  try {
    for await (const rec of parsePubmedFile(job.path, {
      onFileChunk,
      // Records the cleaning drops are yielded as their core (same drop reason, same row: see
      // `recordToRow`), their other text fields never decoded.
      screen: clean ? (core) => recordDropReason(core, clean) === null : undefined,
      onWarning: (w) => {
        if (w.kind === "truncated") truncated = w;
        else if (w.kind === "encoding") encoding = w;
        else if (w.kind === "book") {
          res.books = (res.books ?? 0) + 1;
          if (w.pmid) res.bookPmids?.push(w.pmid);
        } else res.warnings++;
        onWarning?.(w);
      },
      onProgress: (b) => {
        bytesRead = b;
      },
    })) {
      const row = recordToRow(rec, { fileIndex: job.fileIndex, seq: res.entries, sourceFile: job.file }, job.clean);
      res.entries++;
      if (row.kind === "delete") res.deletes++;
      else res.records++;
      if (row.dropReason) dropped[row.dropReason] = (dropped[row.dropReason] ?? 0) + 1;
      batch.push(row);
      if (batch.length >= batchRows || batch.textBytes >= batchChars) await flush();
      if (res.entries % PROGRESS_EVERY === 0) onProgress?.({ entries: res.entries, bytesRead });
    }
    await flush();
    sampleHeap();
  } catch (err) {
    if (!(err instanceof PubmedFileError)) throw err;
    const cut = truncated as PubmedWarning | null;
    const offset = cut ? cut.byteOffset : bytesRead;
    const where = cut ? `decompressed byte offset ${cut.byteOffset}${cut.pmid ? `, PMID ${cut.pmid}` : ""}` : `after ${bytesRead} bytes read from disk`;
    return withSha({ ...res, status: "failed", error: `${err.message} (${where})`, byteOffset: offset });
  }
  const cut = truncated as PubmedWarning | null;
  if (cut) {
    return withSha({
      ...res,
      status: "failed",
      error: `${job.path}: truncated: ends inside a record (decompressed byte offset ${cut.byteOffset}${cut.pmid ? `, PMID ${cut.pmid}` : ""})`,
      byteOffset: cut.byteOffset,
    });
  }
  const bad = encoding as PubmedWarning | null;
  if (bad) return withSha({ ...res, status: "failed", error: bad.message, byteOffset: bad.byteOffset });
  if (res.entries === 0) {
    const why = await whyNoPubmedRecords(job.path);
    if (why !== null || res.warnings > 0 || (res.books ?? 0) > 0) {
      const reason = why ?? `all ${res.warnings + (res.books ?? 0)} entries skipped with warnings`;
      return withSha({ ...res, status: "failed", error: `${job.path}: no PubMed records (${reason})`, byteOffset: null });
    }
  }
  onProgress?.({ entries: res.entries, bytesRead: res.bytes });
  return withSha(res);
}
