/**
 * Streaming JSON Lines: read one record per line (optionally zod-validated), write records one per
 * line. `.gz` paths are (de)compressed on the fly. A malformed line (bad JSON or failing the
 * schema) is skipped and reported with `file:line`; blank lines are ignored.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { createGunzip, createGzip } from "node:zlib";
import { gzipReadPosition } from "./gzip-read-error.ts";
import type { Writable } from "node:stream";
import type { ZodType } from "zod";

/**
 * Every problem of a failed zod validation of one record, `field: message` joined by "; " (the
 * record's root is `(root)`, e.g. for unknown keys), so a skipped line is labelled by all its
 * problems rather than the first; "schema mismatch" when zod gave none.
 */
export function zodIssuesText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  if (!issues.length) return "schema mismatch";
  return issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** A skipped line. */
export interface JsonlWarning {
  file: string;
  /** 1-based line number. */
  line: number;
  message: string;
}

/** Counters filled while reading (pass an object to observe them). */
export interface JsonlStats {
  lines: number;
  records: number;
  skipped: number;
}

/** Options of {@link readJsonl}. */
export interface ReadJsonlOptions<T> {
  /** Validate (and transform) each record; a failing line is skipped. */
  schema?: ZodType<T>;
  onWarning?: (warning: JsonlWarning) => void;
  /** Mutated as lines are read. */
  stats?: JsonlStats;
}

/**
 * Read a JSONL file record by record.
 * @param path - `.jsonl` (or `.jsonl.gz`).
 * @param options - schema, warning callback, stats object.
 * @returns an async generator of records.
 * @throws Error (from the file stream) when the file cannot be read.
 */
export async function* readJsonl<T = unknown>(path: string, options: ReadJsonlOptions<T> = {}): AsyncGenerator<T> {
  const stats = options.stats ?? { lines: 0, records: 0, skipped: 0 };
  const file = createReadStream(path);
  const input = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  if (input !== file) file.on("error", (e) => input.destroy(e));
  const rl = createInterface({ input, crlfDelay: Infinity });
  let reading = true;
  try {
    for await (const line of rl) {
      reading = false;
      stats.lines++;
      if (line.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        stats.skipped++;
        options.onWarning?.({ file: path, line: stats.lines, message: `${path}:${stats.lines}: invalid JSON (${(err as Error).message})` });
        continue;
      }
      if (options.schema) {
        const parsed = options.schema.safeParse(value);
        if (!parsed.success) {
          stats.skipped++;
          options.onWarning?.({ file: path, line: stats.lines, message: `${path}:${stats.lines}: ${zodIssuesText(parsed.error.issues)}` });
          continue;
        }
        value = parsed.data;
      }
      stats.records++;
      yield value as T;
      reading = true;
    }
  } catch (err) {
    // A read error (a truncated or corrupt .gz, a folder, a vanished file) names the file, the
    // last line read and, for gzip, how far into the compressed file it got.
    if (!reading) throw err;
    const e = err as NodeJS.ErrnoException;
    if (e.syscall) {
      // An OS error names its path (reported by the CLI as such) — a read of a folder (EISDIR)
      // comes without one: it is this file.
      if (e.path === undefined) e.path = path;
      throw err;
    }
    const gz = gzipReadPosition(input !== file, file.bytesRead, e);
    throw new Error(`${path}: read failed after line ${stats.lines}${gz}: ${e.message}`, { cause: err });
  } finally {
    rl.close();
    file.destroy();
  }
}

/** An open JSONL writer (honours back-pressure). */
export interface JsonlWriter {
  write(record: unknown): Promise<void>;
  /** Flush and close; resolves with the number of records written. */
  close(): Promise<number>;
}

/**
 * Open a JSONL file for writing (truncates). `.gz` paths are gzip-compressed.
 * @param path - output file.
 */
export function createJsonlWriter(path: string): JsonlWriter {
  const file = createWriteStream(path);
  const out: Writable = path.endsWith(".gz") ? createGzip() : file;
  if (out !== file) (out as unknown as NodeJS.ReadableStream).pipe(file);
  let count = 0;
  let error: Error | null = null;
  file.on("error", (e) => (error = e));
  out.on("error", (e) => (error = e));
  return {
    async write(record) {
      if (error) throw error;
      count++;
      if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, "drain");
    },
    async close() {
      out.end();
      await once(file, "close");
      if (error) throw error;
      return count;
    },
  };
}

/**
 * Write records to a JSONL file, one per line.
 * @param path - output file (`.gz` compressed).
 * @param records - sync or async iterable.
 * @returns the number of records written.
 */
export async function writeJsonl(path: string, records: Iterable<unknown> | AsyncIterable<unknown>): Promise<number> {
  const w = createJsonlWriter(path);
  for await (const r of records as AsyncIterable<unknown>) await w.write(r);
  return w.close();
}
