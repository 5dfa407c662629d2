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
export function bootstrapCi(values: readonly number[], options: Partial<BootstrapOptions> = {}, statistic: (sample: number[]) => number = mean): BootstrapCi {
  const o = BootstrapOptionsSchema.parse(options);
  const n = values.length;
  if (n < 2) throw new RangeError(`bootstrapCi: need at least 2 values, got ${n}`);
  const stats = new Float64Array(o.iterations);
  if (statistic === mean && values.every(Number.isFinite)) meanResamples([values], o.seed, [stats]);
  else {
    const rng = seedrandom(o.seed);
    const sample = new Array<number>(n);
    for (let b = 0; b < o.iterations; b++) {
      for (let i = 0; i < n; i++) sample[i] = values[Math.floor(rng() * n)];
      stats[b] = statistic(sample);
    }
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

/**
 * {@link bootstrapCi} of the mean for many samples at once, each with the same result as
 * `bootstrapCi(sample, options)`: samples of one length share their draws (the resample indices
 * depend only on the seed and the length), so the random numbers are generated once per length,
 * not once per sample. A sample with fewer than 2 values gives null; one with a non-finite value
 * goes through {@link bootstrapCi} (which throws as `mean` does).
 */
export function bootstrapMeanCis(samples: readonly (readonly number[])[], options: Partial<BootstrapOptions> = {}): (BootstrapCi | null)[] {
  const o = BootstrapOptionsSchema.parse(options);
  const out: (BootstrapCi | null)[] = samples.map(() => null);
  const byLength = new Map<number, number[]>();
  samples.forEach((xs, k) => {
    if (xs.length < 2) return;
    if (!xs.every(Number.isFinite)) {
      out[k] = bootstrapCi(xs, options);
      return;
    }
    const list = byLength.get(xs.length) ?? [];
    list.push(k);
    byLength.set(xs.length, list);
  });
  const alpha = (1 - o.level) / 2;
  for (const ks of byLength.values()) {
    const stats = ks.map(() => new Float64Array(o.iterations));
    meanResamples(
      ks.map((k) => samples[k]),
      o.seed,
      stats,
    );
    ks.forEach((k, m) => {
      stats[m].sort();
      out[k] = {
        status: "ok",
        estimate: mean([...samples[k]]),
        lower: quantileSorted(stats[m], alpha),
        upper: quantileSorted(stats[m], 1 - alpha),
        level: o.level,
        iterations: o.iterations,
        seed: o.seed,
      };
    });
  }
  return out;
}

/**
 * The bootstrap means of {@link bootstrapCi} (default statistic) without building each resample:
 * the same draws as `seedrandom(seed)` — its ARC4 generator and its 52-bit doubles, ported to a
 * byte array — summed in draw order, so every mean is bit-identical to `mean(sample)`. `samples`
 * all have one length and share the draws; `out[m]` gets sample m's mean per resample. Values must
 * be finite (`mean` would throw otherwise).
 */
function meanResamples(samples: readonly (readonly number[])[], seed: string, out: Float64Array[]): void {
  const state = (seedrandom(seed, { state: true }) as unknown as { state: () => { i: number; j: number; S: number[] } }).state();
  const s = Uint8Array.from(state.S);
  let i = state.i;
  let j = state.j;
  const byte = (): number => {
    i = (i + 1) & 255;
    const t = s[i];
    j = (j + t) & 255;
    const a = s[j];
    s[i] = a;
    s[j] = t;
    return s[(a + t) & 255];
  };
  const n = samples[0].length;
  const G = samples.length;
  // Interleaved: the G values drawn by one index lie side by side.
  const v = new Float64Array(n * G);
  samples.forEach((xs, g) => {
    for (let k = 0; k < n; k++) v[k * G + g] = xs[k];
  });
  const sums = new Float64Array(G);
  const iterations = out[0].length;
  for (let b = 0; b < iterations; b++) {
    sums.fill(0);
    for (let k = 0; k < n; k++) {
      // seedrandom's prng(): 6 bytes, then bytes until 52 significant bits, no rounding up.
      let num = byte() * 1099511627776 + byte() * 4294967296 + byte() * 16777216 + byte() * 65536 + byte() * 256 + byte();
      let d = 281474976710656;
      let x = 0;
      while (num < 4503599627370496) {
        num = (num + x) * 256;
        d *= 256;
        x = byte();
      }
      while (num >= 9007199254740992) {
        num /= 2;
        d /= 2;
        x >>>= 1;
      }
      const base = Math.floor(((num + x) / d) * n) * G;
      for (let g = 0; g < G; g++) sums[g] += v[base + g];
    }
    for (let g = 0; g < G; g++) out[g][b] = sums[g] / n;
  }
}
