/**
 * Worker thread of compare mode: computes one comparison (viewer/compare-compute.ts) off the
 * server's request thread and reports its counts, or the error, to the parent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { computeComparison } from "./compare-compute.ts";

const { indexA, indexB, cachePath, tmp } = workerData as { indexA: string; indexB: string; cachePath: string; tmp: string };
try {
  const counts = computeComparison(indexA, indexB, cachePath, tmp);
  parentPort?.postMessage({ ok: true, counts });
} catch (err) {
  parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
