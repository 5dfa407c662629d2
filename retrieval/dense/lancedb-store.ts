/**
 * Dense vector store on LanceDB: one table per (corpus content hash, embedder id), both recorded
 * in the table's Arrow schema metadata and checked on every open — an existing table built with
 * another embedder or corpus is refused with a clear error, never silently reused.
 *
 * Rows: `id` (doc id), `content` (title + "\n" + text, the embedded and full-text-indexed text),
 * `vector` (FixedSizeList<Float32>[dims], L2-normalised by the embedder). Search uses LanceDB's
 * `dot` distance (= 1 − dot product), so `score = 1 − _distance` is the cosine similarity for
 * normalised vectors (a zero vector scores 0 instead of being dropped as with `cosine`). ANN
 * indexes are trained with `cosine` distance (an SQ-quantised HNSW on `dot` was measured to rank
 * wrongly: recall@10 0.02) and their hits are re-scored exactly from the stored vectors.
 *
 * Exact kNN (flat scan) is the default: at 20k × 100-d it answers in ~15 ms, and ANN indexes lose
 * recall at these sizes (STACK.md: IVF_PQ defaults recall@10 0.71; HNSW_SQ ef 100 ≈ 0.98). An
 * optional `hnsw_sq` or `ivf_pq` index is built on request; its recall@10 against exact search is
 * measured on up to 100 corpus vectors used as queries, printed through `log`, stored in a
 * side-car `<table>.ann.json` and exposed as `annRecallAt10`.
 */
import "../lance-env.ts"; // sets LANCE_CPU_THREADS before LanceDB loads
import type * as LanceDb from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { cacheDir } from "../../corpus/paths.ts";
import { corpusContentHash } from "../content-hash.ts";
import { analyze } from "../analyzer.ts";
import type { Embedder } from "../types.ts";

/** Rows per LanceDB append when building a table (embedding batches are gathered up to this). */
export const WRITE_ROWS = 16_384;

/** Schema-metadata keys written on every table. */
export const LANCE_META = {
  embedderId: "medsynth.embedder_id",
  /** JSON of the embedder's `info` (model id, revision, pooling, …) when it has one. */
  embedderInfo: "medsynth.embedder_info",
  corpusHash: "medsynth.corpus_hash",
  dims: "medsynth.dims",
  docCount: "medsynth.doc_count",
  content: "medsynth.content",
  /** JSON array of the ids of docs with no analyzable term (see `unmatchableDocIds`), so a reopen need not re-analyse the corpus. */
  unmatchable: "medsynth.unmatchable_ids",
} as const;

/** What is embedded per doc (recorded in metadata). */
export const CONTENT_RECIPE = "title\\ntext";

/** Config of the dense store. */
export const LanceStoreConfigSchema = z
  .object({
    /** LanceDB database folder (default `cacheDir()/lancedb`). */
    dir: z.string().optional(),
    /** Table name; default `dense_<corpus hash 16>_<sanitised embedder id>`. */
    tableName: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/)
      .optional(),
    /** `none` = exact kNN (default); `hnsw_sq` / `ivf_pq` build an ANN index and measure its recall@10. */
    index: z.enum(["none", "hnsw_sq", "ivf_pq"]).default("none"),
    /** HNSW search breadth `ef` (query time). */
    ef: z.number().int().positive().default(100),
    /** IVF partitions probed per query. */
    nprobes: z.number().int().positive().default(16),
    /** IVF_PQ: re-rank `refineFactor × k` candidates with exact distances. */
    refineFactor: z.number().int().positive().default(5),
    /** Texts per embedder call while building. */
    batchSize: z.number().int().positive().default(256),
    /**
     * Exact search backend: `memory` (default) scans the table's vectors, loaded once into a
     * Float32Array, with a dot product per doc (vectors are L2-normalised, so dot = cosine; same
     * ranking as LanceDB's flat search, ~10× faster at 25k × 100 dims); `lancedb` runs LanceDB's
     * own flat scan (no vectors held in memory — for very large tables).
     */
    exactBackend: z.enum(["memory", "lancedb"]).default("memory"),
    /** `open-or-build` (default) or `rebuild` (drop and rebuild the table). */
    mode: z.enum(["open-or-build", "rebuild"]).default("open-or-build"),
  })
  .strict();
