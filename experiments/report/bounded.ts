/**
 * `medsynth report` with a bounded heap: the report is written in a worker thread whose V8 old
 * generation is capped ({@link reportHeapLimitMb}), so the process's peak memory stays near the
 * report's live data instead of growing with garbage V8 has not yet collected. Without a cap, V8
 * lets the heap grow to a few times the live data on a machine with much memory (measured at 10⁶
 * demo-like cells: ~1 GB live, 2.3–2.7 GB peak RSS); with it, it collects sooner (more GC time).
 * See docs/results-at-scale.md ("Memory").
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { writeReport, type ReportFiles } from "./build.ts";
import { loadScimago } from "../../corpus/datasets/scimago.ts";

/** Results files below this size are reported in the calling thread, without a cap (bytes; 256 MiB ≈ 48,000 demo-like cells). */
export const BOUNDED_MIN_BYTES = 256 * 2 ** 20;

/** Smallest heap cap (MiB): the report of 10⁶ demo-like cells (5.3 GiB results.jsonl) keeps ~0.7–1 GB live. */
export const REPORT_HEAP_MIN_MB = 1536;

/**
 * The old-generation cap (MiB) for the report of a results file of `resultsBytes`, or null for
 * none: `MEDSYNTH_REPORT_HEAP_MB` when set (0 = no cap); no cap when the process already runs
 * with `--max-old-space-size` (in `NODE_OPTIONS` or its flags: the user's choice stands) or when
 * the file is below {@link BOUNDED_MIN_BYTES}; else max({@link REPORT_HEAP_MIN_MB}, 0.3 × the
 * file's size in MiB) — 1,602 MiB for 10⁶ demo-like cells; the cap grows with larger runs (their
 * live data grows too: a fixed cap would run out of heap), so peak RSS ≤ 2 GB holds up to ~10⁶ cells.
 * @throws Error when `MEDSYNTH_REPORT_HEAP_MB` is not a non-negative integer.
 */
export function reportHeapLimitMb(resultsBytes: number, env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): number | null {
  const set = env.MEDSYNTH_REPORT_HEAP_MB;
  if (set !== undefined && set !== "") {
    if (!/^\d+$/.test(set)) throw new Error(`MEDSYNTH_REPORT_HEAP_MB must be a whole number of MiB (0 = no cap), got "${set}"`);
    return Number(set) || null;
  }
  if ([...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)].some((a) => a.startsWith("--max-old-space-size"))) return null;
  if (resultsBytes < BOUNDED_MIN_BYTES) return null;
  return Math.max(REPORT_HEAP_MIN_MB, Math.ceil((0.3 * resultsBytes) / 2 ** 20));
}

function workerUrl(): URL {
  return import.meta.url.endsWith(".js") ? new URL("./report-worker.js", import.meta.url) : new URL("./report-worker-entry.mjs", import.meta.url);
}

/**
 * Write the report of a run folder (same files and bytes as `writeReport`) with the heap capped
 * as {@link reportHeapLimitMb} says: in a worker thread with that old-generation limit, or in
 * this thread when there is no cap. Used by `medsynth report` and `medsynth merge`.
 * @param opts.scimago path of a SCImago journal file (loaded in the thread that writes the report).
 * @param opts.heapMb the cap in MiB (null: none), instead of {@link reportHeapLimitMb}'s.
 * @throws Error naming the folder when it has no results.jsonl; the worker's error (its message)
 *   when the report fails; an error naming the cap and `MEDSYNTH_REPORT_HEAP_MB` when the report
 *   runs out of heap.
 */
export async function writeReportBounded(runDir: string, opts: { scimago?: string; heapMb?: number | null } = {}): Promise<ReportFiles> {
  let bytes = 0;
  try {
    bytes = statSync(join(runDir, "results.jsonl")).size;
  } catch {
    // writeReport names the missing file
  }
  const cap = opts.heapMb !== undefined ? opts.heapMb : reportHeapLimitMb(bytes);
  if (cap === null) return writeReport(runDir, opts.scimago ? { scimago: loadScimago(opts.scimago) } : {});
  return new Promise<ReportFiles>((resolveFiles, reject) => {
    const worker = new Worker(workerUrl(), { workerData: { runDir, scimago: opts.scimago }, resourceLimits: { maxOldGenerationSizeMb: cap } });
    let settled = false;
    worker.once("message", (m: { ok: boolean; files?: ReportFiles; error?: string }) => {
      settled = true;
      if (m.ok) resolveFiles(m.files as ReportFiles);
      else reject(new Error(m.error));
    });
    worker.once("error", (err: Error & { code?: string }) => {
      settled = true;
      reject(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new Error(`report of ${runDir}: out of memory with the report's heap capped at ${cap} MiB; set MEDSYNTH_REPORT_HEAP_MB to a larger cap (or 0 for none) and run it again`)
          : err,
      );
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`report of ${runDir}: the report thread stopped (exit code ${code}) without a result`));
    });
  });
}
