/**
 * Ingest worker thread: connects to the store once, then ingests the files the main thread sends,
 * one at a time ({@link ingestFile}), appending each batch of rows to the `records` table itself
 * (LanceDB commits concurrent appends from several writers safely). Messages to the main thread:
 * `progress` (entries and bytes read in the current file), `batch` (rows committed), `done`
 * (the file's {@link FileResult}) and `fatal` (an unexpected error: the worker stops).
 */
import { parentPort, workerData } from "node:worker_threads";
import { connectStore, loadArrow, loadLancedb, recordsSchema, STORE_TABLES, type StoreLocation } from "../store/lance-store.ts";
import { ingestFile, type FileJob, type FileResult } from "./ingest-file.ts";

/** Data the main thread gives a worker at start. */
export interface WorkerInit {
  store: StoreLocation;
}

/** Messages from the main thread. */
export type ToWorker = { type: "job"; job: FileJob } | { type: "stop" };
/** Messages to the main thread. */
export type FromWorker =
  | { type: "ready" }
  | { type: "progress"; fileIndex: number; entries: number; bytesRead: number }
  | { type: "batch"; fileIndex: number; rows: number }
  | { type: "done"; result: FileResult }
  | { type: "fatal"; fileIndex: number | null; message: string };

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("ingest-worker.ts must run in a worker thread");
  const init = workerData as WorkerInit;
  const post = (m: FromWorker) => port.postMessage(m);
  await loadLancedb();
  const arrow = loadArrow();
  const db = await connectStore(init.store);
  const table = await db.openTable(STORE_TABLES.records);
  const schema = await recordsSchema();
  port.on("message", (msg: ToWorker) => {
    if (msg.type === "stop") {
      port.close();
      return;
    }
    const job = msg.job;
    ingestFile(
      job,
      async (batch) => {
        const rows = batch.length;
        await table.add(batch.finish(arrow, schema));
        post({ type: "batch", fileIndex: job.fileIndex, rows });
      },
      (p) => post({ type: "progress", fileIndex: job.fileIndex, ...p }),
    ).then(
      (result) => post({ type: "done", result }),
      (err: unknown) => post({ type: "fatal", fileIndex: job.fileIndex, message: err instanceof Error ? err.stack ?? err.message : String(err) }),
    );
  });
  post({ type: "ready" });
}

await main();