/** What a caller may pass for {@link LanceStoreConfigSchema} (keys with defaults are optional). */
export type LanceStoreConfig = z.input<typeof LanceStoreConfigSchema>;
/** {@link LanceStoreConfig} with defaults applied. */
type LanceStoreConfigParsed = z.output<typeof LanceStoreConfigSchema>;

/** One nearest neighbour: `score` is the cosine similarity (higher = closer). */
export interface VectorHit {
  id: string;
  score: number;
}

/** An opened dense table. */
export interface DenseStore {
  readonly table: LanceDb.Table;
  readonly tableName: string;
  readonly dir: string;
  readonly embedderId: string;
  readonly corpusHash: string;
  readonly dims: number;
  readonly docCount: number;
  /** True when the table was built by this call (false: opened an existing one). */
  readonly built: boolean;
  /** Kind of ANN index on `vector`, or `none`. */
  readonly index: "none" | "hnsw_sq" | "ivf_pq" | "ivf_flat";
  /** Measured recall@10 of the ANN index vs exact search (null without index or when unknown). */
  readonly annRecallAt10: number | null;
  /**
   * Ids of docs with no analyzable term (never matched by dense search), recorded in the table
   * metadata at build; absent for tables built before it was recorded (callers then compute it).
   */
  readonly unmatchable?: ReadonlySet<string>;
  /**
   * k nearest docs to `vector` (cosine), best first; ties broken by id. `exact` forces a flat scan
   * even when an ANN index exists.
   */
  search(vector: Float32Array, k: number, opts?: { exact?: boolean }): Promise<VectorHit[]>;
}

/** Options of {@link openOrBuildDenseStore}. */
export interface DenseStoreOptions {
  /** Progress/info lines (default: console.error). */
  log?: (line: string) => void;
  /** {@link corpusContentHash} of `docs` when the caller has it (saves hashing the corpus again). */
  corpusHash?: string;
}

/** Ids of docs with no analyzable term in title + text (same rule as `unmatchableDocIds` of dense-retriever.ts). */
function unmatchableIds(docs: readonly CorpusDoc[]): Set<string> {
  return new Set(docs.filter((d) => analyze(docContent(d)).length === 0).map((d) => d.id));
}

/** Default table name for a (corpus hash, embedder id) pair. */
export function denseTableName(corpusHash: string, embedderId: string): string {
  return `dense_${corpusHash.slice(0, 16)}_${embedderId.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_|_$/g, "")}`;
}

/** Text embedded and full-text indexed for one doc. */
export function docContent(doc: Pick<CorpusDoc, "title" | "text">): string {
  return doc.title ? `${doc.title}\n${doc.text}` : doc.text;
}

/**
 * Import LanceDB on first use (~200 ms with apache-arrow), so that importing this module (and the
 * retrieval registry) costs nothing until a dense table is opened.
 */
export async function loadLanceDb(): Promise<typeof LanceDb> {
  process.env.LANCEDB_LOG ??= "error"; // routine notices ("No existing dataset …") stay off stderr
  return import("@lancedb/lancedb");
}

async function vectorSchema(dims: number, meta: Map<string, string>): Promise<Schema> {
  const { Field, FixedSizeList, Float32, Schema, Utf8 } = await import("apache-arrow");
  return new Schema([new Field("id", new Utf8(), false), new Field("content", new Utf8(), false), new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false)], meta);
}

function sidecarPath(dir: string, tableName: string): string {
  return join(dir, `${tableName}.ann.json`);
}

