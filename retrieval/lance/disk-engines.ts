/**
 * On-disk retrieval engines for corpora beyond memory, built over a corpus
 * {@link DocumentSource} (the Lance corpus store of `corpus/store/`, or any other source):
 *
 * - {@link openOrBuildLanceBm25}: BM25 through LanceDB's full-text (inverted) index. The
 *   index table holds `id` + `content` (title + "\n" + text) only; it is written from the source
 *   streamed in large batches ({@link DiskIndexConfig} `scanBatch`, `writeRows`), compacted every
 *   ~1 M rows as it is written (`./rolling-compaction.ts`: bounded memory), then indexed with `LANCE_CPU_THREADS` set (`../lance-env.ts`) under a time limit
 *   that turns a hang into an error.
 * - {@link openOrBuildLanceAnn}: dense search through a LanceDB IVF vector index (IVF-FLAT while
 *   the vectors take ≤ 1 GiB, IVF-PQ beyond: {@link chooseAnnIndex}), behind the
 *   same {@link DenseStore} interface as the exact kNN store (so `createDenseRetriever` and the
 *   hybrid work over either). When built, its recall@10 against exact search is measured on a
 *   sample of corpus vectors used as queries, printed, and stored in the index metadata; `nprobes`
 *   is doubled until the recall reaches `targetRecall` (default 0.95) or every partition is probed.
 *
 * Why IVF (FLAT or PQ) rather than HNSW: on this 2-core machine IVF-PQ trains in one k-means + PQ pass and
 * its index is small (1 M × 100-d → ~25 MB of PQ codes plus centroids), so the query process
 * stays far below 2 GiB; with `refineFactor` (re-ranking `refineFactor × k` candidates by exact
 * distance read from disk) its recall reaches ≥ 0.95 (STACK.md: 20 k × 100-d, nprobes 16 +
 * refine 5 → 0.99). LanceDB's HNSW (`IVF_HNSW_SQ`) builds a graph per partition — much slower to
 * build at 1 M on two cores, and its SQ-quantised `dot` variant ranked wrongly here (recall 0.02).
 * `hnsw_sq` stays selectable (`ann.index`).
 *
 * No whole-corpus structure is held in memory: documents are streamed in batches; the engines
 * answer with ids and scores; document text is fetched by id from the source for the hits only
 * (`getDocs`). Index tables live in a LanceDB database (`dir`: a folder or an object-storage URI)
 * and are named by the corpus fingerprint: the caller's (`createRetriever` passes a store's own
 * manifest fingerprint, `DocumentSource.fingerprint`, which reads no document), else
 * {@link fingerprintSource} (the same SHA-256 as {@link corpusContentHash}, streamed); a small
 * `<table>_meta` table written last records what was built (an interrupted BM25 build has no
 * meta row and is rebuilt; an interrupted vector build resumes, see {@link openOrBuildLanceAnn}).
 *
 * LanceDB and apache-arrow are imported on first use.
 */
import "../lance-env.ts"; // sets LANCE_CPU_THREADS before LanceDB loads
import type * as LanceDb from "@lancedb/lancedb";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { DocumentSource } from "../../corpus/store/types.ts";
import { cacheDir } from "../../corpus/paths.ts";
import { connectStore } from "../../corpus/store/lance-store.ts";
import { withBuildLock } from "../../corpus/file-lock.ts";
import { analyze, ENGLISH_STOP_WORDS } from "../analyzer.ts";
import type { DenseStore, VectorHit } from "../dense/lancedb-store.ts";
import { lanceIndexTimeoutMs, withTimeout } from "../lance-env.ts";
import { createRollingCompactor, LANCE_TARGET_FRAGMENT_ROWS } from "./rolling-compaction.ts";
import { exactTopKScan } from "./exact-scan.ts";
import type { RankedItem } from "../fusion.ts";
import type { Embedder, Retriever, SearchHit } from "../types.ts";

/**
 * Thrown in mode `open` when the index asked for is not built. `what` says which index and where;
 * the message adds that mode `open` never builds. Callers that can tell the user how to build it
 * (`index tune`) catch it by class instead of reading the message.
 */
export class IndexNotBuiltError extends Error {
  constructor(readonly what: string) {
    super(`${what} (mode "open" never builds; use "open-or-build")`);
    this.name = "IndexNotBuiltError";
  }
}

/** Import LanceDB lazily (native log level "error" unless `LANCEDB_LOG` is set). */
async function lance(): Promise<typeof LanceDb> {
  process.env.LANCEDB_LOG ??= "error";
  return import("@lancedb/lancedb");
}

