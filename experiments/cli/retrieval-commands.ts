/**
 * Retrieval commands of the `medsynth` CLI:
 *
 * - `medsynth index build [--corpus bundled|<corpus.jsonl>] [--embedder id] [--bm25-engine fast|wink|disk] [--index none|hnsw_sq|ivf_pq]`
 *   builds (or finds cached) the BM25 index and the LanceDB dense table for the corpus.
 * - `medsynth search "<query>" [--mode bm25|dense|hybrid|lance-hybrid] --k 10 [--rerank id]`
 *   (`--mode` defaults to bm25 with the offline word-vector embedder, hybrid with another one;
 *   the chosen default is said once on stderr)
 *   prints rank, PMID, title and the per-retriever scores (bm25, dense, fused, reranker); a
 *   warning line when the reranker could not grade some docs (first error + count).
 * - `medsynth retrieval eval --dataset medevidence --mode bm25,hybrid --k 5,10 [--json] [--trec-out dir] [--trec-depth 100]`
 *   runs every dataset query with each mode and prints recall/precision/nDCG/MRR/hit at each
 *   distinct k (macro means; MRR@k is cut at k), uncut MRR and MAP over the `--trec-depth` hits
 *   retrieved, and with several modes per-query paired t and randomisation tests of each mode
 *   against the first (Holm-adjusted), as ranx's `compare`.
 * - `medsynth retrieval sweep <config.yaml> [--out dir]` runs a grid of retriever settings and writes
 *   a results folder (experiments/sweep/; its modules are imported when the command runs).
 * - `medsynth retrieval score <run> <qrels> [--k 5,10] [--json]` scores an external TREC run
 *   with the same metrics (read the trec_eval way: score descending, then docno descending).
 *
 * Corpus: `bundled` (default: PubMedQA + MedEvidence sources + Cohen 2006, ~3.3k abstracts), a
 * corpus store (`lance:<uri>`, `s3://…`: streamed, never loaded — the engine is chosen from its
 * size, indexes are built from it in batches and keyed by its manifest fingerprint, hits are
 * fetched by id; docs/pubmed-store.md) or a JSONL (.jsonl / .jsonl.gz, or a folder of them) of
 * {@link CorpusDoc} lines, PubmedRecord lines as written by `medsynth corpus ingest` or MedRAG
 * lines (malformed lines skipped and counted; a repeated id keeps the first line).
 * Bad options give one line per problem naming the option (`--fusion: expected one of rrf, weighted (got "foo")`).
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { retractionTag, type CorpusDoc } from "../../corpus/types.ts";
import { createChatModel } from "../../models/registry.ts";
import { evaluateRun, type Qrels, type RunEvaluation } from "../../retrieval/eval/ir-metrics.ts";
import { readTrecQrels, readTrecRun, TREC_EXPORT_DEPTH, trecFilePaths, writeTrecQrels, writeTrecRun, type TrecRun } from "../../retrieval/eval/trec.ts";
import { holmAdjustPairedDiffs, pairedDiffStats } from "../../judges/stats/paired-diff.ts";
import {
  createReranker,
  createRetriever,
  defaultRetrievalMode,
  DEFAULT_RETRIEVER_EMBEDDER_ID,
  RETRIEVAL_MODES,
  RetrieverConfigSchema,
  type BuiltRetriever,
  type RetrievalMode,
  type RetrieverConfigInput,
} from "../../retrieval/registry.ts";
import type { SearchHit } from "../../retrieval/types.ts";
import { analyze } from "../../retrieval/analyzer.ts";
import type { DiskIndexMeta } from "../../retrieval/lance/disk-engines.ts";
import { BM25_ENGINES } from "../../retrieval/bm25/params.ts";

export { readCorpusFile, loadCorpusArg, type CorpusFileRead } from "../../corpus/corpus-file.ts";
export { formatZodIssues, valueAt } from "./zod-format.ts";
import { formatZodIssues, valueAt } from "./zod-format.ts";
import { openRetrievalCorpus, type RetrievalCorpus } from "../../corpus/corpus-file.ts";

/**
 * Parse `--k` of `retrieval eval`: positive integers separated by commas; repeats are dropped
 * (`5,5,10` → `[5, 10]`), order kept.
 * @throws Error naming `--k` on an empty list or a value that is not a positive integer.
 */
export function parseKList(s: string): number[] {
  const parts = s.split(",").map((x) => x.trim());
  const ks = parts.map(Number);
  if (parts.some((p) => p === "") || ks.some((k) => !Number.isInteger(k) || k <= 0)) throw new Error(`--k must be positive integers separated by commas, got "${s}"`);
  return [...new Set(ks)];
}

/**
 * Parse `--k` of `search`: one positive integer.
 * @throws Error "--k must be a positive integer" otherwise.
 */
export function parseSingleK(s: string): number {
  return parseSingleKNamed("--k", s);
}

