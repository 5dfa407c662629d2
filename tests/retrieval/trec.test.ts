import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rrfFuse } from "../../retrieval/fusion.ts";
import { averagePrecision, evaluateRun, reciprocalRank } from "../../retrieval/eval/ir-metrics.ts";
import { formatTrecQrels, formatTrecRun, nextDown, parseTrecRun, readTrecQrels, readTrecRun, writeTrecQrels, writeTrecRun } from "../../retrieval/eval/trec.ts";

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
    expect(formatTrecRun(RUN, "medsynth-bm25")).toBe("0 Q0 17466514 1 23.5 medsynth-bm25\n0 Q0 12214830 2 11.25 medsynth-bm25\n1 Q0 9190979 1 0.5 medsynth-bm25\n");
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

  it("orders parsed entries like trec_eval: score descending, then docno descending, rank column ignored", () => {
    const { run } = parseTrecRun("q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n");
    expect(run.q.map((e) => e.id)).toEqual(["b", "a"]);
    // Equal scores: docno descending ("b" before "a"), whatever the rank column says.
    const tied = parseTrecRun("q Q0 a 1 0.5 t\nq Q0 c 3 0.5 t\nq Q0 b 2 0.5 t\n");
    expect(tied.run.q.map((e) => e.id)).toEqual(["c", "b", "a"]);
  });

  it("writes strictly decreasing scores: ties become the next double below; depth cuts; a repeated id is written once", () => {
    const text = formatTrecRun(
      {
        q: [
          { id: "a", score: 1 },
          { id: "b", score: 1 },
          { id: "a", score: 0.9 },
          { id: "c", score: 1 },
          { id: "d", score: 0.5 },
        ],
      },
      "t",
      3,
    );
    const b = nextDown(1);
    const c = nextDown(b);
    expect(b).toBe(0.9999999999999999);
    expect(text).toBe(`q Q0 a 1 1 t\nq Q0 b 2 ${b} t\nq Q0 c 3 ${c} t\n`);
    expect(nextDown(0)).toBe(-Number.MIN_VALUE);
    expect(nextDown(-1)).toBe(-1.0000000000000002);
  });

  it("names file and line of a malformed record; rejects ids with spaces", () => {
    const p = join(dir, "bad.txt");
    writeFileSync(p, "q Q0 a 1 0.1 t\nq Q0 b 2\n");
    expect(() => readTrecRun(p)).toThrow(new RegExp(`bad\\.txt:2: expected 6 fields`));
    expect(() => formatTrecRun({ q: [{ id: "a b", score: 1 }] }, "t")).toThrow(/whitespace/);
    expect(() => formatTrecQrels({ q: { a: 0.5 } })).toThrow(/non-integer/);
  });
});

describe("done when: a fused run with ties, exported and re-read the trec_eval way, scores exactly as we print", () => {
  // BM25 list [a, b, c, d] and dense list [b, a, d, c]: RRF (k 60) gives a = b = 1/61 + 1/62 and
  // c = d = 1/63 + 1/64 (bit-identical). Our tie rule (first appearance) ranks a, b, c, d; trec_eval
  // on equal scores would rank b, a, d, c (docno descending). Relevant: b (grade 1) and d (grade 2).
  const fused = rrfFuse([hits(["a", 9], ["b", 8], ["c", 7], ["d", 6]), hits(["b", 0.9], ["a", 0.8], ["d", 0.7], ["c", 0.6])]);
  const qrels = { q1: { b: 1, d: 2, c: 0 } };
  const metrics = ["recall@1", "precision@2", "ndcg@4", "mrr@1", "mrr", "map", "hit@1"];

  it("the fused scores tie pairwise and rank a, b, c, d", () => {
    expect(fused.map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
    expect(fused[0].score).toBe(fused[1].score);
    expect(fused[2].score).toBe(fused[3].score);
  });

  it("re-read with score desc / docno desc / rank ignored, every metric equals ours", () => {
    const ours = evaluateRun({ q1: fused.map((h) => h.id) }, qrels, metrics);
    // By hand: b at rank 2, d at rank 4 → MRR = 1/2, AP = (1/2 + 2/4)/2 = 0.5, MRR@1 = 0, recall@1 = 0.
    expect(ours.mean).toMatchObject({ "recall@1": 0, "precision@2": 0.5, "mrr@1": 0, mrr: 0.5, map: 0.5, "hit@1": 0 });
    const text = formatTrecRun({ q1: fused.map((h) => ({ id: h.id, score: h.score })) }, "medsynth-hybrid-rrf");
    const reread = parseTrecRun(text).run;
    expect(reread.q1.map((e) => e.id)).toEqual(["a", "b", "c", "d"]);
    expect(evaluateRun({ q1: reread.q1.map((e) => e.id) }, qrels, metrics)).toEqual(ours);
  });

  it("without strictly decreasing scores trec_eval would rank differently (the test can fail)", () => {
    const naive = fused.map((h, i) => `q1 Q0 ${h.id} ${i + 1} ${h.score} t`).join("\n");
    const order = parseTrecRun(naive).run.q1.map((e) => e.id);
    expect(order).toEqual(["b", "a", "d", "c"]);
    expect(reciprocalRank(order, qrels.q1)).toBe(1);
    expect(averagePrecision(order, qrels.q1)).toBe((1 / 1 + 2 / 3) / 2);
  });
});

function hits(...pairs: [string, number][]) {
  return pairs.map(([id, score]) => ({ id, score }));
}
