/**
 * Worker thread of {@link ./disk-parallel.ts}: opens the on-disk BM25 index named in its
 * `workerData` (its own page cache and norms) and answers each `search` message with the exact top
 * k of one slice of the index ({@link DiskBm25.searchSlice}). Holds no native resources (plain
 * file reads), so terminating it is always safe.
 *
 * Messages to the main thread: `ready` once the index is open, `hits` per search (or `error` with
 * the message of a search that threw), `fatal` when the index cannot be opened.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createAnalyzer } from "../analyzer.ts";
import { openDiskBm25, type DiskBm25Strategy, type DiskSliceHits } from "./disk-engine.ts";
import type { AnalyzerConfig } from "../analyzer.ts";

/** `workerData` of the worker. */
export interface DiskWorkerData {
  dir: string;
  /** Generation the calling thread opened: a worker that finds another (the index was updated since) refuses to start. */
  generation: number;
  pageCacheMiB: number;
  analyzerConfig: AnalyzerConfig;
  /** The calling thread's engine's strategy (same results either way; the same work per slice). */
  strategy: DiskBm25Strategy;
  /** The calling thread's engine's term-at-a-time chunk and accumulator (same results; tests vary them). */
  taatChunkDocs: number;
  taatAccumulator: "wasm" | "js";
}
/** Messages from the main thread. */
export type ToDiskWorker = { type: "search"; id: number; query: string; k: number; part: number; parts: number; shared: SharedArrayBuffer };
/** Messages to the main thread. */
export type FromDiskWorker =
  | { type: "ready" }
  | { type: "hits"; id: number; hits: DiskSliceHits; decoded: number; postings: number }
  | { type: "error"; id: number; message: string }
  | { type: "fatal"; message: string };

function main(): void {
  const port = parentPort;
  if (!port) throw new Error("disk-parallel-worker.ts must run in a worker thread");
  const post = (m: FromDiskWorker) => port.postMessage(m);
  const data = workerData as DiskWorkerData;
  let engine: ReturnType<typeof openDiskBm25>;
  try {
    engine = openDiskBm25(data.dir, {
      pageCacheMiB: data.pageCacheMiB,
      analyzer: createAnalyzer(data.analyzerConfig),
      strategy: data.strategy,
      taatChunkDocs: data.taatChunkDocs,
      taatAccumulator: data.taatAccumulator,
    });
    if (engine.info.generation !== data.generation) {
      engine.close();
      throw new Error(
        `the index in ${data.dir} changed since it was opened (generation ${data.generation} → ${engine.info.generation}); reopen the retriever to search the new version on several threads`,
      );
    }
  } catch (e) {
    post({ type: "fatal", message: (e as Error).message });
    return;
  }
  port.on("message", (m: ToDiskWorker) => {
    try {
      const hits = engine.searchSlice(m.query, m.k, m.part, m.parts, m.shared);
      post({ type: "hits", id: m.id, hits, decoded: engine.lastStats.decoded, postings: engine.lastStats.postings });
    } catch (e) {
      post({ type: "error", id: m.id, message: (e as Error).message });
    }
  });
  post({ type: "ready" });
}

main();
