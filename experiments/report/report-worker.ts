/**
 * Worker thread of {@link writeReportBounded} (bounded.ts): writes one run folder's report
 * (`writeReport`) under the heap limit the parent gave the thread, and posts the files written, or
 * the error, to the parent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { writeReport } from "./build.ts";
import { loadScimago } from "../../corpus/datasets/scimago.ts";

const { runDir, scimago } = workerData as { runDir: string; scimago?: string };
try {
  const files = await writeReport(runDir, scimago ? { scimago: loadScimago(scimago) } : {});
  parentPort?.postMessage({ ok: true, files });
} catch (err) {
  parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
