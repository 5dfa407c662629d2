/**
 * BERTScore precision / recall / F1 through a local @xenova/transformers encoder.
 *
 * Each text is encoded; token embeddings (last hidden layer, special tokens [CLS]/[SEP]/<s>/</s>
 * excluded) are L2-normalised; recall = mean over reference tokens of the max cosine with any
 * candidate token, precision = mean over candidate tokens of the max cosine with any reference
 * token, F1 = 2PR/(P+R). IDF weighting is off (bert-score's default). Optional baseline
 * rescaling maps s → (s − b)/(1 − b) with constants the user supplies (bert-score ships them per
 * model and layer in `rescale_baseline/<lang>/<model>.tsv`; none are assumed here).
 * Note: reference BERTScore uses a model-specific layer (e.g. roberta-large layer 17); the ONNX
 * exports expose the last layer, so scores are comparable only under the same model id — the
 * output note names it.
 *
 * An unavailable model makes every value null with the reason — never a substitute number.
 *
 * @see Zhang T. et al. (2020) BERTScore: Evaluating Text Generation with BERT. ICLR.
 *   MedMeta (seed 001) reports BERTScore next to its LLM judges.
 */
import { z } from "zod";
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
    /** Baseline rescaling constants (from bert-score's rescale_baseline files); off when absent. */
    baseline: z.object({ precision: z.number(), recall: z.number(), f1: z.number() }).strict().optional(),
    /** Max tokens per text (longer texts are truncated). */
    maxLength: z.number().int().min(8).default(510),
  })
  .strict();
/** Parsed config. */
export type BertScoreConfig = z.infer<typeof BertScoreConfigSchema>;

/** Greedy-matching BERTScore of two sets of L2-normalised token vectors (rows of dim `dim`). */
export function greedyMatchScores(ref: Float32Array, nRef: number, cand: Float32Array, nCand: number, dim: number): { precision: number; recall: number; f1: number } {
  const sim = new Float64Array(nRef * nCand);
  for (let i = 0; i < nRef; i++) {
    for (let j = 0; j < nCand; j++) {
      let s = 0;
      for (let k = 0; k < dim; k++) s += ref[i * dim + k] * cand[j * dim + k];
      sim[i * nCand + j] = s;
    }
  }
  let r = 0;
  for (let i = 0; i < nRef; i++) {
    let m = -Infinity;
    for (let j = 0; j < nCand; j++) m = Math.max(m, sim[i * nCand + j]);
    r += m;
  }
  let p = 0;
  for (let j = 0; j < nCand; j++) {
    let m = -Infinity;
    for (let i = 0; i < nRef; i++) m = Math.max(m, sim[i * nCand + j]);
    p += m;
  }
  const recall = r / nRef;
  const precision = p / nCand;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
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

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function embed(tokenizer: any, model: any, text: string): Promise<{ vecs: Float32Array; n: number; dim: number }> {
    const enc = await tokenizer(text, { truncation: true, max_length: c.maxLength + 2 });
    const out = await model(enc);
    const h = out.last_hidden_state;
    const [, T, H] = h.dims as number[];
    const data = h.data as Float32Array;
    const ids = Array.from(enc.input_ids.data as BigInt64Array, Number);
    const special = new Set<number>((tokenizer.all_special_ids ?? []).map(Number));
    const keep: number[] = [];
    for (let t = 0; t < T; t++) if (!special.has(ids[t])) keep.push(t);
    const vecs = new Float32Array(keep.length * H);
    keep.forEach((t, r) => {
      let norm = 0;
      for (let k = 0; k < H; k++) norm += data[t * H + k] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let k = 0; k < H; k++) vecs[r * H + k] = data[t * H + k] / norm;
    });
    return { vecs, n: keep.length, dim: H };
  }

  return {
    id: BERTSCORE_METRIC_ID,
    outputs,
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      loading ??= loadLocalModel({ model: c.model, modelDir: c.modelDir, allowRemote: c.allowRemote, quantized: c.quantized }, "AutoModel");
      const loaded = await loading;
      if (!loaded.ok) {
        const reason = loaded.reason;
        return pairs.map(() => Object.fromEntries(outputs.map((o) => [o, { value: null, note: reason }])));
      }
      const { tokenizer, model } = loaded.value;
      const rows: MetricScores[] = [];
      for (const p of pairs) {
        try {
          const ref = await embed(tokenizer, model, p.reference);
          const cand = await embed(tokenizer, model, p.candidate);
          if (ref.n === 0 || cand.n === 0) {
            rows.push(Object.fromEntries(outputs.map((o) => [o, { value: null, note: "empty reference or candidate" }])));
            continue;
          }
          const s = greedyMatchScores(ref.vecs, ref.n, cand.vecs, cand.n, ref.dim);
          const note = `${c.model}, last layer${c.baseline ? ", baseline-rescaled" : ""}`;
          rows.push({
            bertscore_precision: { value: rescale(s.precision, c.baseline?.precision), note },
            bertscore_recall: { value: rescale(s.recall, c.baseline?.recall), note },
            bertscore_f1: { value: rescale(s.f1, c.baseline?.f1), note },
          });
        } catch (e) {
          const note = `bertscore failed: ${(e as Error).message}`;
          rows.push(Object.fromEntries(outputs.map((o) => [o, { value: null, note }])));
        }
      }
      return rows;
    },
  };
}
