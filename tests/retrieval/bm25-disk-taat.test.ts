/**
 * The on-disk engine's quantised term-at-a-time path (retrieval/bm25/disk-taat.ts) returns exactly
 * the in-memory engine's top k — ids, order and float64 scores — over the live documents: long and
 * short queries across a 65,536-document window boundary, heavy ties, fractional tfs, an update
 * segment (masks; live avgdl ≠ the segments' own), parallel slices; a segment without impacts
 * (built before round 10) is still searched (pruned); and the quantisation bound it relies on holds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusDoc } from "../../corpus/types.ts";
import { buildFastBm25, type FastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import { addDiskBm25Segment, buildDiskBm25, mergeSliceHits, openDiskBm25, type DiskBm25 } from "../../retrieval/bm25/disk-engine.ts";
import { IMPACT_LEVELS, quantiseImpact } from "../../retrieval/bm25/disk-segment.ts";
import { DISK_TAAT_WEIGHT_BUDGET, taatWeights } from "../../retrieval/bm25/disk-taat.ts";
import { mulberry32, ZipfWords, zipfDocs, zipfQuery } from "../helpers/zipf-docs.ts";

let root = "";
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "medsynth-bm25-disk-taat-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const idsAndScores = (hits: { id: string; score: number }[]) => hits.map((h) => [h.id, h.score]);

/** Asserts the TAAT path ran in every segment and equals the in-memory engine. */
function same(disk: DiskBm25, mem: FastBm25, queries: readonly string[], ks: readonly number[]): void {
  for (const q of queries)
    for (const k of ks) {
      const got = idsAndScores(disk.searchSync(q, k));
      // (a query of stop words or unknown terms searches nothing)
      if (got.length > 0) expect(disk.lastStats.taatSegments, `query ${JSON.stringify(q)}`).toBe(disk.info.segments);
      expect(got, `query ${JSON.stringify(q)} k ${k}`).toEqual(idsAndScores(mem.searchSync(q, k)));
    }
}

const words = new ZipfWords();
// 70,000 docs: two accumulator windows (the boundary at 65,536 splits blocks of every long list).
const docs: CorpusDoc[] = [...zipfDocs(words, 70_000, 21)];
const rnd = mulberry32(9);
const short = Array.from({ length: 150 }, () => zipfQuery(words, rnd, 20_000));
/** ~15-word questions drawn from the whole vocabulary (many postings per document, as MedEvidence's). */
const long = Array.from({ length: 60 }, (_, i) =>
  Array.from({ length: 15 }, (_, j) => zipfQuery(words, mulberry32(1000 * i + j), 3000))
    .join(" ")
    .split(" ")
    .slice(0, 18)
    .join(" "),
);

describe("on-disk BM25, term-at-a-time = in-memory engine (bit-identical)", () => {
  let dir = "";
  let mem: FastBm25;
  beforeAll(async () => {
    dir = join(root, "main");
    await buildDiskBm25(dir, docs, { runPostings: 1_500_000 });
    mem = buildFastBm25(docs);
  }, 120_000);

  it("long and short queries across the window boundary, k = 1, 10, 100; auto picks TAAT for long questions", () => {
    const disk = openDiskBm25(dir, { strategy: "taat" });
    same(disk, mem, [...long, ...short.slice(0, 60)], [1, 10, 100]);
    expect(disk.taatAccumulator).toBe("wasm");
    // Finalists are scored from their own lengths: no norm page is filled (the query process stays flat).
    expect(disk.normPagesLoaded()).toBe(0);
    // Postings read in chunks of one window (two chunks here; the default chunk holds 16 windows).
    same(openDiskBm25(dir, { strategy: "taat", taatChunkDocs: 65_536 }), mem, long.slice(0, 30), [10, 100]);
    // Postings added in JavaScript (no WebAssembly, e.g. node --jitless): the same.
    const js = openDiskBm25(dir, { strategy: "taat", taatAccumulator: "js" });
    same(js, mem, long.slice(0, 30), [10, 100]);
    expect(js.taatAccumulator).toBe("js");
    expect(() => openDiskBm25(dir, { taatChunkDocs: 1000 })).toThrow("taatChunkDocs 1000 is not a positive multiple of 65536");
    const auto = openDiskBm25(dir);
    auto.searchSync(long[0], 10);
    expect(auto.lastStats.taatSegments).toBe(1);
    expect(auto.lastStats.finalists).toBeLessThan(200); // a handful beyond k, not the corpus
    auto.searchSync(words.text(mulberry32(3), 2), 10);
    expect(auto.lastStats.taatSegments).toBe(0); // a 2-word query stays pruned
    expect(auto.normPagesLoaded()).toBeGreaterThan(0); // the pruned path scores whole windows from norm pages
    // ~1,100 distinct terms: small weights, a wide band — auto stays pruned; forced TAAT is still exact.
    const huge = words.text(mulberry32(4), 3000);
    expect(idsAndScores(auto.searchSync(huge, 10))).toEqual(idsAndScores(mem.searchSync(huge, 10)));
    expect(auto.lastStats.taatSegments).toBe(0);
    expect(idsAndScores(disk.searchSync(huge, 10))).toEqual(idsAndScores(mem.searchSync(huge, 10)));
    expect(disk.lastStats.taatSegments).toBe(1);
  }, 120_000);

  it("parallel slices (2 and 3) merge to the whole index's top k", () => {
    const disk = openDiskBm25(dir, { strategy: "taat" });
    for (const q of long.slice(0, 20))
      for (const parts of [2, 3]) {
        const slices = Array.from({ length: parts }, (_, p) => disk.searchSlice(q, 10, p, parts));
        expect(idsAndScores(mergeSliceHits(slices, 10))).toEqual(idsAndScores(mem.searchSync(q, 10)));
      }
  });

  it("a segment built without impacts (before round 10) is searched by the pruned path, same hits", async () => {
    const old = join(root, "old");
    await buildDiskBm25(old, docs.slice(0, 5000), { runPostings: 200_000 });
    const seg = join(old, "seg-000000");
    const header = JSON.parse(readFileSync(join(seg, "header.json"), "utf8"));
    delete header.impacts;
    writeFileSync(join(seg, "header.json"), JSON.stringify(header));
    rmSync(join(seg, "impacts.u32"));
    const disk = openDiskBm25(old, { strategy: "taat" });
    const m5 = buildFastBm25(docs.slice(0, 5000));
    for (const q of long.slice(0, 10)) {
      expect(idsAndScores(disk.searchSync(q, 10))).toEqual(idsAndScores(m5.searchSync(q, 10)));
      expect(disk.lastStats.taatSegments).toBe(0);
    }
  }, 60_000);
});

