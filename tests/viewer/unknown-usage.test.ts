/**
 * Unknown token usage stays unknown in the viewer: a cell whose generator calls reported no usage
 * has null tokens and cost in the table's rows and the export (never 0), a cell with some calls
 * unknown carries the count of those calls, and the page shows "–" / "≥ N (k calls unknown)" as the
 * rest of medsynth does (models/usage.ts formatTokenCount).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTokenCount } from "../../models/usage.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { makeRunDir, xssRecord } from "./fixtures.ts";

const cell = (key: string, generator: Partial<RunRecord["generator"]>): RunRecord => ({
  ...xssRecord(),
  key,
  itemId: `usage:${key}`,
  workflow: "usage-test",
  generator: { calls: 3, inputTokens: 1000, outputTokens: 200, latencyMs: 5, cached: false, ...generator },
});

/** The page's formatter (a browser module without type declarations, loaded by URL). */
const { fmtTokens } = (await import(new URL("../../viewer/ui/common.js", import.meta.url).href)) as { fmtTokens: (tokens: number | null | undefined, unknownCalls?: number) => string };

let srv: ViewerServer;
beforeAll(async () => {
  const extra = [
    cell("unknown", { inputTokens: null, outputTokens: null, unknownUsageCalls: 3 }),
    cell("zero-unknown", { inputTokens: 0, outputTokens: 0, unknownUsageCalls: 3 }),
    cell("partly", { inputTokens: 600, outputTokens: 100, unknownUsageCalls: 1 }),
  ];
  srv = await startViewerServer({ runs: [makeRunDir({ extra, malformed: false })], port: 0 });
});
afterAll(async () => srv?.close());

describe("unknown token usage in the viewer", () => {
  it("rows and export carry null tokens and cost for unknown usage, and the unknown calls", async () => {
    type Rows = { rows: Record<string, unknown>[] };
    const page = (await (await fetch(`${srv.url}/api/cells?workflow=usage-test`)).json()) as Rows;
    const byKey = Object.fromEntries(page.rows.map((r) => [r.key as string, r]));
    expect(byKey.unknown).toMatchObject({ inputTokens: null, outputTokens: null, unknownUsageCalls: 3, costUsd: null });
    expect(byKey["zero-unknown"]).toMatchObject({ inputTokens: null, outputTokens: null, unknownUsageCalls: 3, costUsd: null });
    // a lower bound: (600 · 2 + 100 · 8) / 1e6 with 1 call unknown
    expect(byKey.partly).toMatchObject({ inputTokens: 600, outputTokens: 100, unknownUsageCalls: 1 });
    expect(byKey.partly.costUsd as number).toBeCloseTo(0.002, 12);
    // sorting by tokens puts unknown counts last (missing values), not first as 0 would
    const sorted = (await (await fetch(`${srv.url}/api/cells?workflow=usage-test&sort=inputTokens`)).json()) as Rows;
    expect(sorted.rows.map((r) => r.key)).toEqual(["partly", "unknown", "zero-unknown"]);
    const csv = await (await fetch(`${srv.url}/api/export.jsonl?workflow=usage-test`)).text();
    const unknown = csv
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((r) => r.key === "unknown");
    expect(unknown).toMatchObject({ inputTokens: null, outputTokens: null, unknownUsageCalls: 3, costUsd: null });
  });

  it("shows tokens as the rest of medsynth does", () => {
    for (const [tokens, calls] of [
      [1234, 0],
      [120, 1],
      [0, 2],
      [null, 0],
      [null, 3],
      [5000, 12],
    ] as const)
      expect(fmtTokens(tokens, calls)).toBe(formatTokenCount(tokens, calls));
    expect(fmtTokens(null, 3)).toBe("– (3 calls unknown)");
    expect(fmtTokens(600, 1)).toBe("≥ 600 (1 call unknown)");
    expect(fmtTokens(undefined)).toBe("–");
    expect(fmtTokens(0)).toBe("0");
  });
});
