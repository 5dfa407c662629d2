/**
 * Intra-query parallel search of medsynth's on-disk BM25 index: each query is split into slices
 * of the index ({@link sliceBounds}: contiguous document ranges at window boundaries); the calling
 * thread searches slice 0 while worker threads ({@link ./disk-parallel-worker.ts}, each with the
 * index opened on its own page cache) search the others, and the slices' exact top k are merged
 * ({@link mergeSliceHits}); the slices of a query share their k-th scores as they rise
 * ({@link sharedThetaBuffer}), so each prunes with the best threshold any has found. The result
 * is the single-threaded engine's, bit for bit (same ids, order and float64 scores; tested in
 * tests/retrieval/bm25-disk-parallel.test.ts); what changes is latency — on a machine with idle
 * cores a query's wall time approaches its CPU time divided by the threads (docs/bm25-on-disk.md,
 * "Intra-query parallelism": p50 71 → 46 ms with 2 threads at 5.7 M synthetic docs). CPU per
 * query does not drop.
 *
 * A worker that dies or fails a search is not fatal: its slice is searched by the calling thread
 * and later queries go without it. Workers do not keep the process alive when idle, and stop
 * after {@link POOL_IDLE_MS} without a query.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { AnalyzerConfig } from "../analyzer.ts";
import type { SearchHit } from "../types.ts";
import { mergeSliceHits, sharedThetaBuffer, type DiskBm25, type DiskSliceHits } from "./disk-engine.ts";
import type { DiskWorkerData, FromDiskWorker, ToDiskWorker } from "./disk-parallel-worker.ts";

/** Live documents from which `threads: "auto"` searches in parallel (below it a query takes a few ms and messaging would cost a noticeable share). */
export const PARALLEL_MIN_DOCS = 500_000;
/** Most threads `threads: "auto"` uses (slices beyond a few cores save little: each re-seeds its threshold). */
export const MAX_AUTO_THREADS = 4;

/**
 * Threads a query of an index of `docCount` live documents uses: `auto` → min(cores, 4) from
 * {@link PARALLEL_MIN_DOCS} documents on, else 1; a number is taken as given.
 */
export function searchThreads(setting: "auto" | number, docCount: number, cores: number = availableParallelism()): number {
  if (setting !== "auto") return setting;
  return docCount >= PARALLEL_MIN_DOCS ? Math.max(1, Math.min(cores, MAX_AUTO_THREADS)) : 1;
}

function workerUrl(): URL {
  return import.meta.url.endsWith(".js") ? new URL("./disk-parallel-worker.js", import.meta.url) : new URL("./disk-parallel-entry.mjs", import.meta.url);
}

/** A worker's answer for one slice. */
interface SliceAnswer {
  hits: DiskSliceHits;
  decoded: number;
}

interface PoolWorker {
  worker: Worker;
  alive: boolean;
  /** Request id → resolver (null: the worker failed; the caller searches the slice itself). */
  pending: Map<number, (answer: SliceAnswer | null) => void>;
}

/** Milliseconds without a query after which a pool stops its worker threads (restarted by the next query). */
export const POOL_IDLE_MS = 30_000;

/** The on-disk engine plus worker threads that search slices of each query (see the module doc). */
export class DiskBm25Pool {
  /** Work counters of the last search, summed over the slices: postings in the query's lists (per slice), postings decoded. */
  readonly lastStats = { decoded: 0, postings: 0 };
  private nextId = 1;
  private workers: PoolWorker[] = [];
  private starting: Promise<void> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private inFlight = 0;
  private closed = false;

  /** @internal use {@link openDiskBm25Pool}. */
  constructor(
    /** The calling thread's engine (searches slice 0, and any slice whose worker failed). */
    readonly engine: DiskBm25,
    private readonly data: DiskWorkerData,
    /** Worker threads wanted (threads − 1); lowered for good when one fails. */
    private wanted: number,
    private readonly log: (line: string) => void,
    private readonly idleMs: number,
  ) {}

  /** Threads a query uses: the calling thread plus the workers wanted (started on demand). */
  get threads(): number {
    return 1 + this.wanted;
  }

  /** Worker threads running now (0 after {@link POOL_IDLE_MS} without a query). */
  get running(): number {
    return this.workers.filter((w) => w.alive).length;
  }

  /**
   * Top-k hits, the same as `engine.searchSync(query, k)` (ids, order, scores). Starts the
   * workers when they were stopped for idleness.
   * @throws whatever the calling thread's slice search throws (a worker's failure is absorbed).
   */
  async search(query: string, k: number): Promise<SearchHit[]> {
    this.inFlight++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    try {
      await this.ensureWorkers();
      return await this.searchSlices(query, k);
    } finally {
      if (--this.inFlight === 0) this.armIdle();
    }
  }