/** Config of the on-disk engines. */
export const DiskIndexConfigSchema = z
  .object({
    /** LanceDB database of the index tables: folder or object-storage URI (default `cacheDir()/lancedb-disk`). */
    dir: z.string().optional(),
    /** LanceDB storage options (object storage credentials, endpoint), passed through. */
    storageOptions: z.record(z.string(), z.string()).optional(),
    /** Documents per batch read from the source. */
    scanBatch: z.number().int().positive().default(16_384),
    /** Rows per LanceDB append (one fragment and one version each; compacted as the build goes). */
    writeRows: z.number().int().positive().default(65_536),
    /**
     * Appended rows between two compactions of a table being built (`./rolling-compaction.ts`;
     * default Lance's target fragment size, so each compaction rewrites one fragment's worth).
     */
    compactEveryRows: z.number().int().positive().default(LANCE_TARGET_FRAGMENT_ROWS),
    /**
     * Time limit of one index build, ms; past it the build is an error, never a hang. Default
     * `indexTimeoutFor`: `MEDSYNTH_LANCE_INDEX_TIMEOUT_S` when set, else 10 min, or 3.6 ms
     * per row when more (1 M rows → 60 min: the 1 M FTS build did not finish in 10 min on this
     * 2-core machine at load ~20).
     */
    indexTimeoutMs: z.number().int().positive().optional(),
    /**
     * LanceDB index cache of the connection, MiB (LanceDB's own default is 6 GB): bounds what the
     * query process keeps of FTS posting lists and IVF partitions, so its RSS stays bounded
     * whatever the corpus size. 384 by default: at 24 M docs (IVF-PQ, 25-byte codes + 8-byte row
     * ids ≈ 0.8 GB in all, nprobes 288) the hybrid query process peaked at 1.26–1.27 GiB with 384
     * and 1.34–1.36 GiB with 512, p50 129–139 vs 122–150 ms (same window); a dense-only process
     * searches faster with more (every partition cached: 45 ms p50 at nprobes 512).
     */
    indexCacheMiB: z.number().int().positive().default(384),
    /** LanceDB metadata cache of the connection, MiB (LanceDB's default 1 GB). */
    metadataCacheMiB: z.number().int().positive().default(128),
    /** `open-or-build` (default), `rebuild`, or `open` (an index that is not built yet is an error, never built). */
    mode: z.enum(["open-or-build", "rebuild", "open"]).default("open-or-build"),
    /** ANN index settings. */
    ann: z
      .object({
        /** `auto` (default): `chooseAnnIndex` by corpus size × dimensions. */
        index: z.enum(["auto", "ivf_pq", "ivf_flat", "hnsw_sq"]).default("auto"),
        /** Recall@10 vs exact search the build tunes `nprobes` for. */
        targetRecall: z.number().min(0).max(1).default(0.95),
        /** Starting IVF partitions probed per query (doubled while recall < target). */
        nprobes: z.number().int().positive().default(20),
        /**
         * Partitions probed per query, overriding the value the build tuned and stored (e.g. one
         * tuned on real questions: `experiments/bench/retrieval-disk.ts` prints it).
         */
        searchNprobes: z.number().int().positive().optional(),
        /** IVF-PQ: exact re-ranking of `refineFactor × k` candidates. */
        refineFactor: z.number().int().positive().default(10),
        /** HNSW search breadth. */
        ef: z.number().int().positive().default(150),
        /** IVF partitions (default ≈ √n, at least 1). */
        numPartitions: z.number().int().positive().optional(),
        /** Corpus vectors used as queries to measure recall@10. */
        sampleQueries: z.number().int().positive().default(100),
        /** Texts per embedder call while building. */
        embedBatch: z.number().int().positive().default(256),
        /** Embedder calls in flight while building (raise it for an embeddings endpoint / GPU server). */
        concurrency: z.number().int().positive().default(1),
        /** Retries of a failed embedder call (exponential backoff from 0.5 s) before the build stops; a rerun resumes. */
        retries: z.number().int().min(0).default(3),
      })
      .strict()
      .prefault({}),
  })
  .strict();
/** Input of {@link DiskIndexConfigSchema}. */
export type DiskIndexConfigInput = z.input<typeof DiskIndexConfigSchema>;
/** Parsed {@link DiskIndexConfigSchema}. */
export type DiskIndexConfig = z.output<typeof DiskIndexConfigSchema>;

/**
 * Default index-build time limit for `rows` rows, ms: `MEDSYNTH_LANCE_INDEX_TIMEOUT_S` when set,
 * else max(10 min, 3.6 ms × rows) ({@link lanceIndexTimeoutMs}).
 */
export function indexTimeoutFor(rows: number): number {
  return lanceIndexTimeoutMs(rows);
}

/**
 * Largest vector column (rows × dims × 4 bytes) for which `ann.index: auto` picks IVF-FLAT: 1 GiB.
 * IVF-FLAT keeps full vectors in its partitions, so its distances are exact within the probed
 * partitions (no re-ranking step), it trains in one k-means pass (100 k × 100-d: 4 s vs 142 s for
 * IVF-PQ here) and a hybrid's dense leg of 100 candidates took 8 ms vs 21 ms for IVF-PQ with
 * refineFactor 10 (100 k docs, load ~10); but it reads ~nprobes/partitions of the full vectors per
 * query and doubles the vectors on disk. Past 1 GiB of vectors (e.g. 5.7 M × 768-d MedCPT ≈ 17 GB)
 * IVF-PQ's compressed codes win.
 */
export const IVF_FLAT_MAX_VECTOR_BYTES = 2 ** 30;

/**
 * The ANN index `ann.index: auto` builds for `rows` vectors of `dims` dimensions: `ivf_flat` while
 * rows × dims × 4 ≤ {@link IVF_FLAT_MAX_VECTOR_BYTES}, else `ivf_pq`.
 */
export function chooseAnnIndex(rows: number, dims: number): "ivf_flat" | "ivf_pq" {
  return rows * dims * 4 <= IVF_FLAT_MAX_VECTOR_BYTES ? "ivf_flat" : "ivf_pq";
}

/**
 * An index build's pending rows are appended once their text reaches this many characters
 * (8 Mi), whatever `writeRows` says: with long documents the rows held between appends (and
 * LanceDB's Arrow copy of them while it appends) stay a few tens of MB, so the build's heap is
 * bounded by batch sizes, not by the corpus. (At 16 Mi, checked per scan batch, the build of
 * tests/cli/store-streaming-cli.test.ts — 20,000-character abstracts under an 80 MB heap — ran out
 * of heap once on a loaded machine.)
 */
export const WRITE_CHARS = 8 * 2 ** 20;

/** Options shared by the builders. */
export interface DiskEngineOptions {
  /** Info lines (build progress, recall); default console.error. */
  log?: (line: string) => void;
  /** Corpus fingerprint when the caller knows it (else streamed by {@link fingerprintSource}). */
  fingerprint?: string;
}

/** Text indexed and embedded for one doc (same recipe as the dense store). */
function contentOf(d: Pick<CorpusDoc, "title" | "text">): string {
  return d.title ? `${d.title}\n${d.text}` : d.text;
}

/**
 * Fingerprint of a source: SHA-256 hex over every doc in canonical order, each contributing
 * `JSON.stringify([id, title, text]) + "\n"` — equal to {@link corpusContentHash} of the same docs
 * as an array — streamed in batches (memory stays one batch).
 */
export async function fingerprintSource(source: DocumentSource, batchSize = 16_384): Promise<{ hash: string; count: number }> {
  const h = createHash("sha256");
  let count = 0;
  for await (const batch of source.scanDocs(batchSize)) {
    for (const d of batch) h.update(JSON.stringify([d.id, d.title, d.text]) + "\n");
    count += batch.length;
  }
  return { hash: h.digest("hex"), count };
}

