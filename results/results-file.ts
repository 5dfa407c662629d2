/**
 * Results files (`results.jsonl`: one whole JSON line per finished cell) read and written as
 * streams. Every reader goes through {@link resultLines} / {@link resultRecords}: the file is read
 * in fixed-size chunks (1 MiB), split on newline bytes, and each line is handed over with its byte
 * offset and length, so no reader ever holds the whole file in one string or one array (a file of
 * 10⁶ cells is several GiB, far past V8's ~512 MiB string limit). Readers that must see every
 * record aggregate in one pass, keeping only what they need (a key → offset map, counts, a slim
 * projection of each record); a full record is fetched again by its offset when needed
 * ({@link readRecordAt}).
 *
 * Writing: the runner appends one line per record in one write ({@link ResultsWriter}, so a crash,
 * even `kill -9`, never leaves a record half in); rewrites (judge, metrics, merge) stream into a
 * temporary file that replaces the target by rename ({@link AtomicResultsWriter}).
 *
 * On open, a torn last line (a crash mid-write) is cut off and counted; malformed lines elsewhere
 * are skipped and counted with their line numbers; a line longer than {@link MAX_LINE_BYTES} is
 * skipped as malformed without being buffered whole.
 */
import { osErrorText } from "../models/config-file.ts";
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { RunRecord } from "./run-record.ts";

/** Bytes read from disk per chunk. */
export const CHUNK_BYTES = 1 << 20;

/** Longest line read as a record (64 MiB; a record is a few KB): a longer line is skipped (counted malformed) unread. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What a pass over a results file found besides its records. */
export interface ScanStats {
  /** 1-based line numbers of malformed (or over-long) lines that were skipped. */
  malformedLines: number[];
  /** True when an unterminated last line was left out. */
  truncatedTail: boolean;
  /** Byte offset just past the last complete line (= file size when the tail is whole). */
  endOffset: number;
  /** Number of complete lines read (blank ones included). */
  lines: number;
}

/** A fresh {@link ScanStats}. */
export function newScanStats(): ScanStats {
  return { malformedLines: [], truncatedTail: false, endOffset: 0, lines: 0 };
}

/** How many line numbers {@link skippedLinesText} lists before it says how many more there are. */
export const SKIPPED_LINES_LISTED = 5;

/**
 * What a pass left out of a results file, in words — `2 malformed line(s) skipped (lines 5, 9),
 * torn last line 18 left out` — listing the first {@link SKIPPED_LINES_LISTED} line numbers (in
 * file order) and how many more; null when nothing was left out.
 * @param tornLine the torn last line's 1-based number, when known (said after "torn last line").
 */
export function skippedLinesText(malformedLines: readonly number[], truncatedTail: boolean, tornLine?: number): string | null {
  const parts: string[] = [];
  if (malformedLines.length) {
    const sorted = [...malformedLines].sort((a, b) => a - b);
    const shown = sorted.slice(0, SKIPPED_LINES_LISTED).join(", ");
    const more = sorted.length > SKIPPED_LINES_LISTED ? ` and ${sorted.length - SKIPPED_LINES_LISTED} more` : "";
    parts.push(`${sorted.length} malformed line(s) skipped (line${sorted.length > 1 ? "s" : ""} ${shown}${more})`);
  }
  if (truncatedTail) parts.push(`torn last line${tornLine !== undefined ? ` ${tornLine}` : ""} left out`);
  return parts.length ? parts.join(", ") : null;
}

/** One line of a results file. */
export interface ResultLine {
  /** The line's text (UTF-8 decoded, without the newline). */
  text: string;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Length in bytes, without the newline. */
  length: number;
  /** 1-based line number. */
  line: number;
}

/** Options of {@link resultLines} and {@link resultRecords}. */
export interface ScanOptions {
  /** Byte offset to start at (a line start, e.g. the `endOffset` of an earlier scan); default 0. */
  from?: number;
  /** Line number of the line at `from` minus one (so line numbers continue); default 0. */
  linesBefore?: number;
  /** Cut a torn last line off the file so later appends stay line-aligned. */
  repair?: boolean;
  /** Chunk size in bytes (tests use small ones); default {@link CHUNK_BYTES}. */
  chunkBytes?: number;
  /** Longest line read; default {@link MAX_LINE_BYTES}. */
  maxLineBytes?: number;
}

