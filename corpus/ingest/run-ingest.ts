/**
 * Streaming, parallel, resumable ingest of PubMed baseline/update files into a Lance corpus store.
 *
 * Steps ({@link ingestToStore}):
 * 1. `openForIngest` — connect, check or record the cleaning options (a store built with other
 *    options is refused, naming the difference), create the tables.
 * 2. `planFiles` — merge the inputs with the manifest: files already done are skipped; new files
 *    get the next file indexes in sorted-path order (PubMed's file names sort in release order);
 *    a new file that sorts before a file already done is refused (updates apply in order).
 * 3. `purgeUnfinished` — delete the rows of files not done (in flight when a previous ingest was
 *    killed, or failed), so retrying them cannot duplicate rows.
 * 4. `runPool` — worker threads (`--jobs`, default = cores) parse, one file per worker at a time,
 *    and send their rows in large batches — Arrow IPC file bytes in a transferred, recycled buffer
 *    (`arrow-batch.ts`) — to the main thread, the one writer, which appends each batch (one commit)
 *    without converting it (`store/lance-append.ts`); a file's manifest entry is written once its
 *    rows are committed. A broken file is marked failed (message with byte offset) and the others
 *    go on. Workers never load LanceDB.
 * 5. `finalizeStore` — only when every file is done: update semantics, de-duplication, compaction.
 *
 * Killed at any point (`kill -9`), a re-run loses only the files that were in flight: their rows
 * are purged and the files re-read; every table write is one LanceDB commit.
 *
 * Profiling: the report's `phaseSeconds` gives each phase's wall seconds; with the environment
 * variable `MEDSYNTH_INGEST_TRACE=1` the main thread also prints its memory (RSS, V8 heap,
 * external, ArrayBuffers; MiB) every second and each phase's end to stderr.
 */
import { availableParallelism } from "node:os";
import { basename, resolve } from "node:path";
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import type * as LanceDb from "@lancedb/lancedb";
import { CleanOptionsSchema, type CleanOptions, type UpdateReport } from "../clean.ts";
import { expandPubmedInputs } from "../ingest.ts";
import {
  connectStore,
  describeCleanDifference,
  loadArrow,
  readStoreMeta,
  recordsSchema,
  STORE_FORMAT,
  STORE_TABLES,
  writeStoreMeta,
  type StoreCompression,
  type StoreLocation,
  type StoreMeta,
} from "../store/lance-store.ts";
import { deleteManifestEntries, readManifest, writeManifestEntries, type ManifestEntry } from "./manifest.ts";
import { finalizeStore } from "./finalize.ts";
import { storeCompactionDiskWarning } from "./disk-check.ts";
import type { FileJob, FileResult } from "./ingest-file.ts";
import type { FromWorker, ToWorker } from "./ingest-worker.ts";
import { ipcAppender } from "../store/lance-append.ts";
import type { ParsedCleanOptions } from "./rows.ts";
import { removeOrphanTempFiles, withStoreWriterLock } from "../store/writer-lock.ts";

/** Progress of a running ingest (for a progress bar). */
export interface IngestProgress {
  filesDone: number;
  filesTotal: number;
  /** Entries read in this run (records + deletions). */
  entries: number;
  /** Bytes of input read in this run, and the total of this run's files. */
  bytesRead: number;
  bytesTotal: number;
  /** Seconds since the pool started. */
  seconds: number;
}

