/**
 * Block-max MaxScore pruning returns exactly what exhaustive scoring returns: same ids, order and
 * scores (bit for bit), ties by corpus order — on every MedEvidence question over the natural
 * corpus and on seeded random queries over a replicated corpus (replicas tie exactly, the hard case
 * for pruning), with integral (Uint8) and fractional (Float32, title weight 1.5) term frequencies,
 * and over 70,000 synthetic documents (35 windows of 2,048; also with the float64 cursors of
 * indexes of ≥ 2³¹ postings).
 */
import { describe, expect, it } from "vitest";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { analyze } from "../../retrieval/analyzer.ts";
import { buildFastBm25, type FastBm25 } from "../../retrieval/bm25/fast-engine.ts";

const idsAndScores = (hits: { id: string; score: number }[]) => hits.map((h) => [h.id, h.score]);

function same(e: FastBm25, q: string, k: number): void {
  const pruned = idsAndScores(e.searchSync(q, k));
  const exhaustive = idsAndScores(e.searchExhaustive(q, k));
  expect(pruned, `query ${JSON.stringify(q)} k ${k}`).toEqual(exhaustive);
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("pruned BM25 top-k equals exhaustive top-k", () => {
  it("on every MedEvidence question (natural bundled corpus), k = 1, 10, 100", async () => {
    const { docs } = await loadBundledCorpus();
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    expect(tasks.length).toBe(284);
    const e = buildFastBm25(docs);
    e.strategy = "pruned"; // always prune (a long query would otherwise be answered term-at-a-time)
    let prunedWork = 0;
    let allWork = 0;
    for (const t of tasks) {
      for (const k of [1, 10, 100]) same(e, t.question, k);
      e.searchSync(t.question, 10);
      prunedWork += e.lastStats.work;
      allWork += e.lastStats.postings;
    }
    // At k = 10 pruning adds, scans or probes fewer postings than exhaustive scoring adds (0.70
    // measured on this small corpus, 2 windows; ~0.2 on a 100k replicated one); without pruning all.
    expect(prunedWork).toBeLessThan(allWork * 0.75);
  }, 120_000);

  it.each([
    ["integral tf (Uint8)", { title: 1, text: 1 }],
    ["fractional tf (Float32, title weight 1.5)", { title: 1.5, text: 1 }],
  ])(
    "on 300 seeded random queries over a 30× replicated corpus (exact score ties everywhere), %s",
    async (_label, fieldWeights) => {
      const { docs: base } = await loadBundledCorpus({ sources: ["medevidence"] });
      const docs: CorpusDoc[] = [];
      for (let r = 0; r < 30; r++) for (const d of base) docs.push(r === 0 ? d : { ...d, id: `${d.id}#r${r}` });
      const e = buildFastBm25(docs, { fieldWeights });
      e.strategy = "pruned";
      expect(e.info.docCount).toBe(base.length * 30);
      // Vocabulary sample: words of the abstracts themselves, so queries mix frequent and rare terms.
      const words = [...new Set(base.flatMap((d) => d.text.split(/\s+/).filter((w) => analyze(w).length === 1)))];
      const next = rng(11);
      for (let i = 0; i < 300; i++) {
        const len = 1 + Math.floor(next() * 12);
        const q = Array.from({ length: len }, () => words[Math.floor(next() * words.length)]);
        if (next() < 0.3) q.push(q[0]); // a repeated term counts twice
        const k = [1, 3, 10, 50, 1000][i % 5];
        same(e, q.join(" "), k);
      }
    },
    120_000,
  );

  it("on 200 seeded random queries over 70,000 synthetic Zipf documents (35 windows, skipped windows, both probe modes)", () => {
    const next = rng(7);
    // 400-word vocabulary with Zipf(1) frequencies; words are letter strings the analyzer keeps.
    const vocab = Array.from({ length: 400 }, (_, i) => `q${i.toString(26).replace(/[0-9]/g, (c) => "jklmnopqrs"[Number(c)])}x`);
    const cum: number[] = [];
    let total = 0;
    for (let i = 0; i < vocab.length; i++) cum.push((total += 1 / (i + 1)));
    const word = (): string => {
      const u = next() * total;
      let lo = 0;
      let hi = cum.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cum[mid] < u) lo = mid + 1;
        else hi = mid;
      }
      return vocab[lo];
    };
    const docs: CorpusDoc[] = Array.from({ length: 70_000 }, (_, i) => ({
      id: `s${i}`,
      title: next() < 0.5 ? word() : "",
      text: Array.from({ length: 3 + Math.floor(next() * 25) }, word).join(" "),
    }));
    const e = buildFastBm25(docs);
    e.strategy = "pruned";
    let work = 0;
    let postings = 0;
    for (let i = 0; i < 200; i++) {
      const q = Array.from({ length: 1 + Math.floor(next() * 15) }, word).join(" ");
      const k = [1, 10, 100, 7][i % 4];
      same(e, q, k);
      e.searchSync(q, k);
      work += e.lastStats.work;
      postings += e.lastStats.postings;
    }
    // Pruning skips most postings here too (0.28 measured); exhaustive scoring would add them all.
    expect(work).toBeLessThan(postings * 0.6);
    // The float64-cursor path (indexes of ≥ 2³¹ postings) gives the same results.
    e.cursorsAsFloat64 = true;
    for (let i = 0; i < 60; i++) same(e, Array.from({ length: 1 + Math.floor(next() * 15) }, word).join(" "), [1, 10, 100][i % 3]);
  }, 120_000);

  it("ties keep corpus order when k cuts through a group of equal scores", () => {
    const docs: CorpusDoc[] = [
      { id: "x", title: "", text: "stroke" },
      { id: "b", title: "", text: "stroke aspirin" },
      { id: "c", title: "", text: "stroke aspirin" },
      { id: "a", title: "", text: "stroke aspirin" },
      { id: "y", title: "", text: "fever" },
    ];
    const e = buildFastBm25(docs);
    e.strategy = "pruned";
    expect(e.searchSync("aspirin stroke", 2).map((h) => h.id)).toEqual(["b", "c"]);
    same(e, "aspirin stroke", 2);
    same(e, "aspirin stroke stroke", 4);
  });
});
