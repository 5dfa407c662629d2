/**
 * `nprobes` of an IVF index tuned on a user's questions (`medsynth index tune`), recall measured
 * on questions held out from the tuning.
 *
 * Why: the build measures recall@10 with corpus vectors as queries, each one's own doc left out
 * (`openOrBuildLanceAnn`). On the synthetic PubMed — words drawn without topics, so documents do
 * not cluster — a document's nearest other documents are barely nearer than the rest, and at 24 M
 * docs the build needed 2,560 of 4,897 partitions probed for 0.95 (150 ms a query). Questions
 * differ from documents: on 60 MedEvidence questions against the same 24 M index, recall@10 was
 * 0.968 at nprobes 320 (23 ms) and 0.978 from 640 on (measured 2026-12-05). Recall on the
 * questions a user asks is what retrieval needs, so this step measures exactly that: exact top-10
 * of every question by one streamed pass over the vectors (`exactTopKScan`), then `nprobes`
 * doubled from `startNprobes` until recall@10 on the tuning half reaches the target, then
 * bisected `bisectSteps` times between the last value that missed and the first that reached it
 * (the smallest `nprobes` found that reaches it is kept: at 24 M docs the doubling stopped at 512
 * where fewer partitions may do, and every partition probed costs time and index cache); the
 * recall reported and stored is the one on the held-out half at that `nprobes`.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { VectorHit } from "../dense/lancedb-store.ts";
import { exactTopKScan, reachesRecall, recallAtK, type AnnQueryTuning, type LanceAnnStore } from "./disk-engines.ts";

/** Settings of {@link tuneAnnOnQueries}. */
export const AnnTuneConfigSchema = z
  .object({
    /** Recall@10 vs exact search the tuning half must reach. */
    targetRecall: z.number().gt(0).max(1).default(0.95),
    /** Share of the questions held out (never used to choose `nprobes`; the reported recall is theirs). */
    heldOutShare: z.number().gt(0).lt(1).default(0.5),
    /** First `nprobes` tried (then doubled). */
    startNprobes: z.number().int().positive().default(1),
    /** Bisection steps between the last `nprobes` that missed the target and the first that reached it (0: doubling only). */
    bisectSteps: z.number().int().min(0).default(3),
  })
  .strict();
/** Input of {@link AnnTuneConfigSchema}. */
export type AnnTuneConfigInput = z.input<typeof AnnTuneConfigSchema>;

/** What {@link tuneAnnOnQueries} measured. */
export interface AnnTuneReport {
  /** `nprobes` chosen: the smallest tried whose tuning-half recall reaches the target (else every partition). */
  nprobes: number;
  /** Recall@10 on the held-out questions at `nprobes`. */
  recallAt10HeldOut: number;
  /** Recall@10 on the tuning questions at `nprobes`. */
  recallAt10Tune: number;
  reachedTarget: boolean;
  /** Questions left out because they embed to a zero vector (no known word). */
  zeroVectors: number;
  tuning: AnnQueryTuning;
  /** Seconds of the exact pass and of the search over the `nprobes` tried. */
  exactSeconds: number;
  searchSeconds: number;
}

/**
 * Indices of `n` questions split deterministically: question i is held out when
 * ⌊(i+1)·share⌋ > ⌊i·share⌋ (share 0.5 → the odd positions), the rest tune.
 * @returns both index lists, ascending.
 */
export function splitTuneHeldOut(n: number, heldOutShare: number): { tune: number[]; heldOut: number[] } {
  const tune: number[] = [];
  const heldOut: number[] = [];
  for (let i = 0; i < n; i++) (Math.floor((i + 1) * heldOutShare) > Math.floor(i * heldOutShare) ? heldOut : tune).push(i);
  return { tune, heldOut };
}

/** SHA-256 of question texts in order, joined by "\n" (recorded with the tuning). */
export function queriesSha256(texts: readonly string[]): string {
  return createHash("sha256").update(texts.join("\n")).digest("hex");
}

/**
 * Exact top-10 of the question vectors `qv` over `store`'s vectors (unmatchable docs left out):
 * the lists an earlier tuning kept for the same table version, skip set and vectors, else one
 * streamed pass (`exactTopKScan`), kept for the next tuning.
 * @returns the lists (one per vector, in order) and whether they came from the earlier tuning.
 */
async function exactListsOf(store: LanceAnnStore, qv: readonly Float32Array[]): Promise<{ exact: VectorHit[][]; cached: boolean }> {
  const h = createHash("sha256").update(JSON.stringify({ kind: "medsynth-tune-exact-v1", table: store.tableName, version: await store.tableVersion(), k: 10, skip: [...store.unmatchable].sort() }));
  for (const v of qv) h.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  const key = h.digest("hex");
  const kept = await store.readExactLists(key);
  if (kept && kept.length === qv.length) return { exact: kept, cached: true };
  const { hits } = await exactTopKScan(store.table, qv, 10, { skip: store.unmatchable });
  await store.writeExactLists(key, hits);
  return { exact: hits, cached: false };
}

/**
 * Tune the IVF `nprobes` of `store` on questions and measure recall@10 on held-out ones.
 * @param store an opened IVF index (`ivf_pq` or `ivf_flat`).
 * @param texts the questions (for the record: count and SHA-256).
 * @param vectors their embeddings by the store's embedder, one per text.
 * @param source where the questions came from (a file path), recorded.
 * @returns the chosen `nprobes`, the curve and both recalls; nothing is written (see {@link applyAnnTuning}).
 * @throws Error on an HNSW index (no `nprobes`), on `texts`/`vectors` of different lengths, when
 *   fewer than 2 questions have a non-zero vector, or when the split leaves either half empty.
 */
