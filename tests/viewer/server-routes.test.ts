/** The explorer's routes over a real results file: meta, filters, sorting, paging, item page, export, compare. */
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewerServer, type ViewerServer } from "../../viewer/server.ts";
import { wordDifference } from "../../viewer/compare.ts";
import { makeRunDir, realRecords, XSS } from "./fixtures.ts";

let srv: ViewerServer;
const get = async (path: string) => {
  const res = await fetch(srv.url + path);
  return { status: res.status, type: res.headers.get("content-type") ?? "", csp: res.headers.get("content-security-policy") ?? "", text: await res.text() };
};
const getJson = async (path: string) => JSON.parse((await get(path)).text);

const CHANGED = "A different output entirely.";
const isChanged = (r: { itemId: string; workflow: string }) => r.itemId === "medevidence:15" && r.workflow === "golden-rag";

beforeAll(async () => {
  const second = makeRunDir({ malformed: false, name: "second", map: (r) => (isChanged(r) ? { ...r, output: CHANGED } : r) });
  srv = await startViewerServer({ runs: [makeRunDir(), second], port: 0 });
});
afterAll(async () => srv?.close());

describe("meta", () => {
  it("counts cells and the malformed lines skipped, with their numbers", async () => {
    const m = await getJson("/api/meta");
    expect(m.runs[0]).toMatchObject({ name: "fixture-run", cells: 17, malformedLines: 2, malformedLineNumbers: [4, 19] });
    expect(m.runs[1]).toMatchObject({ name: "second", cells: 17, malformedLines: 0 });
    expect(m.totalCells).toBe(34);
    expect(m.facets.workflow).toEqual(["golden-rag", "negated-rag", "pcot", "pzs", "standard-rag"]);
    expect(m.facets.params).toEqual(["", "fraction=0", "fraction=1", "k=10", "k=5"]);
    expect(m.scoreColumns).toContain("panel:medmeta-semantic-equivalence.semantic_equivalence");
    expect(m.scoreColumns).toContain("metric:answer_correct_lexical");
  });
});