function openForRead(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw new Error(`results file ${path}: cannot read (${osErrorText(err)})`);
  }
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw new Error(`results file ${path}: cannot read (${osErrorText(Object.assign(new Error("EISDIR"), { code: "EISDIR" }))})`);
  }
  return fd;
}

/**
 * The complete lines of a results file, one at a time, read in chunks (a missing file yields
 * nothing). `stats` is filled as the pass goes: line count, the offset past the last complete line,
 * whether a torn last line was left out (and cut off with `repair`), and lines over
 * {@link MAX_LINE_BYTES} (skipped unread, listed as malformed).
 * @throws Error naming the file when it cannot be read
 */
export function* resultLines(path: string, stats: ScanStats = newScanStats(), opts: ScanOptions = {}): Generator<ResultLine> {
  if (!existsSync(path)) return;
  const fd = openForRead(path);
  const chunk = Buffer.allocUnsafe(opts.chunkBytes ?? CHUNK_BYTES);
  let pos = opts.from ?? 0;
  let lineStart = pos;
  let lineNo = opts.linesBefore ?? 0;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let overLong = false;
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES;
  stats.endOffset = pos;
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, pos);
      } catch (err) {
        throw new Error(`results file ${path}: cannot read at byte ${pos} (${osErrorText(err)})`);
      }
      if (n === 0) break;
      let i = 0;
      while (i < n) {
        const nl = chunk.indexOf(10, i);
        if (nl === -1 || nl >= n) {
          if (!overLong) {
            if (pieceBytes + (n - i) > maxLine) {
              overLong = true;
              pieces = [];
              pieceBytes = 0;
            } else {
              pieces.push(Buffer.from(chunk.subarray(i, n)));
              pieceBytes += n - i;
            }
          }
          break;
        }
        lineNo++;
        const length = pos + nl - lineStart;
        if (overLong || pieceBytes + (nl - i) > maxLine) {
          stats.malformedLines.push(lineNo);
        } else {
          const text = pieces.length ? Buffer.concat([...pieces, chunk.subarray(i, nl)]).toString("utf8") : chunk.toString("utf8", i, nl);
          stats.lines = lineNo - (opts.linesBefore ?? 0);
          stats.endOffset = pos + nl + 1;
          yield { text, offset: lineStart, length, line: lineNo };
        }
        stats.lines = lineNo - (opts.linesBefore ?? 0);
        stats.endOffset = pos + nl + 1;
        pieces = [];
        pieceBytes = 0;
        overLong = false;
        lineStart = pos + nl + 1;
        i = nl + 1;
      }
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
  if (pos > lineStart) {
    stats.truncatedTail = true;
    if (opts.repair) truncateSync(path, lineStart);
  }
}

/** One parsed record with where its line lies in the file. */
export interface LocatedRecord {
  record: RunRecord;
  offset: number;
  length: number;
  line: number;
}

/** Parse one line as a run record; null when it is not JSON or has no string `key`. */
export function parseRecordLine(text: string): RunRecord | null {
  try {
    const r = JSON.parse(text) as RunRecord;
    return typeof r?.key === "string" ? r : null;
  } catch {
    return null;
  }
}

/**
 * The records of a results file, one at a time (see {@link resultLines}); blank lines are ignored,
 * malformed ones (not JSON, or no string `key`) skipped and listed in `stats.malformedLines`.
 * @throws Error naming the file when it cannot be read
 */
export function* resultRecords(path: string, stats: ScanStats = newScanStats(), opts: ScanOptions = {}): Generator<LocatedRecord> {
  for (const l of resultLines(path, stats, opts)) {
    if (!l.text.trim()) continue;
    const record = parseRecordLine(l.text);
    if (record) yield { record, offset: l.offset, length: l.length, line: l.line };
    else stats.malformedLines.push(l.line);
  }
}

/**
 * Read one line's text by its byte offset and length (as given by {@link resultLines}).
 * @throws Error when the file is shorter than that (it changed since it was read)
 */
export function readLineAt(fd: number, offset: number, length: number): string {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) throw new Error(`results file: no line at byte ${offset} (${length} bytes); the file changed since it was read`);
    got += n;
  }
  return buf.toString("utf8");
}