/** What a `<table>_meta` row holds. */
export interface DiskIndexMeta {
  kind: "bm25-fts" | "ann";
  fingerprint: string;
  docCount: number;
  /** ANN only. */
  embedderId?: string;
  embedderInfo?: Record<string, unknown>;
  dims?: number;
  index?: "ivf_pq" | "ivf_flat" | "hnsw_sq";
  numPartitions?: number;
  nprobes?: number;
  refineFactor?: number;
  ef?: number;
  /** ANN: measured recall@10 vs exact search, and on how many sample queries. */
  recallAt10?: number;
  recallSample?: number;
  /**
   * How `recallAt10` was measured: `duplicates-left-out` (the build: corpus vectors as queries,
   * each query's own doc and its copies excluded; absent in indexes built before it) or
   * `queries-held-out` (`index tune`: a user's questions, on the half not used to choose `nprobes`).
   */
  recallMethod?: "duplicates-left-out" | "queries-held-out";
  /** The build's own recall check, kept when `index tune` replaced `nprobes` / `recallAt10`. */
  buildRecall?: { recallAt10: number; nprobes: number; recallSample: number; recallMethod?: "duplicates-left-out" };
  /** What `index tune` measured (`./ann-tune.ts`); absent when the index was never tuned on questions. */
  queryTuning?: AnnQueryTuning;
  targetRecall?: number;
  /** Ids of docs with no analyzable term (never returned by the dense engine). */
  unmatchable?: string[];
  buildSeconds: number;
}

/** `index tune`'s record in the index metadata ({@link DiskIndexMeta.queryTuning}). */
export interface AnnQueryTuning {
  /** SHA-256 of the query texts (in order, joined by "\n"), and where they came from. */
  queriesSha256: string;
  source: string;
  /** Questions used to choose `nprobes` / held out to measure the recall at it. */
  tuneQueries: number;
  heldOutQueries: number;
  targetRecall: number;
  /** Recall@10 vs exact search at each `nprobes` tried (tune half, held-out half). */
  curve: Array<{ nprobes: number; recallTune: number; recallHeldOut: number }>;
  /** ISO time of the tuning. */
  at: string;
}

/**
 * Run a table build holding `<dir>/<tableName>.build.lock`, so two processes never build one
 * table at once (two concurrent first searches appended every document twice): the second waits
 * (saying for which process), then finds the table built. A remote `dir` (`s3://…`) has no lock
 * file: builds there are not serialised.
 */
async function withTableBuildLock<T>(dir: string, tableName: string, label: string, log: (l: string) => void, fn: () => Promise<T>): Promise<T> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dir)) return fn();
  mkdirSync(dir, { recursive: true });
  return withBuildLock(join(dir, `${tableName}.build.lock`), label, `${tableName} in ${dir}`, log, fn);
}

async function readMeta(db: LanceDb.Connection, table: string): Promise<DiskIndexMeta | null> {
  const names = new Set(await db.tableNames());
  if (!names.has(table) || !names.has(`${table}_meta`)) return null;
  const rows = (await (await db.openTable(`${table}_meta`)).query().toArray()) as { json: string }[];
  return rows.length ? (JSON.parse(rows[0].json) as DiskIndexMeta) : null;
}

async function writeMeta(db: LanceDb.Connection, table: string, meta: DiskIndexMeta): Promise<void> {
  await db.createTable(`${table}_meta`, [{ json: JSON.stringify(meta) }], { mode: "overwrite" });
}

async function connect(cfg: DiskIndexConfig): Promise<{ db: LanceDb.Connection; dir: string; session: LanceDb.Session }> {
  const lancedb = await lance();
  const dir = cfg.dir ?? join(cacheDir(), "lancedb-disk");
  const session = new lancedb.Session(BigInt(cfg.indexCacheMiB) * 2n ** 20n, BigInt(cfg.metadataCacheMiB) * 2n ** 20n);
  // Through the store's connect, which hands LanceDB the session where it reads it (with it
  // dropped, every IVF-PQ partition probed at 24 M docs stayed cached: +0.8 GB of query RSS).
  const db = await connectStore({ uri: dir, ...(cfg.storageOptions ? { storageOptions: cfg.storageOptions } : {}) }, undefined, session);
  return { db, dir, session };
}

function sanitize(s: string): string {
  return s.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "");
}

const STOP = new Set(ENGLISH_STOP_WORDS);
const TOKEN_RE = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;

/**
 * Whether `analyze(text)` would give at least one term (a token of ≥ 2 characters outside the
 * stop list; stemming never removes a term), stopping at the first such token — the cheap test
 * behind "unmatchable" documents at build time.
 */
export function hasAnalyzableTerm(text: string): boolean {
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(TOKEN_RE)) if (m[0].length >= 2 && !STOP.has(m[0])) return true;
  return false;
}

/**
 * Whether a mean recall reaches a target, allowing for floating-point rounding of the mean: it
 * sums per-question fractions (tenths for recall@10), so a mean that is exactly the target can
 * come out a hair below it (19.3 / 20 sums to 0.9649999999999999, not 0.965).
 * @param recall - a mean recall in [0, 1].
 * @param target - the target in [0, 1].
 */
export function reachesRecall(recall: number, target: number): boolean {
  return recall >= target - 1e-9;
}

/**
 * Recall@k of `got` against exact top-k hits `exact` (best first), tie-aware: a hit counts when
 * its exact score is at least the k-th exact score (minus 1e-5), so that among documents with
 * equal similarity (duplicates, e.g. a replicated corpus) any choice is correct.
 * @returns a value in [0, 1]; 1 when `exact` is empty.
 */
export function recallAtK(got: readonly VectorHit[], exact: readonly VectorHit[], k: number): number {
  const want = exact.slice(0, k);
  if (want.length === 0) return 1;
  const kth = want[want.length - 1].score - 1e-5;
  const ids = new Set(want.map((h) => h.id));
  const ok = got.slice(0, k).filter((h) => ids.has(h.id) || h.score >= kth).length;
  return Math.min(1, ok / want.length);
}

/** Attach documents fetched by id from `source` to `hits` that lack one (one `getDocs` call). */
export async function attachDocsFromSource(hits: SearchHit[], source: Pick<DocumentSource, "getDocs">): Promise<SearchHit[]> {
  const missing = hits.filter((h) => !h.doc).map((h) => h.id);
  if (missing.length === 0) return hits;
  const docs = await source.getDocs(missing);
  for (const h of hits) {
    if (!h.doc) {
      const d = docs.get(h.id);
      if (d) h.doc = d;
    }
  }
  return hits;
}

