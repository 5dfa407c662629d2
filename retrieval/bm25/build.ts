/**
 * Builds (or reloads from cache) a BM25 index with the engine chosen by config.
 *
 * Cache: `<cacheDir()>/bm25/<engine>-<contentHash[0..16]>-<configHash>.{bin|json}`; the content hash
 * is {@link corpusContentHash} of the docs, the config hash covers params and analyzer id. An index is
 * rebuilt only when no file matches (new content, params or analyzer); a file that fails to load
 * is rebuilt and overwritten. Writes are atomic (temp file + rename).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { cacheDir } from "../../corpus/paths.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import { corpusContentHash, stableHash } from "../content-hash.ts";
import { buildFastBm25, loadFastBm25 } from "./fast-engine.ts";
import { buildWinkBm25, loadWinkBm25 } from "./wink-engine.ts";
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
 * @param opts `cacheRoot` (default `<cacheDir()>/bm25`), `analyzer` (default {@link defaultAnalyzer}).
 * @returns the engine (docs attached) and build facts.
 * @throws ZodError on unknown config keys; Error from the engine builders (duplicate ids, wink < 3 docs).
 */
export function buildBm25(
  docs: readonly CorpusDoc[],
  config: Bm25ConfigInput = {},
  opts: { cacheRoot?: string; analyzer?: Analyzer } = {},
): Bm25BuildResult {
  const cfg = Bm25ConfigSchema.parse(config);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  const params = { k1: cfg.k1, b: cfg.b, fieldWeights: cfg.fieldWeights };
  const t0 = performance.now();
  const contentHash = corpusContentHash(docs);
  const root = opts.cacheRoot ?? join(cacheDir(), "bm25");
  const ext = cfg.engine === "fast" ? "bin" : "json";
  const cachePath = cfg.cache
    ? join(root, `${cfg.engine}-${contentHash.slice(0, 16)}-${stableHash({ params, analyzer: analyzer.id, contentHash })}.${ext}`)
    : null;
  if (cachePath && existsSync(cachePath)) {
    try {
      const engine =
        cfg.engine === "fast"
          ? loadFastBm25(readFileSync(cachePath), { analyzer, source: cachePath })
          : loadWinkBm25(readFileSync(cachePath, "utf8"), { analyzer, source: cachePath });
      if (engine.info.contentHash === contentHash && engine.info.docCount === docs.length) {
        engine.attachDocs(docs);
        return { engine, contentHash, fromCache: true, cachePath, ms: performance.now() - t0 };
      }
    } catch {
      // Unreadable or stale cache file: rebuilt and overwritten below.
    }
  }
  const engine =
    cfg.engine === "fast"
      ? buildFastBm25(docs, params, { analyzer, contentHash })
      : buildWinkBm25(docs, params, { analyzer, contentHash });
  if (cachePath) {
    mkdirSync(root, { recursive: true });
    const tmp = `${cachePath}.${process.pid}.tmp`;
    const data = engine.info.engine === "fast" ? (engine as ReturnType<typeof buildFastBm25>).toBuffer() : (engine as ReturnType<typeof buildWinkBm25>).exportJSON();
    writeFileSync(tmp, data);
    renameSync(tmp, cachePath);
  }
  return { engine, contentHash, fromCache: false, cachePath, ms: performance.now() - t0 };
}
