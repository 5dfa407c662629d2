import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluateRun } from "../../retrieval/eval/ir-metrics.ts";
import { formatTrecQrels, formatTrecRun, parseTrecRun, readTrecQrels, readTrecRun, writeTrecQrels, writeTrecRun } from "../../retrieval/eval/trec.ts";

const RUN = {
  "0": [
    { id: "17466514", score: 23.5 },
    { id: "12214830", score: 11.25 },
  ],
  "1": [{ id: "9190979", score: 0.5 }],
};
const QRELS = { "0": { "17466514": 1, "12214830": 0 }, "1": { "9190979": 2 } };

describe("TREC files", () => {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-trec-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("formats run and qrels lines exactly", () => {
    expect(formatTrecRun(RUN, "medsynth-bm25")).toBe(
      "0 Q0 17466514 1 23.5 medsynth-bm25\n0 Q0 12214830 2 11.25 medsynth-bm25\n1 Q0 9190979 1 0.5 medsynth-bm25\n",
    );
    // Integer-like ids come out in ascending order (JS object key order).
    expect(formatTrecQrels(QRELS)).toBe("0 0 12214830 0\n0 0 17466514 1\n1 0 9190979 2\n");
  });

  it("round-trips through files and evaluates the same", () => {
    writeTrecRun(join(dir, "run.txt"), RUN, "tag");
    writeTrecQrels(join(dir, "qrels.txt"), QRELS);
    const { run, tag } = readTrecRun(join(dir, "run.txt"));
    expect(tag).toBe("tag");
    expect(run).toEqual(RUN);
    expect(readTrecQrels(join(dir, "qrels.txt"))).toEqual(QRELS);
    expect(evaluateRun(run, QRELS, ["mrr"]).mean.mrr).toBe(1);
  });

  it("orders parsed entries by score descending like trec_eval", () => {
    const { run } = parseTrecRun("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n");
    expect(run.q.map((e) => e.id)).toEqual(["b", "a"]);
  });

  it("names file and line of a malformed record; rejects ids with spaces", () => {
    const p = join(dir, "bad.txt");
    writeFileSync(p, "q Q0 a 1 0.1 t\nq Q0 b 2\n");
    expect(() => readTrecRun(p)).toThrow(new RegExp(`bad\\.txt:2: expected 6 fields`));
    expect(() => formatTrecRun({ q: [{ id: "a b", score: 1 }] }, "t")).toThrow(/whitespace/);
    expect(() => formatTrecQrels({ q: { a: 0.5 } })).toThrow(/non-integer/);
  });
});