/**
 * Open the table for (docs, embedder) or build it (embedding every doc in batches).
 *
 * @param docs the corpus; its {@link corpusContentHash} keys the table. Ids must be unique.
 * @param embedder produces the vectors (its `id` and `dims` are recorded).
 * @param config {@link LanceStoreConfigSchema}.
 * @returns the opened {@link DenseStore}.
 * @throws when the existing table was built with another embedder id, corpus hash or
 *   dimensionality (message names the table, both values and how to fix it), when an embedder
 *   returns a vector of the wrong length, or on an invalid config.
 */
export async function openOrBuildDenseStore(docs: readonly CorpusDoc[], embedder: Embedder, config: LanceStoreConfig = {}, opts: DenseStoreOptions = {}): Promise<DenseStore> {
  const cfg = LanceStoreConfigSchema.parse(config);
  const log = opts.log ?? ((l: string) => console.error(l));
  const dir = cfg.dir ?? join(cacheDir(), "lancedb");
  const corpusHash = opts.corpusHash ?? corpusContentHash(docs);
  const tableName = cfg.tableName ?? denseTableName(corpusHash, embedder.id);
  const lancedb = await loadLanceDb();
  const db = await lancedb.connect(dir);
  const names = await db.tableNames();
  const reuse = names.includes(tableName) && cfg.mode === "open-or-build";
  const { table, built, unmatchable } = reuse
    ? await openCheckedTable(db, tableName, dir, embedder, corpusHash, docs.length)
    : await buildDenseTable(db, tableName, docs, embedder, corpusHash, cfg.batchSize, log);
  const ann = await ensureAnnIndex(lancedb, table, tableName, dir, cfg, built, docs.length, embedder.dims, log);
  const index = ann.index;
  let annRecallAt10 = ann.annRecallAt10;
  const search = denseSearch(table, tableName, index, cfg);
  if (index !== "none" && annRecallAt10 === null) {
    annRecallAt10 = await measureAnnRecall(table, docs.length, search);
    writeFileSync(sidecarPath(dir, tableName), JSON.stringify({ index, recallAt10: annRecallAt10, measuredOn: Math.min(100, docs.length) }));
    log(`dense index: ${index} recall@10 vs exact search = ${annRecallAt10.toFixed(3)} (on ${Math.min(100, docs.length)} corpus vectors as queries)`);
  }
  return {
    table,
    tableName,
    dir,
    embedderId: embedder.id,
    corpusHash,
    dims: embedder.dims,
    docCount: docs.length,
    built,
    index,
    annRecallAt10,
    ...(unmatchable ? { unmatchable } : {}),
    search,
  };
}

/** A table opened or built by {@link openOrBuildDenseStore}'s first step. */
interface DenseTable {
  table: LanceDb.Table;
  built: boolean;
  unmatchable: Set<string> | undefined;
}

/**
 * Step: open an existing table and check it was built from this corpus with this embedder.
 * @throws naming the table when the embedder id, corpus hash, dims or embedder settings differ.
 */
async function openCheckedTable(db: LanceDb.Connection, tableName: string, dir: string, embedder: Embedder, corpusHash: string, docCount: number): Promise<DenseTable> {
  const table = await db.openTable(tableName);
  let unmatchable: Set<string> | undefined;
  const meta = (await table.schema()).metadata;
  const gotEmb = meta.get(LANCE_META.embedderId);
  const gotHash = meta.get(LANCE_META.corpusHash);
  const gotDims = Number(meta.get(LANCE_META.dims));
  const where = `LanceDB table ${JSON.stringify(tableName)} in ${dir}`;
  if (gotEmb !== embedder.id) {
    throw new Error(`${where} was built with embedder ${JSON.stringify(gotEmb ?? null)}, not the requested ${JSON.stringify(embedder.id)}; use another table name or mode "rebuild"`);
  }
  if (gotHash !== corpusHash) {
    throw new Error(`${where} was built from corpus ${gotHash ?? "(unknown)"}, not the requested corpus ${corpusHash} (${docCount} docs); use another table name or mode "rebuild"`);
  }
  if (gotDims !== embedder.dims) {
    throw new Error(`${where} holds ${gotDims}-d vectors but embedder ${embedder.id} gives ${embedder.dims}-d; use mode "rebuild"`);
  }
  const un = meta.get(LANCE_META.unmatchable);
  if (un !== undefined) unmatchable = new Set(JSON.parse(un) as string[]);
  const gotInfo = meta.get(LANCE_META.embedderInfo);
  const wantInfo = embedder.info ? JSON.stringify(embedder.info) : undefined;
  if (gotInfo !== undefined && wantInfo !== undefined && gotInfo !== wantInfo) {
    throw new Error(`${where} was built with embedder settings ${gotInfo}, not ${wantInfo}; use another table name or mode "rebuild"`);
  }
  return { table, built: false, unmatchable };
}