// Word runs as in retrieval/analyzer.ts; the FTS query is rebuilt from them so that punctuation in
// a user query is never read as query syntax.
const FTS_WORD_RE = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;

/** Facts of an on-disk BM25 index. */
export interface LanceBm25Info {
  engine: "lance-fts";
  docCount: number;
  tableName: string;
  dir: string;
  fingerprint: string;
  /** True when this call built the index. */
  built: boolean;
  buildSeconds: number;
}

/** BM25 over LanceDB's full-text index. */
export interface LanceBm25Engine extends Retriever {
  readonly info: LanceBm25Info;
  /** Ranked ids and LanceDB BM25 scores, best first (ties by id); no document is fetched. */
  searchIds(query: string, k: number): Promise<RankedItem[]>;
}

/**
 * Open the full-text index table of `source` or build it.
 *
 * Tokenisation (LanceDB's, set to match the project analyzer as closely as LanceDB allows):
 * simple tokenizer (split on non-alphanumerics), lowercase, English stop words removed, English
 * (Snowball) stemming, ASCII folding. Scoring is LanceDB's BM25 (k1 = 1.2, b = 0.75, fixed by
 * LanceDB), not our k1 = 1.5; its stop list is longer than Lucene's 33 words. So scores and the
 * order of near-ties differ from the in-memory engine; top-k sets largely agree
 * (tests/retrieval/lance-disk.test.ts measures the overlap).
 *
 * `search(q, k)`: a query with no analyzable term under the project analyzer → [] (as every
 * other mode); hits carry `score` = `scores.bm25` = LanceDB's BM25 score and `doc` fetched from
 * `source` by id for the k hits only.
 * @throws on a build past `indexTimeoutMs`, or when the source is empty.
 */
