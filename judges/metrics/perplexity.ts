/**
 * Perplexity of the candidate text under a causal language model (GPT-2 by default) through a
 * local @xenova/transformers model: PPL = exp(mean over tokens t ≥ 2 of −log p(x_t | x_<t)).
 * Texts longer than the model context are truncated (the note says so). An unavailable model
 * makes the value null with the reason — never a substitute number.
 *
 * @see MedConclusion (seed 000): GPT-2 perplexity of generated conclusions.
 */
import { z } from "zod";
import { loadLocalModel, type Loaded } from "./transformers-loader.ts";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const PERPLEXITY_METRIC_ID = "perplexity";

/** Config of the perplexity metric. */
export const PerplexityConfigSchema = z
  .object({
    model: z.string().min(1).default("Xenova/gpt2"),
    modelDir: z.string().optional(),
    allowRemote: z.boolean().default(false),
    quantized: z.boolean().default(false),
    /** Context length; longer texts are truncated to it. */
    maxLength: z.number().int().min(2).default(1024),
  })
  .strict();
/** Parsed config. */
export type PerplexityConfig = z.infer<typeof PerplexityConfigSchema>;

/**
 * Log-probability of each token given the ones before it, from next-token logits (log-softmax of
 * row t − 1 at id t, computed stably with the row max).
 * @param logits row-major [T, V] logits; @param ids the T token ids; @param vocab V.
 * @returns T − 1 natural-log probabilities (for tokens 2…T); [] when T < 2.
 */
export function tokenLogProbs(logits: Float32Array, ids: readonly number[], vocab: number): number[] {
  const out: number[] = [];
  for (let t = 1; t < ids.length; t++) {
    const off = (t - 1) * vocab;
    let max = -Infinity;
    for (let v = 0; v < vocab; v++) if (logits[off + v] > max) max = logits[off + v];
    let sum = 0;
    for (let v = 0; v < vocab; v++) sum += Math.exp(logits[off + v] - max);
    out.push(logits[off + ids[t]] - max - Math.log(sum));
  }
  return out;
}

/**
 * exp(mean NLL) from next-token logits (HF's perplexity recipe: the first token is context only).
 * @param logits row-major [T, V] logits; @param ids the T token ids.
 * @returns perplexity, or null when T < 2.
 */
export function perplexityFromLogits(logits: Float32Array, ids: readonly number[], vocab: number): number | null {
  const lp = tokenLogProbs(logits, ids, vocab);
  if (lp.length === 0) return null;
  return Math.exp(-lp.reduce((a, b) => a + b, 0) / lp.length);
}

/**
 * Registry factory: reports `perplexity` of each candidate and `perplexity_reference` of its
 * reference under the same model (MedConclusion reports both, to tell whether generated text is
 * as fluent as the author-written one); an empty reference gives null with a note.
 * @throws ZodError on a bad config.
 */
export function createPerplexityMetric(config: Partial<PerplexityConfig> = {}): Metric {
  const c = PerplexityConfigSchema.parse(config);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let loading: Promise<Loaded<{ tokenizer: any; model: any }>> | null = null;
  return {
    id: PERPLEXITY_METRIC_ID,
    outputs: ["perplexity", "perplexity_reference"],
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      loading ??= loadLocalModel({ model: c.model, modelDir: c.modelDir, allowRemote: c.allowRemote, quantized: c.quantized }, "AutoModelForCausalLM");
      const loaded = await loading;
      if (!loaded.ok) {
        const reason = loaded.reason;
        return pairs.map(() => ({ perplexity: { value: null, note: reason }, perplexity_reference: { value: null, note: reason } }));
      }
      const { tokenizer, model } = loaded.value;
      const pplOf = async (text: string): Promise<MetricScores[string]> => {
        if (!text.trim()) return { value: null, note: "empty text" };
        try {
          const enc = await tokenizer(text, { truncation: true, max_length: c.maxLength });
          const ids = Array.from(enc.input_ids.data as BigInt64Array, Number);
          const out = await model({ input_ids: enc.input_ids, attention_mask: enc.attention_mask });
          const vocab = (out.logits.dims as number[])[2];
          const ppl = perplexityFromLogits(out.logits.data as Float32Array, ids, vocab);
          return ppl === null ? { value: null, note: "fewer than 2 tokens" } : { value: ppl, note: `${c.model}${ids.length >= c.maxLength ? ", truncated" : ""}` };
        } catch (e) {
          return { value: null, note: `perplexity failed: ${(e as Error).message}` };
        }
      };
      const rows: MetricScores[] = [];
      for (const p of pairs) rows.push({ perplexity: await pplOf(p.candidate), perplexity_reference: await pplOf(p.reference) });
      return rows;
    },
  };
}
