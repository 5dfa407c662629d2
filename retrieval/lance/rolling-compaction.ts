/**
 * Compaction of a LanceDB table while it is being appended to, so that no single `optimize()`
 * call rewrites the whole table.
 *
 * Why: every `table.add` leaves one small fragment (and one version). One `optimize()` at the end
 * plans one rewrite task per ~1 M rows (Lance's target rows per fragment) and runs up to
 * `LANCE_CPU_THREADS` of them at once — 8 in this project (`../lance-env.ts`). Measured here on
 * 100-d float vectors (fragments of 65,536 rows): one task adds ≈ 430 MB of RSS (16 fragments →
 * 1: peak 511 MB), four at once ≈ 1.35 GB (60 fragments → 4: peak 1,434 MB with 8 threads,
 * 1,006 MB with 2), and the 24 M-document dense build of round 11 jumped from 1.6 to 4.1 GiB
 * in its final compaction (366 fragments, 9.6 GB of vectors). Compacting every
 * {@link LANCE_TARGET_FRAGMENT_ROWS} appended rows keeps each call to one task (the fragments
 * already compacted are full and not rewritten again), so the peak no longer grows with the table,
 * and dropping the appends' versions as it goes keeps the disk ≈ the data.
 */
import type * as LanceDb from "@lancedb/lancedb";

/** Lance's default target rows per fragment (`CompactionOptions::target_rows_per_fragment`). */
export const LANCE_TARGET_FRAGMENT_ROWS = 1024 * 1024;

/** What {@link createRollingCompactor} needs of a table (a LanceDB `Table`, or a test double). */
export type CompactableTable = Pick<LanceDb.Table, "optimize">;

/** A compactor for one table being appended to. */
export interface RollingCompactor {
  /** Record `rows` appended (after the `add` returned); compacts once ≥ `everyRows` are uncompacted. */
  appended(rows: number): Promise<void>;
  /** Compact what is left (call once after the last append). */
  finish(): Promise<void>;
  /** `optimize()` calls made so far. */
  readonly compactions: number;
}

/**
 * A compactor that calls `table.optimize({cleanupOlderThan: now})` each time `everyRows` rows
 * have been appended since the previous call, and once more at {@link RollingCompactor.finish}
 * when rows are left uncompacted. Every call also drops the versions older than itself (no other
 * writer may be using the table: the build owns it).
 * @param table the table appended to.
 * @param everyRows rows between compactions (default {@link LANCE_TARGET_FRAGMENT_ROWS}: one
 *   output fragment per call).
 * @throws RangeError when `everyRows` is not a positive whole number.
 */
export function createRollingCompactor(table: CompactableTable, everyRows: number = LANCE_TARGET_FRAGMENT_ROWS): RollingCompactor {
  if (!Number.isInteger(everyRows) || everyRows <= 0) throw new RangeError(`rolling compaction: everyRows must be a positive whole number, got ${everyRows}`);
  let pending = 0;
  let calls = 0;
  const compact = async () => {
    await table.optimize({ cleanupOlderThan: new Date() });
    calls++;
    pending = 0;
  };
  return {
    async appended(rows: number) {
      pending += rows;
      if (pending >= everyRows) await compact();
    },
    async finish() {
      if (pending > 0) await compact();
    },
    get compactions() {
      return calls;
    },
  };
}
