/**
 * Moving one registered data file into place: HTTP download (with Range resume, retries with
 * backoff, an idle timeout) or a copy from a local mirror folder, always into `<dest>.part` first,
 * then sha256-verified and renamed onto `<dest>` — a file under its final name is always whole and
 * verified. Uses Node's built-in fetch; no dependency.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { copyFile, open, rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";

/** What the file must be: its registry path, dataset, byte size and sha256. */
export interface ExpectedFile {
  /** Registry path, e.g. "pubmedqa/ori_pqal.json" (used in messages). */
  path: string;
  /** Download dataset the file belongs to (used in messages). */
  dataset: string;
  bytes: number;
  sha256: string;
}

/** Knobs of one transfer. */
export interface TransferOptions {
  /** Attempts after the first for retryable failures (network error, timeout, HTTP 408/429/5xx). Default 3. */
  retries?: number;
  /** Wait before the first retry in ms; doubles each retry (a Retry-After header wins, capped at 30 s). Default 500. */
  backoffMs?: number;
  /** An attempt is aborted when no byte arrives for this long (ms), headers included. Default 30,000. */
  timeoutMs?: number;
  /** Called as bytes arrive: (bytes of the file so far, expected total). */
  onProgress?: (done: number, total: number) => void;
}

/** Outcome of a successful transfer. */
export interface TransferResult {
  /** Bytes of the finished file. */
  bytes: number;
  /** Bytes already in `<dest>.part` that the last attempt resumed after (0 = from the start). */
  resumedFrom: number;
  /** Requests made (1 = no retry). */
  attempts: number;
}

/** Checksum mismatch after a complete transfer; the partial file has been deleted. */
export class ChecksumMismatchError extends Error {
  constructor(
    readonly file: ExpectedFile,
    readonly actual: string,
    readonly from: string,
  ) {
    // The copy made in the cache is discarded; a local mirror's file itself is never touched.
    const local = !/^https?:\/\//i.test(from);
    super(
      `dataset "${file.dataset}": ${file.path} from ${from} failed its checksum: expected sha256 ${file.sha256}, got ${actual}; ${local ? "not copied into the cache (the mirror's file is left as it is; replace it with a good copy)" : "the downloaded copy was deleted"}`,
    );
    this.name = "ChecksumMismatchError";
  }
}

/** The cache folder cannot be created or written (read-only, full disk, not a folder). */
export class CacheWriteError extends Error {
  constructor(
    readonly folder: string,
    cause: NodeJS.ErrnoException,
  ) {
    super(`cannot write to the data cache folder ${folder}: ${cause.code ?? ""} ${cause.message} (set MEDSYNTH_DATA_DIR to a writable folder)`.replace(/\s+/g, " "));
    this.name = "CacheWriteError";
  }
}

/** A transfer that failed for good (after retries where retrying made sense). */
export class TransferError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "TransferError";
  }
}

const WRITE_CODES = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EEXIST", "EISDIR"]);

function asWriteError(folder: string, e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === "string" && WRITE_CODES.has(err.code)) throw new CacheWriteError(folder, err);
  throw e;
}

/** Create a folder (and parents), turning permission / space / not-a-folder failures into {@link CacheWriteError}. */
export function ensureWritableFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    if (!statSync(folder).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
  } catch (e) {
    asWriteError(folder, e);
  }
}

