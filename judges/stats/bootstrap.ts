/**
 * Seeded percentile bootstrap confidence interval.
 *
 * @see Efron B., Tibshirani R. (1993) An Introduction to the Bootstrap, ch. 13 (percentile interval).
 */
import seedrandom from "seedrandom";
import { z } from "zod";
import { mean } from "./descriptive.ts";
import type { StatStatus } from "./status.ts";

/** Options for {@link bootstrapCi}. */
export const BootstrapOptionsSchema = z
  .object({
    /** Number of bootstrap resamples. */
    iterations: z.number().int().min(100).default(2000),
    /** Confidence level in (0, 1). */
    level: z.number().gt(0).lt(1).default(0.95),
    /** Seed string for `seedrandom`; the same seed gives the same interval. */
    seed: z.string().default("medsynth"),
  })
  .strict();
/** Parsed bootstrap options. */
export type BootstrapOptions = z.infer<typeof BootstrapOptionsSchema>;

/** A bootstrap interval with the point estimate on the original sample. */
export interface BootstrapCi {
  /** Always `ok` (fewer than 2 values throw). */
  status: StatStatus;
  estimate: number;
  lower: number;
  upper: number;
  level: number;
  iterations: number;
  seed: string;
}

/** Linear-interpolation quantile of sorted values (numpy `percentile` default, "linear"). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError("quantileSorted: empty array");
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Percentile bootstrap CI of `statistic` (default: the mean): resample with replacement
 * `iterations` times with a seeded RNG, take the (1−level)/2 and (1+level)/2 quantiles (linear
 * interpolation) of the resampled statistics.
 * @param values the sample (n ≥ 2).
 * @param options {@link BootstrapOptionsSchema}.
 * @throws RangeError on fewer than 2 values; ZodError on bad options.
 */
export function bootstrapCi(
  values: readonly number[],
  options: Partial<BootstrapOptions> = {},
  statistic: (sample: number[]) => number = mean,
): BootstrapCi {
  const o = BootstrapOptionsSchema.parse(options);
  const n = values.length;
  if (n < 2) throw new RangeError(`bootstrapCi: need at least 2 values, got ${n}`);
  const rng = seedrandom(o.seed);
  const stats = new Float64Array(o.iterations);
  const sample = new Array<number>(n);
  for (let b = 0; b < o.iterations; b++) {
    for (let i = 0; i < n; i++) sample[i] = values[Math.floor(rng() * n)];
    stats[b] = statistic(sample);
  }
  stats.sort();
  const alpha = (1 - o.level) / 2;
  return {
    status: "ok",
    estimate: statistic([...values]),
    lower: quantileSorted(stats, alpha),
    upper: quantileSorted(stats, 1 - alpha),
    level: o.level,
    iterations: o.iterations,
    seed: o.seed,
  };
}