/**
 * Parse `--mode`: one mode, or (when `multi`) a comma-separated list of modes (repeats dropped).
 * @throws Error listing the valid modes on an unknown one.
 */
export function parseModes(s: string, multi: boolean): RetrievalMode[] {
  const modes = [...new Set(s.split(",").map((x) => x.trim()))];
  if (!multi && modes.length > 1) throw new Error(`--mode: expected one of ${RETRIEVAL_MODES.join(", ")} (got "${s}"); only \`retrieval eval\` takes a comma-separated list`);
  for (const m of modes) {
    if (!(RETRIEVAL_MODES as readonly string[]).includes(m))
      throw new Error(`--mode: expected ${multi ? "a comma-separated list of " : "one of "}${RETRIEVAL_MODES.join(", ")} (got "${m === "" ? s : m}")`);
  }
  return modes as RetrievalMode[];
}

function fmt(x: number | undefined): string {
  return x === undefined ? "" : Number.isInteger(x) ? String(x) : x.toFixed(4);
}

/** Options shared by `search` and `retrieval eval` that make a retriever config. */
export interface RetrievalCliOptions {
  /** Absent: {@link defaultRetrievalMode} of `--embedder` (bm25 with the offline word vectors). */
  mode?: string;
  embedder: string;
  /** `--bm25-engine` (absent: fast, or the engine `--engine` picks). */
  bm25Engine?: string;
  /** `--bm25-threads`: on-disk BM25 threads per query (auto | n; absent: auto). */
  bm25Threads?: string;
  fusion: string;
  index: string;
  storeDir?: string;
  candidates: string;
  /** `--engine`: auto (by corpus size) | memory | lance (on-disk). */
  engine?: string;
  /** `--disk-dir`: LanceDB folder/URI of the on-disk indexes. */
  diskDir?: string;
  /** `--ann`: on-disk ANN index (auto | ivf_pq | ivf_flat | hnsw_sq). */
  ann?: string;
}

/** CLI option (flag and raw value) behind each retriever-config path. */
const OPTION_OF_PATH: Record<string, { flag: string; key: keyof RetrievalCliOptions }> = {
  mode: { flag: "--mode", key: "mode" },
  embedder: { flag: "--embedder", key: "embedder" },
  "bm25.engine": { flag: "--bm25-engine", key: "bm25Engine" },
  "bm25Disk.threads": { flag: "--bm25-threads", key: "bm25Threads" },
  fusion: { flag: "--fusion", key: "fusion" },
  candidates: { flag: "--candidates", key: "candidates" },
  "dense.index": { flag: "--index", key: "index" },
  "dense.dir": { flag: "--store-dir", key: "storeDir" },
  engine: { flag: "--engine", key: "engine" },
  "disk.dir": { flag: "--disk-dir", key: "diskDir" },
  "disk.ann.index": { flag: "--ann", key: "ann" },
};

/** Values of `--bm25-engine`: the in-memory BM25 engines ({@link BM25_ENGINES}) and `disk` (medsynth's on-disk BM25, retriever engine `disk`). */
export const BM25_ENGINE_OPTION_VALUES: readonly string[] = [...BM25_ENGINES, "disk"];

/**
 * Check `--bm25-engine` alone and against `--engine` (both as given; absent = not given).
 * `disk` is the retriever engine `disk`, so only `--engine disk` goes with it; `fast` / `wink` are
 * in-memory engines, so `--engine lance` or `--engine disk` (whose BM25 is on disk) contradict
 * them, while `--engine memory` / `auto` keep them. An unknown `--engine` is left to the schema.
 * @throws Error naming the option(s), e.g. `--bm25-engine: expected one of fast, wink, disk (got "foo")`.
 */
function checkBm25EngineOption(o: Partial<RetrievalCliOptions>): void {
  const b = o.bm25Engine;
  if (b === undefined) return;
  if (!BM25_ENGINE_OPTION_VALUES.includes(b)) throw new Error(`--bm25-engine: expected one of ${BM25_ENGINE_OPTION_VALUES.join(", ")} (got ${JSON.stringify(b)})`);
  const e = o.engine;
  if (e === undefined || !["auto", "memory", "lance", "disk"].includes(e)) return;
  if (b === "disk" && e !== "disk")
    throw new Error(`--bm25-engine disk conflicts with --engine ${e}: --bm25-engine disk selects medsynth's on-disk BM25 (the same as --engine disk); give only one of them`);
  if (b !== "disk" && (e === "lance" || e === "disk"))
    throw new Error(
      `--bm25-engine ${b} conflicts with --engine ${e}: ${b} is an in-memory BM25 engine, while --engine ${e} uses ${e === "lance" ? "LanceDB's full-text BM25" : "medsynth's on-disk BM25"}; drop --bm25-engine, or use --engine memory (or auto)`,
    );
}

