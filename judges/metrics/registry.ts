/**
 * Reference-metric registry: metric id → factory. Unknown ids throw with the list of valid ids.
 */
import { BERTSCORE_METRIC_ID, createBertScoreMetric } from "./bertscore.ts";
import { BLEU_METRIC_ID, createBleuMetric } from "./bleu.ts";
import { COUNT_RATIOS_METRIC_ID, createCountRatiosMetric, type CountRatiosConfig } from "./counts.ts";
import { EMBEDDING_COSINE_METRIC_ID, createEmbeddingCosineMetric, type TextEmbedder } from "./embedding-cosine.ts";
import { PERPLEXITY_METRIC_ID, createPerplexityMetric } from "./perplexity.ts";
import { ROUGE_METRIC_ID, createRougeMetric } from "./rouge.ts";
import type { Metric } from "./types.ts";

/** Dependencies a metric factory may need (only embedding-cosine needs one). */
export interface MetricDeps {
  embedder?: TextEmbedder;
}

/** A metric factory: config (validated by the metric's zod schema) + deps → metric. */
export type MetricFactory = (config: Record<string, unknown>, deps: MetricDeps) => Metric;

/** All reference metrics by id. */
export const METRIC_FACTORIES: Readonly<Record<string, MetricFactory>> = Object.freeze({
  [ROUGE_METRIC_ID]: (c) => createRougeMetric(c),
  [BLEU_METRIC_ID]: (c) => createBleuMetric(c),
  [COUNT_RATIOS_METRIC_ID]: (c) => createCountRatiosMetric(c as Partial<CountRatiosConfig>),
  [EMBEDDING_COSINE_METRIC_ID]: (c, d) => createEmbeddingCosineMetric(c, d),
  [BERTSCORE_METRIC_ID]: (c) => createBertScoreMetric(c),
  [PERPLEXITY_METRIC_ID]: (c) => createPerplexityMetric(c),
});

/** Ids of the registered metrics. */
export function metricIds(): string[] {
  return Object.keys(METRIC_FACTORIES);
}

/**
 * Build a metric by id.
 * @throws Error naming the valid ids on an unknown id; ZodError on a bad config.
 */
export function createMetric(id: string, config: Record<string, unknown> = {}, deps: MetricDeps = {}): Metric {
  const factory = Object.prototype.hasOwnProperty.call(METRIC_FACTORIES, id) ? METRIC_FACTORIES[id] : undefined;
  if (!factory) throw new Error(`unknown metric id "${id}"; valid ids: ${metricIds().join(", ")}`);
  return factory(config, deps);
}