describe("cells", () => {
  it("filters by run, workflow, params, status and judge state", async () => {
    expect((await getJson("/api/cells?run=0&workflow=standard-rag")).total).toBe(6);
    expect((await getJson("/api/cells?run=0&workflow=standard-rag&params=k%3D5")).total).toBe(3);
    expect((await getJson("/api/cells?run=0&dataset=medevidence")).total).toBe(10);
    const failed = await getJson("/api/cells?run=0&status=failed");
    expect(failed.total).toBe(1);
    expect(failed.rows[0]).toMatchObject({ key: "failed-cell", status: "failed", workflow: "pzs" });
    const missing = await getJson("/api/cells?status=ok&judge=missing");
    expect(missing.total).toBe(2);
    expect(missing.rows.map((r: { key: string }) => r.key)).toEqual(["xss-pcot-cell", "xss-pcot-cell"]);
  });
  it("searches outputs case-insensitively", async () => {
    const real = realRecords();
    const needle = "HEAD CIRCUMFERENCE";
    const expected = real.filter((r) => (r.output ?? "").toLowerCase().includes(needle.toLowerCase())).length;
    expect(expected).toBeGreaterThan(0);
    expect((await getJson(`/api/cells?run=0&q=${encodeURIComponent(needle)}`)).total).toBe(expected);
  });
  it("gives per-cell tokens, latency and cost from the run's prices", async () => {
    const r = (await getJson("/api/cells?run=0&workflow=pcot")).rows[0];
    // (1000 · 2 + 200 · 8) / 1e6
    expect(r.costUsd).toBeCloseTo(0.0036, 12);
    expect(r).toMatchObject({ inputTokens: 1000, outputTokens: 200, latencyMs: 1234 });
    expect((await getJson("/api/cells?run=0&workflow=golden-rag")).rows[0].costUsd).toBeNull();
    expect((await getJson("/api/cells?run=0&workflow=pcot")).rows[0].searchText).toBeUndefined();
  });
  it("sorts by a score with missing values last, both directions, and pages on the server", async () => {
    const col = "metric:answer_correct_lexical";
    const real = realRecords();
    const present = real.filter((r) => typeof r.metrics?.answer_correct_lexical === "number");
    const ones = present.filter((r) => r.metrics!.answer_correct_lexical === 1).length;
    const desc = await getJson(`/api/cells?run=0&sort=${encodeURIComponent(col)}&dir=desc&size=100`);
    const vals = desc.rows.map((r: { scores: Record<string, number | null> }) => r.scores[col] ?? null);
    expect(vals.slice(0, ones)).toEqual(Array(ones).fill(1));
    expect(vals.slice(ones, present.length)).toEqual(Array(present.length - ones).fill(0));
    expect(vals.slice(present.length).every((v: number | null) => v === null)).toBe(true);
    const asc = await getJson(`/api/cells?run=0&sort=${encodeURIComponent(col)}&dir=asc&size=100`);
    expect(asc.rows[0].scores[col]).toBe(0);
    expect(asc.rows[asc.rows.length - 1].scores[col] ?? null).toBeNull();
    const p1 = await getJson(`/api/cells?run=0&sort=latencyMs&dir=desc&size=5&page=1`);
    expect(p1).toMatchObject({ total: 17, page: 1, size: 5 });
    expect(p1.rows).toHaveLength(5);
    const all = (await getJson(`/api/cells?run=0&sort=latencyMs&dir=desc&size=100`)).rows;
    expect(p1.rows.map((r: { key: string }) => r.key)).toEqual(all.slice(5, 10).map((r: { key: string }) => r.key));
  });
  it("answers 400 naming the problem for an unknown sort column or parameter", async () => {
    const bad = await get("/api/cells?sort=nope");
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('unknown sort column \\"nope\\"');
    expect((await get("/api/cells?colour=red")).status).toBe(400);
    expect((await get("/api/cells?size=100000")).status).toBe(400);
  });
  it("answers 400 naming the runs loaded for a run index out of range, on every route taking one", async () => {
    for (const path of ["/api/cells?run=7", "/api/cells?run=7&q=head", "/api/export.csv?run=7", "/api/export.jsonl?run=7"]) {
      const r = await get(path);
      expect([path, r.status, JSON.parse(r.text)]).toEqual([path, 400, { error: "no run 7: 2 run(s) loaded (0-based)" }]);
    }
    for (const run of ["-1", "1.5", "two"]) expect(JSON.parse((await get(`/api/cells?run=${run}`)).text)).toEqual({ error: `no run ${run}: 2 run(s) loaded (0-based)` });
    expect(JSON.parse((await get("/api/compare?b=5")).text)).toEqual({ error: "no run 5: 2 run(s) loaded (0-based)" });
    for (const a of ["abc", "-1", "1.5", ""]) {
      const r = await get(`/api/compare?a=${a}`);
      expect([r.status, JSON.parse(r.text)]).toEqual([400, { error: `a must be a run index (0-based integer), got ${JSON.stringify(a)}` }]);
    }
    // A compare page or page size that is not an integer is refused too (it used to fall back to the defaults).
    for (const [q, error] of [
      ["page=abc", 'page must be an integer ≥ 0, got "abc"'],
      ["page=-1", 'page must be an integer ≥ 0, got "-1"'],
      ["size=abc", 'size must be an integer ≥ 1, got "abc"'],
      ["size=0", 'size must be an integer ≥ 1, got "0"'],
      ["size=2.5", 'size must be an integer ≥ 1, got "2.5"'],
    ]) {
      const r = await get(`/api/compare?${q}`);
      expect([q, r.status, JSON.parse(r.text)]).toEqual([q, 400, { error }]);
    }
    expect((await get("/api/compare?page=1&size=3")).status).toBe(200);
    expect((await getJson("/api/cells?run=1")).total).toBe(17);
    // An export's bad sort column is answered 400 too, before any row.
    expect([(await get("/api/export.csv?sort=nope")).status, (await get("/api/export.csv?run=1")).status]).toEqual([400, 200]);
  });
});

