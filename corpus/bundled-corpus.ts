/**
 * The natural retrieval corpus that ships with medsynth: every real abstract in the bundled
 * datasets, deduplicated by PMID —
 * - PubMedQA PQA-L (1,000): `title` = the PubMedQA QUESTION (the file has no article title; the
 *   dataset's questions were written from the titles — a documented stand-in), `text` = the
 *   labelled sections plus "CONCLUSIONS: <LONG_ANSWER>" (option `includePubmedqaConclusion`);
 * - MedEvidence sources (329): real title + abstract;
 * - Cohen 2006 records with an abstract (2,014 records, 2,011 unique PMIDs): real title + abstract.
 * On the bundled data: 3,340 unique documents.
 *
 * Source files come through the dataset registry (pulled on first use; `dataDir` overrides with a
 * folder laid out like the registry). Loading takes ~0.2 s; with `cache: true` the result is stored in `cacheDir()` as JSON keyed by
 * a SHA-256 of the source files' bytes and the options, and reused while they are unchanged.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { cacheDir } from "./paths.ts";
import { dataFilePath, dataFolderPath } from "./datasets/loaded-dataset.ts";
import { CorpusDocSchema, type CorpusDoc } from "./types.ts";
import { loadPubmedqa, pubmedqaTaskToDoc } from "./datasets/pubmedqa.ts";
import { loadMedEvidence } from "./datasets/medevidence.ts";
import { loadCohen2006 } from "./datasets/cohen2006.ts";

/** Sources the bundled corpus draws from, in priority order (first one wins a duplicate PMID). */
export const BUNDLED_CORPUS_SOURCES = ["pubmedqa", "medevidence", "cohen2006"] as const;
/** One source of the bundled corpus. */
export type BundledCorpusSource = (typeof BUNDLED_CORPUS_SOURCES)[number];

/** Options of {@link loadBundledCorpus}. */
export const BundledCorpusOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    sources: z
      .array(z.enum(BUNDLED_CORPUS_SOURCES))
      .min(1)
      .default([...BUNDLED_CORPUS_SOURCES]),
    /** Keep the PubMedQA conclusion in the document text (leaks the MedConclusion reference if the same items are generation targets). */
    includePubmedqaConclusion: z.boolean().default(true),
    /** Read/write a JSON cache in `cacheDir` (see module doc). */
    cache: z.boolean().default(false),
    cacheDir: z.string().optional(),
  })
  .strict();
/** Options of {@link loadBundledCorpus}. */
export type BundledCorpusOptions = z.input<typeof BundledCorpusOptionsSchema>;

/** Counts describing a loaded bundled corpus. */
export interface BundledCorpusStats {
  /** Unique documents returned. */
  total: number;
  /** Documents kept per source ("pubmedqa", "medevidence", "cohen2006"). */
  bySource: Record<string, number>;
  /** Candidate documents dropped because their PMID was already present. */
  duplicatesDropped: number;
  /** Wall time of this call in ms. */
  loadMs: number;
  /** True when the documents came from the cache. */
  fromCache: boolean;
  /** SHA-256 (hex) of the source bytes + options; the cache key. */
  contentHash: string;
}

const CACHE_VERSION = "bundled-corpus-v1";

/** The source files as [registry-relative name, absolute path] (pulled through the dataset registry unless `dataDir` is given). */
async function sourceFiles(dataDir: string | undefined, sources: readonly BundledCorpusSource[]): Promise<Array<[string, string]>> {
  const files: Array<[string, string]> = [];
  for (const rel of ["pubmedqa/ori_pqal.json", "pubmedqa/test_ground_truth.json"]) if (sources.includes("pubmedqa")) files.push([`/${rel}`, await dataFilePath(dataDir, rel)]);
  if (sources.includes("medevidence")) files.push(["/medevidence/med-evidence-abstract.jsonl", await dataFilePath(dataDir, "medevidence/med-evidence-abstract.jsonl")]);
  if (sources.includes("cohen2006")) {
    const dir = await dataFolderPath(dataDir, "cohen2006");
    if (existsSync(dir))
      for (const f of readdirSync(dir)
        .filter((f) => f.endsWith(".csv"))
        .sort())
        files.push([`/cohen2006/${f}`, join(dir, f)]);
  }
  return files;
}

/**
 * Load the bundled abstract corpus.
 * @returns `{docs, stats}`: docs in source order (PubMedQA, MedEvidence, Cohen 2006), each with
 *   `source` set ("pubmedqa", "medevidence", "cohen2006:<Topic>").
 * @throws Error naming a missing source file.
 */
export async function loadBundledCorpus(options: BundledCorpusOptions = {}): Promise<{ docs: CorpusDoc[]; stats: BundledCorpusStats }> {
  const t0 = performance.now();
  const opts = BundledCorpusOptionsSchema.parse(options);
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : undefined;
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ v: CACHE_VERSION, sources: opts.sources, includePubmedqaConclusion: opts.includePubmedqaConclusion }));
  for (const [rel, f] of await sourceFiles(dataDir, opts.sources)) {
    if (!existsSync(f)) throw new Error(`bundled corpus: source file not found: ${f} (check the dataDir option)`);
    hash.update(rel);
    hash.update(readFileSync(f));
  }
  const contentHash = hash.digest("hex");
  const cachePath = join(opts.cacheDir ?? cacheDir(), `bundled-corpus-${contentHash.slice(0, 16)}.json`);
  if (opts.cache && existsSync(cachePath)) {
    const cached = JSON.parse(readFileSync(cachePath, "utf8")) as { contentHash: string; docs: CorpusDoc[]; bySource: Record<string, number>; duplicatesDropped: number };
    if (cached.contentHash === contentHash) {
      return {
        docs: cached.docs,
        stats: { total: cached.docs.length, bySource: cached.bySource, duplicatesDropped: cached.duplicatesDropped, loadMs: performance.now() - t0, fromCache: true, contentHash },
      };
    }
  }
  const byId = new Map<string, CorpusDoc>();
  const bySource: Record<string, number> = {};
  let duplicatesDropped = 0;
  const add = (source: string, docs: CorpusDoc[]) => {
    for (const d of docs) {
      if (byId.has(d.id)) {
        duplicatesDropped += 1;
        continue;
      }
      byId.set(d.id, CorpusDocSchema.parse(d));
      bySource[source] = (bySource[source] ?? 0) + 1;
    }
  };
  for (const source of BUNDLED_CORPUS_SOURCES) {
    if (!opts.sources.includes(source)) continue;
    if (source === "pubmedqa")
      add(
        source,
        (await loadPubmedqa({ dataDir })).items.map((t) => pubmedqaTaskToDoc(t, opts.includePubmedqaConclusion)),
      );
    if (source === "medevidence") add(source, (await loadMedEvidence({ dataDir })).docs ?? []);
    if (source === "cohen2006") {
      const loaded = await loadCohen2006({ dataDir });
      // The loader keeps one doc per PMID; records repeated across topics count as duplicates here too.
      const withAbstract = loaded.items.reduce((n, t) => n + Number(t.meta?.withAbstract ?? 0), 0);
      duplicatesDropped += withAbstract - (loaded.docs?.length ?? 0);
      add(source, loaded.docs ?? []);
    }
  }
  const docs = [...byId.values()];
  if (opts.cache) {
    mkdirSync(opts.cacheDir ?? cacheDir(), { recursive: true });
    writeFileSync(cachePath, JSON.stringify({ contentHash, docs, bySource, duplicatesDropped }));
  }
  return { docs, stats: { total: docs.length, bySource, duplicatesDropped, loadMs: performance.now() - t0, fromCache: false, contentHash } };
}
