/**
 * Rank fusion as pure functions: reciprocal rank fusion (RRF) and weighted min–max score fusion.
 *
 * Inputs are ranked lists of `{id, score}` (e.g. {@link SearchHit}s from BM25 and dense
 * retrievers), best first. Outputs are new {@link SearchHit}s with fused `score`, 1-based `rank` and
 * `scores` holding each input list's original score under that list's name (absent when the doc was
 * not in the list). No I/O, no mutation of the inputs.
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

/** Default RRF constant k (Cormack, Clarke & Büttcher 2009). */
export const RRF_K = 60;

interface Acc {
  id: string;
  fused: number;
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

function finish(acc: Map<string, Acc>, limit: number | undefined): SearchHit[] {
  const all = [...acc.values()].sort((a, b) => b.fused - a.fused || a.firstSeen - b.firstSeen);
  const top = limit === undefined ? all : all.slice(0, limit);
  return top.map((a, i) => {
    const hit: SearchHit = { id: a.id, score: a.fused, rank: i + 1, scores: a.scores };
    if (a.doc) hit.doc = a.doc;
    return hit;
  });
}

/**
 * Reciprocal rank fusion: `score(d) = Σ_i w_i / (k + rank_i(d))` over the lists containing d.
 *
 * `rank_i(d)` is d's 1-based position in list i (list order is trusted; `score`/`rank` fields are
 * not re-sorted). A duplicate id inside one list keeps only its first (best) position. Ties are
 * broken by first appearance (list 0 first, then list 1 …), so results are deterministic.
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
  lists.forEach((list, li) => {
    const w = opts.weights ? weights[li] : 1;
    const inList = new Set<string>();
    let pos = 0;
    for (const item of list) {
      if (inList.has(item.id)) continue;
      inList.add(item.id);
      pos += 1;
      let a = acc.get(item.id);
      if (!a) {
        a = { id: item.id, fused: 0, firstSeen: seen++, scores: {} };
        acc.set(item.id, a);
      }
      if (!a.doc && item.doc) a.doc = item.doc;
      a.fused += w / (k + pos);
      a.scores[names[li]] = item.score;
    }
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
 * only its first occurrence. Ties are broken by first appearance.
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
      if (inList.has(item.id)) continue;
      inList.add(item.id);
      let a = acc.get(item.id);
      if (!a) {
        a = { id: item.id, fused: 0, firstSeen: seen++, scores: {} };
        acc.set(item.id, a);
      }
      if (!a.doc && item.doc) a.doc = item.doc;
      const norm = range > 0 ? (item.score - min) / range : 1;
      a.fused += w * norm;
      a.scores[names[li]] = item.score;
    }
  });
  return finish(acc, opts.limit);
}
