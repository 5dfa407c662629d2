/**
 * The report's streamed read: its slim projection of a record changes no section of the report
 * (same sections from full and projected records of a real run), drops the bulk (evidence,
 * raw judge answers), and the one-pass read keeps the latest record per key, every attempt for
 * the tokens spent, and counts the records of other configs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildSections } from "../../../experiments/report/build.ts";
import { newProjectionPool, POOL_LIMIT, readReportRecords, REPORT_INTERMEDIATE_FIELDS, reportProjection } from "../../../experiments/report/read-records.ts";
import type { RunRecord } from "../../../results/run-record.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "viewer", "results.jsonl");
const records = readFileSync(FIXTURE, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as RunRecord);
const judged = records.map((r, i) => ({
  ...r,
  judgeScores: [0, 1].map((k) => ({
    judgeId: `j${k}`,
    rubricId: "medmeta-semantic-equivalence",
    scores: { semantic_equivalence: (i + k) % 6 },
    status: "ok" as const,
    raw: `{"semantic_equivalence": ${(i + k) % 6}}`,
    call: { modelId: `model-${k}`, cached: false, latencyMs: 5, attempts: 1, usage: { inputTokens: 10, outputTokens: 2 } },
  })),
  panel: { aggregation: "mean", scores: { "medmeta-semantic-equivalence": { semantic_equivalence: { value: ((i % 6) + ((i + 1) % 6)) / 2, nPresent: 2, nJudges: 2 } } } },
})) as RunRecord[];

describe("reportProjection", () => {
  it("leaves every report section as it was and drops the bulk", async () => {
    const full = await buildSections(judged, { subgroups: ["medical_specialty"] });
    const slim = await buildSections(
      judged.map((r) => reportProjection(r)),
      { subgroups: ["medical_specialty"] },
    );
    expect(JSON.stringify(slim)).toBe(JSON.stringify(full));
    const p = reportProjection(judged[0]);
    expect(judged[0].intermediate.evidenceIds).toBeDefined();
    expect(p.intermediate.evidenceIds).toBeUndefined();
    expect(Object.keys(p.intermediate).every((k) => (REPORT_INTERMEDIATE_FIELDS as readonly string[]).includes(k))).toBe(true);
    expect(p.judgeScores?.[0]).toEqual({ judgeId: "j0", rubricId: "medmeta-semantic-equivalence", scores: { semantic_equivalence: 0 }, status: "ok", call: { modelId: "model-0" } });
  });
});

describe("readReportRecords", () => {
  it("keeps the latest record per key, every attempt for tokens, and counts other configs' records", () => {
    const path = join(mkdtempSync(join(tmpdir(), "read-records-")), "results.jsonl");
    const [a, b, c] = judged;
    writeFileSync(path, [{ ...a, status: "failed", output: null }, b, a, c].map((r) => JSON.stringify(r) + "\n").join(""));
    const all = readReportRecords(path, null);
    expect(all.records.map((r) => [r.key, r.status])).toEqual([
      [a.key, "ok"],
      [b.key, "ok"],
      [c.key, "ok"],
    ]);
    expect(all.spent.length).toBe(4);
    const some = readReportRecords(path, new Set([a.key, b.key]));
    expect(some.records.map((r) => r.key)).toEqual([a.key, b.key]);
    expect(some.spent.length).toBe(3);
    expect(some.otherRecords).toBe(1);
  });
});

describe("ProjectionPool strings", () => {
  it("keeps an item's strings shared past POOL_LIMIT distinct strings (10⁶ cells: 35,714 items × item id, reference, question)", () => {
    // 3 distinct strings per item (item id, reference text, question): the pool must still share
    // the strings of item number POOL_LIMIT / 3 + 1 and later (their reference text is ~400 bytes
    // a record when not shared).
    const pool = newProjectionPool();
    const items = Math.ceil(POOL_LIMIT / 3) + 100;
    const base = judged[0];
    for (let i = 0; i < items; i++) reportProjection({ ...base, key: `k${i}`, itemId: `item-${i}`, reference: `reference ${i}`, itemMeta: { question: `question ${i}` } }, pool);
    expect(pool.strings.has(`reference ${items - 1}`)).toBe(true);
    expect(pool.strings.has(`item-${items - 1}`)).toBe(true);
  });
});