export async function tuneAnnOnQueries(
  store: LanceAnnStore,
  texts: readonly string[],
  vectors: readonly Float32Array[],
  source: string,
  config: AnnTuneConfigInput = {},
  log: (l: string) => void = () => {},
): Promise<AnnTuneReport> {
  const cfg = AnnTuneConfigSchema.parse(config);
  const m = store.meta;
  if (m.index === "hnsw_sq") throw new Error(`index tune: the index of ${store.tableName} is hnsw_sq, which has no nprobes to tune (IVF indexes only: ivf_pq, ivf_flat)`);
  if (texts.length !== vectors.length) throw new Error(`index tune: ${texts.length} questions but ${vectors.length} vectors`);
  if (texts.length < 2) throw new Error(`index tune: ${source} holds ${texts.length} question; at least 2 are needed (one to tune, one held out)`);
  const usable = vectors.map((v, i) => (v.some((x) => x !== 0) ? i : -1)).filter((i) => i >= 0);
  if (usable.length < 2)
    throw new Error(
      `index tune: ${usable.length} of ${texts.length} questions in ${source} have a non-zero vector (the others hold no word the embedder knows); at least 2 are needed (one to tune, one held out)`,
    );
  const qv = usable.map((i) => vectors[i]);
  const { tune, heldOut } = splitTuneHeldOut(qv.length, cfg.heldOutShare);
  if (tune.length === 0 || heldOut.length === 0)
    throw new Error(
      `index tune: a held-out share of ${cfg.heldOutShare} of ${qv.length} usable questions leaves ${tune.length} to tune and ${heldOut.length} held out; both need at least one (more questions, or another --held-out)`,
    );
  const t0 = performance.now();
  const { exact, cached } = await exactListsOf(store, qv);
  const exactSeconds = (performance.now() - t0) / 1000;
  log(
    cached
      ? `index tune: exact top-10 of ${qv.length} questions kept by an earlier tuning on the same questions and index (no pass over the vectors)`
      : `index tune: exact top-10 of ${qv.length} questions in ${exactSeconds.toFixed(1)} s (one pass over ${store.docCount} vectors)`,
  );
  const meanRecall = (idx: readonly number[], got: readonly VectorHit[][]) => idx.reduce((s, i) => s + recallAtK(got[i], exact[i], 10), 0) / idx.length;
  const partitions = m.numPartitions ?? 1;
  const curve: AnnQueryTuning["curve"] = [];
  const t1 = performance.now();
  const measure = async (nprobes: number) => {
    const got: VectorHit[][] = [];
    for (const v of qv) got.push(await store.search(v, 10, { nprobes }));
    const point = { nprobes, recallTune: meanRecall(tune, got), recallHeldOut: meanRecall(heldOut, got) };
    curve.push(point);
    log(`index tune: nprobes ${nprobes}/${partitions}: recall@10 ${point.recallTune.toFixed(3)} (tuning ${tune.length}), ${point.recallHeldOut.toFixed(3)} (held out ${heldOut.length})`);
    return point;
  };
  const reaches = (p: { recallTune: number }) => reachesRecall(p.recallTune, cfg.targetRecall);
  // Doubling: `missed` is the last point below the target, `best` the first at or above it.
  let missed: AnnQueryTuning["curve"][number] | null = null;
  let best = await measure(Math.min(cfg.startNprobes, partitions));
  while (!reaches(best) && best.nprobes < partitions) {
    missed = best;
    best = await measure(Math.min(partitions, best.nprobes * 2));
  }
  // Bisection between them: the smallest nprobes found that still reaches the target.
  for (let step = 0; reaches(best) && missed && step < cfg.bisectSteps && best.nprobes - missed.nprobes > 1; step++) {
    const mid = await measure(Math.floor((missed.nprobes + best.nprobes) / 2));
    if (reaches(mid)) best = mid;
    else missed = mid;
  }
  const last = best;
  return {
    nprobes: last.nprobes,
    recallAt10HeldOut: last.recallHeldOut,
    recallAt10Tune: last.recallTune,
    reachedTarget: reaches(last),
    zeroVectors: texts.length - usable.length,
    tuning: { queriesSha256: queriesSha256(texts), source, tuneQueries: tune.length, heldOutQueries: heldOut.length, targetRecall: cfg.targetRecall, curve, at: new Date().toISOString() },
    exactSeconds,
    searchSeconds: (performance.now() - t1) / 1000,
  };
}

/**
 * Store a tuning in the index metadata: `nprobes` (what every later search uses), `recallAt10` =
 * the held-out recall, `recallMethod: "queries-held-out"`, the build's own check kept once in
 * `buildRecall`, and the whole record in `queryTuning`.
 */
export async function applyAnnTuning(store: LanceAnnStore, report: AnnTuneReport): Promise<void> {
  const m = store.meta;
  const buildRecall =
    m.buildRecall ??
    (m.recallAt10 !== undefined && m.recallMethod !== "queries-held-out"
      ? { recallAt10: m.recallAt10, nprobes: m.nprobes ?? 0, recallSample: m.recallSample ?? 0, ...(m.recallMethod ? { recallMethod: m.recallMethod } : {}) }
      : undefined);
  await store.updateMeta({
    nprobes: report.nprobes,
    recallAt10: report.recallAt10HeldOut,
    recallSample: report.tuning.heldOutQueries,
    recallMethod: "queries-held-out",
    ...(buildRecall ? { buildRecall } : {}),
    queryTuning: report.tuning,
  });
}
