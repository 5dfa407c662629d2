/**
 * The explorer over on-disk indexes, checked against reference implementations written here in
 * plain JavaScript (the in-memory algorithms the viewer used before its index moved to SQLite):
 * filtered, sorted pages (missing values last in both directions, ties in table order, one run or
 * the union of two) and compare mode (pairs, counts, natural item order), computed once per pair
 * of runs in a worker thread while other requests are answered.
 */
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../results/run-record.ts";
import { parseCellQuery, queryCells } from "../../viewer/cell-query.ts";
import { compareRuns, ensureComparison, wordDifference } from "../../viewer/compare.ts";
import { buildRunIndex, paramsLabel, type RunIndex } from "../../viewer/run-index.ts";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";

const WORKFLOWS = ["pzs", "standard-rag", "golden-rag"];
/** Cell i of a run: values repeat (ties) and some scores are missing (nulls). */
function cell(i: number, variant: "a" | "b"): RunRecord {
  const item = Math.floor(i / 6);
  const output = variant === "b" && i % 5 === 0 ? `changed output ${i} with other words` : `output of cell ${i % 40} about trial ${item}`;
  return {
    key: `${variant}-${i}`,
    itemId: `medevidence:${item}`,
    dataset: "medevidence",
    taskKind: "synthesis",
    model: `m${i % 2}`,
    workflow: WORKFLOWS[Math.floor(i / 2) % 3],
    params: {},
    repeat: 0,
    status: i % 11 === 0 ? "failed" : "ok",
    output: i % 11 === 0 ? null : output,
    reference: null,
    itemMeta: {},
    intermediate: {},
    generator: { calls: 1, inputTokens: 100 + (i % 4), outputTokens: 10, latencyMs: (i * 7) % 13, cached: false },
    metrics: i % 4 === 0 ? {} : { rougeL: ((i * 3) % 5) / 4 },
    startedAt: "",
    finishedAt: "",
  };
}

function runDir(name: string, records: RunRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), `index-queries-${name}-`));
  writeFileSync(join(dir, "results.jsonl"), records.map((r) => JSON.stringify(r) + "\n").join(""));
  writeFileSync(join(dir, "spec.json"), JSON.stringify({ config: { name } }));
  return dir;
}

const N = 300;
const recsA = Array.from({ length: N }, (_, i) => cell(i, "a"));
// run B: cells 0..N-1 minus every 17th (only in A), plus 9 cells only in B
const recsB = [...Array.from({ length: N }, (_, i) => cell(i, "b")).filter((_, i) => i % 17 !== 5), ...Array.from({ length: 9 }, (_, k) => cell(N + k, "b"))];
let dirA: string;
let dirB: string;
let index: RunIndex;

beforeAll(() => {
  dirA = runDir("A", recsA);
  dirB = runDir("B", recsB);
  index = buildRunIndex([dirA, dirB]);
});
afterAll(() => index?.close());

/** Reference: the old in-memory filter + sort (nulls last, ties by table position). */
function referencePage(runs: RunRecord[][], q: { run?: number; workflow?: string; sort: "metric:rougeL" | "latencyMs" | "model"; dir: "asc" | "desc"; page: number; size: number }): string[] {
  const rows = runs.flatMap((rs, run) => rs.map((r, pos) => ({ r, run, pos })));
  const kept = rows.filter((x) => (q.run === undefined || x.run === q.run) && (q.workflow === undefined || x.r.workflow === q.workflow));
  const value = (x: (typeof rows)[number]) => (q.sort === "metric:rougeL" ? (x.r.metrics?.rougeL ?? null) : q.sort === "latencyMs" ? x.r.generator.latencyMs : x.r.model);
  const sign = q.dir === "desc" ? -1 : 1;
  kept.sort((x, y) => {
    const a = value(x);
    const b = value(y);
    const tie = x.run - y.run || x.pos - y.pos;
    if (a === null || b === null) return a === b ? tie : a === null ? 1 : -1;
    const c = a < b ? -1 : a > b ? 1 : 0;
    return c !== 0 ? sign * c : tie;
  });
  return kept.slice(q.page * q.size, q.page * q.size + q.size).map((x) => x.r.key);
}

