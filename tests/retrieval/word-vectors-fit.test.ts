/**
 * The word-vector embedder's corpus fit (SIF corpus frequencies + first principal component)
 * tokenises each fit text once (issue 11: it tokenised every document three times) and fits
 * exactly what the straightforward computation gives.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { createWordVectorsEmbedder, openWordVectors, wordVectorTokenIds, WORD_VECTOR_DIMS } from "../../retrieval/embedders/word-vectors.ts";

describe("word-vectors fit", () => {
  it("tokenises each fit text once and gives the component of a plain reference computation", async () => {
    const texts = (await loadBundledCorpus({ sources: ["medevidence"] })).docs.slice(0, 150).map((d) => `${d.title}\n${d.text}`);
    texts.push("xqzzy qqqwx", ""); // texts without a known word count neither as usable nor in frequencies
    const table = await openWordVectors(); // the same (memoised) table the embedder opens
    const index = table.index as { get(word: string): number | undefined };
    const get = index.get;
    let lookups = 0;
    index.get = (w: string) => {
      lookups++;
      return get(w);
    };
    let onePass: number;
    let fitted: Awaited<ReturnType<typeof createWordVectorsEmbedder>>;
    try {
      for (const t of texts) wordVectorTokenIds(t, table);
      onePass = lookups;
      lookups = 0;
      fitted = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1 }, { fitTexts: texts, fitCacheDir: null });
    } finally {
      index.get = get;
    }
    expect(onePass).toBeGreaterThan(10_000);
    expect(lookups).toBe(onePass);
    expect(fitted.id).toBe("word-vectors:sg-100d-sif-corpus-pc1");

    // Reference: counts over all tokens, SIF weights a / (a + p(w)), weighted means, 50 power
    // iterations of the uncentred second-moment matrix from the uniform start (Arora et al. 2017, Alg. 1).
    const rows = texts.map((t) => wordVectorTokenIds(t, table));
    const counts = new Map<number, number>();
    let total = 0;
    for (const r of rows) for (const row of r) counts.set(row, (counts.get(row) ?? 0) + 1), total++;
    const weight = (row: number) => 1e-3 / (1e-3 + (counts.get(row) ?? 0) / total);
    for (const row of [...counts.keys()].slice(0, 50)) expect(fitted.weightOf(row)).toBe(weight(row));
    const dims = WORD_VECTOR_DIMS;
    const vs = rows.map((r) => {
      const out = new Float32Array(dims);
      let wsum = 0;
      for (const row of r) {
        const w = weight(row);
        wsum += w;
        const v = table.row(row);
        for (let d = 0; d < dims; d++) out[d] += w * v[d];
      }
      if (wsum > 0) for (let d = 0; d < dims; d++) out[d] /= wsum;
      return out;
    });
    let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
    for (let it = 0; it < 50; it++) {
      const nu = new Float64Array(dims);
      for (const v of vs) {
        let p = 0;
        for (let d = 0; d < dims; d++) p += v[d] * u[d];
        for (let d = 0; d < dims; d++) nu[d] += p * v[d];
      }
      const n = Math.hypot(...nu) || 1;
      u = nu.map((x) => x / n);
    }
    expect(Array.from(fitted.components[0])).toEqual(Array.from(u));
  }, 60_000);

  it("loadFitTexts is called only when the fitted state of fitTextsKey is not cached; the embedder equals the eager fit", async () => {
    const texts = (await loadBundledCorpus({ sources: ["medevidence"] })).docs.slice(0, 120).map((d) => `${d.title}\n${d.text}`);
    const fitCacheDir = mkdtempSync(join(tmpdir(), "medsynth-fit-"));
    const cfg = { pooling: "sif", frequencies: "corpus", removeComponents: 1 } as const;
    let loads = 0;
    const loadFitTexts = async () => {
      loads++;
      return texts;
    };
    const eager = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitCacheDir: null });
    const first = await createWordVectorsEmbedder(cfg, { loadFitTexts, fitTextsKey: "store-fp:first-120", fitCacheDir });
    expect([loads, first.fitSource]).toEqual([1, "computed"]);
    const second = await createWordVectorsEmbedder(cfg, { loadFitTexts, fitTextsKey: "store-fp:first-120", fitCacheDir });
    expect([loads, second.fitSource]).toEqual([1, "cache"]); // not read again
    const q = ["statins and stroke prevention in older adults", "vitamin D supplementation"];
    const [a, b, c] = [await eager.embed(q), await first.embed(q), await second.embed(q)];
    expect([first.id, second.id]).toEqual([eager.id, eager.id]);
    for (let i = 0; i < q.length; i++) {
      expect(Array.from(b[i])).toEqual(Array.from(a[i]));
      expect(Array.from(c[i])).toEqual(Array.from(a[i]));
    }
    // A damaged state (no components) is refitted from the texts, not used half-way, and rewritten.
    const [file] = readdirSync(fitCacheDir);
    const state = JSON.parse(readFileSync(join(fitCacheDir, file), "utf8"));
    delete state.components;
    writeFileSync(join(fitCacheDir, file), JSON.stringify(state));
    const repaired = await createWordVectorsEmbedder(cfg, { loadFitTexts, fitTextsKey: "store-fp:first-120", fitCacheDir });
    expect([loads, repaired.fitSource]).toEqual([2, "computed"]);
    expect(Array.from((await repaired.embed(q))[0])).toEqual(Array.from(a[0]));
    expect(JSON.parse(readFileSync(join(fitCacheDir, file), "utf8")).components).toHaveLength(1);
    loads = 1;
    // Another key is another corpus: read again.
    await createWordVectorsEmbedder(cfg, { loadFitTexts, fitTextsKey: "other-store:first-120", fitCacheDir });
    expect(loads).toBe(2);
    // A cached state too small for corpus statistics keeps its fallback without reading the texts.
    const tiny = async () => {
      loads++;
      return texts.slice(0, 3);
    };
    const small1 = await createWordVectorsEmbedder(cfg, { loadFitTexts: tiny, fitTextsKey: "tiny", fitCacheDir, log: () => {} });
    const small2 = await createWordVectorsEmbedder(cfg, { loadFitTexts: tiny, fitTextsKey: "tiny", fitCacheDir, log: () => {} });
    expect([small1.id, small2.id, loads]).toEqual(["word-vectors:sg-100d-sif", "word-vectors:sg-100d-sif", 3]);
  }, 60_000);
});
