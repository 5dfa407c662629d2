/**
 * RWESummary weighted min–max rubric: combine per-model outcome metrics into one 0–100 % score.
 *
 * Per metric, each model's value is min–max normalised across the models (or against an
 * overridden min/max): (v − min)/(max − min) when higher is better, (max − v)/(max − min) when
 * lower is better (inference time). The weighted sum Σ w·norm is then renormalised across models
 * to 0–100 % (best model 100 %, worst 0 %), which reproduces the paper's Figure 2.
 * Default weights (paper, "Weighted scoring rubric" and Figure 2): direction of effect 20,
 * numbers accurate 6, completeness 5, inference time 3 (lower is better).
 *
 * Degenerate cases: when a metric's max equals its min, every model gets normalised value 1 for
 * it (no model is worse than another) and the metric id is listed in `degenerateMetrics`; when
 * all weighted sums are equal, every model's score is 100 %.
 * Values outside an overridden [min, max] are not clamped (they map outside [0, 1]).
 *
 * @see RWESummary (seed 002), "Weighted scoring rubric" and Figure 2 (normalizing min/max row).
 */
import { z } from "zod";

/** One metric of the rubric. */
export const RweMetricSpecSchema = z
  .object({
    /** Key of the metric in each model's `values`. */
    id: z.string().min(1),
    weight: z.number().nonnegative(),
    direction: z.enum(["higher", "lower"]).default("higher"),
    /** Override of the normalising minimum (default: min over models). */
    min: z.number().optional(),
    /** Override of the normalising maximum (default: max over models). */
    max: z.number().optional(),
  })
  .strict();
/** A rubric metric. */
export type RweMetricSpec = z.infer<typeof RweMetricSpecSchema>;

/** The paper's default metrics and weights. */
export const RWE_DEFAULT_METRICS: readonly RweMetricSpec[] = Object.freeze([
  { id: "direction_of_effect", weight: 20, direction: "higher" },
  { id: "numbers_accurate", weight: 6, direction: "higher" },
  { id: "completeness", weight: 5, direction: "higher" },
  { id: "inference_time", weight: 3, direction: "lower" },
]);

/** Rubric config. */
export const RweWeightedScoreConfigSchema = z
  .object({
    metrics: z
      .array(RweMetricSpecSchema)
      .min(1)
      .default(RWE_DEFAULT_METRICS.map((m) => ({ ...m }))),
  })
  .strict();
/** Parsed rubric config. */
export type RweWeightedScoreConfig = z.infer<typeof RweWeightedScoreConfigSchema>;

/** One model's raw outcome values (judge means in [0, 1], inference time in seconds). */
export interface RweModelRow {
  model: string;
  values: Record<string, number>;
}

/** One model's normalised values and scores. */
export interface RweModelScore {
  model: string;
  /** Normalised value per metric id (1 = best observed). */
  normalized: Record<string, number>;
  /** Σ weight · normalised value. */
  weightedSum: number;
  /** Weighted sum as a percentage of the total weight (an absolute variant, not the paper's). */
  weightedPercent: number;
  /** Paper's final score: weighted sum min–max renormalised across models, in % (0–100). */
  score: number;
}

/** Rubric output with the normalising bounds used. */
export interface RweWeightedScore {
  models: RweModelScore[];
  bounds: Record<string, { min: number; max: number }>;
  degenerateMetrics: string[];
}

/**
 * Apply the weighted min–max rubric.
 * @param rows one row per model; every metric id must be present and finite in every row.
 * @param config {@link RweWeightedScoreConfigSchema} (default: the paper's 20/6/5/3).
 * @throws Error naming the model and metric when a value is missing or not finite; ZodError on a bad config.
 */
export function computeRweWeightedScore(rows: readonly RweModelRow[], config: Partial<RweWeightedScoreConfig> = {}): RweWeightedScore {
  const c = RweWeightedScoreConfigSchema.parse(config);
  if (rows.length === 0) throw new Error("computeRweWeightedScore: no models");
  for (const r of rows) {
    for (const m of c.metrics) {
      const v = r.values[m.id];
      if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`computeRweWeightedScore: model "${r.model}" has no finite value for metric "${m.id}"`);
    }
  }
  const bounds: Record<string, { min: number; max: number }> = {};
  const degenerate: string[] = [];
  for (const m of c.metrics) {
    const vs = rows.map((r) => r.values[m.id]);
    const min = m.min ?? Math.min(...vs);
    const max = m.max ?? Math.max(...vs);
    bounds[m.id] = { min, max };
    if (max === min) degenerate.push(m.id);
  }
  const totalWeight = c.metrics.reduce((a, m) => a + m.weight, 0);
  const partial = rows.map((r) => {
    const normalized: Record<string, number> = {};
    let weightedSum = 0;
    for (const m of c.metrics) {
      const { min, max } = bounds[m.id];
      const v = r.values[m.id];
      const norm = max === min ? 1 : m.direction === "higher" ? (v - min) / (max - min) : (max - v) / (max - min);
      normalized[m.id] = norm;
      weightedSum += m.weight * norm;
    }
    return { model: r.model, normalized, weightedSum, weightedPercent: totalWeight > 0 ? (100 * weightedSum) / totalWeight : 0 };
  });
  const lo = Math.min(...partial.map((p) => p.weightedSum));
  const hi = Math.max(...partial.map((p) => p.weightedSum));
  return {
    models: partial.map((p) => ({ ...p, score: hi === lo ? 100 : (100 * (p.weightedSum - lo)) / (hi - lo) })),
    bounds,
    degenerateMetrics: degenerate,
  };
}
