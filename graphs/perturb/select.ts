/**
 * Seeded choice of which passages an operator touches: round(fraction · n) of them by a
 * Fisher–Yates shuffle seeded with `<seed>:<op>:<itemId>` (the same across models and repeats).
 */
import seedrandom from "seedrandom";

/**
 * Choose round(fraction·n) ids by a seeded shuffle.
 * @param salt extra seed text (the operator id), so two operators choose independently
 * @returns the chosen ids as a set
 */
export function chooseFraction(ids: readonly string[], fraction: number, seed: number, itemId: string, salt = ""): Set<string> {
  const n = Math.round(fraction * ids.length);
  return new Set(seededShuffle(ids, salt ? `${seed}:${salt}:${itemId}` : `${seed}:${itemId}`).slice(0, n));
}

/** A copy of `items` in a Fisher–Yates order drawn from `seedrandom(seed)`. */
export function seededShuffle<T>(items: readonly T[], seed: string): T[] {
  const rng = seedrandom(seed);
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