describe("cell pages from the index", () => {
  it("equal the reference sort for every column kind, direction, filter, run set and page", () => {
    for (const sort of ["metric:rougeL", "latencyMs", "model"] as const) {
      for (const dir of ["asc", "desc"] as const) {
        for (const run of [undefined, 1]) {
          for (const workflow of [undefined, "standard-rag"]) {
            for (const page of [0, 1, 3]) {
              const q = { sort, dir, page, size: 37, ...(run === undefined ? {} : { run }), ...(workflow ? { workflow } : {}) };
              const params = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]));
              const got = queryCells(index, parseCellQuery(params));
              const want = referencePage([recsA, recsB], q);
              expect(
                got.rows.map((r) => r.key),
                JSON.stringify(q),
              ).toEqual(want);
            }
          }
        }
      }
    }
    const total = queryCells(index, parseCellQuery(new URLSearchParams("workflow=pzs&status=ok")));
    expect(total.total).toBe([...recsA, ...recsB].filter((r) => r.workflow === "pzs" && r.status === "ok").length);
  });
});

/** Reference: the old in-memory compare (pairs matched on item, model, workflow, params, repeat). */
function referenceCompare(a: RunRecord[], b: RunRecord[]) {
  const id = (r: RunRecord) => JSON.stringify([r.itemId, r.model, r.workflow, paramsLabel(r.params), r.repeat]);
  const byB = new Map(b.map((r) => [id(r), r]));
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  const pairs = a.map((ra) => {
    const rb = byB.get(id(ra)) ?? null;
    const both = typeof ra.output === "string" && typeof rb?.output === "string";
    return {
      itemId: ra.itemId,
      key: ra.key,
      identical: !!rb && ra.status === rb.status && (both ? norm(ra.output as string) === norm(rb.output as string) : ra.output === rb.output),
      difference: both ? wordDifference(ra.output as string, rb!.output as string) : null,
      onlyA: !rb,
    };
  });
  const aIds = new Set(a.map(id));
  return { pairs, onlyB: b.filter((r) => !aIds.has(id(r))).length };
}

describe("compare", () => {
  it("pairs, counts and differences equal the reference; natural item order; pages from one cached computation", async () => {
    const ref = referenceCompare(recsA, recsB);
    const first = await compareRuns(index, 0, 1, { size: 500 });
    const matched = ref.pairs.filter((p) => !p.onlyA);
    expect(first.counts).toEqual({
      matched: matched.length,
      identical: matched.filter((p) => p.identical).length,
      differing: matched.filter((p) => !p.identical).length,
      onlyA: ref.pairs.filter((p) => p.onlyA).length,
      onlyB: ref.onlyB,
    });
    expect(first.total).toBe(ref.pairs.length + ref.onlyB);
    const items = first.pairs.map((p) => Number(p.itemId.split(":")[1]));
    expect(items).toEqual([...items].sort((x, y) => x - y)); // natural: medevidence:9 before medevidence:10
    const byKey = new Map(ref.pairs.map((p) => [p.key, p]));
    for (const p of first.pairs.filter((x) => x.a !== null)) {
      const key = recsA[(p.a as number) - 1]?.key; // run 0's row ids are its index ids (1-based lines here)
      const want = byKey.get(key);
      expect(p.identical).toBe(want?.identical);
      if (want?.difference === null) expect(p.difference).toBeNull();
      else expect(p.difference).toBeCloseTo(want?.difference as number, 12);
    }
    const path = await ensureComparison(index, 0, 1);
    const mtime = statSync(path).mtimeMs;
    const diffOnly = await compareRuns(index, 0, 1, { onlyDiffering: true, page: 1, size: 10 });
    expect(diffOnly.total).toBe(first.counts.differing + first.counts.onlyA + first.counts.onlyB);
    expect(diffOnly.pairs.every((p) => !p.identical)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime); // paged from the cache, not computed again
  });
});

describe("compare on the server", () => {
  let srv: ViewerServer;
  beforeAll(async () => {
    // fresh copies: no cached comparison yet
    srv = await startViewerServer({ runs: [runDir("A2", recsA), runDir("B2", recsB)], port: 0, prefetchCompare: false });
  });
  afterAll(async () => srv?.close());

  it("is computed in a worker thread while other requests are answered", async () => {
    const order: string[] = [];
    const compare = fetch(`${srv.url}/api/compare?a=0&b=1&diff=1`).then(async (r) => {
      order.push("compare");
      return (await r.json()) as { counts: { onlyB: number } };
    });
    const meta = fetch(`${srv.url}/api/cells?size=5`).then(async (r) => {
      order.push("cells");
      return (await r.json()) as { rows: unknown[] };
    });
    const [c, m] = await Promise.all([compare, meta]);
    expect(m.rows.length).toBe(5);
    expect(c.counts.onlyB).toBe(9);
    expect(order).toEqual(["cells", "compare"]);
  });
});
