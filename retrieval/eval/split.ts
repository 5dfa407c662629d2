/**
 * Honest tuning splits (issue 18 item 3): a seeded dev/test split, or k folds, of questions that
 * keeps every group (e.g. the Cochrane review a MedEvidence question comes from,
 * `meta.original_review`) on one side, so no review leaks across the split.
 *
 * Groups are shuffled with a seeded RNG (`seedrandom`) and dealt greedily: each group goes to the
 * side (or fold) furthest below its target share of items, so shares stay close to the requested
 * fraction even with unequal group sizes. Items without a group are their own group.
 */
import seedrandom from "seedrandom";

/** A dev/test split: item ids on each side and how many groups each holds. */
export interface GroupSplit {
  dev: string[];
  test: string[];
  devGroups: number;
  testGroups: number;
  seed: string;
}

function groupsOf<T>(items: readonly T[], idOf: (t: T) => string, groupOf: (t: T) => string | null | undefined): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const it of items) {
    const id = idOf(it);
    if (seen.has(id)) throw new Error(`split: duplicate item id "${id}"`);
    seen.add(id);
    const g = groupOf(it) ?? `\u0000item:${id}`;
    (groups.get(g) ?? groups.set(g, []).get(g)!).push(id);
  }
  return groups;
}

function shuffled<T>(xs: T[], seed: string): T[] {
  const rng = seedrandom(seed);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Deal groups into `k` buckets with target shares `shares` (summing to 1): groups in seeded
 * random order, each to the bucket with the largest deficit (target − current items), ties to
 * the lower index.
 */
function deal(groups: Map<string, string[]>, shares: readonly number[], seed: string): string[][][] {
  const keys = shuffled([...groups.keys()].sort(), seed);
  const total = [...groups.values()].reduce((a, g) => a + g.length, 0);
  const buckets: string[][][] = shares.map(() => []);
  const sizes = shares.map(() => 0);
  for (const key of keys) {
    const g = groups.get(key)!;
    let best = 0;
    for (let b = 1; b < shares.length; b++) if (shares[b] * total - sizes[b] > shares[best] * total - sizes[best]) best = b;
    buckets[best].push(g);
    sizes[best] += g.length;
  }
  return buckets;
}

/**
 * Seeded dev/test split with no group on both sides.
 * @param items the questions; `idOf` their ids (unique), `groupOf` their group (null → own group).
 * @param opts `devFraction` in (0, 1) (default 0.5), `seed` (default "medsynth").
 * @throws Error on a duplicate id or a fraction outside (0, 1).
 */
export function groupedDevTestSplit<T>(items: readonly T[], idOf: (t: T) => string, groupOf: (t: T) => string | null | undefined, opts: { devFraction?: number; seed?: string } = {}): GroupSplit {
  const f = opts.devFraction ?? 0.5;
  if (!(f > 0 && f < 1)) throw new Error(`split: devFraction must be in (0, 1), got ${f}`);
  const seed = opts.seed ?? "medsynth";
  const [dev, test] = deal(groupsOf(items, idOf, groupOf), [f, 1 - f], seed);
  return { dev: dev.flat(), test: test.flat(), devGroups: dev.length, testGroups: test.length, seed };
}

/**
 * Seeded k-fold partition with no group in two folds: fold i is the test side of round i, the
 * other folds its dev side.
 * @returns k arrays of item ids.
 * @throws Error on k < 2, more folds than groups, or a duplicate id.
 */
export function groupedKFold<T>(items: readonly T[], idOf: (t: T) => string, groupOf: (t: T) => string | null | undefined, k: number, seed = "medsynth"): string[][] {
  const groups = groupsOf(items, idOf, groupOf);
  if (!(Number.isInteger(k) && k >= 2)) throw new Error(`split: k must be an integer ≥ 2, got ${k}`);
  if (k > groups.size) throw new Error(`split: ${k} folds but only ${groups.size} groups`);
  return deal(groups, Array<number>(k).fill(1 / k), seed).map((b) => b.flat());
}
