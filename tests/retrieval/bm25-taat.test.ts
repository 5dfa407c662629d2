/**
 * Quantised term-at-a-time top-k (retrieval/bm25/fast-taat.ts) returns exactly what exhaustive
 * scoring returns — same ids, order and scores bit for bit, ties by corpus order — on every
 * MedEvidence question, on seeded random queries over a replicated corpus (exact ties everywhere)
 * with integral and fractional tf, over 140 k documents (3 accumulator windows), and on k larger
 * than the documents touched; the quantisation
 * keeps `scale·(q − 2) < impact ≤ scale·q` for every posting; the engine picks TAAT for long
 * queries and the pruned search for short ones and beyond 2¹⁵ term counts.
 */
import { describe, expect, it } from "vitest";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { analyze } from "../../retrieval/analyzer.ts";
import { buildFastBm25, type FastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import { createTaatState, TAAT_LEVELS } from "../../retrieval/bm25/fast-taat.ts";
import { mulberry32 as rng } from "../helpers/zipf-docs.ts";

const idsAndScores = (hits: { id: string; score: number }[]) => hits.map((h) => [h.id, h.score]);

function sameAsExhaustive(e: FastBm25, q: string, k: number): void {
  const taat = idsAndScores(e.searchSync(q, k));
  expect(e.lastStrategy, `query ${JSON.stringify(q)}`).toBe("taat");
  expect(taat, `query ${JSON.stringify(q)} k ${k}`).toEqual(idsAndScores(e.searchExhaustive(q, k)));
}

/** TAAT on engine e, its postings added by the WebAssembly kernel or by JavaScript. */
function useTaat(e: FastBm25, accumulator: "wasm" | "js"): void {
  e.strategy = "taat";
  const ix = (e as unknown as { ix: Parameters<typeof createTaatState>[0] }).ix;
  const st = createTaatState(ix, TAAT_LEVELS, accumulator);
  expect(st.kernel === null).toBe(accumulator === "js");
  (e as unknown as { taat: unknown }).taat = st;
}

describe.each(["wasm", "js"] as const)("quantised TAAT BM25 top-k equals exhaustive top-k (%s accumulator)", (accumulator) => {
  it("on every MedEvidence question (bundled corpus), k = 1, 10, 100, scoring few candidates exactly", async () => {
    const { docs } = await loadBundledCorpus();
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    const e = buildFastBm25(docs);
    useTaat(e, accumulator);
    let finalists = 0;
    for (const t of tasks) {
      for (const k of [1, 10, 100]) sameAsExhaustive(e, t.question, k);
      e.searchSync(t.question, 10);
      finalists += e.lastStats.finalists;
      expect(e.lastStats.work).toBe(e.lastStats.postings);
    }
    // The candidate bound is tight: ~k documents scored exactly per question (10.0 measured on
    // 25 k–1 M synthetic docs); a loose bound would score hundreds.
    expect(finalists / tasks.length).toBeLessThan(15);
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
      useTaat(e, accumulator);
      const words = [...new Set(base.flatMap((d) => d.text.split(/\s+/).filter((w) => analyze(w).length === 1)))];
      const next = rng(13);
      for (let i = 0; i < 300; i++) {
        const q = Array.from({ length: 1 + Math.floor(next() * 12) }, () => words[Math.floor(next() * words.length)]);
        if (next() < 0.3) q.push(q[0], q[0]); // a repeated term counts three times
        sameAsExhaustive(e, q.join(" "), [1, 3, 10, 50, 1000][i % 5]);
      }
    },
    120_000,
  );

  it("on 150 seeded random queries over 140,000 synthetic Zipf documents (3 accumulator windows)", () => {
    const next = rng(5);
    const vocab = Array.from({ length: 300 }, (_, i) => `q${i.toString(26).replace(/[0-9]/g, (c) => "jklmnopqrs"[Number(c)])}x`);
    const cum: number[] = [];
    let total = 0;
    for (let i = 0; i < vocab.length; i++) cum.push((total += 1 / (i + 1)));
    const word = (): string => {
      const u = next() * total;
      let at = 0;
      while (cum[at] < u) at++;
      return vocab[at];
    };
    const docs: CorpusDoc[] = Array.from({ length: 140_000 }, (_, i) => ({ id: `s${i}`, title: "", text: Array.from({ length: 2 + Math.floor(next() * 10) }, word).join(" ") }));
    const e = buildFastBm25(docs);
    useTaat(e, accumulator);
    for (let i = 0; i < 150; i++) sameAsExhaustive(e, Array.from({ length: 1 + Math.floor(next() * 15) }, word).join(" "), [1, 10, 100, 7][i % 4]);
  }, 120_000);

  it("over 140,000 documents whose relevance rises with their position (the running bound L starts low in every window), 4 quantisation levels too", () => {
    const next = rng(23);
    const filler = ["trial", "cohort", "dose", "placebo", "outcome", "risk", "adults"];
    const docs: CorpusDoc[] = Array.from({ length: 140_000 }, (_, i) => {
      // "aspirin" 1–14 times, more often further on; "stroke" in every 3rd doc; fillers vary the length.
      const words = Array.from({ length: 1 + Math.floor(i / 10_000) }, () => "aspirin");
      if (i % 3 === 0) words.push("stroke");
      for (let j = Math.floor(next() * 8); j > 0; j--) words.push(filler[Math.floor(next() * filler.length)]);
      return { id: `r${i}`, title: "", text: words.join(" ") };
    });
    const e = buildFastBm25(docs);
    useTaat(e, accumulator);
    const queries = ["aspirin", "aspirin stroke", "stroke aspirin aspirin dose", "placebo stroke", "risk cohort aspirin"];
    for (const q of queries) for (const k of [1, 10, 25]) sameAsExhaustive(e, q, k);
    const ix = (e as unknown as { ix: Parameters<typeof createTaatState>[0] }).ix;
    (e as unknown as { taat: unknown }).taat = createTaatState(ix, 4, accumulator);
    for (const q of queries) for (const k of [1, 10]) sameAsExhaustive(e, q, k);
  }, 120_000);

  it("with 6 quantisation levels (many documents share U: the 2C candidate margin decides), 300 random queries", async () => {
    const { docs } = await loadBundledCorpus({ sources: ["medevidence"] });
    const e = buildFastBm25(docs);
    useTaat(e, accumulator);
    const ix = (e as unknown as { ix: Parameters<typeof createTaatState>[0] }).ix;
    (e as unknown as { taat: unknown }).taat = createTaatState(ix, 6, accumulator);
    const words = [...new Set(docs.flatMap((d) => d.text.split(/\s+/).filter((w) => analyze(w).length === 1)))];
    const next = rng(17);
    let finalists = 0;
    for (let i = 0; i < 300; i++) {
      const q = Array.from({ length: 2 + Math.floor(next() * 10) }, () => words[Math.floor(next() * words.length)]);
      sameAsExhaustive(e, q.join(" "), [1, 3, 10][i % 3]);
      finalists += e.lastStats.finalists;
    }
    expect(finalists / 300).toBeGreaterThan(20); // coarse levels: many candidates, still exact
  }, 120_000);

  it("returns every touched document when k exceeds them, ties in corpus order", () => {
    const docs: CorpusDoc[] = [
      { id: "x", title: "", text: "stroke" },
      { id: "b", title: "", text: "stroke aspirin" },
      { id: "c", title: "", text: "stroke aspirin" },
      { id: "a", title: "", text: "stroke aspirin" },
      { id: "y", title: "", text: "fever" },
    ];
    const e = buildFastBm25(docs);
    useTaat(e, accumulator);
    expect(e.searchSync("aspirin stroke", 2).map((h) => h.id)).toEqual(["b", "c"]);
    expect(e.searchSync("aspirin stroke", 10).map((h) => h.id)).toEqual(["b", "c", "a", "x"]);
    sameAsExhaustive(e, "aspirin stroke stroke", 4);
    sameAsExhaustive(e, "fever", 3);
  });
});

describe("TAAT quantisation and strategy choice", () => {
  it("every quantised impact q satisfies scale·(q − 2) < impact ≤ scale·q, 1 ≤ q ≤ 65535", async () => {
    const { docs } = await loadBundledCorpus({ sources: ["medevidence"] });
    const e = buildFastBm25(docs);
    // The engine's index arrays, as the engine hands them to TAAT.
    const ix = (e as unknown as { ix: Parameters<typeof createTaatState>[0] }).ix;
    const st = createTaatState(ix);
    let checked = 0;
    for (let t = 0; t < ix.idf.length; t++) {
      for (let p = ix.offsets[t]; p < ix.offsets[t + 1]; p++) {
        const tf = ix.postTf[p];
        const impact = (ix.idf[t] * (tf * ix.k1p1)) / (tf + ix.norm[ix.postDocs[p]]);
        const q = st.packed[p] & 0xffff;
        expect(st.packed[p] >>> 16).toBe(ix.postDocs[p] % 65536);
        expect(q >= 1 && q <= TAAT_LEVELS).toBe(true);
        expect(st.scale * q).toBeGreaterThanOrEqual(impact);
        expect(st.scale * (q - 2)).toBeLessThan(impact);
        checked++;
      }
    }
    expect(checked).toBe(e.postingCount);
  });

  it("a field weight so small that the stored tf is 0 (impact 0): every path lists each document once, the same way", () => {
    const docs: CorpusDoc[] = [
      { id: "a", title: "aspirin", text: "stroke" },
      { id: "b", title: "aspirin", text: "fever" },
      { id: "c", title: "", text: "aspirin stroke" },
    ];
    const e = buildFastBm25(docs, { fieldWeights: { title: 1e-46, text: 1 } });
    const exhaustive = idsAndScores(e.searchExhaustive("aspirin stroke", 10));
    // a: "stroke" only counts; c: both terms; b: "aspirin" in the title only (impact 0).
    expect(exhaustive.map(([id]) => id)).toEqual(["a", "c", "b"]);
    expect(exhaustive[2][1]).toBe(0);
    for (const strategy of ["taat", "pruned"] as const) {
      e.strategy = strategy;
      expect(idsAndScores(e.searchSync("aspirin stroke", 10))).toEqual(exhaustive);
    }
  });

  it("auto: TAAT for a long question, pruned for a one-word query, pruned beyond 2¹⁵ term counts", async () => {
    const { docs } = await loadBundledCorpus();
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    const e = buildFastBm25(docs);
    expect(e.taatAccumulator).toBeNull(); // made on the first term-at-a-time query
    e.searchSync(tasks[0].question, 10);
    expect(e.lastStrategy).toBe("taat");
    // By default the WebAssembly kernel adds the postings.
    expect(e.taatAccumulator).toBe("wasm");
    e.searchSync("aspirin", 10);
    expect(e.lastStrategy).toBe("pruned");
    e.strategy = "taat";
    const huge = Array.from({ length: 1 << 15 }, () => "aspirin").join(" ");
    const hits = e.searchSync(huge, 5);
    expect(e.lastStrategy).toBe("pruned");
    expect(idsAndScores(hits)).toEqual(idsAndScores(e.searchExhaustive(huge, 5)));
  });
});
