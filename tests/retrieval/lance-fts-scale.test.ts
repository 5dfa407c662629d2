/**
 * LanceDB's full-text index builds on ≥ 50k tiny rows under this project's settings (the
 * `LANCE_CPU_THREADS` default of retrieval/lance-env.ts), within a time limit that turns a hang
 * into an error, and answers a query; and the time limit itself rejects.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LANCE_CPU_THREADS_DEFAULT, withTimeout } from "../../retrieval/lance-env.ts";

describe("LanceDB FTS at 50k rows", () => {
  it("LANCE_CPU_THREADS is set before LanceDB loads", () => {
    expect(Number(process.env.LANCE_CPU_THREADS)).toBeGreaterThanOrEqual(2);
    expect(LANCE_CPU_THREADS_DEFAULT).toBe("8");
  });

  it("builds an FTS index on 50,000 tiny docs and finds the one matching row", async () => {
    const lancedb = await import("@lancedb/lancedb");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-fts-"));
    try {
      const db = await lancedb.connect(dir);
      const words = ["aspirin", "stroke", "insulin", "fever", "statin", "trial", "cohort", "dose"];
      const rows = Array.from({ length: 50_000 }, (_, i) => ({ id: `d${i}`, content: `${words[i % 8]} ${words[(i * 7 + 3) % 8]} w${i}` }));
      const table = await db.createTable("tiny", rows);
      await withTimeout(table.createIndex("content", { config: lancedb.Index.fts(), replace: true }), 120_000, "FTS index on 50k rows");
      expect(await table.countRows()).toBe(50_000);
      const hits = (await table.query().fullTextSearch(new lancedb.MatchQuery("w31337", "content")).select(["id"]).limit(5).toArray()) as { id: string }[];
      expect(hits.map((h) => h.id)).toEqual(["d31337"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("a build that does not finish in time is an error naming it", async () => {
    const never = new Promise<void>(() => {});
    await expect(withTimeout(never, 50, "FTS index on table x")).rejects.toThrow(/FTS index on table x did not finish within 0 s.*LANCE_CPU_THREADS/);
    await expect(withTimeout(Promise.resolve(7), 1000, "quick")).resolves.toBe(7);
  });
});
