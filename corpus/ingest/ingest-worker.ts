/**
 * Ingest worker thread: parses the files the main thread sends, one at a time ({@link ingestFile}),
 * and hands each full batch of rows to the main thread — the store's one writer — as Arrow IPC
 * file bytes in a transferred ArrayBuffer ({@link encodeBatchIpc}), which the writer appends as
 * they are and transfers back with its acknowledgement for the next batch (so a worker reuses two
 * buffers instead of touching fresh memory per batch). The worker loads apache-arrow (plain JS) but
 * not LanceDB: it holds no native resources (terminating it is always safe), and keeps parsing
 * while the writer commits its previous batch (one batch in flight per worker, so memory stays
 * bounded).
 *
 * Messages to the main thread: `ready`, `progress` (entries and bytes read in the current file),
 * `batch` (rows to append; the main thread answers `ack` once they are committed, or with the
 * error), `done` (the file's {@link FileResult}, sent only after every batch of the file is
 * acknowledged) and `fatal` (an unexpected error: the worker stops).
 */
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import { encodeBatchIpc, type RowBatchBuilder } from "./arrow-batch.ts";
import { ingestFile, type FileJob, type FileResult } from "./ingest-file.ts";

/** Messages from the main thread. */
export type ToWorker =
  /** A file to ingest; `schemaIpc`: the records table's schema as Arrow IPC stream bytes (an empty table). */
  | { type: "job"; job: FileJob; schemaIpc: Uint8Array }
  /** A batch is committed (or failed); `buffer`: the batch's ArrayBuffer given back for reuse. */
  | { type: "ack"; id: number; error: string | null; buffer?: ArrayBuffer }
  | { type: "stop" };
/** Messages to the main thread. */
export type FromWorker =
  | { type: "ready" }
  | { type: "progress"; fileIndex: number; entries: number; bytesRead: number }
  /** Rows to append: Arrow IPC file bytes, the first `length` bytes of `buffer` (transferred). */
  | { type: "batch"; fileIndex: number; id: number; rows: number; buffer: ArrayBuffer; length: number }
  | { type: "done"; result: FileResult }
  | { type: "fatal"; fileIndex: number | null; message: string };

function main(): void {
  const port = parentPort;
  if (!port) throw new Error("ingest-worker.ts must run in a worker thread");
  const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let nextId = 0;
  const arrow = createRequire(import.meta.url)("apache-arrow") as typeof import("apache-arrow");
  /** Batch buffers given back by the writer, reused for the next batches. */
  const spares: ArrayBuffer[] = [];
  /** One row builder for every file of this worker (its buffers stay warm). */
  const builder = { current: undefined as RowBatchBuilder | undefined };
  port.on("message", (msg: ToWorker) => {
    if (msg.type === "stop") {
      port.close();
      return;
    }
    if (msg.type === "ack") {
      if (msg.buffer) spares.push(msg.buffer);
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error === null) p?.resolve();
      else p?.reject(new Error(msg.error));
      return;
    }
    const job = msg.job;
    const schema = arrow.tableFromIPC(msg.schemaIpc).schema;
    // The previous batch's commit; a new batch waits for it (at most one in flight).
    let inFlight: Promise<void> = Promise.resolve();
    ingestFile(
      job,
      async (batch) => {
        const ipc = await encodeBatchIpc(arrow, schema, batch.columns(false), spares);
        const id = nextId++;
        const committed = new Promise<void>((resolve, reject) => pending.set(id, { resolve, reject }));
        const previous = inFlight;
        inFlight = committed;
        // A failed commit must not go unhandled while the next batch is parsed; it rejects `previous`/`inFlight` when awaited.
        committed.catch(() => {});
        post({ type: "batch", fileIndex: job.fileIndex, id, rows: ipc.rows, buffer: ipc.buffer, length: ipc.length }, [ipc.buffer]);
        builder.current = batch;
        await previous;
      },
      (p) => post({ type: "progress", fileIndex: job.fileIndex, ...p }),
      undefined,
      builder.current,
    )
      .then(async (result) => {
        await inFlight;
        post({ type: "done", result });
      })
      .catch((err: unknown) => post({ type: "fatal", fileIndex: job.fileIndex, message: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  });
  post({ type: "ready" });
}

main();
