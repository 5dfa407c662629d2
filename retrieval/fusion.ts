/**
 * Rank fusion as pure functions: reciprocal rank fusion (RRF) and weighted min–max score fusion.
 *
 * Inputs are ranked lists of `{id, score}` (e.g. {@link SearchHit}s from BM25 and dense
 * retrievers), best first. Outputs are new {@link SearchHit}s with fused `score`, 1-based `rank` and
 * `scores` holding each input list's original score under that list's name (absent when the doc was
 * not in the list). No I/O, no mutation of the inputs.
 *
 * Conventions shared by every fusion here (those of ranx and trec_eval):
 * - ids are compared as strings (`101` and `"101"` are one document);
 * - within one list a repeated id keeps its first (best) position, and the positions after it are
 *   not renumbered (a list `[x, x, y]` ranks y 3rd, as trec_eval reads such a run);
 * - a document's fused score is a sum of per-list contributions added in a fixed order (largest
 *   first), so documents with identical inputs get bit-identical fused scores whatever the list
 *   order they were met in;
 * - equal scores in one list share a rank for rank-based fusion (RRF here; Borda, ISR and the
 *   `rank` normalisation in `fusion-methods/`): a run of consecutive entries with the same score
 *   takes the rank of its first entry and the positions after the run are not renumbered
 *   (standard competition ranking, "1224": scores [9, 7, 7, 5] rank 1, 2, 2, 4) — list order
 *   alone never separates tied documents ({@link sharedRanks});
 * - ties of the fused score are broken by first appearance: the order in which documents are
 *   first met reading list 0 top to bottom, then list 1, … (deterministic; with the TREC export's
 *   strictly decreasing scores, see `retrieval/eval/trec.ts`, trec_eval ranks exactly as we do).
 *   This order only decides the output order of equal fused scores, never the scores.
 */
import type { SearchHit } from "./types.ts";

/** One hit of an input list: only `id` and `score` are read (plus `doc`, carried through). */
export type RankedItem = Pick<SearchHit, "id" | "score"> & Partial<Pick<SearchHit, "doc">>;

/** Options shared by both fusion functions. */
export interface FusionOptions {
  /** One non-negative weight per list; default: 1 each for RRF, 1/n each for min–max. */
  weights?: readonly number[];
  /** One name per list, used as keys of `SearchHit.scores`; default `list0`, `list1`, … */
  names?: readonly string[];
  /** Keep at most this many fused hits (default: all). */
  limit?: number;
}

/**
 * 1-based ranks of one list's entries with ties shared: an entry whose score equals the previous
 * entry's takes that entry's rank, any other entry its own position (standard competition
 * ranking over the list order, "1224"). Only adjacent equal scores tie (list order is trusted); a
 * NaN score ties with nothing.
 * @param positions - each entry's 1-based position in the list as given (after de-duplication the
 *   positions of later entries are not renumbered), in list order.
 * @param scores - each entry's score, aligned with `positions`.
 * @returns the shared ranks, aligned with the inputs.
 */
export function sharedRanks(positions: readonly number[], scores: readonly number[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < positions.length; j++) out.push(j > 0 && scores[j] === scores[j - 1] ? out[j - 1] : positions[j]);
  return out;
}

/** Default RRF constant k (Cormack, Clarke & Büttcher 2009). */
export const RRF_K = 60;

interface Acc {
  id: string;
  /** Per-list contributions, summed largest first in {@link finish}. */
  parts: number[];
  firstSeen: number;
  scores: Record<string, number>;
  doc?: SearchHit["doc"];
}

function checkArgs(lists: readonly (readonly RankedItem[])[], opts: FusionOptions, fn: string): { weights: number[]; names: string[] } {
  const n = lists.length;
  const names = opts.names ? [...opts.names] : lists.map((_, i) => `list${i}`);
  if (names.length !== n) throw new Error(`${fn}: names has ${names.length} entries but there are ${n} lists`);
  if (new Set(names).size !== n) throw new Error(`${fn}: names must be unique, got ${JSON.stringify(names)}`);
  const weights = opts.weights ? [...opts.weights] : [];
  if (opts.weights) {
    if (weights.length !== n) throw new Error(`${fn}: weights has ${weights.length} entries but there are ${n} lists`);
    weights.forEach((w, i) => {
      if (!Number.isFinite(w) || w < 0) throw new Error(`${fn}: weights[${i}] must be a finite number ≥ 0, got ${w}`);
    });
  }
  if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0)) {
    throw new Error(`${fn}: limit must be an integer ≥ 0, got ${opts.limit}`);
  }
  return { weights, names };
}

/** Sum of contributions in descending order, so equal multisets give bit-identical sums. */
function orderedSum(parts: readonly number[]): number {
  const sorted = [...parts].sort((a, b) => b - a);
  let s = 0;
  for (const p of sorted) s += p;
  return s;
}

/** Accumulator of doc `id` (string-normalised), created at its first appearance. */
function accOf(acc: Map<string, Acc>, item: RankedItem, nextSeen: () => number): Acc {
  const id = String(item.id);
  let a = acc.get(id);
  if (!a) {
    a = { id, parts: [], firstSeen: nextSeen(), scores: {} };
    acc.set(id, a);
  }
  if (!a.doc && item.doc) a.doc = item.doc;
  return a;
}