/**
 * `--bm25-threads` applies to medsynth's on-disk BM25 only: given with an in-memory
 * `--bm25-engine` (fast, wink) or `--engine memory|lance` it would be ignored, so it is an error
 * naming both options. With `--engine auto` (or none) it applies when the corpus is large enough
 * for the on-disk engine.
 * @throws Error naming both options.
 */
function checkBm25ThreadsOption(o: Partial<RetrievalCliOptions>): void {
  if (o.bm25Threads === undefined) return;
  const other = o.bm25Engine !== undefined && o.bm25Engine !== "disk" ? `--bm25-engine ${o.bm25Engine}` : o.engine === "memory" || o.engine === "lance" ? `--engine ${o.engine}` : null;
  if (other)
    throw new Error(
      `--bm25-threads conflicts with ${other}: threads per query apply to medsynth's on-disk BM25 only (--bm25-engine disk or --engine disk; --engine auto uses it from 250,000 docs); drop --bm25-threads`,
    );
}

/**
 * A note when `--bm25-threads` was given but the retriever built uses no on-disk BM25 (engine
 * `auto` picked the in-memory engine for a small corpus, or the mode is dense): the option had no
 * effect, and the user is told why rather than left to assume it did.
 */
export function noteUnusedThreads(o: Partial<RetrievalCliOptions>, r: { bm25Disk?: unknown; engine: string; config: { mode: string } }, err: (line: string) => void): void {
  if (o.bm25Threads === undefined || r.bm25Disk) return;
  const why =
    r.config.mode === "dense"
      ? "mode dense uses no BM25"
      : `this retriever uses the ${r.engine === "lance" ? "LanceDB full-text" : "in-memory"} BM25 (engine ${r.engine}; --engine auto picks the on-disk one from 250,000 docs)`;
  err(`note: --bm25-threads has no effect here: it applies to medsynth's on-disk BM25 only, and ${why}`);
}

/**
 * `--bm25-threads`: `auto` or a whole number 1–64 in decimal digits.
 * @throws Error naming the option and quoting the text, e.g. `--bm25-threads: expected auto or a whole number from 1 to 64 (got "x")`.
 */
export function bm25ThreadsOption(text: string): "auto" | number {
  const t = text.trim();
  if (t === "auto") return t;
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!(n >= 1 && n <= 64)) throw new Error(`--bm25-threads: expected auto or a whole number from 1 to 64 (got ${JSON.stringify(text)})`);
  return n;
}

/**
 * Retriever config of the CLI options for one mode, validated with {@link RetrieverConfigSchema}.
 * @throws Error with one line per problem naming the option, e.g. `--fusion: expected one of rrf, weighted (got "foo")`.
 */
export function retrieverConfig(o: Partial<RetrievalCliOptions>, mode: RetrievalMode): RetrieverConfigInput {
  checkBm25EngineOption(o);
  checkBm25ThreadsOption(o);
  const config: RetrieverConfigInput = {
    mode,
    ...(o.embedder !== undefined ? { embedder: o.embedder } : {}),
    // `--bm25-engine disk`: medsynth's on-disk BM25 (retriever engine `disk`), not a `bm25.engine`.
    ...(o.bm25Engine === "disk" ? { engine: "disk" as const } : o.bm25Engine !== undefined ? { bm25: { engine: o.bm25Engine as "fast" | "wink" } } : {}),
    ...(o.bm25Threads !== undefined ? { bm25Disk: { threads: bm25ThreadsOption(o.bm25Threads) } } : {}),
    ...(o.fusion !== undefined ? { fusion: o.fusion as "rrf" | "weighted" } : {}),
    ...(o.candidates !== undefined ? { candidates: o.candidates.trim() === "" ? NaN : Number(o.candidates) } : {}),
    dense: { ...(o.index !== undefined ? { index: o.index as "none" | "hnsw_sq" | "ivf_pq" } : {}), ...(o.storeDir ? { dir: o.storeDir } : {}) },
    ...(o.engine !== undefined ? { engine: o.engine as "auto" } : {}),
    ...(o.diskDir !== undefined || o.ann !== undefined ? { disk: { ...(o.diskDir ? { dir: o.diskDir } : {}), ...(o.ann !== undefined ? { ann: { index: o.ann as "auto" } } : {}) } } : {}),
  };
  const r = RetrieverConfigSchema.safeParse(config);
  if (!r.success) {
    const opt = (path: PropertyKey[]) => OPTION_OF_PATH[path.map(String).join(".")];
    throw new Error(
      formatZodIssues(
        r.error.issues,
        (p) => opt(p)?.flag ?? p.map(String).join("."),
        (p) => (opt(p) ? o[opt(p)!.key] : valueAt(config, p)),
      ),
    );
  }
  return config;
}