/**
 * Read one record by its byte offset and length (as given by {@link resultRecords}).
 * @param fdOrPath an open file descriptor or the file's path
 * @throws Error when the bytes there are not a run record (the file changed since it was indexed)
 */
export function readRecordAt(fdOrPath: number | string, offset: number, length: number): RunRecord {
  const fd = typeof fdOrPath === "number" ? fdOrPath : openForRead(fdOrPath);
  try {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    const r = got === length ? parseRecordLine(buf.toString("utf8")) : null;
    if (!r) throw new Error(`results file${typeof fdOrPath === "string" ? ` ${fdOrPath}` : ""}: no record at byte ${offset} (${length} bytes); the file changed since it was indexed`);
    return r;
  } finally {
    if (typeof fdOrPath !== "number") closeSync(fd);
  }
}

/** Where the latest line of one cell key lies, and that record's status. */
export interface LatestEntry {
  offset: number;
  length: number;
  status: RunRecord["status"];
}

/**
 * One pass over a results file keeping, per cell key, only where its latest record lies and that
 * record's status (a later line for the same key — e.g. a retried failure — supersedes an earlier
 * one). The map iterates keys in order of first appearance.
 * @throws Error naming the file when it cannot be read
 */
export function latestEntries(path: string, stats: ScanStats = newScanStats(), opts: ScanOptions = {}): Map<string, LatestEntry> {
  const m = new Map<string, LatestEntry>();
  for (const { record, offset, length } of resultRecords(path, stats, opts)) m.set(record.key, { offset, length, status: record.status });
  return m;
}

/**
 * The cell key of a record line without parsing it, when the line is a JSON object whose first
 * member is `"key"` with a plain string (as every writer here produces: the runner builds records
 * key first, and rewrites keep the order); null otherwise (the caller parses the line).
 */
export function leadingKey(text: string): string | null {
  if (!text.startsWith('{"key":"') || !text.endsWith("}")) return null;
  const end = text.indexOf('"', 8);
  if (end < 0) return null;
  const k = text.slice(8, end);
  return k.includes("\\") ? null : k;
}

/**
 * Where the latest line of each cell key lies, found without parsing the lines whose key can be
 * read from their start ({@link leadingKey}; others are parsed, and skipped as malformed when they
 * are not records). For readers that copy lines as they are (merge): a line with a readable key
 * is taken as a record without checking the rest of its JSON. Order: first appearance.
 * @throws Error naming the file when it cannot be read
 */
export function latestLineOffsets(path: string, stats: ScanStats = newScanStats()): Map<string, { offset: number; length: number }> {
  const m = new Map<string, { offset: number; length: number }>();
  for (const l of resultLines(path, stats)) {
    if (!l.text.trim()) continue;
    const key = leadingKey(l.text) ?? parseRecordLine(l.text)?.key;
    if (key === undefined) stats.malformedLines.push(l.line);
    else m.set(key, { offset: l.offset, length: l.length });
  }
  return m;
}

/**
 * The latest record per cell key, streamed: one pass collecting {@link latestEntries}, then the
 * latest records read back by offset, in order of each key's first appearance. Memory: the key map
 * plus one record at a time.
 * @throws Error naming the file when it cannot be read or changes during the pass
 */
export function* latestRecords(path: string, stats: ScanStats = newScanStats()): Generator<LocatedRecord> {
  const entries = latestEntries(path, stats);
  if (!entries.size) return;
  const fd = openForRead(path);
  try {
    for (const e of entries.values()) yield { record: readRecordAt(fd, e.offset, e.length), offset: e.offset, length: e.length, line: 0 };
  } finally {
    closeSync(fd);
  }
}

/** What was found when reading a whole (small) results file with {@link readResults}. */
export interface ResultsLoad {
  records: RunRecord[];
  /** 1-based line numbers of malformed lines that were skipped. */
  malformedLines: number[];
  /** True when an unterminated last line was cut off. */
  truncatedTail: boolean;
}

/**
 * Every record of a results file in one array (missing file → empty). For tests and small files
 * only: the product's readers stream ({@link resultRecords}, {@link latestRecords}).
 * @param repair when true, a torn last line is removed from the file so appends stay line-aligned.
 */
