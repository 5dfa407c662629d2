/**
 * Shared core of the fusion methods in this folder (issue 18): score normalisations and one
 * accumulator that combines per-list contributions into a fused ranking.
 *
 * Conventions are those of `retrieval/fusion.ts` (ranx, trec_eval): ids compared as strings; a
 * repeated id inside one list keeps its first position and score, later positions are not
 * renumbered; equal scores next to each other in one list share a rank (`sharedRanks`: the rank
 * of the first of them, "1224"), which RRF, ISR, Borda and the `rank` normalisation read; ties of
 * the fused score are broken, for the output order only, by first appearance (list 0 top to
 * bottom, then list 1, …); contributions are summed largest first so equal inputs give
 * bit-identical scores.
 * Inputs are ranked lists of `{id, score}`, best first; they are not mutated.
 *
 * @see Fox & Shaw (1994) Combination of multiple searches (CombSUM, CombMNZ, CombMAX); Bassani &
 *   Romelli (2022) ranx.fuse (normalisations, method names).
 */
import { z } from "zod";
import type { SearchHit } from "../types.ts";
import { sharedRanks, type RankedItem } from "../fusion.ts";

/** Score normalisations applied per list before combining. */
export const NORMALIZATIONS = ["none", "min-max", "z-score", "sum", "rank"] as const;
/** One of {@link NORMALIZATIONS}. */
export type Normalization = (typeof NORMALIZATIONS)[number];
/** zod schema of a normalisation name. */
export const NormalizationSchema = z.enum(NORMALIZATIONS);

/** A fusion method built from a registry config: fuses ranked lists into one ranking. */
export interface FusionMethod {
  /** Registry id, e.g. `combmnz`. */
  readonly id: string;
  /**
   * Fuse `lists` (best first). `names` label the lists in `SearchHit.scores` (default list0 …).
   * @returns fused hits, best first, with 1-based ranks and each list's original score.
   */
  fuse(lists: readonly (readonly RankedItem[])[], names?: readonly string[]): SearchHit[];
}

/**
 * A list after {@link dedupe}: string ids; `rank` is the 1-based position in the input list (not
 * renumbered after a repeated id), shared by equal adjacent scores; `place` is the 1-based
 * position among the de-duplicated entries, shared the same way.
 */
export type DedupedList = { id: string; score: number; rank: number; place: number; doc?: SearchHit["doc"] }[];

/**
 * One list without repeated ids (first occurrence kept), with its 1-based ranks (not renumbered)
 * and places, ties shared ({@link sharedRanks}).
 * @throws Error on a non-finite score.
 */
export function dedupe(list: readonly RankedItem[]): DedupedList {
  const seen = new Set<string>();
  const out: DedupedList = [];
  list.forEach((item, i) => {
    const id = String(item.id);
    if (seen.has(id)) return;
    seen.add(id);
    if (!Number.isFinite(item.score)) throw new Error(`fusion: non-finite score for id ${id}`);
    out.push({ id, score: item.score, rank: i + 1, place: out.length + 1, ...(item.doc ? { doc: item.doc } : {}) });
  });
  const scores = out.map((e) => e.score);
  const ranks = sharedRanks(
    out.map((e) => e.rank),
    scores,
  );
  const places = sharedRanks(
    out.map((e) => e.place),
    scores,
  );
  out.forEach((e, j) => {
    e.rank = ranks[j];
    e.place = places[j];
  });
  return out;
}

/**
 * Normalised scores of one (deduplicated) list, in list order:
 * - `none`: the scores as given;
 * - `min-max`: (s − min)/(max − min); all equal → 1 each;
 * - `z-score`: (s − mean)/SD with the population SD (ddof 0, numpy `std`); SD 0 → 0 each;
 * - `sum`: s / Σ s; Σ s = 0 → 0 each;
 * - `rank`: (n − r + 1)/n for 1-based rank r among n entries (best = 1; equal scores share a rank).
 */
