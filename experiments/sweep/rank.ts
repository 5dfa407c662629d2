/**
 * The retrieval part of a sweep: every setting's ranked list per query, with the expensive parts
 * shared across settings. A BM25 index is built once per (k1, b) and its candidate list fetched
 * once per query; dense vectors are computed once (one LanceDB table per embedder) and the dense
 * list fetched once per query; hybrid settings fuse cuts of those two lists with a
 * `retrieval/fusion-methods` unit; a reranker grades each (query, document) pair once, whatever
 * setting asked for it.
 *
 * Steps: {@link componentDepth} → per setting {@link firstStage} (cached component lists →
 * fusion) → {@link applyReranker} (cached grades) → ranked ids to the evaluation depth.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import type { RankedItem } from "../../retrieval/fusion.ts";
import { createFusionMethod } from "../../retrieval/fusion-methods/registry.ts";
import type { Reranker, Retriever } from "../../retrieval/types.ts";
import { fusionConfigOf, type SweepPlan, type SweepSetting } from "./config.ts";

/** One question of the sweep: id, text, and the group (review) it belongs to, or null. */
export interface SweepQuery {
  id: string;
  text: string;
  group: string | null;
}

/** What builds the retrievers of a sweep (real ones in `run.ts`; tests may pass their own). */
export interface RankDeps {
  /** A BM25 retriever with these parameters (called once per distinct pair). */
  bm25(k1: number, b: number): Promise<Retriever>;
  /** The dense retriever (called at most once). */
  dense(): Promise<Retriever>;
  /** A reranker by id (called once per id). */
  reranker(id: string): Promise<Reranker>;
  /** Documents by id, for the reranker (unused when `getDocs` is given). */
  docs: ReadonlyMap<string, CorpusDoc>;
  /** Documents by id fetched on demand (a corpus store: only the reranked hits are read); absent ids are absent. */
  getDocs?: (ids: readonly string[]) => Promise<ReadonlyMap<string, CorpusDoc>>;
  log?: (line: string) => void;
}

/** What the ranking stage built and reused. */
export interface RankStats {
  /** Distinct BM25 indexes built (one per k1, b). */
  bm25Indexes: number;
  /** Dense candidate lists fetched (0 or 1 per query). */
  denseBuilt: boolean;
  /** (reranker, query, document) grades computed; reused ones are not counted again. */
  rerankGrades: number;
  /** Documents a reranker failed to grade (ranked after every graded one). */
  rerankFailures: number;
  firstRerankError: string | null;
}

/** Hits each component list is fetched to: the largest of the evaluation depth, `candidates` and `rerankDepth` over the settings. */
export function componentDepth(plan: Pick<SweepPlan, "settings" | "k" | "curveK">): number {
  return Math.max(...plan.k, ...plan.curveK, ...plan.settings.map((s) => Math.max(s.candidates ?? 0, s.rerankDepth ?? 0)));
}

/**
 * First-stage ranking of one setting for one query from the component lists (already fetched
 * to {@link componentDepth}): BM25 or dense alone as is; hybrid = the setting's fusion method over
 * the top `candidates` of each list (lists `bm25`, `dense`).
 */
export function firstStage(setting: Omit<SweepSetting, "name">, lists: { bm25?: readonly RankedItem[]; dense?: readonly RankedItem[] }): RankedItem[] {
  if (setting.mode === "bm25") return [...lists.bm25!];
  if (setting.mode === "dense") return [...lists.dense!];
  const n = setting.candidates ?? 100;
  const fused = createFusionMethod(setting.fusion!, fusionConfigOf(setting)).fuse([lists.bm25!.slice(0, n), lists.dense!.slice(0, n)], ["bm25", "dense"]);
  return fused.map((h) => ({ id: h.id, score: h.score }));
}

/**
 * Rerank the top `depth` of a first-stage list with grades from `grade` (higher first; ties keep
 * the first-stage order; a failed grade, -Infinity, goes after every graded one) and keep the
 * rest of the list after them in its first-stage order.
 */
export function applyReranker(list: readonly RankedItem[], depth: number, grade: ReadonlyMap<string, number>): string[] {
  const top = list.slice(0, depth).map((h, i) => ({ id: h.id, i, g: grade.get(h.id) ?? Number.NEGATIVE_INFINITY }));
  top.sort((a, b) => (b.g === a.g ? a.i - b.i : b.g > a.g ? 1 : -1));
  return [...top.map((t) => t.id), ...list.slice(depth).map((h) => h.id)];
}