export function readResults(path: string, repair = false): ResultsLoad {
  const stats = newScanStats();
  const records: RunRecord[] = [];
  for (const r of resultRecords(path, stats, { repair })) records.push(r.record);
  return { records, malformedLines: stats.malformedLines, truncatedTail: stats.truncatedTail };
}

/**
 * The latest record per cell key of an array (a later record for the same key supersedes an
 * earlier one), in order of first appearance.
 */
export function latestByKey(records: Iterable<RunRecord>): Map<string, RunRecord> {
  const m = new Map<string, RunRecord>();
  for (const r of records) m.set(r.key, r);
  return m;
}

/** Appends records to a results file, one line per call. */
export class ResultsWriter {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }

  /** Append one record as a single write of one line. */
  append(record: RunRecord): void {
    try {
      appendFileSync(this.path, JSON.stringify(record) + "\n", "utf8");
    } catch (err) {
      throw new Error(`results file ${this.path}: cannot write (${osErrorText(err)})`);
    }
  }
}

/**
 * Writes a results file as a stream into `<path>.tmp-<pid>`, buffered in ~1 MiB writes;
 * {@link commit} replaces `path` by rename (atomic), {@link abort} removes the temporary file.
 */
export class AtomicResultsWriter {
  readonly tmp: string;
  private fd: number;
  private buf: string[] = [];
  private bufBytes = 0;
  /** Records written so far. */
  count = 0;

  /** @throws Error naming the file when the temporary file cannot be created */
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.tmp = `${path}.tmp-${process.pid}`;
    try {
      this.fd = openSync(this.tmp, "w");
    } catch (err) {
      throw new Error(`results file ${path}: cannot write (${osErrorText(err)})`);
    }
  }

  /** Write one record (one line). */
  write(record: RunRecord): void {
    this.writeLine(JSON.stringify(record));
  }

  /** Write one line as is (a record line copied from another results file). */
  writeLine(text: string): void {
    this.buf.push(text, "\n");
    this.bufBytes += text.length + 1;
    this.count++;
    if (this.bufBytes >= CHUNK_BYTES) this.flush();
  }

  /**
   * Write one line given as UTF-8 bytes without its newline (a record line copied byte for byte
   * from another results file: no decoding and re-encoding). The bytes are copied; the caller may
   * reuse its buffer.
   */
  writeLineBytes(bytes: Uint8Array): void {
    if (this.buf.length) this.flush();
    if (this.binLen + bytes.length + 1 > this.bin.length) {
      this.flushBytes();
      if (bytes.length + 1 > this.bin.length) this.bin = Buffer.allocUnsafe(bytes.length + 1);
    }
    this.bin.set(bytes, this.binLen);
    this.bin[this.binLen + bytes.length] = 10;
    this.binLen += bytes.length + 1;
    this.count++;
  }

  private bin: Buffer = Buffer.alloc(0);
  private binLen = 0;

  private flushBytes(): void {
    if (!this.binLen) {
      if (!this.bin.length) this.bin = Buffer.allocUnsafe(CHUNK_BYTES);
      return;
    }
    this.writeAll(this.bin.subarray(0, this.binLen));
    this.binLen = 0;
  }

  private writeAll(data: Uint8Array): void {
    let off = 0;
    try {
      while (off < data.length) off += writeSync(this.fd, data, off, data.length - off);
    } catch (err) {
      throw new Error(`results file ${this.path}: cannot write (${osErrorText(err)})`);
    }
  }

  private flush(): void {
    this.flushBytes();
    if (!this.buf.length) return;
    const data = Buffer.from(this.buf.join(""), "utf8");
    this.buf = [];
    this.bufBytes = 0;
    this.writeAll(data);
  }

  /** Flush, close and rename over `path`. */
  commit(): void {
    this.flush();
    closeSync(this.fd);
    renameSync(this.tmp, this.path);
  }

  /** Close and remove the temporary file (the target is left as it was). */
  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.tmp, { force: true });
  }
}

/**
 * Rewrite a results file atomically (temp file + rename) from any iterable of records, streamed.
 */
export function writeResultsAtomic(path: string, records: Iterable<RunRecord>): void {
  const w = new AtomicResultsWriter(path);
  try {
    for (const r of records) w.write(r);
  } catch (err) {
    w.abort();
    throw err;
  }
  w.commit();
}

/** Size in bytes of a results file (0 when missing). */
export function resultsFileSize(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openForRead(path);
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}