/** Options of {@link ingestToStore}. */
export interface IngestToStoreOptions {
  store: StoreLocation;
  /** Cleaning options (MedConclusion §3.1.1), or null/undefined: no cleaning. */
  clean?: CleanOptions | null;
  /** Worker threads (default: available cores). */
  jobs?: number;
  /** Page compression of the `records` table when this run creates it (default `none`; an existing table keeps its own). */
  compression?: StoreCompression;
  /** Rows per append at most (default: `ingest-file.ts`'s). */
  batchRows?: number;
  /** Append once a batch's record JSON reaches this many UTF-8 bytes (default: `ingest-file.ts`'s). */
  batchChars?: number;
  /** Skip the finalisation (tests and benches that time the pool alone). */
  skipFinalize?: boolean;
  /**
   * Seconds during which superseded table versions are kept after finalisation (default 0: only
   * the final version remains; see `cleanupOldVersions` in corpus/store/lance-store.ts).
   */
  versionRetentionSeconds?: number;
  /** @internal test hook: the row keys × fragments budget of finalisation's deletes (`DELETE_FILTER_BUDGET` in finalize.ts; a tiny one forces the compact-first path on small stores). */
  deleteFilterBudget?: number;
  onProgress?: (p: IngestProgress) => void;
  /** A worker committed `rows` rows of file `fileIndex`. */
  onBatch?: (b: { fileIndex: number; rows: number }) => void;
  /** A file finished (done or failed). */
  onFile?: (r: FileResult) => void;
  log?: (line: string) => void;
}

/** Result of {@link ingestToStore}. */
export interface IngestToStoreReport {
  /** Files processed in this run (done or failed), in file order. */
  processed: FileResult[];
  /** Files skipped because the manifest marks them done. */
  skipped: string[];
  /** Files that failed in this run. */
  failed: FileResult[];
  /** The store's metadata after the run (finalised only when no file is pending or failed). */
  meta: StoreMeta;
  /** The whole manifest after the run. */
  manifest: ManifestEntry[];
  /** Peak V8 heap of any worker while parsing (bytes). */
  peakWorkerHeapBytes: number;
  /** Peak external (ArrayBuffer, batch buffer) memory of any worker (bytes). */
  peakWorkerExternalBytes: number;
  /** Bytes of the typed arrays the finalisation's update/de-duplication pass used (0 when not finalised in this run). */
  finalizeKeyBytes: number;
  /** What the update semantics did in this run's finalisation, PMIDs named (null when not finalised in this run). */
  updates: UpdateReport | null;
  /** Wall seconds per phase of this run, in order ("open", "plan", "pool", "finalize: …"); for benches and profiles. */
  phaseSeconds: Record<string, number>;
}

/**
 * Lance reader/writer settings for an ingest, set (unless already in the environment) before
 * LanceDB first reads them: the finalisation's compaction reads at most 2 fragments ahead (Lance's
 * default read-ahead let the compaction's input pile up in memory: +430 MiB of native memory while
 * compacting 484 k entries, +190 MiB with these settings) and flushes 8 MiB pages.
 */
function setLanceEnvironment(): void {
  process.env.LANCE_DEFAULT_FRAGMENT_READAHEAD ??= "2";
  process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES ??= String(8 * 1024 * 1024);
}

/** Step 1: connect, check or record cleaning options, create tables. */
async function openForIngest(store: StoreLocation, clean: ParsedCleanOptions, compression: StoreCompression): Promise<{ db: LanceDb.Connection; meta: StoreMeta }> {
  const db = await connectStore(store);
  let meta = await readStoreMeta(db);
  const wanted = clean as Record<string, unknown> | null;
  if (meta) {
    const diff = describeCleanDifference(meta.clean, wanted);
    if (diff) throw new Error(`${store.uri}: this corpus store was built with other cleaning options (${diff}); use the same options or another --store`);
  } else {
    meta = { format: STORE_FORMAT, clean: wanted, finalized: false, counts: null };
    await writeStoreMeta(db, meta);
  }
  if (!(await db.tableNames()).includes(STORE_TABLES.records)) await db.createEmptyTable(STORE_TABLES.records, await recordsSchema(compression));
  return { db, meta };
}

interface Plan {
  pending: FileJob[];
  skipped: string[];
  /** Failed entries of files not among this run's inputs (forgotten). */
  forgotten: ManifestEntry[];
}