/**
 * Step: build (overwrite) the table, embedding every doc in batches of `batchSize`; rows go to
 * LanceDB in large appends (one fragment and one version each), then compacted.
 * @throws on a duplicate doc id or an embedder answer of the wrong count or length.
 */
async function buildDenseTable(
  db: LanceDb.Connection,
  tableName: string,
  docs: readonly CorpusDoc[],
  embedder: Embedder,
  corpusHash: string,
  batchSize: number,
  log: (l: string) => void,
): Promise<DenseTable> {
  const ids = new Set<string>();
  for (const [i, d] of docs.entries()) {
    if (ids.has(d.id)) throw new Error(`dense store: duplicate doc id ${JSON.stringify(d.id)} at position ${i}`);
    ids.add(d.id);
  }
  const unmatchable = unmatchableIds(docs);
  const meta = new Map<string, string>([
    [LANCE_META.embedderId, embedder.id],
    [LANCE_META.corpusHash, corpusHash],
    [LANCE_META.dims, String(embedder.dims)],
    [LANCE_META.docCount, String(docs.length)],
    [LANCE_META.content, CONTENT_RECIPE],
    [LANCE_META.unmatchable, JSON.stringify([...unmatchable])],
    ...(embedder.info ? [[LANCE_META.embedderInfo, JSON.stringify(embedder.info)] as [string, string]] : []),
  ]);
  const schema = await vectorSchema(embedder.dims, meta);
  const t0 = Date.now();
  const table = await db.createEmptyTable(tableName, schema, { mode: "overwrite" });
  let pending: { id: string; content: string; vector: number[] }[] = [];
  for (let s = 0; s < docs.length; s += batchSize) {
    const batch = docs.slice(s, s + batchSize);
    const contents = batch.map(docContent);
    const vecs = await embedder.embed(contents);
    if (vecs.length !== batch.length) throw new Error(`embedder ${embedder.id} returned ${vecs.length} vectors for ${batch.length} texts`);
    const rows = batch.map((d, i) => {
      if (vecs[i].length !== embedder.dims) throw new Error(`embedder ${embedder.id} returned a ${vecs[i].length}-d vector for doc ${d.id}, expected ${embedder.dims}`);
      return { id: d.id, content: contents[i], vector: Array.from(vecs[i]) };
    });
    pending.push(...rows);
    if (pending.length >= WRITE_ROWS) {
      await table.add(pending);
      pending = [];
    }
    if (docs.length > 5 * batchSize && (s / batchSize) % 10 === 0) log(`dense index: embedded ${Math.min(s + batchSize, docs.length)}/${docs.length}`);
  }
  if (pending.length) await table.add(pending);
  await table.optimize();
  log(`dense index: built table ${tableName} (${docs.length} docs, ${embedder.id}, ${embedder.dims}-d) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { table, built: true, unmatchable };
}

/**
 * Step: make the table's ANN index match `cfg.index` — build it (new table or none yet), or
 * reuse it with the recall@10 recorded in its sidecar (null when none: measured afterwards).
 * @throws when an index is asked for fewer than 256 docs.
 */
async function ensureAnnIndex(
  lancedb: typeof LanceDb,
  table: LanceDb.Table,
  tableName: string,
  dir: string,
  cfg: LanceStoreConfigParsed,
  built: boolean,
  docCount: number,
  dims: number,
  log: (l: string) => void,
): Promise<{ index: DenseStore["index"]; annRecallAt10: number | null }> {
  let annRecallAt10: number | null = null;
  const indices = await table.listIndices();
  const hasVectorIndex = indices.some((i) => i.columns.includes("vector"));
  let index: DenseStore["index"] = "none";
  if (cfg.index !== "none") {
    if (!hasVectorIndex || built) {
      if (docCount < 256) throw new Error(`dense store: an ${cfg.index} index needs at least 256 docs (have ${docCount}); use index "none" (exact search)`);
      const t0 = Date.now();
      const idx =
        cfg.index === "hnsw_sq"
          ? lancedb.Index.hnswSq({ distanceType: "cosine" })
          : lancedb.Index.ivfPq({ distanceType: "cosine", numPartitions: Math.max(1, Math.round(Math.sqrt(docCount))), numSubVectors: Math.max(1, Math.floor(dims / 4)) });
      await table.createIndex("vector", { config: idx, replace: true });
      index = cfg.index;
      log(`dense index: built ${cfg.index} on ${tableName} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } else {
      index = cfg.index;
      const side = sidecarPath(dir, tableName);
      if (existsSync(side)) {
        try {
          const j = JSON.parse(readFileSync(side, "utf8"));
          if (j.index === cfg.index && typeof j.recallAt10 === "number") annRecallAt10 = j.recallAt10;
        } catch {
          /* re-measured below */
        }
      }
    }
  } else if (hasVectorIndex) {
    log(`dense index: table ${tableName} has an ANN index but index "none" was requested; searching exactly`);
  }
  return { index, annRecallAt10 };
}