export async function openOrBuildLanceBm25(source: DocumentSource, config: DiskIndexConfigInput = {}, opts: DiskEngineOptions = {}): Promise<LanceBm25Engine> {
  const cfg = DiskIndexConfigSchema.parse(config);
  const log = opts.log ?? ((l: string) => console.error(l));
  const lancedb = await lance();
  const { db, dir } = await connect(cfg);
  const fp = opts.fingerprint ?? (await fingerprintSource(source, cfg.scanBatch)).hash;
  const tableName = `bm25fts_${fp.slice(0, 16)}`;
  let meta = cfg.mode !== "rebuild" ? await readMeta(db, tableName) : null;
  let built = false;
  let table: LanceDb.Table;
  if (meta && meta.kind === "bm25-fts" && meta.fingerprint === fp) {
    table = await db.openTable(tableName);
  } else if (cfg.mode === "open") {
    throw new IndexNotBuiltError(`lance bm25: no built full-text index ${tableName} in ${dir}`);
  } else {
    // One process builds a table at a time: a second one waits, then opens what the first built.
    ({ table, meta, built } = await withTableBuildLock(dir, tableName, "lance bm25", log, async () => {
      const now = cfg.mode !== "rebuild" ? await readMeta(db, tableName) : null;
      if (now && now.kind === "bm25-fts" && now.fingerprint === fp) return { table: await db.openTable(tableName), meta: now, built: false };
      return { ...(await buildLanceFtsTable(lancedb, db, tableName, source, cfg, log, fp)), built: true };
    }));
  }
  const info: LanceBm25Info = { engine: "lance-fts", docCount: meta.docCount, tableName, dir, fingerprint: fp, built, buildSeconds: meta.buildSeconds };
  const searchIds = async (query: string, k: number): Promise<RankedItem[]> => {
    if (typeof query !== "string" || query.trim() === "" || !(k > 0)) return [];
    if (analyze(query).length === 0) return [];
    const text = (query.match(FTS_WORD_RE) ?? []).join(" ");
    if (text === "") return [];
    const rows = (await table.query().fullTextSearch(new lancedb.MatchQuery(text, "content")).select(["id", "_score"]).limit(Math.floor(k)).toArray()) as { id: string; _score: number }[];
    return rows.map((r) => ({ id: String(r.id), score: Number(r._score) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };
  return {
    id: "bm25-lance",
    info,
    searchIds,
    async search(query, k) {
      const items = await searchIds(query, k);
      const hits: SearchHit[] = items.map((it, i) => ({ id: it.id, score: it.score, rank: i + 1, scores: { bm25: it.score } }));
      return attachDocsFromSource(hits, source);
    },
  };
}

/**
 * Step (under the table's build lock): stream the corpus into a LanceDB table `tableName`
 * (`id`, `content`), compacted as it grows, build its full-text index and write its meta row.
 * @throws on an empty source, or an index build past `indexTimeoutMs`.
 */
async function buildLanceFtsTable(
  lancedb: typeof LanceDb,
  db: LanceDb.Connection,
  tableName: string,
  source: DocumentSource,
  cfg: DiskIndexConfig,
  log: (l: string) => void,
  fp: string,
): Promise<{ table: LanceDb.Table; meta: DiskIndexMeta }> {
  const t0 = performance.now();
  const { Field, Schema, Utf8 } = await import("apache-arrow");
  const schema = new Schema([new Field("id", new Utf8(), false), new Field("content", new Utf8(), false)]);
  const table = await db.createEmptyTable(tableName, schema, { mode: "overwrite" });
  let pending: { id: string; content: string }[] = [];
  let chars = 0;
  let n = 0;
  const compactor = createRollingCompactor(table, cfg.compactEveryRows);
  const t = table;
  const append = async () => {
    await t.add(pending);
    await compactor.appended(pending.length);
    pending = [];
    chars = 0;
  };
  for await (const batch of source.scanDocs(cfg.scanBatch)) {
    for (const d of batch) {
      const content = contentOf(d);
      pending.push({ id: d.id, content });
      chars += content.length;
      n++;
      // Checked per document, not per scan batch: a batch of long abstracts would otherwise
      // add its whole text to the pending rows before they are appended.
      if (pending.length >= cfg.writeRows || chars >= WRITE_CHARS) {
        await append();
        log(`lance bm25: wrote ${n} docs`);
      }
    }
  }
  if (pending.length) await append();
  if (n === 0) throw new Error(`lance bm25: the corpus source is empty; nothing to index`);
  await compactor.finish();
  await withTimeout(
    table.createIndex("content", {
      config: lancedb.Index.fts({ withPosition: false, baseTokenizer: "simple", lowercase: true, stem: true, removeStopWords: true, asciiFolding: true, language: "English" }),
      replace: true,
    }),
    cfg.indexTimeoutMs ?? indexTimeoutFor(n),
    `LanceDB FTS index on ${tableName} (${n} rows)`,
  );
  await table.optimize({ cleanupOlderThan: new Date() }); // drop the versions of the appends (disk)
  const meta: DiskIndexMeta = { kind: "bm25-fts", fingerprint: fp, docCount: n, buildSeconds: (performance.now() - t0) / 1000 };
  await writeMeta(db, tableName, meta);
  log(`lance bm25: built FTS index ${tableName} (${n} docs) in ${meta.buildSeconds.toFixed(1)} s`);
  return { table, meta };
}

/** An ANN-indexed dense table behind the {@link DenseStore} interface, plus what was measured. */
export interface LanceAnnStore extends DenseStore {
  /** Ids of docs with no analyzable term (excluded from hits). */
  readonly unmatchable: ReadonlySet<string>;
  /** The index metadata (partitions, nprobes chosen, recall@10 measured). */
  readonly meta: DiskIndexMeta;
  /**
   * Bytes held now by the LanceDB caches of the index connection (IVF partitions read, file
   * metadata), bounded by `indexCacheMiB` + `metadataCacheMiB`.
   */
  cacheBytes(): number;
  /**
   * Merge `patch` into the index metadata and write the `<table>_meta` row; later searches of
   * this store (and every process that opens it) use the new `nprobes`. Used by `index tune`.
   */
  updateMeta(patch: Partial<DiskIndexMeta>): Promise<void>;
  /**
   * The exact top-k lists kept by the last `index tune` under `key` (the `<table>_exact` table: one
   * row, the last tuning's), or null. `index tune` keys them by the vector table's version, k, the
   * skipped ids and the question vectors, so a second tuning on the same questions (another
   * `--target`, `--held-out`) skips the exact pass (810 s of 885 at 24 M docs).
   */
  readExactLists(key: string): Promise<VectorHit[][] | null>;
  /** Keep `lists` under `key` (replacing what an earlier tuning kept). */
  writeExactLists(key: string, lists: VectorHit[][]): Promise<void>;
  /** Version of the vector table (changes when it is rebuilt or appended to). */
  tableVersion(): Promise<number>;
  /**
   * k nearest docs (cosine), best first, ties by id. `exact`: flat scan. `nprobes` /
   * `refineFactor` override the stored ones for this call (tuning and benchmarks; `refineFactor`
   * 0 = no exact re-ranking; ignored by IVF-FLAT, whose distances are exact).
   */
  search(vector: Float32Array, k: number, opts?: AnnSearchOptions): Promise<VectorHit[]>;
}

/** Per-call options of {@link LanceAnnStore.search}. */
export interface AnnSearchOptions {
  exact?: boolean;
  nprobes?: number;
  refineFactor?: number;
}

/**
 * Open the ANN table of (`source`, `embedder`) or build it: docs streamed from the source in
 * batches, embedded (batched, concurrent, resumable: `buildAnnVectors`), written in bounded
 * appends, compacted every ~1 M rows as they are written (`./rolling-compaction.ts`), indexed (IVF-PQ by default,
 * cosine), then recall@10 of the index vs exact (flat) search measured on `sampleQueries` corpus
 * vectors (evenly spaced docs) and `nprobes` doubled until it reaches `targetRecall`; the
 * recall, nprobes and sample size are logged and stored in the `<table>_meta` row.
 *
 * `search(v, k)`: IVF-PQ with `nprobes` and `refineFactor` (exact re-ranking), cosine similarity
 * as `score` (1 − cosine distance), ties by id; `{exact: true}` forces a flat scan.
 * Docs with no analyzable term are never returned.
 * @throws when the source has fewer than 256 docs (PQ training needs them; use exact kNN), on an
 *   embedder returning vectors of the wrong length, or on a build past `indexTimeoutMs`.
 */
export async function openOrBuildLanceAnn(source: DocumentSource, embedder: Embedder, config: DiskIndexConfigInput = {}, opts: DiskEngineOptions = {}): Promise<LanceAnnStore> {
  const cfg = DiskIndexConfigSchema.parse(config);
  const log = opts.log ?? ((l: string) => console.error(l));
  const lancedb = await lance();
  const { db, dir, session } = await connect(cfg);
  const fp = opts.fingerprint ?? (await fingerprintSource(source, cfg.scanBatch)).hash;
  const indexKind = cfg.ann.index === "auto" ? chooseAnnIndex(await source.count(), embedder.dims) : cfg.ann.index;
  const tableName = `ann_${fp.slice(0, 16)}_${sanitize(embedder.id)}_${indexKind}`;
  const meta = await readMatchingAnnMeta(db, tableName, cfg, fp, embedder);
  let opened: AnnTable;
  if (meta) {
    opened = { table: await db.openTable(tableName), meta, built: false, sampleVectors: [] };
  } else if (cfg.mode === "open") {
    throw new IndexNotBuiltError(`lance ann: no built ${indexKind} index ${tableName} for embedder ${embedder.id} in ${dir}`);
  } else {
    // One process builds a table at a time: a second one waits, then opens what the first built
    // (two at once appended every document twice).
    opened = await withTableBuildLock(dir, tableName, "lance ann", log, async () => {
      const now = cfg.mode === "rebuild" ? null : await readMatchingAnnMeta(db, tableName, cfg, fp, embedder);
      if (now) return { table: await db.openTable(tableName), meta: now, built: false, sampleVectors: [] };
      return buildAndTuneAnnTable(lancedb, db, tableName, indexKind, source, embedder, cfg, log, fp);
    });
  }
  const { table, built } = opened;
  const m = opened.meta;
  const unmatchable = new Set(m.unmatchable ?? []);
  const { annSearch, exactSearch } = annSearchers(table, m, unmatchable);
  return {
    table,
    tableName,
    dir,
    embedderId: embedder.id,
    corpusHash: fp,
    dims: embedder.dims,
    docCount: m.docCount,
    built,
    index: m.index!,
    annRecallAt10: m.recallAt10 ?? null,
    unmatchable,
    meta: m,
    cacheBytes: () => Number(session.sizeBytes()),
    updateMeta: async (patch) => {
      Object.assign(m, patch);
      await writeMeta(db, tableName, m);
    },
    readExactLists: async (key) => {
      if (!(await db.tableNames()).includes(`${tableName}_exact`)) return null;
      const rows = (await (await db.openTable(`${tableName}_exact`)).query().toArray()) as { key: string; json: string }[];
      const row = rows.find((r) => r.key === key);
      return row ? (JSON.parse(row.json) as VectorHit[][]) : null;
    },
    writeExactLists: async (key, lists) => {
      await db.createTable(`${tableName}_exact`, [{ key, json: JSON.stringify(lists) }], { mode: "overwrite" });
    },
    tableVersion: () => table.version(),
    search: (vector, k, sopts = {}) =>
      k <= 0 ? Promise.resolve([]) : sopts.exact ? exactSearch(vector, Math.floor(k)) : annSearch(vector, Math.floor(k), sopts.nprobes ?? cfg.ann.searchNprobes ?? m.nprobes!, sopts.refineFactor),
  };
}

/**
 * Step (under the table's build lock): drop the exact lists an earlier `index tune` kept (they
 * belong to the table being replaced), build the table ({@link buildAnnTable}) and measure its
 * recall and `nprobes` ({@link tuneNprobes}), so a waiting process opens a finished index.
 */
async function buildAndTuneAnnTable(...args: Parameters<typeof buildAnnTable>): Promise<AnnTable> {
  const [, db, tableName, , , , , log] = args;
  const buildStart = performance.now();
  if ((await db.tableNames()).includes(`${tableName}_exact`)) await db.dropTable(`${tableName}_exact`);
  const opened = await buildAnnTable(...args);
  const unmatchable = new Set(opened.meta.unmatchable ?? []);
  const { annSearch } = annSearchers(opened.table, opened.meta, unmatchable);
  await tuneNprobes(db, opened.table, tableName, opened.meta, opened.sampleVectors, unmatchable, annSearch, buildStart, log);
  return opened;
}

/** A table opened or built by {@link openOrBuildLanceAnn}'s first step. */
interface AnnTable {
  table: LanceDb.Table;
  meta: DiskIndexMeta;
  built: boolean;
  /** Vectors of the recall-sample docs (empty when the table was opened, not built). */
  sampleVectors: Float32Array[];
}

/** ANN search with a given `nprobes` / `refineFactor`, best first, unmatchable docs left out. */
type AnnSearchFn = (vector: Float32Array, k: number, nprobes: number, refineFactor?: number) => Promise<VectorHit[]>;

/**
 * Step: the `<table>_meta` row of `tableName` when it describes an ANN table of this corpus
 * fingerprint and embedder (id, dims and, when both are known, settings); null when absent, stale
 * or `mode` is "rebuild" (the table is then built).
 */
async function readMatchingAnnMeta(db: LanceDb.Connection, tableName: string, cfg: DiskIndexConfig, fp: string, embedder: Embedder): Promise<DiskIndexMeta | null> {
  const meta = cfg.mode !== "rebuild" ? await readMeta(db, tableName) : null;
  if (!meta) return null;
  const infoJson = embedder.info ? JSON.stringify(embedder.info) : undefined;
  const stale =
    meta.kind !== "ann" ||
    meta.fingerprint !== fp ||
    meta.embedderId !== embedder.id ||
    meta.dims !== embedder.dims ||
    (infoJson !== undefined && meta.embedderInfo !== undefined && JSON.stringify(meta.embedderInfo) !== infoJson);
  return stale ? null : meta;
}

/**
 * Step: embed the corpus into `tableName` ({@link buildAnnVectors}), then build its `indexKind`
 * vector index (cosine; `numPartitions` √n unless configured) and drop the appends' versions.
 * The returned meta has no recall yet ({@link tuneNprobes} measures it).
 * @throws on an index build past `indexTimeoutMs` (and what {@link buildAnnVectors} throws).
 */
async function buildAnnTable(
  lancedb: typeof LanceDb,
  db: LanceDb.Connection,
  tableName: string,
  indexKind: NonNullable<DiskIndexMeta["index"]>,
  source: DocumentSource,
  embedder: Embedder,
  cfg: DiskIndexConfig,
  log: (l: string) => void,
  fp: string,
): Promise<AnnTable> {
  const dims = embedder.dims;
  const { table, rows: n, unmatchable, sampleVectors } = await buildAnnVectors(db, tableName, source, embedder, cfg, log, fp);
  const numPartitions = cfg.ann.numPartitions ?? Math.max(1, Math.round(Math.sqrt(n)));
  const idx =
    indexKind === "ivf_pq"
      ? lancedb.Index.ivfPq({ distanceType: "cosine", numPartitions, numSubVectors: dims % 4 === 0 ? dims / 4 : dims % 2 === 0 ? dims / 2 : dims })
      : indexKind === "ivf_flat"
        ? lancedb.Index.ivfFlat({ distanceType: "cosine", numPartitions })
        : lancedb.Index.hnswSq({ distanceType: "cosine", numPartitions });
  const ti = performance.now();
  await withTimeout(table.createIndex("vector", { config: idx, replace: true }), cfg.indexTimeoutMs ?? indexTimeoutFor(n), `LanceDB ${indexKind} index on ${tableName} (${n} rows)`);
  await table.optimize({ cleanupOlderThan: new Date() }); // drop the versions of the appends (disk)
  log(`lance ann: built ${indexKind} (${numPartitions} partitions) on ${tableName} in ${((performance.now() - ti) / 1000).toFixed(1)} s`);
  const meta: DiskIndexMeta = {
    kind: "ann",
    fingerprint: fp,
    docCount: n,
    embedderId: embedder.id,
    ...(embedder.info ? { embedderInfo: { ...embedder.info } } : {}),
    dims,
    index: indexKind,
    numPartitions,
    nprobes: cfg.ann.nprobes,
    refineFactor: cfg.ann.refineFactor,
    ef: cfg.ann.ef,
    targetRecall: cfg.ann.targetRecall,
    unmatchable,
    buildSeconds: 0,
  };
  return { table, meta, built: true, sampleVectors };
}

/**
 * Step: the store's two searches. `annSearch`: the index (HNSW `ef` ≥ k, IVF `nprobes`, exact
 * re-ranking by `refineFactor` except on IVF-FLAT, whose distances are exact); `exactSearch`: a
 * flat scan. Both: cosine similarity as `score`, best first, ties by id, unmatchable docs left out.
 */
function annSearchers(table: LanceDb.Table, m: DiskIndexMeta, unmatchable: ReadonlySet<string>): { annSearch: AnnSearchFn; exactSearch: (vector: Float32Array, k: number) => Promise<VectorHit[]> } {
  const byScore = (a: VectorHit, b: VectorHit) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const annSearch: AnnSearchFn = async (vector, k, nprobes, refineFactor = m.refineFactor ?? 10) => {
    let q = table
      .vectorSearch(Array.from(vector))
      .distanceType("cosine")
      .select(["id", "_distance"])
      .limit(k + unmatchable.size);
    if (m.index === "hnsw_sq") q = q.ef(Math.max(m.ef ?? 150, k));
    else q = q.nprobes(nprobes);
    // IVF-FLAT scans full vectors in the probed partitions (distances already exact): no refine.
    if (m.index !== "ivf_flat" && refineFactor > 0) q = q.refineFactor(refineFactor);
    const rows = (await q.toArray()) as { id: string; _distance: number }[];
    return rows
      .map((r) => ({ id: String(r.id), score: 1 - r._distance }))
      .filter((h) => !unmatchable.has(h.id) && Number.isFinite(h.score))
      .sort(byScore)
      .slice(0, k);
  };
  const exactSearch = async (vector: Float32Array, k: number): Promise<VectorHit[]> => {
    const rows = (await table
      .vectorSearch(Array.from(vector))
      .distanceType("dot")
      .bypassVectorIndex()
      .select(["id", "_distance"])
      .limit(k + unmatchable.size)
      .toArray()) as { id: string; _distance: number }[];
    return rows
      .map((r) => ({ id: String(r.id), score: 1 - r._distance }))
      .filter((h) => !unmatchable.has(h.id))
      .sort(byScore)
      .slice(0, k);
  };
  return { annSearch, exactSearch };
}

/**
 * Step (after a build): recall@10 of the index vs exact search on the sample corpus vectors,
 * `nprobes` doubled (IVF only) until it reaches `targetRecall` or the partition count; recall,
 * nprobes, sample size and build time go into `m` and the `<table>_meta` row, then the build's
 * resume marker is dropped (a kill before this point resumes the build).
 *
 * Exact top-10 of every sample query come from ONE streamed pass over the table (a flat scan per
 * query cost ~1.3 s each at 100 k rows on this machine, ~100 × 13 s at 1 M). Each sample doc and
 * its exact duplicates (cosine ≥ 1 − 1e-5: itself, replicas, copies) are left out of its own
 * results — a self-match would make every query's top hit trivially right, and in a corpus with
 * many copies of one text the whole top 10 — so the check asks the index for the nearest OTHER
 * texts, as a real query does.
 */
async function tuneNprobes(
  db: LanceDb.Connection,
  table: LanceDb.Table,
  tableName: string,
  m: DiskIndexMeta,
  queries: readonly Float32Array[],
  unmatchable: ReadonlySet<string>,
  annSearch: AnnSearchFn,
  buildStart: number,
  log: (l: string) => void,
): Promise<void> {
  const { hits: exact, dropped } = await exactTopKScan(table, queries, 10, { skip: unmatchable, dropScoreAtLeast: DUPLICATE_COSINE });
  const recallAt = async (nprobes: number) => {
    let sum = 0;
    for (let i = 0; i < queries.length; i++) {
      const got = (await annSearch(queries[i], 10 + dropped[i], nprobes)).filter((h) => h.score < DUPLICATE_COSINE).slice(0, 10);
      sum += recallAtK(got, exact[i], 10);
    }
    return queries.length ? sum / queries.length : 1;
  };
  let nprobes = m.nprobes!;
  let recall = await recallAt(nprobes);
  while (m.index !== "hnsw_sq" && !reachesRecall(recall, m.targetRecall!) && nprobes < m.numPartitions!) {
    nprobes = Math.min(m.numPartitions!, nprobes * 2);
    recall = await recallAt(nprobes);
  }
  m.nprobes = nprobes;
  m.recallAt10 = recall;
  m.recallSample = queries.length;
  m.recallMethod = "duplicates-left-out";
  m.buildSeconds = (performance.now() - buildStart) / 1000;
  await writeMeta(db, tableName, m);
  if ((await db.tableNames()).includes(`${tableName}_build`)) await db.dropTable(`${tableName}_build`);
  log(
    `lance ann: ${m.index} recall@10 vs exact search = ${recall.toFixed(3)} on ${queries.length} corpus vectors as queries, their duplicates left out (nprobes ${nprobes}/${m.numPartitions}${m.index === "ivf_flat" ? ", exact distances" : `, refineFactor ${m.refineFactor}`}; target ${m.targetRecall})${reachesRecall(recall, m.targetRecall!) ? "" : " — BELOW TARGET"}`,
  );
}

/** What {@link buildAnnVectors} wrote. */
interface AnnVectors {
  table: LanceDb.Table;
  rows: number;
  unmatchable: string[];
  /** Vectors of the evenly spaced recall-sample docs (non-zero, matchable). */
  sampleVectors: Float32Array[];
}

/** Floats held between appends at most (8 Mi: 32 MB as Float32, a few times that as JS rows). */
const PENDING_FLOATS = 8 * 2 ** 20;

/**
 * Embed every doc of `source` into `<tableName>` (id + vector), the build step of
 * {@link openOrBuildLanceAnn}:
 * - batched and concurrent: each scan batch is cut into `ann.embedBatch` texts, up to
 *   `ann.concurrency` embedder calls in flight (an OpenAI-compatible endpoint, a TEI server);
 *   a failed call is retried `ann.retries` times with exponential backoff, then the build stops
 *   with the error (what was appended stays);
 * - resumable: appends follow the source's canonical order, one commit each, and a
 *   `<table>_build` row records the fingerprint and embedder; a rerun after a crash or a kill
 *   finds the table with R rows, skips the first R docs of the scan without embedding them and
 *   continues (a table from another corpus or embedder is replaced);
 * - bounded: pending rows are appended every `writeRows` rows or {@link PENDING_FLOATS} floats,
 *   and the appended fragments compacted every ~1 M rows (`./rolling-compaction.ts`: one final
 *   compaction of the whole table took the 24 M build from 1.6 to 4.1 GiB);
 * - progress: one line per append (docs, rate, ETA).
 */
async function buildAnnVectors(db: LanceDb.Connection, tableName: string, source: DocumentSource, embedder: Embedder, cfg: DiskIndexConfig, log: (l: string) => void, fp: string): Promise<AnnVectors> {
  const arrow = await import("apache-arrow");
  const dims = embedder.dims;
  const total = await source.count();
  if (total < 256) throw new Error(`lance ann: an IVF index needs at least 256 docs (the source has ${total}); use exact kNN (engine "memory")`);
  const marker = JSON.stringify({ fingerprint: fp, embedderId: embedder.id, dims, info: embedder.info ?? null });
  const names = new Set(await db.tableNames());
  let table: LanceDb.Table | null = null;
  let done = 0;
  if (cfg.mode !== "rebuild" && names.has(tableName) && names.has(`${tableName}_build`)) {
    const rows = (await (await db.openTable(`${tableName}_build`)).query().toArray()) as { json: string }[];
    if (rows[0]?.json === marker) {
      table = await db.openTable(tableName);
      done = await table.countRows();
      if (done > 0) log(`lance ann: resuming ${tableName}: ${done}/${total} docs already embedded`);
    }
  }
  if (!table) {
    const schema = new arrow.Schema([
      new arrow.Field("id", new arrow.Utf8(), false),
      new arrow.Field("vector", new arrow.FixedSizeList(dims, new arrow.Field("item", new arrow.Float32(), true)), false),
    ]);
    table = await db.createEmptyTable(tableName, schema, { mode: "overwrite" });
    await db.createTable(`${tableName}_build`, [{ json: marker }], { mode: "overwrite" });
  }
  const t = table;
  const unmatchable: string[] = [];
  const sampleN = Math.min(cfg.ann.sampleQueries, total);
  const samplePos = new Set(Array.from({ length: sampleN }, (_, i) => Math.floor((i * total) / sampleN)));
  const sampleIds: string[] = [];
  const { embedBatch, concurrency, retries } = cfg.ann;
  const embedWithRetry = async (texts: string[]): Promise<Float32Array[]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await embedder.embed(texts);
        if (out.length !== texts.length) throw new Error(`embedder ${embedder.id} returned ${out.length} vectors for ${texts.length} texts`);
        return out;
      } catch (err) {
        if (attempt >= retries) throw err;
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      }
    }
  };
  const maxPending = Math.max(1, Math.min(cfg.writeRows, Math.floor(PENDING_FLOATS / dims)));
  let ids: string[] = [];
  let vecs: Float32Array[] = [];
  const compactor = createRollingCompactor(t, cfg.compactEveryRows);
  const flush = async () => {
    if (ids.length === 0) return;
    // Plain rows (LanceDB converts them against the table schema).
    await t.add(ids.map((id, i) => ({ id, vector: Array.from(vecs[i]) })));
    await compactor.appended(ids.length);
    ids = [];
    vecs = [];
  };
  const t0 = performance.now();
  let n = 0;
  let embedded = 0;
  for await (const batch of source.scanDocs(cfg.scanBatch)) {
    const contents = batch.map(contentOf);
    batch.forEach((d, i) => {
      if (!hasAnalyzableTerm(contents[i])) unmatchable.push(d.id);
      else if (samplePos.has(n + i)) sampleIds.push(d.id);
    });
    // Docs already in the table (a resumed build) are not embedded again.
    const from = Math.min(batch.length, Math.max(0, done - n));
    const todo = contents.slice(from);
    const chunks: string[][] = [];
    for (let i = 0; i < todo.length; i += embedBatch) chunks.push(todo.slice(i, i + embedBatch));
    const out: Float32Array[] = [];
    for (let i = 0; i < chunks.length; i += concurrency) out.push(...(await Promise.all(chunks.slice(i, i + concurrency).map(embedWithRetry))).flat());
    for (let j = 0; j < out.length; j++) {
      const d = batch[from + j];
      if (out[j].length !== dims) throw new Error(`embedder ${embedder.id} returned a ${out[j].length}-d vector for doc ${d.id}, expected ${dims}`);
      ids.push(d.id);
      vecs.push(out[j]);
      if (ids.length >= maxPending) await flush();
    }
    n += batch.length;
    embedded += out.length;
    if (out.length) {
      const rate = embedded / Math.max(1e-3, (performance.now() - t0) / 1000);
      log(`lance ann: embedded ${n}/${total} docs (${Math.round(rate)} docs/s, ETA ${Math.round((total - n) / Math.max(rate, 1e-9))} s)`);
    }
  }
  await flush();
  await compactor.finish();
  // Sample vectors read back from the table (they may have been written by an earlier, resumed run).
  const sampleVectors: Float32Array[] = [];
  for (let i = 0; i < sampleIds.length; i += 500) {
    const chunk = sampleIds.slice(i, i + 500);
    const rows = (await t
      .query()
      .where(`id IN (${chunk.map((id) => `'${id.replace(/'/g, "''")}'`).join(", ")})`)
      .select(["id", "vector"])
      .toArray()) as { id: string; vector: { toArray(): Float32Array } }[];
    const byId = new Map(rows.map((r) => [String(r.id), Float32Array.from(r.vector.toArray())]));
    for (const id of chunk) {
      const v = byId.get(id);
      if (v && v.some((x) => x !== 0)) sampleVectors.push(v);
    }
  }
  return { table: t, rows: n, unmatchable, sampleVectors };
}

/** Cosine from which a corpus vector counts as a duplicate of a sample query in the build's recall check. */
export const DUPLICATE_COSINE = 1 - 1e-5;

export { exactTopKScan, type ExactScanOptions } from "./exact-scan.ts";