/** Step 2: which files to process and their indexes. */
async function planFiles(files: string[], manifest: ManifestEntry[], clean: ParsedCleanOptions, batch: { batchRows?: number; batchChars?: number }): Promise<Plan> {
  const byName = new Map(manifest.map((e) => [e.file, e]));
  const seen = new Set<string>();
  const pending: FileJob[] = [];
  const skipped: string[] = [];
  let nextIndex = manifest.reduce((m, e) => Math.max(m, e.fileIndex + 1), 0);
  const lastDone = manifest.filter((e) => e.status === "done").at(-1);
  for (const path of files) {
    const file = basename(path);
    if (seen.has(file)) throw new Error(`two inputs share the file name ${file}; file names identify files in the manifest`);
    seen.add(file);
    const entry = byName.get(file);
    if (entry?.status === "done") {
      const size = (await stat(path)).size;
      if (size !== entry.bytes)
        throw new Error(
          `${path}: the store already holds a file named ${file} (${entry.bytes} bytes, sha256 ${entry.sha256}) and this one has ${size} bytes: the store knows its input files by name, as PubMed names its baseline and update files. If this is another file, give it a new name that sorts after ${lastDone?.file ?? file}; if it is that file changed, ingest into a new --store`,
        );
      skipped.push(file);
      continue;
    }
    let fileIndex = entry?.fileIndex;
    if (fileIndex === undefined) {
      if (lastDone && file < lastDone.file)
        throw new Error(`${path} sorts before ${lastDone.file}, already ingested: PubMed files apply in order, so a new file must come after the store's last file (use a new --store)`);
      fileIndex = nextIndex++;
    }
    pending.push({ path: resolve(path), file, fileIndex, clean, batchRows: batch.batchRows, batchChars: batch.batchChars });
  }
  pending.sort((a, b) => a.fileIndex - b.fileIndex);
  const forgotten = manifest.filter((e) => e.status === "failed" && !seen.has(e.file));
  return { pending, skipped, forgotten };
}

/**
 * Manifest entries for this run's new files, written before any of them is processed: each keeps
 * its `fileIndex` (its place in PubMed's update order) if the run is killed, so a re-run retries it
 * at that place — workers finish files out of order, and a file left without an entry would
 * otherwise sort before a later file already done (refused) or take a later index. Status
 * `failed` (not finished) until its result replaces it.
 * @param pending - this run's files to process; @param sizes - their sizes (bytes), same order;
 * @param known - base names that already have an entry (kept as they are).
 */
function unfinishedEntries(pending: readonly FileJob[], sizes: readonly number[], known: ReadonlySet<string>): ManifestEntry[] {
  return pending.flatMap((j, i) =>
    known.has(j.file)
      ? []
      : [
          {
            file: j.file,
            path: j.path,
            fileIndex: j.fileIndex,
            status: "failed" as const,
            sha256: "",
            bytes: sizes[i],
            entries: 0,
            records: 0,
            deletes: 0,
            dropped: {},
            warnings: 0,
            books: 0,
            bookPmids: [],
            error: `${j.path}: not finished (the ingest stopped before this file was done)`,
            byteOffset: null,
          },
        ],
  );
}

/** Step 3: delete rows of files not done. */
async function purgeUnfinished(db: LanceDb.Connection, fileIndexes: number[]): Promise<void> {
  if (fileIndexes.length === 0) return;
  const table = await db.openTable(STORE_TABLES.records);
  await table.delete(`fileIndex IN (${fileIndexes.join(", ")})`);
}

/**
 * The worker's entry file: the compiled `ingest-worker.js` next to this module in dist/, or — when
 * running the TypeScript sources — `worker-entry.mjs`, which registers tsx in the worker thread.
 */
function workerUrl(): URL {
  return import.meta.url.endsWith(".js") ? new URL("./ingest-worker.js", import.meta.url) : new URL("./worker-entry.mjs", import.meta.url);
}

/**
 * Step 4: the worker pool. Workers parse; this thread is the one writer: it appends each batch a
 * worker sends (one LanceDB commit per batch; commits from different workers may overlap) and
 * acknowledges it. Resolves with every file's result in completion order.
 */
