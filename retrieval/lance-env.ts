/**
 * LanceDB process settings that must be in place before `@lancedb/lancedb`'s native module loads,
 * plus a time limit for LanceDB index builds.
 *
 * Side effect on import (deliberate, the one exception to "nothing happens on import"): when
 * `LANCE_CPU_THREADS` is unset it is set to {@link LANCE_CPU_THREADS_DEFAULT}. On a machine with
 * ≤ 2 cores LanceDB's CPU pool is otherwise too small and `createIndex(…, Index.fts())` on ≥ ~30k
 * rows deadlocks at 0 % CPU (STACK.md, measured turn 2: 50k rows build in ~3 s with 8 threads).
 * Every module that imports `@lancedb/lancedb` imports this file first, so ES module evaluation
 * order puts the variable in place before the native module loads. A value the user set is kept.
 */
export const LANCE_CPU_THREADS_DEFAULT = "8";
process.env.LANCE_CPU_THREADS ??= LANCE_CPU_THREADS_DEFAULT;

/** Floor of the limit of one LanceDB index build, ms (10 min). */
export const LANCE_INDEX_TIMEOUT_MS = 10 * 60_000;

/** Index-build time per row above the floor, ms: 3.6 ms/row (1 M rows → 60 min). */
export const LANCE_INDEX_MS_PER_ROW = 3.6;

/** Environment variable that sets the limit of every LanceDB index build, in seconds. */
export const LANCE_INDEX_TIMEOUT_ENV = "MEDSYNTH_LANCE_INDEX_TIMEOUT_S";

/**
 * Time limit of one LanceDB index build over `rows` rows, ms: `MEDSYNTH_LANCE_INDEX_TIMEOUT_S`
 * × 1000 when that variable is set, else max({@link LANCE_INDEX_TIMEOUT_MS},
 * {@link LANCE_INDEX_MS_PER_ROW} × rows) — the default grows with the corpus (the 1 M-row FTS
 * build took longer than 10 min on a loaded 2-core machine) yet stays finite, so a hang still
 * becomes an error.
 * @param rows rows indexed (≥ 0).
 * @param env environment to read (default `process.env`).
 * @throws Error naming the variable when it is set to anything but a positive number of seconds.
 */
export function lanceIndexTimeoutMs(rows: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[LANCE_INDEX_TIMEOUT_ENV];
  if (raw !== undefined && raw.trim() !== "") {
    const s = Number(raw);
    if (!Number.isFinite(s) || s <= 0) throw new Error(`${LANCE_INDEX_TIMEOUT_ENV}=${JSON.stringify(raw)}: expected a positive number of seconds`);
    return Math.ceil(s * 1000);
  }
  return Math.max(LANCE_INDEX_TIMEOUT_MS, Math.ceil(Math.max(0, rows) * LANCE_INDEX_MS_PER_ROW));
}

/**
 * Resolves with `work`, or rejects after `ms` with an error naming `what`, so a native call that
 * hangs becomes an error instead of a silent stall (the native work itself cannot be cancelled).
 * @param work the pending promise.
 * @param ms time limit, ms (> 0).
 * @param what description for the error, e.g. `FTS index on table docs_x (50000 rows)`.
 * @throws Error `"<what> did not finish within <s> s …"` on timeout; `work`'s own rejection otherwise.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${what} did not finish within ${(ms / 1000).toFixed(0)} s (LANCE_CPU_THREADS=${process.env.LANCE_CPU_THREADS ?? "unset"}); LanceDB's thread pool can deadlock on few cores: set LANCE_CPU_THREADS ≥ 2 (default ${LANCE_CPU_THREADS_DEFAULT}) before starting, or raise the limit (${LANCE_INDEX_TIMEOUT_ENV}, seconds)`,
          ),
        ),
      ms,
    );
    timer.unref?.();
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
