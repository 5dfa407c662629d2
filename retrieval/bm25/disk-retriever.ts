/**
 * The on-disk BM25 engine ({@link ./disk-engine.ts}) behind the retriever registry: its config
 * (`bm25Disk` of the retriever config) and {@link openOrBuildDiskBm25}, which opens the index of a
 * corpus or builds it from the corpus source, resuming an interrupted build.
 *
 * Index folder: `<dir>/<fingerprint[0..16]>-<hash of params + analyzer id>` (default `dir`:
 * `cacheDir()/bm25-disk`), so a corpus and a parameter set map to one index; the fingerprint is the
 * caller's (the registry's corpus fingerprint).
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { cacheDir } from "../../corpus/paths.ts";
import { defaultAnalyzer, type Analyzer } from "../analyzer.ts";
import { stableHash } from "../content-hash.ts";
import { DEFAULT_RUN_POSTINGS } from "./disk-build.ts";
import { buildDiskBm25, DEFAULT_PAGE_CACHE_MIB, openDiskBm25, readDiskManifest, type DiskBm25, type DocStream } from "./disk-engine.ts";
import { openDiskBm25Pool, searchThreads, type DiskBm25Pool } from "./disk-parallel.ts";
import { parseBm25Params, type Bm25Params } from "./params-core.ts";
import { mkdirSync, rmSync } from "node:fs";
import { withBuildLock } from "../../corpus/file-lock.ts";

/** Config of the on-disk BM25 engine (retriever config key `bm25Disk`; the engine runs with `engine: disk`). */
export const DiskBm25ConfigSchema = z
  .object({
    /** Local folder holding the indexes (default `cacheDir()/bm25-disk`). */
    dir: z.string().min(1).optional(),
    /** Page cache of the query process for postings and block records, MiB. */
    pageCacheMiB: z.number().positive().default(DEFAULT_PAGE_CACHE_MIB),
    /** Postings per sorted run of the build (build memory ≈ 17 bytes × this). */
    runPostings: z.number().int().positive().default(DEFAULT_RUN_POSTINGS),
    /**
     * Threads per query (intra-query parallelism, `disk-parallel.ts`; same hits and scores):
     * `auto` (default) = min(cores, 4) from 500,000 live documents on, else 1; or a number.
     */
    threads: z
      .custom<"auto" | number>((v) => v === "auto" || (typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 64), { error: 'expected "auto" or a whole number from 1 to 64' })
      .default("auto"),
    /**
     * How a query searches each segment (same hits and scores either way; `disk-engine.ts`'s
     * `DiskBm25Strategy`): `auto` (default: quantised term-at-a-time for long questions, block-max
     * MaxScore for short queries), `taat`, or `pruned`.
     */
    strategy: z.enum(["auto", "taat", "pruned"]).default("auto"),
    /** `open-or-build` (default; resumes an interrupted build), `rebuild`, or `open` (never builds). */
    mode: z.enum(["open-or-build", "rebuild", "open"]).default("open-or-build"),
  })
  .strict();
/** Input of {@link DiskBm25ConfigSchema}. */
export type DiskBm25ConfigInput = z.input<typeof DiskBm25ConfigSchema>;

/**
 * Opens the on-disk BM25 index of a corpus, or builds it by streaming `source`.
 * @param source the corpus (a `DocumentSource` such as the Lance store, read with `scanDocs`; or an array).
 * @param config {@link DiskBm25ConfigSchema} input.
 * @param opts `fingerprint` of the corpus (required: names the index), BM25 `params`, `analyzer`, `log`.
 * @returns the opened engine, and `pool` when queries run on several threads (`threads`; search
 *   through `pool.search`), `built` telling whether this call built the index.
 * @throws ZodError on a bad config; Error in mode `open` when no index exists, or from the build.
 */
export async function openOrBuildDiskBm25(
  source: DocStream,
  config: DiskBm25ConfigInput,
  opts: { fingerprint: string; params?: Partial<Bm25Params>; analyzer?: Analyzer; log?: (line: string) => void },
): Promise<{ engine: DiskBm25; pool: DiskBm25Pool | null; built: boolean; dir: string; seconds: number }> {
  const cfg = DiskBm25ConfigSchema.parse(config);
  const analyzer = opts.analyzer ?? defaultAnalyzer;
  const params = parseBm25Params(opts.params ?? {});
  const dir = join(cfg.dir ?? join(cacheDir(), "bm25-disk"), `${opts.fingerprint.slice(0, 16)}-${stableHash({ params, analyzer: analyzer.id })}`);
  const t0 = performance.now();
  let built = false;
  if (cfg.mode === "rebuild" || !readDiskManifest(dir)) {
    if (cfg.mode === "open") throw new Error(`bm25-disk: no built index in ${dir} (mode "open" never builds; use "open-or-build")`);
    // One process builds an index at a time: a second one waits, then opens what the first built.
    mkdirSync(dirname(dir), { recursive: true });
    built = await withBuildLock(
      `${dir}.lock`,
      "bm25-disk",
      dir,
      (l) => opts.log?.(l),
      async () => {
        if (cfg.mode === "rebuild") rmSync(dir, { recursive: true, force: true });
        else if (readDiskManifest(dir)) return false;
        opts.log?.(`bm25-disk: building ${dir}`);
        await buildDiskBm25(dir, source, { params, analyzer, runPostings: cfg.runPostings, log: opts.log });
        return true;
      },
    );
  }
  const threads = searchThreads(cfg.threads, readDiskManifest(dir)?.liveDocs ?? 0);
  const engine = openDiskBm25(dir, { analyzer, pageCacheMiB: cfg.pageCacheMiB / threads, strategy: cfg.strategy });
  const pool = threads > 1 ? await openDiskBm25Pool(engine, { threads, pageCacheMiB: cfg.pageCacheMiB, analyzerConfig: analyzer.config, log: opts.log }) : null;
  opts.log?.(`bm25-disk: ${engine.info.docCount} docs, ${pool?.threads ?? 1} thread(s) per query`);
  if (engine.info.segmentsWithoutImpacts > 0)
    opts.log?.(
      `bm25-disk: ${engine.info.segmentsWithoutImpacts} of ${engine.info.segments} segment(s) of ${dir} have no quantised impacts (built by an earlier medsynth): long questions run the slower pruned search there (same hits); rebuild the index (bm25Disk.mode "rebuild") to add them`,
    );
  return { engine, pool, built, dir, seconds: (performance.now() - t0) / 1000 };
}
