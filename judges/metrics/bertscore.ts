/**
 * BERTScore precision / recall / F1 through a local @xenova/transformers encoder, by the original
 * algorithm (bert_score's `greedy_cos_idf`).
 *
 * Each text is encoded with its special tokens (`[CLS] … [SEP]`; long texts truncated to
 * `maxLength` keeping them, see models/transformers-encode.ts); token embeddings of the last layer
 * are L2-normalised; every token may be the best match of another, but special tokens weigh 0.
 * Recall = weighted mean over reference tokens of the max cosine with any candidate token,
 * precision = weighted mean over candidate tokens of the max cosine with any reference token,
 * F1 = 2PR/(P+R). Weights are 1, or with `idf: true` idf(w) = ln((M+1)/(df(w)+1)) over the M
 * references scored in one call (bert_score's `get_idf_dict`). Optional baseline rescaling maps
 * s → (s − b)/(1 − b) with constants the user supplies (bert-score ships them per model and layer
 * in `rescale_baseline/<lang>/<model>.tsv`; none are assumed here).
 * Note: reference BERTScore uses a model-specific layer (e.g. roberta-large layer 17); ONNX
 * exports expose the last layer only, so scores are comparable only under the same model id — the
 * output note names it. Parity with PyTorch on a tiny BERT is a test (tests/fixtures/models/).
 *
 * An unavailable model makes every value null with the reason — never a substitute number.
 *
 * @see Zhang T. et al. (2020) BERTScore: Evaluating Text Generation with BERT. ICLR.
 *   MedMeta (seed 001) reports BERTScore next to its LLM judges.
 */
import { z } from "zod";
import { effectiveMaxLength, encodeText, padBatch, type HfTokenizer } from "../../models/transformers-encode.ts";
import { loadLocalModel, type Loaded } from "./transformers-loader.ts";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const BERTSCORE_METRIC_ID = "bertscore";

/** Config of the BERTScore metric. */
export const BertScoreConfigSchema = z
  .object({
    /** Encoder model id (local folder name under modelDir). */
    model: z.string().min(1).default("Xenova/roberta-large"),
    /** Folder with local models; default `<cacheDir>/models`. */
    modelDir: z.string().optional(),
    /** Allow Hub downloads (default false). */
    allowRemote: z.boolean().default(false),
    quantized: z.boolean().default(false),
    /** Weight tokens by idf over the references of each call (bert_score `idf=True`). */
    idf: z.boolean().default(false),
    /** Baseline rescaling constants (from bert-score's rescale_baseline files); off when absent. */
    baseline: z.object({ precision: z.number(), recall: z.number(), f1: z.number() }).strict().optional(),
    /** Max tokens per text, special tokens included (longer texts are truncated). */
    maxLength: z.number().int().min(8).default(512),
  })
  .strict();
/** Parsed config. */
export type BertScoreConfig = z.infer<typeof BertScoreConfigSchema>;

/** Token vectors of one text: rows of `dim`, L2-normalised, with their ids and weights. */
export interface TokenVectors {
  vecs: Float32Array;
  n: number;
  dim: number;
  weights: Float64Array;
}

/**
 * Greedy-matching BERTScore of two texts' token vectors (bert_score `greedy_cos_idf`): every
 * token takes its best cosine on the other side; means are weighted by each side's own weights.
 * @returns P, R, F1 (F1 0 when P + R = 0); NaN when one side has no positive weight.
 */
