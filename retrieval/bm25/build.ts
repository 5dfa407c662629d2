/**
 * Builds (or reloads from cache) a BM25 index with the engine chosen by config.
 *
 * Cache: `<cacheDir()>/bm25/<engine>-<contentHash[0..16]>-<configHash>` — a folder of array files
 * for the fast engine ({@link FastBm25.writeTo}: parts of ≤ 1 GiB, so the index may exceed 4 GiB),
 * a `.json` file for wink. The content hash is {@link corpusContentHash} of the docs, the config
 * hash covers params and analyzer id. An index is built only when no cache entry matches (new
 * content, params or analyzer). A cache entry that exists but cannot be read, or that disagrees
 * with the corpus, is an error naming the path (delete it to rebuild) — never a silent rebuild.
 * Writes are atomic (temp file or folder + rename).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { cacheDir } from "../../corpus/paths.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import { corpusContentHash, stableHash } from "../content-hash.ts";
import { buildFastBm25, readFastBm25, type FastBm25 } from "./fast-engine.ts";
import { buildWinkBm25, loadWinkBm25, WinkBm25 } from "./wink-engine.ts";
import { BM25_ENGINES, Bm25ParamsSchema, type Bm25Engine } from "./params.ts";

/** Config of {@link buildBm25}: engine choice + BM25 params + caching. */
export const Bm25ConfigSchema = Bm25ParamsSchema.extend({
  /** `fast` (typed-array engine, any size) or `wink` (wink-bm25-text-search, ≥ 3 docs). */
  engine: z.enum(BM25_ENGINES).default("fast"),
  /** Read/write the on-disk cache. */
  cache: z.boolean().default(true),
}).strict();
/** Input type of {@link Bm25ConfigSchema} (all keys optional). */
export type Bm25ConfigInput = z.input<typeof Bm25ConfigSchema>;
/** Parsed {@link Bm25ConfigSchema}. */
export type Bm25Config = z.infer<typeof Bm25ConfigSchema>;

/** What {@link buildBm25} did. */
export interface Bm25BuildResult {
  engine: Bm25Engine;
  contentHash: string;
  /** True when the index came from the cache file. */
  fromCache: boolean;
  /** Cache file path (null when caching is off). */
  cachePath: string | null;
  /** Wall time of build or load, ms. */
  ms: number;
}

/**
 * Builds a BM25 index over `docs`, or loads it from the cache when the corpus content hash, params
 * and analyzer match a cached index.
 * @param docs corpus documents (unique ids; ≥ 3 for engine "wink").
 * @param config partial {@link Bm25Config}: engine (default "fast"), k1 1.5, b 0.75, fieldWeights {title 1, text 1}, cache true.
 * @param opts `cacheRoot` (default `<cacheDir()>/bm25`), `analyzer` (default {@link defaultAnalyzer}),
 *   `partBytes` (largest array part file of the fast engine's cache; default 1 GiB).
 * @returns the engine (docs attached) and build facts.
 * @throws ZodError on unknown config keys; Error from the engine builders (duplicate ids, wink < 3 docs);
 *   Error naming the cache path when a cache entry exists but cannot be read or does not match the corpus.
 */
export function buildBm25(docs: readonly CorpusDoc[], config: Bm25ConfigInput = {}, opts: { cacheRoot?: string; analyzer?: Analyzer; partBytes?: number } = {}): Bm25BuildResult {
  const cfg = Bm25ConfigSchema.parse(config);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  const params = { k1: cfg.k1, b: cfg.b, fieldWeights: cfg.fieldWeights };
  const t0 = performance.now();
  const contentHash = corpusContentHash(docs);
  const root = opts.cacheRoot ?? join(cacheDir(), "bm25");
  const ext = cfg.engine === "fast" ? "" : ".json";
  const cachePath = cfg.cache ? join(root, `${cfg.engine}-${contentHash.slice(0, 16)}-${stableHash({ params, analyzer: analyzer.id, contentHash })}${ext}`) : null;
  if (cachePath && existsSync(cachePath)) {
    const engine = loadCached(cfg.engine, cachePath, analyzer);
    if (engine.info.contentHash !== contentHash || engine.info.docCount !== docs.length) {
      throw new Error(
        `buildBm25: cached index ${cachePath} holds ${engine.info.docCount} docs with content hash ${engine.info.contentHash}, but the corpus has ${docs.length} docs with hash ${contentHash}; delete it to rebuild`,
      );
    }
    engine.attachDocs(docs);
    return { engine, contentHash, fromCache: true, cachePath, ms: performance.now() - t0 };
  }
  const engine = cfg.engine === "fast" ? buildFastBm25(docs, params, { analyzer, contentHash }) : buildWinkBm25(docs, params, { analyzer, contentHash });
  if (cachePath) {
    mkdirSync(root, { recursive: true });
    const tmp = `${cachePath}.${process.pid}.tmp`;
    if (engine instanceof WinkBm25) writeFileSync(tmp, engine.exportJSON());
    else {
      rmSync(tmp, { recursive: true, force: true });
      (engine as FastBm25).writeTo(tmp, { partBytes: opts.partBytes });
    }
    try {
      renameSync(tmp, cachePath);
    } catch (e) {
      // Another process wrote the same entry first (a folder cannot be renamed over a full one): keep theirs.
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(cachePath)) throw e;
    }
  }
  return { engine, contentHash, fromCache: false, cachePath, ms: performance.now() - t0 };
}

/** Loads a cache entry; any failure becomes an error naming the path and how to recover. */
function loadCached(engine: "fast" | "wink", path: string, analyzer: Analyzer): Bm25Engine {
  try {
    return engine === "fast" ? readFastBm25(path, { analyzer }) : loadWinkBm25(readFileSync(path, "utf8"), { analyzer, source: path });
  } catch (e) {
    throw new Error(`buildBm25: the cached BM25 index ${path} cannot be read (${(e as Error).message}); delete it to rebuild`);
  }
}
