/**
 * Which built reviews become MedMeta items: the feasibility filter and stratified sampling.
 *
 * - **Feasibility** ({@link checkFeasibility}): an explicit conclusion; an included-studies table
 *   (MedMeta §3.1 criterion 1, on by default); between `minRefs` and `maxRefs` included-study PMIDs
 *   (default 7–25, the span of MedMeta's reviews); at most `maxUnresolved` included studies
 *   without a PMID (default 0: §3.1 criterion 2, every primary study retrievable in PubMed).
 * - **Stratified sampling** ({@link stratifiedSample}): MedMeta balanced its benchmark across
 *   publication years (§3.1 "Stratified Sampling") and covered many specialties (Appendix A/G). The
 *   sample is balanced, not proportional: `n` is spread as evenly as possible over the years
 *   ({@link allocateEvenly}: every stratum gets the same share, capped by what it has; what is
 *   left goes one by one to the strata that still have items, chosen with the seed), then each
 *   year's share is spread the same way over its topics, then the items of each (year, topic) cell
 *   are drawn with the seed. Everything depends only on (items, n, seed).
 */
import seedrandom from "seedrandom";
import { z } from "zod";

/** Feasibility settings (zod-checked). */
export const FeasibilitySchema = z
  .object({
    /** Fewest included-study PMIDs (MedMeta's reviews: 7–25). */
    minRefs: z.number().int().min(1).default(7),
    /** Most included-study PMIDs. */
    maxRefs: z.number().int().min(1).default(25),
    /** Most included studies without a PMID (MedMeta: all primary studies in PubMed → 0). */
    maxUnresolved: z.number().int().min(0).default(0),
    /** Require an included-studies table (MedMeta §3.1 criterion 1); false = fall back to the whole reference list. */
    requireStudiesTable: z.boolean().default(true),
  })
  .strict();
/** Input of {@link FeasibilitySchema}. */
export type FeasibilityOptions = z.input<typeof FeasibilitySchema>;

/** What the filter needs to know about a review. */
export interface FeasibilityInput {
  hasConclusion: boolean;
  hasStudiesTable: boolean;
  /** Unique included-study PMIDs found. */
  includedPmids: number;
  /** Included studies whose PMID could not be found. */
  unresolved: number;
}

/**
 * Apply the feasibility filter.
 * @returns null when the review passes, else the reason it is dropped (one line naming the rule).
 * @throws ZodError on invalid options (e.g. minRefs > maxRefs is reported as an Error).
 */
export function checkFeasibility(r: FeasibilityInput, options: FeasibilityOptions = {}): string | null {
  const o = FeasibilitySchema.parse(options);
  if (o.minRefs > o.maxRefs) throw new Error(`feasibility: minRefs ${o.minRefs} > maxRefs ${o.maxRefs}`);
  if (!r.hasConclusion) return "no explicit conclusion (abstract Conclusion(s) section, body Conclusion(s) section or concluding Discussion paragraph)";
  if (o.requireStudiesTable && !r.hasStudiesTable) return "no included-studies table (characteristics of included studies)";
  if (r.unresolved > o.maxUnresolved) return `${r.unresolved} included stud${r.unresolved === 1 ? "y has" : "ies have"} no PMID (at most ${o.maxUnresolved} allowed)`;
  if (r.includedPmids < o.minRefs) return `${r.includedPmids} included-study PMIDs < ${o.minRefs}`;
  if (r.includedPmids > o.maxRefs) return `${r.includedPmids} included-study PMIDs > ${o.maxRefs}`;
  return null;
}

/** Seeded Fisher–Yates shuffle of a copy. */
function shuffle<T>(xs: readonly T[], rng: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Spread `n` over strata of the given sizes as evenly as possible: the largest level `t` with
 * Σ min(size, t) ≤ n gives every stratum min(size, t); the remaining r = n − Σ go one each to r
 * strata of size > t, chosen by a seeded shuffle. When n ≥ Σ size every stratum gets its size.
 * @example allocateEvenly([4, 2, 6], 6, rng) → [2, 2, 2]; ([5, 1], 4) → [3, 1].
 * @returns one count per stratum (same order), summing to min(n, Σ size).
 */
export function allocateEvenly(sizes: readonly number[], n: number, rng: () => number): number[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (n >= total) return [...sizes];
  const filled = (t: number) => sizes.reduce((a, s) => a + Math.min(s, t), 0);
  let t = 0;
  while (filled(t + 1) <= n) t++;
  const out = sizes.map((s) => Math.min(s, t));
  let r = n - filled(t);
  const open = shuffle(
    sizes.map((s, i) => (s > t ? i : -1)).filter((i) => i >= 0),
    rng,
  );
  for (const i of open) {
    if (r-- <= 0) break;
    out[i]++;
  }
  return out;
}

/** Strata keys of an item. */
export interface StratumKey {
  year: number | null;
  topic: string;
}

/** Which levels to stratify by, outer first. */
export type StratifyLevel = "year" | "topic";

/**
 * Balanced stratified sample (see the file header).
 * @param items candidates (already feasible).
 * @param keyOf their year and topic.
 * @param n sample size; all items when n ≥ items.length.
 * @param seed seedrandom seed.
 * @param levels stratification levels, outer first (default year, then topic); [] = simple random sample.
 * @returns `kept` and `dropped` (each in input order) and the count per stratum ("2020/Neoplasms": n).
 */
export function stratifiedSample<T>(
  items: readonly T[],
  keyOf: (t: T) => StratumKey,
  n: number,
  seed: string,
  levels: readonly StratifyLevel[] = ["year", "topic"],
): { kept: T[]; dropped: T[]; strata: Record<string, number> } {
  const rng = seedrandom(seed);
  const idx = items.map((_, i) => i);
  const label = (i: number, level: StratifyLevel) => {
    const k = keyOf(items[i]);
    return level === "year" ? (k.year === null ? "unknown" : String(k.year)) : k.topic;
  };
  const chosen = new Set<number>();
  const strata: Record<string, number> = {};
  const take = (members: number[], quota: number, depth: number, path: string[]) => {
    if (quota <= 0) return;
    if (depth === levels.length) {
      for (const i of shuffle(members, rng).slice(0, quota)) chosen.add(i);
      strata[path.join("/") || "all"] = Math.min(quota, members.length);
      return;
    }
    const groups = new Map<string, number[]>();
    for (const i of members) {
      const g = label(i, levels[depth]);
      groups.set(g, [...(groups.get(g) ?? []), i]);
    }
    const names = [...groups.keys()].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    const quotas = allocateEvenly(
      names.map((g) => groups.get(g)!.length),
      quota,
      rng,
    );
    names.forEach((g, j) => take(groups.get(g)!, quotas[j], depth + 1, [...path, g]));
  };
  take(idx, Math.min(n, items.length), 0, []);
  return { kept: idx.filter((i) => chosen.has(i)).map((i) => items[i]), dropped: idx.filter((i) => !chosen.has(i)).map((i) => items[i]), strata };
}