export function greedyMatchScores(ref: TokenVectors, cand: TokenVectors): { precision: number; recall: number; f1: number } {
  const { dim } = ref;
  const sim = new Float64Array(ref.n * cand.n);
  for (let i = 0; i < ref.n; i++) {
    for (let j = 0; j < cand.n; j++) {
      let s = 0;
      for (let k = 0; k < dim; k++) s += ref.vecs[i * dim + k] * cand.vecs[j * dim + k];
      sim[i * cand.n + j] = s;
    }
  }
  const weightedBest = (rows: number, cols: number, at: (r: number, c: number) => number, w: Float64Array): number => {
    let num = 0;
    let den = 0;
    for (let r = 0; r < rows; r++) {
      let m = -Infinity;
      for (let c = 0; c < cols; c++) m = Math.max(m, at(r, c));
      num += m * w[r];
      den += w[r];
    }
    return num / den;
  };
  const recall = weightedBest(ref.n, cand.n, (i, j) => sim[i * cand.n + j], ref.weights);
  const precision = weightedBest(cand.n, ref.n, (j, i) => sim[i * cand.n + j], cand.weights);
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/**
 * idf weights over a set of reference token-id lists: ln((M+1)/(df+1)); special tokens 0.
 * @returns a lookup returning the weight of a token id.
 */
export function idfWeights(references: readonly (readonly number[])[], special: ReadonlySet<number>): (id: number) => number {
  const df = new Map<number, number>();
  for (const ids of references) for (const id of new Set(ids)) df.set(id, (df.get(id) ?? 0) + 1);
  const M = references.length;
  return (id) => (special.has(id) ? 0 : Math.log((M + 1) / ((df.get(id) ?? 0) + 1)));
}

/**
 * Registry factory: reports `bertscore_precision`, `bertscore_recall`, `bertscore_f1`. The model
 * is loaded on first use; if it is unavailable every row is null with the reason.
 * @throws ZodError on a bad config.
 */
export function createBertScoreMetric(config: Partial<BertScoreConfig> = {}): Metric {
  const c = BertScoreConfigSchema.parse(config);
  const outputs = ["bertscore_precision", "bertscore_recall", "bertscore_f1"] as const;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let loading: Promise<Loaded<{ tokenizer: any; model: any }>> | null = null;
  const rescale = (v: number, b: number | undefined): number => (b === undefined ? v : (v - b) / (1 - b));
  const nullRow = (note: string): MetricScores => Object.fromEntries(outputs.map((o) => [o, { value: null, note }]));

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function embed(tf: any, tokenizer: HfTokenizer, model: any, text: string, weight: (id: number) => number): Promise<TokenVectors & { truncated: boolean }> {
    const row = encodeText(tokenizer, text, effectiveMaxLength(tokenizer, model, c.maxLength));
    const batch = padBatch(tf, tokenizer, [row]);
    const h = (await model(batch.inputs)).last_hidden_state;
    const [, T, H] = h.dims as number[];
    const data = h.data as Float32Array;
    const vecs = new Float32Array(T * H);
    for (let t = 0; t < T; t++) {
      let norm = 0;
      for (let k = 0; k < H; k++) norm += data[t * H + k] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let k = 0; k < H; k++) vecs[t * H + k] = data[t * H + k] / norm;
    }
    return { vecs, n: T, dim: H, weights: Float64Array.from(row.inputIds, weight), truncated: row.truncated };
  }

  return {
    id: BERTSCORE_METRIC_ID,
    outputs,
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      loading ??= loadLocalModel({ model: c.model, modelDir: c.modelDir, allowRemote: c.allowRemote, quantized: c.quantized }, "AutoModel");
      const loaded = await loading;
      if (!loaded.ok) return pairs.map(() => nullRow(loaded.reason));
      const { tokenizer, model } = loaded.value;
      const tf = await import("@xenova/transformers");
      const special = new Set<number>((tokenizer.all_special_ids ?? []).map(Number));
      const idsOf = (text: string) => encodeText(tokenizer, text, effectiveMaxLength(tokenizer, model, c.maxLength)).inputIds;
      const weight = c.idf
        ? idfWeights(
            pairs.map((p) => idsOf(p.reference)),
            special,
          )
        : (id: number) => (special.has(id) ? 0 : 1);
      const rows: MetricScores[] = [];
      for (const p of pairs) {
        try {
          const ref = await embed(tf, tokenizer, model, p.reference, weight);
          const cand = await embed(tf, tokenizer, model, p.candidate, weight);
          const s = greedyMatchScores(ref, cand);
          if (!Number.isFinite(s.precision) || !Number.isFinite(s.recall)) {
            rows.push(nullRow("empty reference or candidate (no token with a positive weight)"));
            continue;
          }
          const note = `${c.model}, last layer${c.idf ? ", idf" : ""}${c.baseline ? ", baseline-rescaled" : ""}${ref.truncated || cand.truncated ? `, truncated to ${effectiveMaxLength(tokenizer, model, c.maxLength)} tokens` : ""}`;
          rows.push({
            bertscore_precision: { value: rescale(s.precision, c.baseline?.precision), note },
            bertscore_recall: { value: rescale(s.recall, c.baseline?.recall), note },
            bertscore_f1: { value: rescale(s.f1, c.baseline?.f1), note },
          });
        } catch (e) {
          rows.push(nullRow(`bertscore failed: ${(e as Error).message}`));
        }
      }
      return rows;
    },
  };
}
