/**
 * Worker thread of the cell index build (results/cell-index.ts, `parallelRows`): reads and parses
 * the blocks of a results file it is sent and posts each block's rows back, then bumps the shared
 * counter the building thread waits on.
 */
import { workerData, type MessagePort } from "node:worker_threads";
import { blockRows, type BlockResult, type Prices } from "./cell-index.ts";

const { path, prices, signal, port } = workerData as { path: string; prices: Prices; signal: Int32Array; port: MessagePort };
port.on("message", (m: { block: number; from: number; to: number; exact: boolean }) => {
  let out: BlockResult;
  try {
    out = blockRows(path, prices, m.block, m.from, m.to, m.exact);
  } catch (err) {
    out = { block: m.block, rows: [], lines: 0, malformed: [], end: null, truncatedTail: false, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(out);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