describe("item page", () => {
  it("shows evidence with rank, score, queries and golden marks, and the negation diff", async () => {
    const v = await getJson("/api/item?id=medevidence%3A15");
    expect(v.cells).toHaveLength(10); // two runs × 5 configurations
    expect(v.question).toBe("Is head circumference gain higher, lower, or the same when comparing moderate protein concentration to low protein concentration?");
    expect(v.goldenIds).toEqual(["27801753", "10838460", "8906139"]);
    const std = v.cells.find((c: { workflow: string; params: string }) => c.workflow === "standard-rag" && c.params === "k=5");
    expect(std.evidence[0]).toMatchObject({ id: "27801753", rank: 1, golden: true });
    expect(std.evidence[0].score).toBeCloseTo(0.03278688524590164, 15);
    expect(std.evidence[0].queries[0].query).toBe(v.question);
    expect(std.evidence[1]).toMatchObject({ id: "22301933", rank: 2, golden: false });
    const neg = v.cells.find((c: { workflow: string; params: string }) => c.workflow === "negated-rag" && c.params === "fraction=1");
    expect(neg.negation.map((n: { id: string; changed: unknown[] }) => [n.id, n.changed.length])).toEqual([
      ["27801753", 6],
      ["10838460", 3],
      ["8906139", 2],
    ]);
    const rec = realRecords().find((r) => r.itemId === "medevidence:15" && r.workflow === "negated-rag" && r.params.fraction === 1)!;
    const first = (rec.intermediate.negation as { changed: { original: string; negated: string }[] }[])[0].changed[0];
    expect(neg.negation[0].changed[0]).toMatchObject({ original: first.original, negated: first.negated });
    expect(v.cells.find((c: { workflow: string; params: string }) => c.workflow === "negated-rag" && c.params === "fraction=0").negation).toEqual([]);
  });
  it("shows P-CoT steps and judge verdicts: rationale when ok, raw answer and reason when missing", async () => {
    const v = await getJson("/api/item?id=xss%3A1");
    const c = v.cells[0];
    expect(c.pcot).toMatchObject({ plan: XSS.plan, drafts: ["first <i>draft</i>", XSS.output], scores: [2, 4], stopReason: "threshold" });
    expect(c.judges[0]).toMatchObject({ judgeId: "judge-a", status: "ok", rationale: XSS.rationale, raw: null });
    expect(c.judges[1]).toMatchObject({ judgeId: "judge-b", status: "missing", rationale: null, raw: XSS.raw, error: "answer did not parse as JSON" });
    expect(v.reference).toBe(XSS.reference);
  });
  it("404 for an unknown item", async () => {
    expect((await get("/api/item?id=nope")).status).toBe(404);
  });
});

describe("export", () => {
  it("CSV rows equal the filtered, sorted table rows", async () => {
    const q = "run=0&workflow=negated-rag&sort=latencyMs&dir=desc";
    const table = (await getJson(`/api/cells?${q}&size=500`)).rows;
    const csv = await get(`/api/export.csv?${q}&page=3&size=1`);
    expect(csv.type).toContain("text/csv");
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.key)).toEqual(table.map((r: { key: string }) => r.key));
    expect(rows).toHaveLength(6);
    expect(rows[0]).toMatchObject({ run: "fixture-run", workflow: "negated-rag", itemId: table[0].itemId, params: table[0].params, latencyMs: String(table[0].latencyMs) });
    const jsonl = (await get(`/api/export.jsonl?${q}`)).text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(jsonl.map((r: { key: string }) => r.key)).toEqual(rows.map((r) => r.key));
  });
  it("quotes HTML and commas as data", async () => {
    const csv = await get("/api/export.csv?run=0&workflow=pcot");
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows[0]["panel:medmeta-semantic-equivalence.semantic_equivalence"]).toBe("3");
  });
});

describe("pages", () => {
  it("serve the app with a CSP that forbids inline scripts", async () => {
    const page = await get("/");
    expect(page.type).toContain("text/html");
    expect(page.csp).toContain("script-src 'self'");
    expect(page.csp).not.toContain("unsafe-inline");
    expect((await get("/api/rate/anything")).status).toBe(403);
  });
  it("answer 403 to a request addressed to another host name (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const status = (host: string) =>
      new Promise<number>((ok, fail) => {
        const u = new URL(srv.url);
        request({ host: u.hostname, port: u.port, path: "/api/meta", headers: { host } }, (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        })
          .on("error", fail)
          .end();
      });
    expect(await status("evil.example:80")).toBe(403);
    expect(await status(`localhost:${new URL(srv.url).port}`)).toBe(200);
  });
});

describe("compare", () => {
  it("word difference is 1 − shared words / longer text", () => {
    expect(wordDifference("a b c d", "a b c e")).toBeCloseTo(0.25, 12);
    expect(wordDifference("same text", "Same  text")).toBe(0);
    expect(wordDifference("x y", "z")).toBe(1);
  });
  it("matches cells of two runs and says which differ and by how much", async () => {
    const c = await getJson("/api/compare?a=0&b=1");
    expect(c.counts).toEqual({ matched: 17, identical: 16, differing: 1, onlyA: 0, onlyB: 0 });
    const d = await getJson("/api/compare?a=0&b=1&diff=1");
    expect(d.total).toBe(1);
    const original = realRecords().find(isChanged)!.output!;
    expect(d.pairs[0]).toMatchObject({ itemId: "medevidence:15", workflow: "golden-rag", identical: false, statusA: "ok", statusB: "ok" });
    expect(d.pairs[0].difference).toBeCloseTo(wordDifference(original, CHANGED), 12);
    expect(d.pairs[0].difference).toBeGreaterThan(0.9);
    expect(d.pairs[0].deltas["metric:answer_correct_lexical"]).toBe(0);
  });
});