async function buildRerankerArg(id: string | undefined, chatModelId: string | undefined) {
  if (!id || id === "none") return null;
  const chatModel = id === "llm-pointwise" ? (chatModelId ? createChatModel(chatModelId) : undefined) : undefined;
  if (id === "llm-pointwise" && !chatModel) throw new Error("--rerank llm-pointwise needs --chat-model openai:<model> (endpoint from MEDSYNTH_OPENAI_BASE_URL)");
  return createReranker(id, { chatModel });
}

/** Documents a reranker could not grade (e.g. every llm-pointwise call failed), accumulated over searches. */
export interface RerankFailures {
  /** Hits returned with an `error` (score -Infinity). */
  failed: number;
  /** Hits returned by the reranker. */
  total: number;
  /** First error message, or null. */
  firstError: string | null;
}

/** Warning line for reranker failures, or null when every hit was graded. */
export function rerankFailureWarning(rerankerId: string, f: RerankFailures): string | null {
  if (f.failed === 0) return null;
  return `warning: reranker ${rerankerId} failed to grade ${f.failed} of ${f.total} doc(s) (first error: ${f.firstError}); they are ranked last with rerank score -Infinity`;
}

async function searchOnce(
  r: BuiltRetriever,
  reranker: Awaited<ReturnType<typeof buildRerankerArg>>,
  query: string,
  k: number,
  rerankCandidates: number,
  failures?: RerankFailures,
): Promise<SearchHit[]> {
  if (!reranker) return r.search(query, k);
  const first = await r.search(query, Math.max(k, rerankCandidates));
  const reranked = await reranker.rerank(
    query,
    first.filter((h) => h.doc).map((h) => h.doc!),
    { topN: k },
  );
  if (failures) {
    failures.total += reranked.length;
    for (const h of reranked) {
      if (h.error === undefined) continue;
      failures.failed++;
      failures.firstError ??= h.error;
    }
  }
  const byId = new Map(first.map((h) => [h.id, h]));
  return reranked.map((h) => ({ ...h, scores: { ...byId.get(h.id)?.scores, ...h.scores, rerank: h.score } }));
}

/** Options of `search` (raw strings from commander). */
export interface SearchCliOptions extends RetrievalCliOptions {
  corpus: string;
  k: string;
  rerank?: string;
  rerankCandidates: string;
  chatModel?: string;
  json?: boolean;
}

/** The mark `search` puts before a hit's title (defined with {@link CorpusDoc}, shared with the workflows' prompts). */
export { retractionTag };

/**
 * A note when the query analyses to no term (every engine returns nothing), or embeds to a zero
 * vector (no word the embedder knows): the dense leg then
 * returns nothing — a dense search says "0 hit(s)", a hybrid one is BM25 alone — and without the
 * note a user could not tell why. The query is embedded again only when no hit came from the
 * dense leg (an embeddings endpoint is not asked twice for every search).
 * @returns one line, or null when there is no dense leg, a hit has a dense score, or the vector is not zero.
 */
async function zeroVectorNote(r: BuiltRetriever, query: string, hits: readonly SearchHit[]): Promise<string | null> {
  // Every engine skips a query the analyzer reduces to nothing (stop words only): say that, not "a
  // zero vector" (an embedder may well embed stop words).
  if (analyze(query).length === 0) return hits.length ? null : "note: the query holds no searchable word (only stop words, or no letter or digit): every engine returns no hit for it";
  if (!r.embedder || r.config.mode === "bm25" || hits.some((h) => h.scores?.dense !== undefined)) return null;
  const [v] = await r.embedder.embed([query]);
  if (!v || v.some((x) => x !== 0)) return null;
  const what = r.config.mode === "dense" ? "no dense hits" : "the hits are BM25's alone";
  return `note: the query holds no word the embedder ${r.embedder.id} knows (a zero vector): ${what}`;
}

/**
 * Run `search` (exported for tests): load the corpus, build the retriever (and reranker), print the hits.
 * @param out stdout line sink; @param err stderr line sink (corpus line, warnings).
 * @returns the hits.
 * @throws Error naming the option on a bad option; corpus errors.
 */