function finish(acc: Map<string, Acc>, limit: number | undefined): SearchHit[] {
  const all = [...acc.values()].map((a) => ({ a, fused: orderedSum(a.parts) })).sort((x, y) => y.fused - x.fused || x.a.firstSeen - y.a.firstSeen);
  const top = limit === undefined ? all : all.slice(0, limit);
  return top.map(({ a, fused }, i) => {
    const hit: SearchHit = { id: a.id, score: fused, rank: i + 1, scores: a.scores };
    if (a.doc) hit.doc = a.doc;
    return hit;
  });
}

/**
 * Reciprocal rank fusion: `score(d) = Σ_i w_i / (k + rank_i(d))` over the lists containing d.
 *
 * `rank_i(d)` is d's 1-based position in list i (list order is trusted; `score`/`rank` fields are
 * not re-sorted); entries with equal scores next to each other share the rank of the first of them
 * ({@link sharedRanks}), so tied inputs get equal fused scores. A duplicate id inside one list
 * keeps only its first (best) position and the positions after it are not renumbered; ids are
 * compared as strings. Ties of the fused score are broken, for the output order only, by first
 * appearance (list 0 first, then list 1 …), so results are deterministic (see the module header).
 * @param lists any number of ranked lists, best first (empty lists allowed).
 * @param opts `k` (default {@link RRF_K} = 60, must be ≥ 0), `weights` (default 1 each), `names`, `limit`.
 * @returns fused hits, best first; `scores[name]` is the doc's original score in that list.
 * @throws Error when weights/names lengths differ from the number of lists, or k/weights are invalid.
 * @see Cormack, Clarke & Büttcher (2009), "Reciprocal rank fusion outperforms Condorcet and individual rank learning methods".
 */
export function rrfFuse(lists: readonly (readonly RankedItem[])[], opts: FusionOptions & { k?: number } = {}): SearchHit[] {
  const k = opts.k ?? RRF_K;
  if (!Number.isFinite(k) || k < 0) throw new Error(`rrfFuse: k must be a finite number ≥ 0, got ${k}`);
  const { weights, names } = checkArgs(lists, opts, "rrfFuse");
  const acc = new Map<string, Acc>();
  let seen = 0;
  const nextSeen = () => seen++;
  lists.forEach((list, li) => {
    const w = opts.weights ? weights[li] : 1;
    const inList = new Set<string>();
    const kept: { item: RankedItem; position: number }[] = [];
    list.forEach((item, i) => {
      const id = String(item.id);
      if (inList.has(id)) return;
      inList.add(id);
      kept.push({ item, position: i + 1 });
    });
    const ranks = sharedRanks(
      kept.map((e) => e.position),
      kept.map((e) => e.item.score),
    );
    kept.forEach(({ item }, j) => {
      const a = accOf(acc, item, nextSeen);
      a.parts.push(w / (k + ranks[j]));
      a.scores[names[li]] = item.score;
    });
  });
  return finish(acc, opts.limit);
}

/**
 * Weighted min–max score fusion (MedMeta's equal-weight BM25 + dense ensemble):
 * `score(d) = Σ_i w_i · (s_i(d) − min_i) / (max_i − min_i)`.
 *
 * Min and max are taken over each list as given (e.g. its top-K), so the list's best hit gets 1 and
 * its worst 0. A doc missing from list i gets 0 for that list — the same as that list's worst
 * retrieved hit. A list whose scores are all equal (incl. a single hit) maps every hit to 1.
 * Weights default to 1/n each, so fused scores lie in [0, 1]. A duplicate id inside one list keeps
 * only its first occurrence; ids are compared as strings. Ties are broken by first appearance.
 * @param lists ranked lists with comparable-within-list scores (higher = better).
 * @param opts `weights` (default 1/n each), `names`, `limit`.
 * @returns fused hits, best first; `scores[name]` is the doc's original (unnormalised) score.
 * @throws Error on a non-finite score, or when weights/names lengths differ from the number of lists.
 * @see MedMeta (seed 001) §Standard-RAG: hybrid BM25 + BGE-m3 search.
 */
export function minMaxFuse(lists: readonly (readonly RankedItem[])[], opts: FusionOptions = {}): SearchHit[] {
  const { weights, names } = checkArgs(lists, opts, "minMaxFuse");
  const n = lists.length;
  const acc = new Map<string, Acc>();
  let seen = 0;
  const nextSeen = () => seen++;
  lists.forEach((list, li) => {
    const w = opts.weights ? weights[li] : 1 / n;
    let min = Infinity;
    let max = -Infinity;
    for (const item of list) {
      if (!Number.isFinite(item.score)) throw new Error(`minMaxFuse: list ${names[li]} has a non-finite score for id ${item.id}`);
      if (item.score < min) min = item.score;
      if (item.score > max) max = item.score;
    }
    const range = max - min;
    const inList = new Set<string>();
    for (const item of list) {
      const id = String(item.id);
      if (inList.has(id)) continue;
      inList.add(id);
      const a = accOf(acc, item, nextSeen);
      const norm = range > 0 ? (item.score - min) / range : 1;
      a.parts.push(w * norm);
      a.scores[names[li]] = item.score;
    }
  });
  return finish(acc, opts.limit);
}