async function runPool(db: LanceDb.Connection, jobs: FileJob[], options: IngestToStoreOptions, bytesTotal: number): Promise<FileResult[]> {
  const n = Math.max(1, Math.min(options.jobs ?? availableParallelism(), jobs.length));
  const table = await db.openTable(STORE_TABLES.records);
  const arrow = loadArrow();
  // The table's own schema (its field metadata — page compression — included), for the workers'
  // IPC bytes; appended through LanceDB's native add when possible (`lance-append.ts`).
  const schema = (await table.schema()) as unknown as Awaited<ReturnType<typeof recordsSchema>>;
  const schemaIpc = arrow.tableToIPC(new arrow.Table(schema), "stream");
  const append = ipcAppender(table);
  const queue = [...jobs];
  const results: FileResult[] = [];
  const t0 = performance.now();
  const live = new Map<number, { entries: number; bytesRead: number }>();
  let doneEntries = 0;
  let doneBytes = 0;
  const progress = () => {
    let entries = doneEntries;
    let bytesRead = doneBytes;
    for (const p of live.values()) {
      entries += p.entries;
      bytesRead += p.bytesRead;
    }
    options.onProgress?.({ filesDone: results.length, filesTotal: jobs.length, entries, bytesRead, bytesTotal, seconds: (performance.now() - t0) / 1000 });
  };
  let manifestWrites = Promise.resolve();
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolveWorker, rejectWorker) => {
          const worker = new Worker(workerUrl());
          let current: FileJob | null = null;
          const next = () => {
            current = queue.shift() ?? null;
            if (current) worker.postMessage({ type: "job", job: current, schemaIpc } satisfies ToWorker);
            // Every batch is committed (by this thread) before "done"; the worker holds nothing else.
            else void worker.terminate();
          };
          worker.on("message", (msg: FromWorker) => {
            if (msg.type === "ready") next();
            else if (msg.type === "progress") {
              live.set(msg.fileIndex, { entries: msg.entries, bytesRead: msg.bytesRead });
              progress();
            } else if (msg.type === "batch") {
              const rows = msg.rows;
              // The buffer goes back to the worker (for its next batch) only once the append is over.
              append(Buffer.from(msg.buffer, 0, msg.length)).then(
                () => {
                  worker.postMessage({ type: "ack", id: msg.id, error: null, buffer: msg.buffer } satisfies ToWorker, [msg.buffer]);
                  options.onBatch?.({ fileIndex: msg.fileIndex, rows });
                },
                (err: unknown) =>
                  worker.postMessage({
                    type: "ack",
                    id: msg.id,
                    error: `appending ${rows} rows of file #${msg.fileIndex} to the store: ${err instanceof Error ? err.message : String(err)}`,
                  } satisfies ToWorker),
              );
            } else if (msg.type === "done") {
              const r = msg.result;
              live.delete(r.fileIndex);
              doneEntries += r.entries;
              doneBytes += r.bytes;
              results.push(r);
              const { peakHeapBytes: _heap, peakExternalBytes: _ext, ...entry } = r;
              manifestWrites = manifestWrites.then(() => writeManifestEntries(db, [entry])).then(() => options.onFile?.(r));
              manifestWrites.then(next, (err: unknown) => {
                worker.terminate();
                rejectWorker(err);
              });
              progress();
            } else if (msg.type === "fatal") {
              worker.terminate();
              rejectWorker(new Error(`ingest worker failed on file #${msg.fileIndex}: ${msg.message}`));
            }
          });
          worker.on("error", (err) => rejectWorker(new Error(`ingest worker crashed${current ? ` on ${current.path}` : ""}: ${err.message}`)));
          worker.on("exit", () => resolveWorker());
        }),
    ),
  );
  await manifestWrites;
  return results;
}

/**
 * Ingest files/folders of PubMed XML into a Lance corpus store (see the module comment).
 * @param inputs - `.xml` / `.xml.gz` files and folders (searched recursively, sorted by path).
 * @param options - store location, cleaning, jobs, callbacks.
 * @returns what was processed, skipped and failed, and the store's metadata.
 * @throws Error when an input does not exist, the store was built with other cleaning options, or
 *   a new file sorts before an ingested one; a broken file never throws (see `failed`).
 */
export async function ingestToStore(inputs: readonly string[], options: IngestToStoreOptions): Promise<IngestToStoreReport> {
  const log = options.log ?? (() => {});
  const files = await expandPubmedInputs(inputs);
  return withStoreWriterLock(
    options.store.uri,
    log,
    async () => {
      const swept = removeOrphanTempFiles(options.store.uri);
      if (swept.files)
        log(`removed ${swept.files} temporary file(s) (${swept.bytes >= 2 ** 20 ? `${(swept.bytes / 2 ** 20).toFixed(1)} MiB` : `${swept.bytes} bytes`}) left in the store by an interrupted write`);
      return ingestLocked(files, options, log);
    },
    true,
  );
}