/**
 * All vectors of the table in one row-major matrix, read on first call straight from the Arrow
 * batches: the FixedSizeList's child is one Float32Array per batch (row objects cost ~2 s at
 * 25 k docs under load; this is a copy of 10 MB).
 */
function memoryLoader(table: LanceDb.Table, tableName: string): () => Promise<{ ids: string[]; matrix: Float32Array; dims: number }> {
  let memory: Promise<{ ids: string[]; matrix: Float32Array; dims: number }> | null = null;
  return () =>
    (memory ??= (async () => {
      const ids: string[] = [];
      const parts: Float32Array[] = [];
      let dims = 0;
      for await (const batch of table.query().select(["id", "vector"])) {
        const idCol = batch.getChild("id")!;
        const vecCol = batch.getChild("vector")!;
        for (let i = 0; i < batch.numRows; i++) ids.push(String(idCol.get(i)));
        for (const d of vecCol.data) {
          const size = (d.type as { listSize: number }).listSize;
          dims = size;
          const child = d.children[0];
          const values = child.values as Float32Array;
          parts.push(values.subarray((child.offset ?? 0) + d.offset * size, (child.offset ?? 0) + (d.offset + d.length) * size));
        }
      }
      const matrix = new Float32Array(ids.length * dims);
      let off = 0;
      for (const p of parts) {
        matrix.set(p, off);
        off += p.length;
      }
      if (off !== matrix.length) throw new Error(`dense store ${tableName}: read ${off} floats for ${ids.length} × ${dims} vectors`);
      return { ids, matrix, dims };
    })());
}

