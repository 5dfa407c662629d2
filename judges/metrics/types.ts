/**
 * Shared shapes of reference metrics: a pair to score, a metric value that may be missing with a
 * reason, and the metric interface the registry hands out.
 */

/** One candidate text scored against one reference text. */
export interface MetricPair {
  /** Optional item id, carried through for reporting. */
  id?: string;
  /** Reference (gold) text, e.g. the abstract's conclusion. */
  reference: string;
  /** Generated (candidate) text. */
  candidate: string;
}

/**
 * A metric value. `value` is null when the metric could not be computed (model not available,
 * empty input where undefined, …); `note` then says why. Never a substitute number.
 */
export interface MetricValue {
  value: number | null;
  note?: string;
}

/** Named values one metric gives for one pair, e.g. `{rouge1_fmeasure: {value: 0.41}}`. */
export type MetricScores = Record<string, MetricValue>;

/** A reference metric: scores a batch of pairs; output names are listed in `outputs`. */
export interface Metric {
  /** Registry id, e.g. "rouge". */
  id: string;
  /** Names of the values each row carries. */
  outputs: readonly string[];
  /** Scores pairs in order; one row per pair. Model-backed metrics return null values with a note on failure. */
  score(pairs: readonly MetricPair[]): Promise<MetricScores[]>;
}