  /** @internal (re)starts the idle countdown after which the workers stop. */
  armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = !this.closed && this.running > 0 ? setTimeout(() => this.stopWorkers(), this.idleMs).unref() : null;
  }

  /** `search` over the live workers' slices plus the calling thread's. */
  private async searchSlices(query: string, k: number): Promise<SearchHit[]> {
    const live = this.workers.filter((w) => w.alive);
    if (live.length === 0) return this.engine.searchSync(query, k);
    const parts = live.length + 1;
    const shared = sharedThetaBuffer(parts);
    const asked = live.map((w, i) => this.ask(w, { type: "search", id: this.nextId++, query, k, part: i + 1, parts, shared }));
    const mine = this.engine.searchSlice(query, k, 0, parts, shared);
    let decoded = this.engine.lastStats.decoded;
    const slices: DiskSliceHits[] = [mine];
    const got = await Promise.all(asked);
    for (let i = 0; i < got.length; i++) {
      const g = got[i];
      if (g) {
        slices.push(g.hits);
        decoded += g.decoded;
      } else {
        slices.push(this.engine.searchSlice(query, k, i + 1, parts, shared));
        decoded += this.engine.lastStats.decoded;
      }
    }
    this.lastStats.decoded = decoded;
    this.lastStats.postings = this.engine.lastStats.postings;
    return mergeSliceHits(slices, k);
  }

  /** Starts the missing workers (one start at a time; a worker that cannot start is given up for good). */
  ensureWorkers(): Promise<void> {
    if (this.closed || this.running >= this.wanted) return Promise.resolve();
    this.starting ??= (async () => {
      const missing = this.wanted - this.running;
      const started = await Promise.all(Array.from({ length: missing }, () => startWorker(this, this.data)));
      this.workers = this.workers.filter((w) => w.alive);
      for (const s of started) {
        if (typeof s !== "string") this.workers.push(s);
        else {
          this.wanted--;
          this.log(`bm25-disk: a search thread could not start (${s}); searching with ${this.threads} thread(s)`);
        }
      }
    })().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private ask(w: PoolWorker, m: ToDiskWorker): Promise<SliceAnswer | null> {
    return new Promise((resolve) => {
      w.pending.set(m.id, resolve);
      // Referenced only while it owes an answer: an idle pool never keeps the process alive.
      if (w.pending.size === 1) w.worker.ref();
      w.worker.postMessage(m);
    });
  }

  /** @internal routes a worker's message. */
  onMessage(w: PoolWorker, m: FromDiskWorker): void {
    if (m.type === "hits" || m.type === "error") {
      const done = w.pending.get(m.id);
      if (!done) return;
      w.pending.delete(m.id);
      if (w.pending.size === 0) w.worker.unref();
      if (m.type === "hits") done({ hits: m.hits, decoded: m.decoded });
      else {
        this.log(`bm25-disk: a search thread failed (${m.message}); its slice is searched by the calling thread`);
        done(null);
      }
    }
  }

  /** @internal a worker died: its pending slices go to the calling thread, later queries go without it. */
  onFailure(w: PoolWorker, why: string): void {
    if (!w.alive) return;
    w.alive = false;
    this.wanted--;
    this.log(`bm25-disk: a search thread stopped (${why}); searching with ${this.threads} thread(s)`);
    for (const done of w.pending.values()) done(null);
    w.pending.clear();
  }

  /** Stops the idle workers (their page caches go with them); the next query starts them again. */
  private stopWorkers(): void {
    this.idleTimer = null;
    if (this.inFlight === 0) void this.terminateWorkers();
  }

  /** Stops the worker threads for good (the engine stays open; close it separately); later searches run on the calling thread. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.terminateWorkers();
  }

  /** Takes every worker out of the pool (marked dead first, so their exit is not a failure) and terminates them. */
  private async terminateWorkers(): Promise<void> {
    const old = this.workers;
    this.workers = [];
    for (const w of old) w.alive = false;
    await Promise.all(old.map((w) => w.worker.terminate()));
  }
}

/**
 * Starts `threads − 1` worker threads over the index `engine` has open and returns the pool
 * (threads ≤ 1: no worker; `search` is then `engine.searchSync`). Each thread gets
 * `pageCacheMiB / threads` of page cache, so the process stays within the configured total. A
 * worker that cannot open the index is dropped with a log line. Workers idle for `idleMs`
 * (default {@link POOL_IDLE_MS}) are stopped and restarted by the next query, so pools a
 * process no longer uses (a sweep's earlier retrievers) hold no threads or page caches.
 * @param engine the calling thread's engine (from `openDiskBm25`, opened with its share of the
 *   page cache: `pageCacheMiB / threads`).
 * @param opts `threads` (≥ 1), `pageCacheMiB` (the total), `analyzerConfig` (the engine's analyzer's
 *   `config`: workers rebuild the analyzer from it), `log`, `idleMs`.
 */
export async function openDiskBm25Pool(
  engine: DiskBm25,
  opts: { threads: number; pageCacheMiB: number; analyzerConfig: AnalyzerConfig; log?: (line: string) => void; idleMs?: number },
): Promise<DiskBm25Pool> {
  const n = Math.max(0, Math.floor(opts.threads) - 1);
  const data: DiskWorkerData = {
    dir: engine.dir,
    generation: engine.info.generation,
    pageCacheMiB: opts.pageCacheMiB / (n + 1),
    analyzerConfig: opts.analyzerConfig,
    strategy: engine.strategy,
    taatChunkDocs: engine.taatChunkDocs,
    taatAccumulator: engine.taatAccumulatorKind,
  };
  const pool = new DiskBm25Pool(engine, data, n, opts.log ?? (() => {}), opts.idleMs ?? POOL_IDLE_MS);
  await pool.ensureWorkers();
  pool.armIdle();
  return pool;
}

/** One worker: resolves once it has opened the index, or with the reason it could not. */
function startWorker(pool: DiskBm25Pool, workerData: DiskWorkerData): Promise<PoolWorker | string> {
  return new Promise((resolve) => {
    const w: PoolWorker = { worker: new Worker(workerUrl(), { workerData }), alive: false, pending: new Map() };
    let ready = false;
    w.worker.on("message", (m: FromDiskWorker) => {
      if (m.type === "ready") {
        ready = true;
        w.alive = true;
        w.worker.unref();
        resolve(w);
      } else if (m.type === "fatal") {
        void w.worker.terminate();
        resolve(m.message);
      } else pool.onMessage(w, m);
    });
    w.worker.on("error", (e) => (ready ? pool.onFailure(w, e.message) : resolve(e.message)));
    w.worker.on("exit", (code) => (ready ? pool.onFailure(w, `exit code ${code}`) : resolve(`exit code ${code}`)));
  });
}