/** sha256 (hex) of a file's bytes, read at once (registry files are a few MB at most). */
export function sha256FileSync(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** sha256 (hex) of a file's bytes, streamed. */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function partSize(part: string): number {
  return existsSync(part) ? statSync(part).size : 0;
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** Verify `<dest>.part` and rename it onto `dest`; on mismatch delete it and throw. */
async function finish(part: string, dest: string, file: ExpectedFile, from: string): Promise<number> {
  const size = (await stat(part)).size;
  const actual = await sha256File(part);
  if (actual !== file.sha256 || size !== file.bytes) {
    await removeQuietly(part);
    throw new ChecksumMismatchError(file, actual, from);
  }
  try {
    await rename(part, dest);
  } catch (e) {
    asWriteError(dirname(dest), e);
  }
  return size;
}

function retryAfterMs(h: string | null): number | null {
  if (!h) return null;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return Math.min(s * 1000, 30_000);
  const t = Date.parse(h);
  return Number.isNaN(t) ? null : Math.min(Math.max(0, t - Date.now()), 30_000);
}

/** One HTTP attempt: (re)start or resume `part` from `url`. Throws TransferError / CacheWriteError. */
async function attemptHttp(url: string, part: string, file: ExpectedFile, opts: Required<Pick<TransferOptions, "timeoutMs">> & TransferOptions): Promise<number> {
  let start = partSize(part);
  if (start >= file.bytes) {
    // a leftover as long as the whole file: start again (finish() would have caught a good one)
    await removeQuietly(part);
    start = 0;
  }
  const ac = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, opts.timeoutMs);
  };
  arm();
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers: start > 0 ? { Range: `bytes=${start}-` } : {}, signal: ac.signal, redirect: "follow" });
    } catch (e) {
      throw new TransferError(timedOut ? `no response within ${opts.timeoutMs} ms` : `request failed: ${describeFetchError(e)}`, true);
    }
    if (res.status === 416) {
      await res.body?.cancel().catch(() => undefined);
      await removeQuietly(part);
      throw new TransferError("HTTP 416 (range not satisfiable); restarting", true);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      throw new TransferError(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`, retryable, res.status, retryAfterMs(res.headers.get("retry-after")));
    }
    let append = false;
    if (res.status === 206) {
      const m = /^bytes (\d+)-/.exec(res.headers.get("content-range") ?? "");
      if (!m || Number(m[1]) !== start) {
        await res.body?.cancel().catch(() => undefined);
        await removeQuietly(part);
        throw new TransferError(`server answered a range other than the one asked (${res.headers.get("content-range") ?? "no Content-Range"}); restarting`, true);
      }
      append = true;
    } else {
      start = 0; // 200: the server sent the whole file, so restart
    }
    let fh;
    try {
      fh = await open(part, append ? "a" : "w");
    } catch (e) {
      asWriteError(dirname(part), e);
    }
    let done = start;
    try {
      if (res.body) {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          arm();
          try {
            await fh.write(chunk);
          } catch (e) {
            asWriteError(dirname(part), e);
          }
          done += chunk.byteLength;
          opts.onProgress?.(done, file.bytes);
          if (done > file.bytes) break;
        }
      }
    } catch (e) {
      if (e instanceof CacheWriteError) throw e;
      throw new TransferError(
        timedOut ? `no data for ${opts.timeoutMs} ms (stalled at ${done} of ${file.bytes} bytes)` : `transfer broke off at ${done} of ${file.bytes} bytes: ${describeFetchError(e)}`,
        true,
      );
    } finally {
      await fh.close();
    }
    if (done < file.bytes) throw new TransferError(`transfer ended early at ${done} of ${file.bytes} bytes`, true);
    return start;
  } finally {
    clearTimeout(timer);
  }
}

function describeFetchError(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `${err?.message ?? String(e)}${cause ? ` (${cause})` : ""}`;
}

/**
 * Download `url` to `dest` via `<dest>.part`: resumes a partial `.part` with an HTTP Range request
 * (restarts when the server ignores the range), retries network errors, timeouts and HTTP
 * 408/429/5xx with exponential backoff, then verifies size and sha256 and renames.
 * @returns bytes, the offset the successful attempt resumed from, and the number of requests.
 * @throws ChecksumMismatchError (file deleted, no retry); CacheWriteError naming the folder;
 *   TransferError "HTTP 404 …" (not retried) or "… after N attempts" once retries are spent.
 */
export async function downloadFile(url: string, dest: string, file: ExpectedFile, options: TransferOptions = {}): Promise<TransferResult> {
  const opts = { retries: 3, backoffMs: 500, timeoutMs: 30_000, ...options };
  ensureWritableFolder(dirname(dest));
  const part = `${dest}.part`;
  for (let attempt = 1; ; attempt++) {
    try {
      const resumedFrom = await attemptHttp(url, part, file, opts);
      const bytes = await finish(part, dest, file, url);
      return { bytes, resumedFrom, attempts: attempt };
    } catch (e) {
      if (!(e instanceof TransferError)) throw e;
      if (!e.retryable) throw new TransferError(`${url}: ${e.message}`, false, e.status);
      if (attempt > opts.retries) throw new TransferError(`${url}: ${e.message} (gave up after ${attempt} attempts)`, false, e.status);
      await sleep(e.retryAfterMs ?? opts.backoffMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * Copy a file from a local mirror folder to `dest` via `<dest>.part`, then verify and rename.
 * @throws TransferError when the source is missing; ChecksumMismatchError; CacheWriteError.
 */
export async function copyLocalFile(src: string, dest: string, file: ExpectedFile, options: TransferOptions = {}): Promise<TransferResult> {
  if (!existsSync(src)) throw new TransferError(`${src}: no such file`, false);
  ensureWritableFolder(dirname(dest));
  const part = `${dest}.part`;
  try {
    await copyFile(src, part);
  } catch (e) {
    asWriteError(dirname(dest), e);
  }
  options.onProgress?.(file.bytes, file.bytes);
  const bytes = await finish(part, dest, file, src);
  return { bytes, resumedFrom: 0, attempts: 1 };
}

/** Delete a file if present (sync); true when something was deleted. */
export function deleteIfPresent(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}