/** {@link ingestToStore}'s work, as the store's only writer. */
async function ingestLocked(files: string[], options: IngestToStoreOptions, log: (line: string) => void): Promise<IngestToStoreReport> {
  const phaseSeconds: Record<string, number> = {};
  let t = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phaseSeconds[name] = (phaseSeconds[name] ?? 0) + (now - t) / 1000;
    t = now;
    if (trace) process.stderr.write(`TRACE phase ${name} done\n`);
  };
  const trace = process.env.MEDSYNTH_INGEST_TRACE
    ? setInterval(() => {
        const m = process.memoryUsage();
        const mb = (b: number) => (b / 1048576).toFixed(0);
        process.stderr.write(`TRACE ${(performance.now() / 1000).toFixed(1)} rss ${mb(m.rss)} heap ${mb(m.heapUsed)} ext ${mb(m.external)} ab ${mb(m.arrayBuffers)}\n`);
      }, 1000)
    : null;
  trace?.unref();
  const clean: ParsedCleanOptions = options.clean === null || options.clean === undefined ? null : CleanOptionsSchema.parse(options.clean);
  setLanceEnvironment();
  const { db, meta } = await openForIngest(options.store, clean, options.compression ?? "none");
  phase("open");
  const manifest = await readManifest(db);
  const plan = await planFiles(files, manifest, clean, { batchRows: options.batchRows, batchChars: options.batchChars });
  if (plan.forgotten.length) {
    log(`forgetting ${plan.forgotten.length} failed file(s) not among this run's inputs: ${plan.forgotten.map((e) => e.file).join(", ")}`);
    await deleteManifestEntries(
      db,
      plan.forgotten.map((e) => e.file),
    );
  }
  const unfinished = [...plan.pending.map((j) => j.fileIndex), ...plan.forgotten.map((e) => e.fileIndex)];
  await purgeUnfinished(db, unfinished);
  if (plan.pending.length && meta.finalized) await writeStoreMeta(db, { ...meta, finalized: false });
  const sizes = await Promise.all(plan.pending.map(async (j) => (await stat(j.path)).size));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  await writeManifestEntries(db, unfinishedEntries(plan.pending, sizes, new Set(manifest.map((e) => e.file))));
  phase("plan");
  const processed = plan.pending.length ? await runPool(db, plan.pending, options, bytesTotal) : [];
  phase("pool");
  processed.sort((a, b) => a.fileIndex - b.fileIndex);
  const failed = processed.filter((r) => r.status === "failed");
  const after = await readManifest(db);
  let metaAfter: StoreMeta = (await readStoreMeta(db)) ?? meta;
  const allDone = after.every((e) => e.status === "done");
  let finalizeKeyBytes = 0;
  let updates: UpdateReport | null = null;
  if (allDone && !options.skipFinalize && (!metaAfter.finalized || processed.length > 0)) {
    phase("manifest");
    const short = storeCompactionDiskWarning(options.store.uri);
    if (short) log(short);
    metaAfter = await finalizeStore(
      db,
      metaAfter,
      (b) => (finalizeKeyBytes = b),
      (name, s) => {
        phaseSeconds[name] = s;
        if (trace) process.stderr.write(`TRACE phase ${name} done\n`);
      },
      (u) => (updates = u),
      options.versionRetentionSeconds ?? 0,
      options.deleteFilterBudget,
    );
    t = performance.now();
  }
  if (trace) clearInterval(trace);
  return {
    processed,
    skipped: plan.skipped,
    failed,
    meta: metaAfter,
    manifest: after,
    finalizeKeyBytes,
    phaseSeconds,
    updates,
    peakWorkerHeapBytes: Math.max(0, ...processed.map((r) => r.peakHeapBytes)),
    peakWorkerExternalBytes: Math.max(0, ...processed.map((r) => r.peakExternalBytes)),
  };
}
