/**
 * Model-backed parts on real ONNX graphs (issue 16): medsynth's tiny random-weight test models
 * (tests/fixtures/models/medsynth-test/*, made by scripts/make-tiny-models.py) loaded through
 * transformers.js with remote loading off, checked against the PyTorch reference outputs the same
 * script computed on the same weights (tests/fixtures/models/reference.json).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { createMetric } from "../../judges/metrics/registry.ts";
import { tokenLogProbs } from "../../judges/metrics/perplexity.ts";
import { loadLocalModel } from "../../judges/metrics/transformers-loader.ts";
import { encodePair, encodeText } from "../../models/transformers-encode.ts";
import { createTransformersEmbedder } from "../../retrieval/embedders/transformers.ts";
import { describeEmbedder } from "../../retrieval/embedders/registry.ts";
import { createCrossEncoderReranker } from "../../retrieval/rerankers/cross-encoder.ts";
import { createRetriever } from "../../retrieval/registry.ts";

const MODEL_DIR = resolve(__dirname, "../fixtures/models");
const BERT = "medsynth-test/tiny-bert";
const CROSS = "medsynth-test/tiny-cross-encoder";
const GPT2 = "medsynth-test/tiny-gpt2";

interface Reference {
  texts: string[];
  encoder: { text: string; ids: number[]; dims: number[]; token_embeddings: number[]; mean: number[]; mean_normalized: number[]; cls: number[]; cls_normalized: number[] }[];
  encoder_truncated: { text: string; max_length: number; ids: number[]; cls_normalized: number[] };
  bertscore: {
    candidate: string;
    reference: string;
    idf: boolean;
    precision: number;
    recall: number;
    f1: number;
    rescaled: { baseline: { precision: number; recall: number; f1: number }; precision: number; recall: number; f1: number };
  }[];
  cross_encoder: { query: string; docs: { text: string; ids: number[]; token_type_ids: number[]; logit: number }[]; truncated: { text: string; max_length: number; ids: number[]; logit: number } };
  causal_lm: { text: string; ids: number[]; token_logprobs: number[]; perplexity: number }[];
}
const ref: Reference = JSON.parse(readFileSync(join(MODEL_DIR, "reference.json"), "utf8"));
const TOL = 1e-4;

function expectClose(actual: ArrayLike<number>, expected: readonly number[], tol = TOL): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  expect(worst).toBeLessThan(tol);
}

describe("tokenisers of the test models equal the reference algorithms", () => {
  it("WordPiece (BERT): ids with [CLS]/[SEP], and truncation keeps [SEP]", async () => {
    const m = await loadLocalModel({ model: BERT, modelDir: MODEL_DIR }, "AutoModel");
    if (!m.ok) throw new Error(m.reason);
    for (const e of ref.encoder) expect(encodeText(m.value.tokenizer, e.text, 512).inputIds).toEqual(e.ids);
    const t = ref.encoder_truncated;
    const enc = encodeText(m.value.tokenizer, t.text, t.max_length);
    expect(enc.inputIds).toEqual(t.ids);
    expect(enc.truncated).toBe(true);
    expect(enc.inputIds.at(-1)).toBe(3); // [SEP] survives (transformers.js' own truncation drops it)
  });
  it("pairs: [CLS] q [SEP] d [SEP] with segment ids, longest_first truncation", async () => {
    const m = await loadLocalModel({ model: CROSS, modelDir: MODEL_DIR }, "AutoModel");
    if (!m.ok) throw new Error(m.reason);
    for (const d of ref.cross_encoder.docs) {
      const enc = encodePair(m.value.tokenizer, ref.cross_encoder.query, d.text, 512);
      expect(enc.inputIds).toEqual(d.ids);
      expect(enc.tokenTypeIds).toEqual(d.token_type_ids);
    }
    const t = ref.cross_encoder.truncated;
    expect(encodePair(m.value.tokenizer, ref.cross_encoder.query, t.text, t.max_length).inputIds).toEqual(t.ids);
  });
  it("byte-level BPE (GPT-2)", async () => {
    const m = await loadLocalModel({ model: GPT2, modelDir: MODEL_DIR }, "AutoModelForCausalLM");
    if (!m.ok) throw new Error(m.reason);
    for (const c of ref.causal_lm) expect(Array.from(m.value.tokenizer.encode(c.text) as number[], Number)).toEqual(c.ids);
  });
});

describe("transformers embedder = PyTorch", () => {
  it("token embeddings of the encoder", async () => {
    const m = await loadLocalModel({ model: BERT, modelDir: MODEL_DIR }, "AutoModel");
    if (!m.ok) throw new Error(m.reason);
    const tf = await import("@xenova/transformers");
    const e = ref.encoder[1];
    const ids = new tf.Tensor("int64", BigInt64Array.from(e.ids, BigInt), [1, e.ids.length]);
    const out = await m.value.model({
      input_ids: ids,
      attention_mask: new tf.Tensor(
        "int64",
        BigInt64Array.from(e.ids, () => 1n),
        [1, e.ids.length],
      ),
    });
    expect(out.last_hidden_state.dims).toEqual([1, ...e.dims]);
    expectClose(out.last_hidden_state.data as Float32Array, e.token_embeddings);
  });
  it("mean and CLS pooling, normalised or not; batch size 1 and 16 give the same vectors (no padding leak)", async () => {
    for (const [pooling, normalize, key] of [
      ["mean", false, "mean"],
      ["mean", true, "mean_normalized"],
      ["cls", false, "cls"],
      ["cls", true, "cls_normalized"],
    ] as const) {
      const one = await createTransformersEmbedder({ model: BERT, modelDir: MODEL_DIR, quantized: false, pooling, normalize, batchSize: 1 });
      const many = await createTransformersEmbedder({ model: BERT, modelDir: MODEL_DIR, quantized: false, pooling, normalize, batchSize: 16 });
      const a = await one.embed(ref.texts);
      const b = await many.embed(ref.texts);
      ref.encoder.forEach((e, i) => {
        expectClose(a[i], e[key]);
        expectClose(b[i], e[key], 1e-5);
      });
    }
  });
  it("max length truncates keeping [SEP] and counts truncated texts", async () => {
    const t = ref.encoder_truncated;
    const emb = await createTransformersEmbedder({ model: BERT, modelDir: MODEL_DIR, quantized: false, pooling: "cls", normalize: true, maxLength: t.max_length });
    const [v] = await emb.embed([t.text]);
    expectClose(v, t.cls_normalized);
    expect(emb.stats.truncated).toBe(1);
    await emb.embed(["no significant difference."]);
    expect(emb.stats.truncated).toBe(1);
  });
  it("queries get the query prefix / query encoder; documents never do", async () => {
    const emb = await createTransformersEmbedder({ model: BERT, queryModel: CROSS, modelDir: MODEL_DIR, quantized: false, pooling: "cls", normalize: false, queryPrefix: "aspirin " });
    const [q] = await emb.embedQueries(["stroke"]);
    const [d] = await emb.embed(["stroke"]);
    const docOnly = await createTransformersEmbedder({ model: BERT, modelDir: MODEL_DIR, quantized: false, pooling: "cls", normalize: false });
    expectClose(d, Array.from((await docOnly.embed(["stroke"]))[0]), 1e-6);
    // the query side ran the other encoder on the prefixed text: equal to encoding it directly
    const queryOnly = await createTransformersEmbedder({ model: CROSS, modelDir: MODEL_DIR, quantized: false, pooling: "cls", normalize: false });
    expectClose(q, Array.from((await queryOnly.embed(["aspirin stroke"]))[0]), 1e-6);
    expect(emb.id).toBe(`transformers:${BERT}+${CROSS}:cls:fp32:raw`);
    expect(emb.info).toMatchObject({ model: BERT, queryModel: CROSS, pooling: "cls", normalize: false, queryPrefix: "aspirin ", revision: "local" });
  });
  it("published models get their settings: BGE query instruction + CLS + normalised; MedCPT query encoder", () => {
    expect(describeEmbedder("transformers:Xenova/bge-small-en-v1.5")).toMatchObject({ pooling: "cls", normalize: true, queryPrefix: "Represent this sentence for searching relevant passages: " });
    expect(describeEmbedder("transformers:ncbi/MedCPT-Article-Encoder")).toMatchObject({ pooling: "cls", normalize: false, queryModel: "ncbi/MedCPT-Query-Encoder" });
    expect(describeEmbedder("transformers:Xenova/all-MiniLM-L6-v2")).toMatchObject({ pooling: "mean", normalize: true, queryPrefix: "" });
  });
});

describe("cross-encoder reranker = PyTorch", () => {
  it("logits per (query, doc) pair, sorted, batch 1 = batch 16; truncated pairs counted", async () => {
    const docs = ref.cross_encoder.docs.map((d, i) => ({ id: `d${i}`, title: "", text: d.text }));
    for (const batchSize of [1, 16]) {
      const rr = await createCrossEncoderReranker({ model: CROSS, modelDir: MODEL_DIR, quantized: false, batchSize });
      const hits = await rr.rerank(ref.cross_encoder.query, docs, { topN: docs.length });
      const byId = new Map(hits.map((h) => [h.id, h.score]));
      ref.cross_encoder.docs.forEach((d, i) => expect(Math.abs(byId.get(`d${i}`)! - d.logit)).toBeLessThan(TOL));
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    }
    const t = ref.cross_encoder.truncated;
    const short = await createCrossEncoderReranker({ model: CROSS, modelDir: MODEL_DIR, quantized: false, maxLength: t.max_length });
    const [hit] = await short.rerank(ref.cross_encoder.query, [{ id: "t", title: "", text: t.text }], { topN: 1 });
    expect(Math.abs(hit.score - t.logit)).toBeLessThan(TOL);
    expect(short.stats.truncated).toBe(1);
  });
});

describe("BERTScore = the original algorithm in PyTorch", () => {
  for (const idf of [false, true]) {
    it(`P/R/F1${idf ? " with idf" : ""}, and baseline rescaling`, async () => {
      const rows = ref.bertscore.filter((b) => b.idf === idf);
      const pairs = rows.map((b) => ({ candidate: b.candidate, reference: b.reference }));
      const got = await createMetric("bertscore", { model: BERT, modelDir: MODEL_DIR, idf }).score(pairs);
      rows.forEach((b, i) => {
        expect(Math.abs(got[i].bertscore_precision.value! - b.precision)).toBeLessThan(TOL);
        expect(Math.abs(got[i].bertscore_recall.value! - b.recall)).toBeLessThan(TOL);
        expect(Math.abs(got[i].bertscore_f1.value! - b.f1)).toBeLessThan(TOL);
      });
      const baseline = rows[0].rescaled.baseline;
      const scaled = await createMetric("bertscore", { model: BERT, modelDir: MODEL_DIR, idf, baseline }).score(pairs);
      rows.forEach((b, i) => expect(Math.abs(scaled[i].bertscore_f1.value! - b.rescaled.f1)).toBeLessThan(TOL));
    });
  }
});

describe("perplexity = PyTorch", () => {
  it("token log-probabilities and perplexity of a tiny GPT-2", async () => {
    const m = await loadLocalModel({ model: GPT2, modelDir: MODEL_DIR }, "AutoModelForCausalLM");
    if (!m.ok) throw new Error(m.reason);
    const c = ref.causal_lm[0];
    const enc = await m.value.tokenizer(c.text);
    const out = await m.value.model({ input_ids: enc.input_ids, attention_mask: enc.attention_mask });
    const vocab = (out.logits.dims as number[])[2];
    expectClose(tokenLogProbs(out.logits.data as Float32Array, c.ids, vocab), c.token_logprobs);
    const rows = await createMetric("perplexity", { model: GPT2, modelDir: MODEL_DIR }).score(ref.causal_lm.map((x) => ({ reference: "", candidate: x.text })));
    ref.causal_lm.forEach((x, i) => expect(Math.abs(rows[i].perplexity.value! / x.perplexity - 1)).toBeLessThan(TOL));
    // The reference conclusion's perplexity under the same model (MedConclusion reports both).
    const both = await createMetric("perplexity", { model: GPT2, modelDir: MODEL_DIR }).score(ref.causal_lm.map((x) => ({ reference: x.text, candidate: ref.causal_lm[0].text })));
    ref.causal_lm.forEach((x, i) => expect(Math.abs(both[i].perplexity_reference.value! / x.perplexity - 1)).toBeLessThan(TOL));
    expect(rows[0].perplexity_reference).toEqual({ value: null, note: "empty text" });
  });
});

describe("hybrid retrieval with the tiny encoder runs end to end (quality meaningless, not reported)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-onnx-hybrid-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("BM25 + dense (tiny BERT) fused over 300 bundled abstracts; the LanceDB table records the embedder settings", async () => {
    const { docs } = await loadBundledCorpus();
    const sample = docs.slice(0, 300);
    const r = await createRetriever(
      { mode: "hybrid", embedder: `transformers:${BERT}:cls`, dense: { dir } },
      { docs: sample, embedderOptions: { modelDir: MODEL_DIR, quantized: false }, log: () => {} },
    );
    const hits = await r.search(sample[7].title, 5);
    expect(hits).toHaveLength(5);
    expect(new Set(hits.map((h) => h.id)).size).toBe(5);
    expect(hits.every((h) => sample.some((d) => d.id === h.id))).toBe(true);
    expect(r.embedder?.info).toMatchObject({ model: BERT, pooling: "cls" });
    // the same table opened with other pooling settings is refused
    await expect(
      createRetriever(
        { mode: "dense", embedder: `transformers:${BERT}:cls`, dense: { dir, tableName: r.store!.tableName } },
        { docs: sample, embedderOptions: { modelDir: MODEL_DIR, quantized: false }, embedder: { ...r.embedder!, info: { ...r.embedder!.info, pooling: "mean" } }, log: () => {} },
      ),
    ).rejects.toThrow(/built with embedder settings/);
  }, 120_000);
});