/** Step: the store's `search` — exact (in memory or a LanceDB flat scan) or ANN re-scored exactly; best first, ties by id. */
function denseSearch(table: LanceDb.Table, tableName: string, index: DenseStore["index"], cfg: LanceStoreConfigParsed): DenseStore["search"] {
  const loadMemory = memoryLoader(table, tableName);
  return async (vector: Float32Array, k: number, sopts: { exact?: boolean } = {}): Promise<VectorHit[]> => {
    if (k <= 0) return [];
    const byScore = (a: VectorHit, b: VectorHit) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    if ((index === "none" || sopts.exact) && cfg.exactBackend === "memory") {
      const { ids, matrix, dims } = await loadMemory();
      return topKByDot(vector, matrix, dims, ids, k).sort(byScore);
    }
    if (index === "none" || sopts.exact) {
      const q = table.vectorSearch(Array.from(vector)).distanceType("dot").bypassVectorIndex().select(["id", "_distance"]).limit(k);
      const rows = (await q.toArray()) as { id: string; _distance: number }[];
      return rows.map((r) => ({ id: String(r.id), score: 1 - r._distance })).sort(byScore);
    }
    // ANN: the index is trained on cosine (an SQ-quantised "dot" HNSW index ranks wrongly);
    // its distances are approximate, so hits are re-scored exactly from the stored vectors.
    let q = table.vectorSearch(Array.from(vector)).distanceType("cosine").select(["id", "vector", "_distance"]).limit(k);
    q = index === "hnsw_sq" ? q.ef(Math.max(cfg.ef, k)) : q.nprobes(cfg.nprobes).refineFactor(cfg.refineFactor);
    const rows = (await q.toArray()) as { id: string; vector: ArrayLike<number> & { toArray?: () => Float32Array } }[];
    return rows
      .map((r) => {
        const v = r.vector.toArray ? r.vector.toArray() : r.vector;
        let d = 0;
        for (let i = 0; i < vector.length; i++) d += vector[i] * v[i];
        return { id: String(r.id), score: d };
      })
      .sort(byScore);
  };
}

/**
 * Recall@10 of the ANN index against exact search, averaged over up to 100 stored vectors
 * (evenly spaced rows) used as queries.
 */
async function measureAnnRecall(table: LanceDb.Table, n: number, search: (v: Float32Array, k: number, o?: { exact?: boolean }) => Promise<VectorHit[]>): Promise<number> {
  const m = Math.min(100, n);
  const step = n / m;
  const rows = (await table.query().select(["id", "vector"]).toArray()) as { id: string; vector: { toArray(): Float32Array } | number[] }[];
  let sum = 0;
  for (let i = 0; i < m; i++) {
    const row = rows[Math.floor(i * step)];
    const v = Array.isArray(row.vector) ? Float32Array.from(row.vector) : Float32Array.from(row.vector.toArray());
    const exact = new Set((await search(v, 10, { exact: true })).map((h) => h.id));
    const ann = await search(v, 10);
    sum += ann.filter((h) => exact.has(h.id)).length / Math.max(1, exact.size);
  }
  return sum / m;
}

/**
 * Exact top-k of `ids` by dot product of `query` with each row of `matrix` (row-major, `dims`
 * columns); ties broken by id. O(n·dims + n·log k) with a bounded insertion buffer.
 */
export function topKByDot(query: Float32Array, matrix: Float32Array, dims: number, ids: readonly string[], k: number): VectorHit[] {
  const n = ids.length;
  const want = Math.min(k, n);
  const topScore = new Float64Array(want);
  const topIdx = new Int32Array(want);
  let size = 0;
  const better = (s: number, i: number, j: number) => s > topScore[j] || (s === topScore[j] && ids[i] < ids[topIdx[j]]);
  for (let i = 0; i < n; i++) {
    let d = 0;
    const off = i * dims;
    for (let j = 0; j < dims; j++) d += query[j] * matrix[off + j];
    // Insert into the sorted buffer: append while it fills, else replace the worst when better.
    let p: number;
    if (size < want) p = size++;
    else if (want > 0 && better(d, i, want - 1)) p = want - 1;
    else continue;
    while (p > 0 && better(d, i, p - 1)) {
      topScore[p] = topScore[p - 1];
      topIdx[p] = topIdx[p - 1];
      p--;
    }
    topScore[p] = d;
    topIdx[p] = i;
  }
  const out: VectorHit[] = [];
  for (let p = 0; p < size; p++) out.push({ id: ids[topIdx[p]], score: topScore[p] });
  return out;
}