export function normalizeScores(entries: readonly { score: number; rank: number }[], how: Normalization): number[] {
  const s = entries.map((e) => e.score);
  const n = s.length;
  if (n === 0) return [];
  switch (how) {
    case "none":
      return s;
    case "min-max": {
      const min = Math.min(...s);
      const max = Math.max(...s);
      return s.map((v) => (max > min ? (v - min) / (max - min) : 1));
    }
    case "z-score": {
      const m = s.reduce((a, b) => a + b, 0) / n;
      const sd = Math.sqrt(s.reduce((a, v) => a + (v - m) * (v - m), 0) / n);
      return s.map((v) => (sd > 0 ? (v - m) / sd : 0));
    }
    case "sum": {
      const tot = s.reduce((a, b) => a + b, 0);
      return s.map((v) => (tot !== 0 ? v / tot : 0));
    }
    case "rank": {
      const maxRank = Math.max(...entries.map((e) => e.rank));
      return entries.map((e) => (maxRank - e.rank + 1) / maxRank);
    }
  }
}

/** How per-list contributions of one document are combined. */
export type Combiner = "sum" | "mnz" | "max";

/**
 * Fuse lists from per-list contributions: `contributions(list, li)` gives one value per entry of
 * the deduplicated list i (aligned with it); `absent(li, list, unionSize)` (optional) the value of
 * a document missing from list i (default: nothing). `sum` adds a document's values (largest
 * first), `mnz` multiplies that sum by the number of lists containing the doc, `max` takes the
 * largest.
 * @throws Error when `names` does not have one entry per list, or on a non-finite score.
 */
export function combine(
  lists: readonly (readonly RankedItem[])[],
  names: readonly string[] | undefined,
  contributions: (list: DedupedList, li: number) => number[],
  combiner: Combiner,
  absent?: (li: number, list: DedupedList, unionSize: number) => number,
): SearchHit[] {
  const labels = names ? [...names] : lists.map((_, i) => `list${i}`);
  if (labels.length !== lists.length) throw new Error(`fusion: names has ${labels.length} entries but there are ${lists.length} lists`);
  const deduped = lists.map(dedupe);
  const acc = new Map<string, { parts: number[]; hits: number; first: number; scores: Record<string, number>; doc?: SearchHit["doc"] }>();
  let seen = 0;
  deduped.forEach((list, li) => {
    const values = contributions(list, li);
    list.forEach((e, j) => {
      let a = acc.get(e.id);
      if (!a) acc.set(e.id, (a = { parts: [], hits: 0, first: seen++, scores: {} }));
      if (!a.doc && e.doc) a.doc = e.doc;
      a.parts.push(values[j]);
      a.hits++;
      a.scores[labels[li]] = e.score;
    });
  });
  if (absent) {
    deduped.forEach((list, li) => {
      const ids = new Set(list.map((e) => e.id));
      for (const [id, a] of acc) if (!ids.has(id)) a.parts.push(absent(li, list, acc.size));
    });
  }
  const fused = [...acc.entries()].map(([id, a]) => {
    const sorted = [...a.parts].sort((x, y) => y - x);
    let value: number;
    if (combiner === "max") value = sorted.length ? sorted[0] : 0;
    else {
      value = 0;
      for (const p of sorted) value += p;
      if (combiner === "mnz") value *= a.hits;
    }
    return { id, value, a };
  });
  fused.sort((x, y) => y.value - x.value || x.a.first - y.a.first);
  return fused.map(({ id, value, a }, i) => {
    const hit: SearchHit = { id, score: value, rank: i + 1, scores: a.scores };
    if (a.doc) hit.doc = a.doc;
    return hit;
  });
}

/** Weights check: one finite weight ≥ 0 per list. */
export function checkWeights(weights: readonly number[] | undefined, n: number, id: string): number[] {
  if (!weights) return Array<number>(n).fill(1);
  if (weights.length !== n) throw new Error(`${id}: weights has ${weights.length} entries but there are ${n} lists`);
  return [...weights];
}