describe("on-disk TAAT on harder corpora", () => {
  it("heavy ties: 400 documents repeated 30 times (the top k decided by index order)", async () => {
    const base = [...zipfDocs(words, 400, 3)];
    const rep: CorpusDoc[] = [];
    for (let r = 0; r < 30; r++) for (const d of base) rep.push({ ...d, id: `${d.id}-r${r}` });
    const dir = join(root, "ties");
    await buildDiskBm25(dir, rep, { runPostings: 300_000 });
    same(openDiskBm25(dir, { strategy: "taat" }), buildFastBm25(rep), [...long.slice(0, 20), ...short.slice(0, 40)], [1, 10, 100]);
  }, 60_000);

  it("fractional tfs (title weight 1.5)", async () => {
    const sub = docs.slice(0, 4000);
    const fieldWeights = { title: 1.5, text: 1 };
    const dir = join(root, "frac");
    await buildDiskBm25(dir, sub, { params: { fieldWeights }, runPostings: 200_000 });
    same(openDiskBm25(dir, { strategy: "taat" }), buildFastBm25(sub, { fieldWeights }), long.slice(0, 20), [10]);
  }, 60_000);

  it("after an update segment (replaced and deleted documents; live avgdl differs from each segment's)", async () => {
    const base = docs.slice(0, 9000);
    const replaced = ["Z10", "Z500", "Z4000", "Z8999"];
    const deleted = ["Z1", "Z2", "Z3000", "Z5000"];
    // Longer documents in the update: the live avgdl rises above the first segment's.
    const update: CorpusDoc[] = [
      ...replaced.map((id, i) => ({ id, title: words.text(mulberry32(i), 8), text: words.text(mulberry32(100 + i), 400) })),
      ...[...zipfDocs(words, 1500, 99, 9000)].map((d) => ({ ...d, text: `${d.text} ${d.text}` })),
    ];
    const dir = join(root, "update");
    await buildDiskBm25(dir, base, { runPostings: 300_000 });
    await addDiskBm25Segment(dir, update, deleted);
    const gone = new Set([...replaced, ...deleted]);
    const live = [...base.filter((d) => !gone.has(d.id)), ...update];
    const disk = openDiskBm25(dir, { strategy: "taat" });
    expect(disk.info.segments).toBe(2);
    // Queries made of the deleted / replaced documents' own text: their old versions must not come back.
    const own = ["Z1", "Z10", "Z3000"].map((id) => {
      const d = base.find((x) => x.id === id) as CorpusDoc;
      return `${d.title} ${d.text.split(" ").slice(0, 12).join(" ")}`;
    });
    same(disk, buildFastBm25(live), [...own, ...long.slice(0, 30)], [1, 10, 100]);
  }, 60_000);
});

