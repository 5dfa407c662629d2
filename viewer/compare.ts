import { openSqlite } from "../results/sqlite.ts";
import { createHash } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { computeComparison, wordDifference, type CompareCounts } from "./compare-compute.ts";
import { rowIdOf, type RunIndex } from "./run-index.ts";

export { wordDifference, type CompareCounts };

/** One matched pair of cells (or a cell present in one run only). */
export interface ComparePair {
  itemId: string;
  model: string;
  workflow: string;
  params: string;
  repeat: number;
  /** Row ids in run A and run B (null when the cell is missing from that run). */
  a: number | null;
  b: number | null;
  statusA: string | null;
  statusB: string | null;
  /** True when both cells exist with the same status and outputs equal after whitespace normalisation (or both without output). */
  identical: boolean;
  /**
   * 1 − multiset overlap of the lower-cased words: |A ∩ B| / max(|A|, |B|) (0 = same words, 1 = no
   * word in common); null when either output is missing.
   */
  difference: number | null;
  /** Score column → B − A, for columns with a number on both sides. */
  deltas: Record<string, number>;
}

/** What the compare route returns: a page of pairs and counts over all pairs. */
export interface ComparePage {
  runA: string;
  runB: string;
  total: number;
  counts: CompareCounts;
  page: number;
  size: number;
  pairs: ComparePair[];
}

/** Options of a compare page. */
export interface CompareOptions {
  /** Keep only pairs whose outputs differ or that exist in one run only. */
  onlyDiffering?: boolean;
  page?: number;
  size?: number;
  /** Compute in this thread instead of a worker (tests, scripts). */
  inline?: boolean;
}

function workerUrl(): URL {
  return import.meta.url.endsWith(".js") ? new URL("./compare-worker.js", import.meta.url) : new URL("./compare-worker-entry.mjs", import.meta.url);
}

const running = new Set<{ worker: Worker; tmp: string; owner: RunIndex }>();

/** Run one comparison in a worker thread (its temporary file removed if it is stopped). */
function computeInWorker(owner: RunIndex, indexA: string, indexB: string, cachePath: string): Promise<CompareCounts> {
  return new Promise((resolveCounts, reject) => {
    const tmp = `${cachePath}.tmp-${process.pid}-${Date.now()}`;
    const worker = new Worker(workerUrl(), { workerData: { indexA, indexB, cachePath, tmp } });
    const entry = { worker, tmp, owner };
    running.add(entry);
    worker.once("exit", () => running.delete(entry));
    let settled = false;
    worker.once("message", (m: { ok: boolean; counts?: CompareCounts; error?: string }) => {
      settled = true;
      if (m.ok) resolveCounts(m.counts as CompareCounts);
      else reject(new Error(`compare: ${m.error}`));
    });
    worker.once("error", (err) => {
      settled = true;
      reject(err);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`compare: worker exited with code ${code}`));
    });
  });
}

const pending = new Map<string, Promise<string>>();

/** Stop every comparison of `owner`'s runs still computing (its server is closing); their partial files are removed. */
export async function stopComparisons(owner: RunIndex): Promise<void> {
  const all = [...running].filter((e) => e.owner === owner);
  await Promise.all(all.map((e) => e.worker.terminate()));
  for (const e of all) rmSync(e.tmp, { force: true });
}

/** The cache file of the comparison of runs `a` and `b` in their current index versions. */
export function compareCachePath(index: RunIndex, a: number, b: number): string {
  const ra = index.runs[a];
  const rb = index.runs[b];
  const id = createHash("sha1")
    .update(JSON.stringify([ra.indexPath, ra.buildId, rb.indexPath, rb.buildId]))
    .digest("hex")
    .slice(0, 20);
  return join(dirname(ra.indexPath), `compare-${id}.sqlite`);
}

/**
 * The comparison cache of runs `a` and `b`: computed on first use (once, however many requests
 * ask meanwhile), in a worker thread unless `inline`.
 * @returns the cache file's path
 */
export async function ensureComparison(index: RunIndex, a: number, b: number, inline = false): Promise<string> {
  const path = compareCachePath(index, a, b);
  if (existsSync(path)) return path;
  let p = pending.get(path);
  if (!p) {
    const ia = index.runs[a].indexPath;
    const ib = index.runs[b].indexPath;
    p = (inline ? Promise.resolve().then(() => computeComparison(ia, ib, path)) : computeInWorker(index, ia, ib, path)).then(
      () => path,
      (err: unknown) => {
        pending.delete(path);
        throw err;
      },
    );
    pending.set(path, p);
    void p.then(
      () => pending.delete(path),
      () => {},
    );
  }
  return p;
}

/** A row of the cache's `pairs` table: a {@link ComparePair} with in-run ids, 0/1 and JSON text. */
type PairRow = Omit<ComparePair, "identical" | "deltas"> & { identical: number; deltas: string };

/**
 * One page of the comparison of runs `a` and `b` (computed first when not cached).
 * @throws Error when a run index is out of range
 */
export async function compareRuns(index: RunIndex, a: number, b: number, opts: CompareOptions = {}): Promise<ComparePage> {
  for (const r of [a, b]) if (!Number.isInteger(r) || !index.runs[r]) throw new Error(`no run ${r}: ${index.runs.length} run(s) loaded (0-based)`);
  const path = await ensureComparison(index, a, b, opts.inline);
  const size = Math.min(Math.max(Math.trunc(opts.size ?? 50) || 50, 1), 500);
  const page = Math.max(Math.trunc(opts.page ?? 0) || 0, 0);
  const db = openSqlite(path, { readonly: true, fileMustExist: true });
  try {
    const counts = JSON.parse((db.prepare("SELECT v FROM meta WHERE k = 'counts'").get() as { v: string }).v) as CompareCounts;
    const col = opts.onlyDiffering ? "dseq" : "seq";
    const rows = db
      .prepare(`SELECT itemId, model, workflow, params, repeat, a, b, statusA, statusB, identical, difference, deltas FROM pairs WHERE ${col} >= ? ORDER BY ${col} LIMIT ?`)
      .all(page * size, size) as PairRow[];
    const total = opts.onlyDiffering ? counts.matched - counts.identical + counts.onlyA + counts.onlyB : counts.matched + counts.onlyA + counts.onlyB;
    return {
      runA: index.runs[a].name,
      runB: index.runs[b].name,
      total,
      counts,
      page,
      size,
      pairs: rows.map((r) => ({
        ...r,
        a: r.a === null ? null : rowIdOf(a, r.a),
        b: r.b === null ? null : rowIdOf(b, r.b),
        identical: r.identical === 1,
        deltas: JSON.parse(r.deltas) as Record<string, number>,
      })),
    };
  } finally {
    db.close();
  }
}