/**
 * Ranked ids of every setting for every query, to depth `evalDepth`.
 * @returns setting name → query id → ranked doc ids; and what was built.
 * @throws errors of the retriever/reranker factories (missing model, store errors).
 */
export async function rankSettings(
  plan: Pick<SweepPlan, "settings" | "k" | "curveK">,
  queries: readonly SweepQuery[],
  deps: RankDeps,
): Promise<{ rankings: Record<string, Record<string, string[]>>; stats: RankStats }> {
  const log = deps.log ?? (() => {});
  const depth = componentDepth(plan);
  const evalDepth = Math.max(...plan.k, ...plan.curveK);
  const stats: RankStats = { bm25Indexes: 0, denseBuilt: false, rerankGrades: 0, rerankFailures: 0, firstRerankError: null };
  const bm25Lists = new Map<string, Map<string, RankedItem[]>>();
  const bm25ListsFor = async (k1: number, b: number) => {
    const key = `${k1}/${b}`;
    let m = bm25Lists.get(key);
    if (!m) {
      const r = await deps.bm25(k1, b);
      stats.bm25Indexes++;
      m = new Map();
      for (const q of queries)
        m.set(
          q.id,
          (await r.search(q.text, depth)).map((h) => ({ id: h.id, score: h.score })),
        );
      bm25Lists.set(key, m);
      log(`sweep: BM25 k1=${k1} b=${b}: ${queries.length} queries to depth ${depth}`);
    }
    return m;
  };
  let denseLists: Map<string, RankedItem[]> | null = null;
  const denseListsOnce = async () => {
    if (!denseLists) {
      const r = await deps.dense();
      stats.denseBuilt = true;
      denseLists = new Map();
      for (const q of queries)
        denseLists.set(
          q.id,
          (await r.search(q.text, depth)).map((h) => ({ id: h.id, score: h.score })),
        );
      log(`sweep: dense ${r.id}: ${queries.length} queries to depth ${depth}`);
    }
    return denseLists;
  };
  const rerankers = new Map<string, Reranker>();
  const grades = new Map<string, Map<string, number>>(); // `${reranker}\0${qid}` → doc → grade
  const rankings: Record<string, Record<string, string[]>> = {};
  for (const s of plan.settings) {
    const bm = s.mode !== "dense" ? await bm25ListsFor(s.k1!, s.b!) : undefined;
    const de = s.mode !== "bm25" ? await denseListsOnce() : undefined;
    const per: Record<string, string[]> = {};
    for (const q of queries) {
      const list = firstStage(s, { bm25: bm?.get(q.id), dense: de?.get(q.id) });
      if (s.reranker === "none") {
        per[q.id] = list.slice(0, evalDepth).map((h) => h.id);
        continue;
      }
      let rr = rerankers.get(s.reranker);
      if (!rr) rerankers.set(s.reranker, (rr = await deps.reranker(s.reranker)));
      const gkey = `${s.reranker}\u0000${q.id}`;
      const g = grades.get(gkey) ?? new Map<string, number>();
      grades.set(gkey, g);
      const ungraded = list
        .slice(0, s.rerankDepth)
        .filter((h) => !g.has(h.id))
        .map((h) => h.id);
      const byId = deps.getDocs && ungraded.length ? await deps.getDocs(ungraded) : deps.docs;
      const todo = ungraded.filter((id) => byId.has(id)).map((id) => byId.get(id)!);
      if (todo.length) {
        const hits = await rr.rerank(q.text, todo, { topN: todo.length });
        for (const h of hits) {
          g.set(h.id, h.error === undefined && Number.isFinite(h.score) ? h.score : Number.NEGATIVE_INFINITY);
          if (h.error !== undefined) {
            stats.rerankFailures++;
            stats.firstRerankError ??= h.error;
          }
        }
        stats.rerankGrades += hits.length;
      }
      per[q.id] = applyReranker(list, s.rerankDepth!, g).slice(0, evalDepth);
    }
    rankings[s.name] = per;
  }
  return { rankings, stats };
}
