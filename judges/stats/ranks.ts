/**
 * Ranking with ties ("average" method), as scipy.stats.rankdata(method="average").
 */

/** Ranks (1-based) with tied values given the mean of their ranks, plus the tie-group sizes (> 1). */
export interface Ranking {
  ranks: number[];
  /** Size of every group of tied values with more than one member. */
  tieGroups: number[];
}

/**
 * Average ranks of `values` (1 = smallest).
 * @throws RangeError on NaN.
 */
export function rankAverage(values: readonly number[]): Ranking {
  const n = values.length;
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i++) if (Number.isNaN(values[i])) throw new RangeError(`rankAverage: NaN at index ${i}`);
  idx.sort((a, b) => values[a] - values[b] || a - b);
  const ranks = new Array<number>(n);
  const tieGroups: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && values[idx[j + 1]] === values[idx[i]]) j++;
    const r = (i + j + 2) / 2;
    for (let k = i; k <= j; k++) ranks[idx[k]] = r;
    if (j > i) tieGroups.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, tieGroups };
}
