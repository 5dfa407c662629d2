/** Count ratios, embedding cosine, model-backed metrics without a model, and the registry. */
import { describe, expect, it } from "vitest";
import { countRatios, countSentences, countWords, splitSentences } from "../../../judges/metrics/counts.ts";
import { cosineSimilarity, createEmbeddingCosineMetric, type TextEmbedder } from "../../../judges/metrics/embedding-cosine.ts";
import { greedyMatchScores } from "../../../judges/metrics/bertscore.ts";
import { perplexityFromLogits } from "../../../judges/metrics/perplexity.ts";
import { createMetric, metricIds } from "../../../judges/metrics/registry.ts";

describe("count ratios", () => {
  it("words keep contractions, hyphenated words and decimal numbers whole", () => {
    expect(countWords("Don't follow-up 0.05 1,204 patients; OR 1.2 (95% CI 0.9-1.6).")).toBe(10);
  });
  it("sentences skip abbreviations, initials and decimals; newlines end sentences", () => {
    expect(splitSentences("Mortality fell (p<0.05). e.g. this and Dr. Smith et al. found it. J. Smith agreed! 12% improved.\nNext line")).toEqual([
      "Mortality fell (p<0.05). e.g. this and Dr. Smith et al. found it.",
      "J. Smith agreed!",
      "12% improved.",
      "Next line",
    ]);
    expect(countSentences("")).toBe(0);
  });
  it("ratios are candidate/reference; empty reference → null", () => {
    const r = countRatios("One two three four. Five six seven eight.", "One two. Three four five six.");
    expect(r.wordRatio).toBe(6 / 8);
    expect(r.sentenceRatio).toBe(1);
    expect(countRatios("", "a b").wordRatio).toBeNull();
  });
});

describe("embedding cosine", () => {
  const embedder: TextEmbedder = {
    id: "toy",
    async embed(texts) {
      return texts.map((t) => (t === "zero" ? new Float32Array([0, 0]) : t.startsWith("a") ? new Float32Array([1, 0]) : new Float32Array([1, 1])));
    },
  };
  it("cosine of [1,0] and [1,1] is 1/√2; zero vector → null with a note", async () => {
    expect(cosineSimilarity([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    const m = createEmbeddingCosineMetric({}, { embedder });
    const rows = await m.score([
      { reference: "a x", candidate: "b y" },
      { reference: "a x", candidate: "zero" },
    ]);
    expect(rows[0].embedding_cosine.value).toBeCloseTo(Math.SQRT1_2, 6);
    expect(rows[1].embedding_cosine).toEqual({ value: null, note: "zero embedding vector (toy)" });
  });
  it("embedder failure → null with the error; no embedder → throws", async () => {
    const failing: TextEmbedder = { id: "down", embed: async () => Promise.reject(new Error("ECONNREFUSED")) };
    const rows = await createEmbeddingCosineMetric({}, { embedder: failing }).score([{ reference: "a", candidate: "b" }]);
    expect(rows[0].embedding_cosine.value).toBeNull();
    expect(rows[0].embedding_cosine.note).toMatch(/down failed: ECONNREFUSED/);
    expect(() => createEmbeddingCosineMetric({})).toThrow(/needs an embedder/);
  });
});

describe("model-backed metrics", () => {
  it("greedy matching: identical token sets → 1; orthogonal → 0", () => {
    const tv = (vecs: number[], weights: number[]) => ({ vecs: new Float32Array(vecs), n: weights.length, dim: 2, weights: new Float64Array(weights) });
    const e = tv([1, 0, 0, 1], [1, 1]);
    expect(greedyMatchScores(e, e)).toEqual({ precision: 1, recall: 1, f1: 1 });
    const s = greedyMatchScores(tv([1, 0], [1]), tv([0, 1, 1, 0], [1, 1]));
    expect(s).toEqual({ precision: 0.5, recall: 1, f1: 2 / 3 });
    // a zero-weight (special) candidate token still serves as a match but does not count itself
    const w = greedyMatchScores(tv([1, 0], [1]), tv([0, 1, 1, 0], [0, 1]));
    expect(w).toEqual({ precision: 1, recall: 1, f1: 1 });
  });
  it("perplexity from logits: uniform over 4 tokens → 4", () => {
    expect(perplexityFromLogits(new Float32Array(12), [0, 1, 2], 4)).toBeCloseTo(4, 10);
    expect(perplexityFromLogits(new Float32Array(4), [0], 4)).toBeNull();
  });
  it("BERTScore and perplexity with no cached model → null with a reason, never a number", async () => {
    const dir = "/nonexistent-medsynth-models";
    for (const [id, outs] of [
      ["bertscore", ["bertscore_precision", "bertscore_recall", "bertscore_f1"]],
      ["perplexity", ["perplexity", "perplexity_reference"]],
    ] as const) {
      const rows = await createMetric(id, { modelDir: dir }).score([{ reference: "The drug works.", candidate: "The drug is effective." }]);
      for (const o of outs) {
        expect(rows[0][o].value).toBeNull();
        expect(rows[0][o].note).toMatch(/not available .*nonexistent-medsynth-models.*remote downloads disabled/);
      }
    }
  }, 30_000);
});

describe("registry", () => {
  it("lists ids and builds metrics; unknown id throws with the valid ids", async () => {
    expect(metricIds()).toEqual(["rouge", "bleu", "count-ratios", "embedding-cosine", "bertscore", "perplexity"]);
    const rows = await createMetric("rouge", { types: ["rouge1"], report: ["precision", "fmeasure"] }).score([{ reference: "a b c d", candidate: "a b" }]);
    expect(rows[0]).toEqual({ rouge1_precision: { value: 1 }, rouge1_fmeasure: { value: 2 / 3 } });
    expect(() => createMetric("meteor")).toThrow('unknown metric id "meteor"; valid ids: rouge, bleu, count-ratios, embedding-cosine, bertscore, perplexity');
    expect(() => createMetric("rouge", { typo: 1 })).toThrow();
  });
});
