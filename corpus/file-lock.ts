/**
 * Process locks on files: the lock file holds the owner's PID, so a lock left behind by a
 * process that died (`kill -9`) is recognised and taken over instead of waited out.
 */
import { openSync, writeSync, closeSync, readFileSync, unlinkSync, statSync } from "node:fs";

/** True when a process with this PID exists on this machine (signal 0 probe). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Outcome of {@link tryAcquireLock}: acquired (`takenFrom`: the PID of a dead holder whose lock was
 * taken over, when that happened), or held by a live process `pid`.
 */
export type LockAttempt = { acquired: true; release: () => void; takenFrom?: number } | { acquired: false; pid: number | null };

/**
 * Try once to create `path` exclusively with this process's PID inside. A lock whose owner is no
 * longer alive (or whose content is unreadable and older than `staleMs`) is removed and retried.
 * @returns `release()` when acquired (idempotent), else the PID holding it.
 */
export function tryAcquireLock(path: string, staleMs = 180_000): LockAttempt {
  let takenFrom: number | undefined;
  for (let round = 0; round < 3; round++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        acquired: true,
        ...(takenFrom !== undefined ? { takenFrom } : {}),
        release: () => {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let pid: number | null = null;
      let stale = false;
      try {
        const text = readFileSync(path, "utf8").trim();
        pid = text ? Number(text) : null;
        stale = pid !== null && Number.isInteger(pid) ? !isProcessAlive(pid) : false;
        if (pid === null || !Number.isInteger(pid)) {
          // A lock without a PID (older format, or written by a process killed before it wrote): fall back to its age.
          const { mtimeMs } = statSync(path);
          stale = Date.now() - mtimeMs > staleMs;
          pid = null;
        }
      } catch {
        continue; // vanished between open and read: retry
      }
      if (!stale) return { acquired: false, pid };
      if (pid !== null) takenFrom = pid;
      try {
        unlinkSync(path);
      } catch {
        /* someone else took it over */
      }
    }
  }
  return { acquired: false, pid: null };
}

/** What {@link withLock} tells its caller, and how often it polls. */
export interface LockWaitOptions {
  /** Called once, when the lock is first found held, with the holder's PID (null when unknown). */
  onWait?: (pid: number | null) => void;
  /**
   * Called when the lock is taken over from a holder `pid` that died without releasing it
   * (`kill -9`): what it was doing is left to `fn` to finish or redo.
   */
  onTakeOver?: (pid: number) => void;
  /** Milliseconds between tries while the lock is held (default 500). */
  pollMs?: number;
}

/**
 * Run `fn` while holding the lock file `path`, waiting as long as another live process holds it
 * (polled; a lock whose owner died is taken over, see {@link tryAcquireLock}). Two processes
 * building the same index thus take turns: the second waits, then finds the index built.
 * @returns what `fn` returns; the lock is released whether `fn` returns or throws.
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, opts: LockWaitOptions = {}): Promise<T> {
  let told = false;
  for (;;) {
    const attempt = tryAcquireLock(path);
    if (attempt.acquired) {
      if (attempt.takenFrom !== undefined) opts.onTakeOver?.(attempt.takenFrom);
      try {
        return await fn();
      } finally {
        attempt.release();
      }
    }
    if (!told) opts.onWait?.(attempt.pid);
    told = true;
    await new Promise((res) => setTimeout(res, opts.pollMs ?? 500));
  }
}

/**
 * {@link withLock} for a build (an index, a table): `log` says, under `label`, which process the
 * build waits for and when it takes over from one that died.
 */
export function withBuildLock<T>(lockPath: string, label: string, what: string, log: (line: string) => void, fn: () => Promise<T>): Promise<T> {
  return withLock(lockPath, fn, {
    onWait: (pid) => log(`${label}: waiting for process ${pid ?? "(unknown)"}, which is building ${what}`),
    onTakeOver: (pid) => log(`${label}: process ${pid} stopped before finishing ${what}; this one builds it (resuming where it can)`),
  });
}