export async function runSearch(query: string, o: SearchCliOptions, out: (l: string) => void = (l) => console.log(l), err: (l: string) => void = (l) => console.error(l)): Promise<SearchHit[]> {
  const k = parseSingleK(o.k);
  const rerankCandidates = parseSingleKNamed("--rerank-candidates", o.rerankCandidates);
  const chosen = modeOrDefault(o);
  const config = retrieverConfig(o, parseModes(chosen.mode, false)[0]);
  if (chosen.note) err(chosen.note);
  const corpus = await openRetrievalCorpus(o.corpus, err);
  const r = await createRetriever(config, { ...corpusDeps(corpus), log: err });
  noteUnusedThreads(o, r, err);
  const reranker = await buildRerankerArg(o.rerank, o.chatModel);
  const failures: RerankFailures = { failed: 0, total: 0, firstError: null };
  const hits = await searchOnce(r, reranker, query, k, rerankCandidates, failures);
  const warning = reranker ? rerankFailureWarning(reranker.id, failures) : null;
  if (warning) err(warning);
  const unembeddable = await zeroVectorNote(r, query, hits);
  if (unembeddable) err(unembeddable);
  if (o.json) {
    out(
      JSON.stringify(
        hits.map((h) => ({
          rank: h.rank,
          pmid: h.id,
          title: h.doc?.title ?? null,
          ...(h.doc?.retraction ? { retraction: h.doc.retraction } : {}),
          score: Number.isFinite(h.score) ? h.score : null,
          scores: h.scores ?? {},
          ...(h.error ? { error: h.error } : {}),
        })),
        null,
        2,
      ),
    );
    return hits;
  }
  const names = [...new Set(hits.flatMap((h) => Object.keys(h.scores ?? {})))];
  out(`${r.id}${reranker ? ` → ${reranker.id}` : ""}: ${hits.length} hit(s)`);
  const header = ["rank", "PMID", ...names, "title"];
  const rows = hits.map((h) => [String(h.rank), h.id, ...names.map((n) => fmt(h.scores?.[n])), `${retractionTag(h.doc?.retraction)}${h.doc?.title ?? ""}`.slice(0, 90)]);
  const widths = header.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows]) out(row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join("  "));
  return hits;
}

/** The corpus as `createRetriever` takes it: the store streamed (`source`), or the documents. */
function corpusDeps(c: RetrievalCorpus): { docs: CorpusDoc[] } | { source: NonNullable<RetrievalCorpus["source"]> } {
  return c.source ? { source: c.source } : { docs: c.docs! };
}

/**
 * `--mode`, or the default for `--embedder` ({@link defaultRetrievalMode}) with the note the
 * caller prints once, after the options validated.
 */
function modeOrDefault(o: Partial<RetrievalCliOptions>): { mode: string; note: string | null } {
  if (o.mode !== undefined) return { mode: o.mode, note: null };
  const d = defaultRetrievalMode(o.embedder ?? DEFAULT_RETRIEVER_EMBEDDER_ID);
  return { mode: d.mode, note: d.note };
}