describe("on-disk TAAT: documents exactly on a window, chunk or slice edge", () => {
  // Rare terms whose one block straddles an edge, with a posting exactly on it: the window and
  // chunk edge 65,536, and the slice edges of 2 and 3 parts of 70,000 docs (36,864; 24,576 and
  // 45,056: multiples of 4,096, so the straddling block is split by decoding it).
  const placed: Record<string, number[]> = { edgea: [65_530, 65_536, 65_540], edgeb: [36_860, 36_864, 36_870], edgec: [24_570, 24_576, 24_580, 45_050, 45_056, 45_060] };
  const edgeDocs: CorpusDoc[] = Array.from({ length: 70_000 }, (_, i) => {
    const extra = Object.entries(placed)
      .filter(([, at]) => at.includes(i))
      .map(([t]) => t);
    return { id: `E${i}`, title: `filler${i % 50}`, text: [`common${i % 7}`, ...extra].join(" ") };
  });

  it("every edge document is found, on 1, 2 and 3 slices and one-window chunks, with the in-memory engine's scores", async () => {
    const dir = join(root, "edges");
    await buildDiskBm25(dir, edgeDocs, { runPostings: 500_000 });
    const mem = buildFastBm25(edgeDocs);
    const q = "edgea edgeb edgec common3";
    const want = idsAndScores(mem.searchSync(q, 30));
    for (const id of Object.values(placed).flat()) expect(want.map(([d]) => d)).toContain(`E${id}`);
    for (const opts of [{}, { taatChunkDocs: 65_536 }]) {
      const disk = openDiskBm25(dir, { strategy: "taat", ...opts });
      expect(idsAndScores(disk.searchSync(q, 30))).toEqual(want);
      expect(disk.lastStats.taatSegments).toBe(1);
      for (const parts of [2, 3]) {
        const slices = Array.from({ length: parts }, (_, p) => disk.searchSlice(q, 30, p, parts));
        expect(idsAndScores(mergeSliceHits(slices, 30)), `${parts} slices ${JSON.stringify(opts)}`).toEqual(want);
      }
    }
  }, 60_000);
});

describe("the quantisation bound", () => {
  it("quantiseImpact: σ·(q − 2) < x ≤ σ·q, q in [1, 65535]", () => {
    const k1p1 = 2.2;
    const sigma = k1p1 / IMPACT_LEVELS;
    const r = mulberry32(4);
    for (let i = 0; i < 20_000; i++) {
      const x = i < 3 ? [1e-300, sigma, k1p1 * (1 - 1e-16)][i] : r() * k1p1;
      const q = quantiseImpact(x, sigma);
      expect(q).toBeGreaterThanOrEqual(1);
      expect(q).toBeLessThanOrEqual(IMPACT_LEVELS);
      expect(x).toBeLessThanOrEqual(sigma * q);
      expect(x).toBeGreaterThan(sigma * (q - 2));
    }
  });

  it("taatWeights: Σ W within the budget and uσ(U − E) ≤ exact ≤ uσ·U for random terms and impacts", () => {
    // By hand: cIdf [1, 2] → budget 32,763, u = 3/32,763, W = ⌈32,763/3⌉ = 10,921 and ⌈2·32,763/3⌉ = 21,842.
    const two = taatWeights([1, 2]);
    expect(Array.from(two?.weights ?? [])).toEqual([10921, 21842]);
    expect(taatWeights([])).toBeNull();
    expect(taatWeights(new Array(11_000).fill(1))).toBeNull(); // too many terms for the budget
    const r = mulberry32(8);
    const k1p1 = 2.2;
    const sigma = k1p1 / IMPACT_LEVELS;
    for (let trial = 0; trial < 2000; trial++) {
      const m = 1 + Math.floor(r() * 40);
      const cIdf = Array.from({ length: m }, () => (1 + Math.floor(r() * 3)) * (0.01 + r() * 15));
      const w = taatWeights(cIdf);
      if (!w) throw new Error("weights");
      let sumW = 0;
      for (const x of w.weights) sumW += x;
      expect(sumW).toBeLessThanOrEqual(DISK_TAAT_WEIGHT_BUDGET);
      const total = cIdf.reduce((a, b) => a + b, 0);
      const u = total / (DISK_TAAT_WEIGHT_BUDGET - 2 * m);
      let U = 0;
      let exact = 0;
      for (let i = 0; i < m; i++) {
        if (r() < 0.3) continue; // the document lacks this term
        const x = r() * k1p1;
        U += w.weights[i] * quantiseImpact(x, sigma);
        exact += cIdf[i] * x;
      }
      expect(U).toBeLessThan(2 ** 31);
      expect(exact).toBeLessThanOrEqual(u * sigma * U * (1 + 1e-12));
      expect(exact).toBeGreaterThanOrEqual(u * sigma * (U - w.margin) * (1 - 1e-12));
    }
  });
});
