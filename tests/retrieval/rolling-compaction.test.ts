/**
 * Rolling compaction (retrieval/lance/rolling-compaction.ts): `optimize()` is called each time
 * `everyRows` rows have been appended since the previous call and once at the end when rows are
 * left; on a real LanceDB table the rows survive, the compacted fragments are not rewritten again
 * and the appends' versions are dropped as it goes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import "../../retrieval/lance-env.ts";
import { createRollingCompactor, LANCE_TARGET_FRAGMENT_ROWS } from "../../retrieval/lance/rolling-compaction.ts";

describe("createRollingCompactor", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("compacts after every everyRows appended rows and once at finish for the rest", async () => {
    const calls: number[] = [];
    let appendedSoFar = 0;
    const c = createRollingCompactor(
      {
        optimize: async (o) => {
          expect(o?.cleanupOlderThan).toBeInstanceOf(Date);
          calls.push(appendedSoFar);
          return {} as never;
        },
      },
      300,
    );
    for (const rows of [100, 100, 100, 250, 49, 1, 10]) {
      appendedSoFar += rows;
      await c.appended(rows);
    }
    // 100+100+100 = 300 → compact at 300; 250+49 = 299 < 300; +1 = 300 → compact at 600; 10 left.
    expect(calls).toEqual([300, 600]);
    await c.finish();
    expect(calls).toEqual([300, 600, 610]);
    expect(c.compactions).toBe(3);
    await c.finish(); // nothing left: no further call
    expect(c.compactions).toBe(3);
  });

  it("defaults to Lance's target fragment size; rejects a non-positive or fractional period", () => {
    expect(LANCE_TARGET_FRAGMENT_ROWS).toBe(1_048_576);
    const t = { optimize: async () => ({}) as never };
    expect(() => createRollingCompactor(t, 0)).toThrow(/everyRows must be a positive whole number, got 0/);
    expect(() => createRollingCompactor(t, 2.5)).toThrow(/got 2.5/);
  });

  it("on a LanceDB table: rows intact, one fragment per period plus the tail, old versions dropped", async () => {
    const lancedb = await import("@lancedb/lancedb");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-rolling-"));
    dirs.push(dir);
    const db = await lancedb.connect(dir);
    const rowsOf = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: String(from + i), x: from + i }));
    const table = await db.createTable("t", rowsOf(0, 100));
    const c = createRollingCompactor(table, 300);
    await c.appended(100);
    for (let a = 1; a < 10; a++) {
      await table.add(rowsOf(a * 100, 100));
      await c.appended(100);
    }
    await c.finish();
    // 10 appends of 100 rows, period 300: compactions after 300, 600, 900 rows, then the last 100.
    expect(c.compactions).toBe(4);
    expect(await table.countRows()).toBe(1000);
    const ids = ((await table.query().select(["id"]).toArray()) as { id: string }[]).map((r) => Number(r.id)).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    // Fragments below Lance's target are merged together at each call: what is left is one
    // fragment holding every row (each call rewrote the previous output with the new appends).
    const stats = await table.stats();
    expect(stats.fragmentStats.numFragments).toBe(1);
    // Versions: the appends' versions are dropped at each call; only the last is kept.
    expect((await table.listVersions()).length).toBe(1);
  });
});