function parseSingleKNamed(flag: string, s: string): number {
  const n = Number(s.trim());
  if (s.trim() === "" || !Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive integer (got "${s}")`);
  return n;
}

/** The evaluation of one retrieval mode by `retrieval eval`. */
export interface ModeEvaluation {
  mode: RetrievalMode;
  /** Retriever id, e.g. `bm25-fast`, `hybrid-rrf`. */
  retriever: string;
  reranker: string | null;
  config: BuiltRetriever["config"];
  /** Mean wall time per query, ms. */
  msPerQuery: number;
  ev: RunEvaluation;
}

/** Options of `retrieval eval` (raw strings from commander). */
export interface EvalCliOptions extends RetrievalCliOptions {
  corpus: string;
  dataset: string;
  /** Folder of the dataset (a BEIR set you unzipped yourself), handed to its loader as `dir`. */
  datasetDir?: string;
  k: string;
  rerank?: string;
  rerankCandidates: string;
  chatModel?: string;
  json?: boolean;
  trecOut?: string;
  /** Hits retrieved and written per query (default {@link TREC_EXPORT_DEPTH}); uncut MRR and MAP read them all. */
  trecDepth?: string;
}

/** Metrics of `retrieval eval` / `retrieval score` for cutoffs `ks`: per k recall, precision, nDCG, MRR@k, hit; then uncut MRR and MAP. */
export function evalMetricNames(ks: readonly number[]): string[] {
  return [...ks.flatMap((k) => [`recall@${k}`, `precision@${k}`, `ndcg@${k}`, `mrr@${k}`, `hit@${k}`]), "mrr", "map"];
}

/** One paired comparison of a mode against the baseline mode on one metric, over the evaluated queries. */
export interface ModeComparison {
  baseline: string;
  mode: string;
  metric: string;
  /** Queries paired (evaluated in both). */
  n: number;
  /** mean(mode − baseline). */
  meanDiff: number;
  /** Paired t (NaN when all differences are equal). */
  t: number;
  pT: number;
  /** Randomisation (sign-flip) test p. */
  pRandomization: number;
  /** Holm-adjusted paired-t p over all comparisons of the table. */
  pTHolm: number;
  /** Holm-adjusted randomisation p over all comparisons of the table. */
  pRandomizationHolm: number;
  status: string;
}

/**
 * Per-query paired t and randomisation tests of every run against the first (the baseline), on
 * each metric; p-values Holm-adjusted across the whole table (each test family separately).
 * @param runs label and per-query metric values (`RunEvaluation.perQuery`) of each run.
 * @param opts `iterations` and `seed` of the randomisation test (default 10,000, "medsynth").
 */
export function compareRuns(
  runs: readonly { label: string; perQuery: Record<string, Record<string, number>> }[],
  metrics: readonly string[],
  opts: { iterations?: number; seed?: string } = {},
): ModeComparison[] {
  if (runs.length < 2) return [];
  const [base, ...rest] = runs;
  const out: ModeComparison[] = [];
  for (const r of rest) {
    const qids = Object.keys(base.perQuery).filter((q) => q in r.perQuery);
    for (const m of metrics) {
      const xs = qids.map((q) => r.perQuery[q][m]);
      const ys = qids.map((q) => base.perQuery[q][m]);
      const s = pairedDiffStats(xs, ys, opts);
      out.push({
        baseline: base.label,
        mode: r.label,
        metric: m,
        n: s.n,
        meanDiff: s.meanDiff,
        t: s.t,
        pT: s.pT,
        pRandomization: s.pRandomization,
        pTHolm: Number.NaN,
        pRandomizationHolm: Number.NaN,
        status: s.status,
      });
    }
  }
  holmAdjustPairedDiffs(out);
  return out;
}

/** Text lines of a mode-comparison table (one per comparison). */
export function formatComparisons(rows: readonly ModeComparison[]): string[] {
  if (!rows.length) return [];
  const f = (x: number, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : "–");
  const header = ["mode vs baseline", "metric", "n", "mean diff", "t", "p (t)", "p (t, Holm)", "p (rand.)", "p (rand., Holm)"];
  const body = rows.map((c) => [`${c.mode} vs ${c.baseline}`, c.metric, String(c.n), f(c.meanDiff), f(c.t, 2), f(c.pT), f(c.pTHolm), f(c.pRandomization), f(c.pRandomizationHolm)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [header, ...body].map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
}

/** Text lines of the metrics table of one evaluation: a row per k (MRR@k), then uncut MRR and MAP. */
export function formatEvaluation(ev: RunEvaluation, ks: readonly number[]): string[] {
  const fams = ["recall", "precision", "ndcg", "mrr", "hit"];
  const lines = [
    ["k", "recall@k", "precision@k", "nDCG@k", "MRR@k", "hit@k"]
      .map((c) => c.padEnd(12))
      .join("")
      .trimEnd(),
  ];
  for (const k of ks)
    lines.push(
      [String(k), ...fams.map((f) => ev.mean[`${f}@${k}`].toFixed(4))]
        .map((c) => c.padEnd(12))
        .join("")
        .trimEnd(),
    );
  lines.push(`MRR (uncut) ${ev.mean.mrr.toFixed(4)}   MAP ${ev.mean.map.toFixed(4)}`);
  return lines;
}

/**
 * Run `retrieval eval` (exported for tests): every mode of `--mode` (comma-separated) on the
 * dataset's queries, metrics at each distinct k.
 * @param out stdout line sink; @param err stderr line sink.
 * @returns one evaluation per mode.
 * @throws Error naming the option on a bad option; an Error when the dataset has no qrels.
 */
export async function runRetrievalEval(o: EvalCliOptions, out: (l: string) => void = (l) => console.log(l), err: (l: string) => void = (l) => console.error(l)): Promise<ModeEvaluation[]> {
  const ks = parseKList(o.k);
  const chosen = modeOrDefault(o);
  const modes = parseModes(chosen.mode, true);
  const rerankCandidates = parseSingleKNamed("--rerank-candidates", o.rerankCandidates);
  const configs = modes.map((m) => retrieverConfig(o, m));
  if (chosen.note) err(chosen.note);
  if (o.datasetDir && !String(o.dataset).startsWith("beir:"))
    throw new Error(`--dataset-dir names the folder of a BEIR dataset and goes with --dataset beir:<name> (e.g. --dataset beir:scifact --dataset-dir ${o.datasetDir}); --dataset is ${o.dataset}`);
  const ds = await loadDataset(o.dataset, o.datasetDir ? { dir: o.datasetDir } : undefined);
  if (!ds.qrels) throw new Error(`dataset ${o.dataset} has no qrels (relevance judgments); use medevidence or cohen2006`);
  const qrels: Qrels = ds.qrels;
  const queries = (ds.items as Record<string, unknown>[]).map((it) => ({ id: String(it.id), text: String(it.question ?? it.query ?? "") })).filter((q) => q.text.trim() !== "" && qrels[q.id]);
  // A BEIR set is searched in its own corpus (the bundled PubMed abstracts hold none of its documents).
  const ownCorpus = o.corpus === "dataset" || (o.dataset.startsWith("beir:") && o.corpus === "bundled");
  if (ownCorpus && !ds.docs?.length) throw new Error(`--corpus dataset: ${o.dataset} carries no documents`);
  if (ownCorpus) err(`corpus: the ${ds.docs!.length} documents of ${o.dataset}`);
  const corpus: RetrievalCorpus = ownCorpus ? { docs: ds.docs!, count: ds.docs!.length } : await openRetrievalCorpus(o.corpus, err);
  const judged = Object.values(qrels).flatMap((r) => Object.keys(r).filter((id) => r[id] > 0));
  // A store is asked for the judged ids only (never read whole).
  const inCorpus = corpus.source ? new Set((await corpus.source.getDocs(judged)).keys()) : new Set(corpus.docs!.map((d) => d.id));
  const missing = judged.filter((id) => !inCorpus.has(id)).length;
  if (missing) err(`warning: ${missing} of ${judged.length} relevant (query, doc) pairs name docs absent from the corpus (they count as misses)`);
  const reranker = await buildRerankerArg(o.rerank, o.chatModel);
  // With a reranker the default depth stays at the largest k, so a model is not asked to grade 100 docs per query.
  const depth = o.trecDepth !== undefined ? parseSingleKNamed("--trec-depth", o.trecDepth) : reranker ? Math.max(...ks) : TREC_EXPORT_DEPTH;
  const maxK = Math.max(...ks, depth);
  const metrics = evalMetricNames(ks);
  const results: ModeEvaluation[] = [];
  for (const config of configs) {
    const r = await createRetriever(config, { ...corpusDeps(corpus), log: err });
    noteUnusedThreads(o, r, err);
    const run: TrecRun = {};
    const failures: RerankFailures = { failed: 0, total: 0, firstError: null };
    const t0 = performance.now();
    for (const q of queries) run[q.id] = (await searchOnce(r, reranker, q.text, maxK, rerankCandidates, failures)).map((h) => ({ id: h.id, score: h.score }));
    const ms = (performance.now() - t0) / Math.max(1, queries.length);
    const warning = reranker ? rerankFailureWarning(reranker.id, failures) : null;
    if (warning) err(warning);
    const ev = evaluateRun(Object.fromEntries(Object.entries(run).map(([q, l]) => [q, l.map((e) => e.id)])), qrels, metrics);
    const tag = `medsynth-${r.id}${reranker ? `-${reranker.id}` : ""}`.replace(/[^A-Za-z0-9_.:-]+/g, "_");
    if (o.trecOut) {
      mkdirSync(o.trecOut, { recursive: true });
      // the same layout as a run's trec/ folder (retrieval/eval/trec.ts trecFilePaths)
      const files = trecFilePaths(o.trecOut, o.dataset, config.mode ?? "hybrid");
      writeTrecRun(files.run, run, tag, depth);
      writeTrecQrels(files.qrels, qrels);
      err(`wrote ${files.run} and ${files.qrels}`);
    }
    results.push({ mode: config.mode as RetrievalMode, retriever: r.id, reranker: reranker?.id ?? null, config: r.config, msPerQuery: ms, ev });
  }
  const cmpMetrics = [`recall@${Math.max(...ks)}`, `ndcg@${Math.max(...ks)}`, `mrr@${Math.max(...ks)}`, "map"];
  const comparisons = compareRuns(
    results.map((x) => ({ label: x.mode, perQuery: x.ev.perQuery })),
    cmpMetrics,
  );
  if (o.json) {
    const one = (x: (typeof results)[number]) => ({
      dataset: o.dataset,
      retriever: x.retriever,
      reranker: x.reranker,
      config: x.config,
      corpusDocs: corpus.count,
      queries: x.ev.queries,
      depth,
      msPerQuery: x.msPerQuery,
      mean: x.ev.mean,
      perQuery: x.ev.perQuery,
    });
    out(JSON.stringify(results.length === 1 ? one(results[0]) : { dataset: o.dataset, modes, runs: results.map(one), comparisons }, null, 2));
    return results;
  }
  for (const x of results) {
    out(`${o.dataset}: ${x.ev.queries} queries, corpus ${corpus.count} docs, ${x.retriever}${x.reranker ? ` → ${x.reranker}` : ""}, ${x.msPerQuery.toFixed(1)} ms/query, ${depth} hits/query`);
    for (const l of formatEvaluation(x.ev, ks)) out(l);
  }
  if (comparisons.length) {
    out(`paired tests against ${results[0].mode} over ${comparisons[0].n} queries (two-sided; randomisation: 10,000 seeded sign flips; Holm across the table):`);
    for (const l of formatComparisons(comparisons)) out(l);
  }
  return results;
}

/**
 * Run `retrieval score` (exported for tests): read a TREC run the trec_eval way (score
 * descending, then docno descending, rank column ignored) and TREC qrels, evaluate with
 * {@link evalMetricNames}, print the table (or JSON).
 * @returns the evaluation.
 * @throws Error naming file and line on a malformed run or qrels line; on a bad `--k`.
 */
export function runRetrievalScore(runPath: string, qrelsPath: string, o: { k: string; json?: boolean }, out: (l: string) => void = (l) => console.log(l)): RunEvaluation {
  const ks = parseKList(o.k);
  for (const [p, what] of [
    [runPath, "TREC run"],
    [qrelsPath, "TREC qrels"],
  ] as const) {
    if (existsSync(p) && statSync(p).isDirectory()) throw new Error(`${what} ${p}: it is a folder, not a file`);
  }
  const { run, tag } = readTrecRun(runPath);
  const qrels = readTrecQrels(qrelsPath);
  const ev = evaluateRun(Object.fromEntries(Object.entries(run).map(([q, es]) => [q, es.map((e) => e.id)])), qrels, evalMetricNames(ks));
  if (o.json) {
    out(
      JSON.stringify(
        {
          run: runPath,
          tag,
          qrels: qrelsPath,
          queries: ev.queries,
          skippedNoRelevant: ev.skippedNoRelevant,
          missingFromRun: ev.missingFromRun,
          unjudged: ev.unjudged,
          mean: ev.mean,
          perQuery: ev.perQuery,
        },
        null,
        2,
      ),
    );
    return ev;
  }
  out(
    `${runPath} (${tag ?? "no tag"}): ${ev.queries} judged queries${ev.missingFromRun.length ? `, ${ev.missingFromRun.length} missing from the run (scored 0)` : ""}${ev.unjudged.length ? `, ${ev.unjudged.length} run queries without qrels ignored` : ""}`,
  );
  for (const l of formatEvaluation(ev, ks)) out(l);
  return ev;
}

/** Options of `index build` (raw strings from commander). */
export interface IndexBuildCliOptions {
  corpus: string;
  embedder: string;
  bm25Engine?: string;
  index: string;
  storeDir?: string;
  engine?: string;
  diskDir?: string;
  ann?: string;
  /** `--mode`: which indexes (bm25 | dense | hybrid = both; default hybrid). */
  mode?: string;
  /** `--rebuild`: build again even when cached indexes of this corpus match. */
  rebuild?: boolean;
}

/**
 * The retriever config with every index set to be built again (`--rebuild`): the dense table
 * (`dense.mode`), the on-disk BM25 (`bm25Disk.mode`) and the LanceDB full-text / ANN tables
 * (`disk.mode`). The in-memory BM25 is built in every process anyway.
 */
export function withRebuild(config: RetrieverConfigInput): RetrieverConfigInput {
  return {
    ...config,
    dense: { ...config.dense, mode: "rebuild" },
    bm25Disk: { ...config.bm25Disk, mode: "rebuild" },
    disk: { ...config.disk, mode: "rebuild" },
  };
}

/**
 * `index build`: build (or find cached) the BM25 index and the dense table of a corpus and print
 * what they hold. A corpus store is streamed: below the on-disk threshold (or `--engine memory`)
 * the in-memory engines, else the on-disk ones (LanceDB full-text BM25 and an IVF ANN table with
 * its measured recall@10), built from the store in batches.
 * @param out stdout line sink; @param err stderr line sink.
 */
export async function indexBuildCommand(o: IndexBuildCliOptions, out: (l: string) => void = (l) => console.log(l), err: (l: string) => void = (l) => console.error(l)): Promise<BuiltRetriever> {
  const base = retrieverConfig(o, parseModes(o.mode ?? "hybrid", false)[0]);
  const config = o.rebuild ? withRebuild(base) : base;
  const corpus = await openRetrievalCorpus(o.corpus, err);
  const t0 = performance.now();
  const r = await createRetriever(config, { ...corpusDeps(corpus), log: err });
  if (r.bm25) out(`bm25: ${r.bm25.info.engine}, ${r.bm25.info.docCount} docs, ${r.bm25.info.vocabSize} terms`);
  if (r.bm25Disk) out(`bm25: disk, ${r.bm25Disk.info.docCount} docs, ${r.bm25Disk.info.segments} segment(s) in ${r.bm25Disk.info.dir}, ${r.bm25DiskPool?.threads ?? 1} thread(s) per query`);
  if (r.diskBm25) out(`bm25: ${r.diskBm25.info.engine} (on disk), ${r.diskBm25.info.docCount} docs (${r.diskBm25.info.built ? "built" : "already built"})`);
  const s = r.store;
  if (s) {
    const meta = (s as { meta?: DiskIndexMeta }).meta;
    const how = meta?.recallMethod === "queries-held-out" ? " on held-out questions (index tune)" : "";
    const probes = meta?.nprobes && meta.numPartitions && meta.index !== "hnsw_sq" ? ` at nprobes ${meta.nprobes}/${meta.numPartitions}` : "";
    const recall = s.annRecallAt10 === null || s.annRecallAt10 === undefined ? "" : `, recall@10 vs exact ${s.annRecallAt10.toFixed(3)}${how}${probes}`;
    out(
      `dense: table ${s.tableName} in ${s.dir} (${s.built ? "built" : "already built"}; ${s.docCount} docs, ${s.embedderId}, ${s.dims}-d; ${s.index === "none" ? "exact search" : `${s.index}${recall}`})`,
    );
    out(`corpus hash: ${s.corpusHash}`);
  }
  out(`engine: ${r.engine}; done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return r;
}
