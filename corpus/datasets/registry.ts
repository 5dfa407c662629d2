/**
 * Registry of dataset loaders: name → loader, with a short description and task kind.
 * Explicit imports only (no discovery by side effect).
 */
import type { z } from "zod";
import type { DatasetTaskKind, LoadedDataset } from "./loaded-dataset.ts";
import { PubmedqaOptionsSchema, loadPubmedqa } from "./pubmedqa.ts";
import { MedMetaOptionsSchema, loadMedMeta } from "./medmeta.ts";
import { MedEvidenceOptionsSchema, loadMedEvidence } from "./medevidence.ts";
import { Ms2OptionsSchema, loadMs2 } from "./ms2.ts";
import { MslrOptionsSchema, loadMslr } from "./mslr.ts";
import { Cohen2006OptionsSchema, loadCohen2006 } from "./cohen2006.ts";
import { MslrAnnotationsOptionsSchema, loadMslrAnnotations } from "./mslr-annotations.ts";
import { RweGlp1OptionsSchema, loadRweGlp1 } from "./rwe-glp1.ts";
import { OhdsiHcqOptionsSchema, loadOhdsiHcq } from "./ohdsi-hcq.ts";
import { JsonlOptionsSchema, loadJsonlTasks } from "./jsonl.ts";
import { MedConclusionHfOptionsSchema, loadMedConclusionHf } from "./medconclusion-hf.ts";
import { loadStoreConclusionTasks, StoreConclusionOptionsSchema } from "../store/conclusion-view.ts";
import { BEIR_SOURCES, BeirOptionsSchema, beirInCache, loadBeir } from "./beir.ts";
import { locateDataFile, type DataAccessOptions } from "./files.ts";
import { dataFileSources, dataFilesOf, datasetLicence, downloadDatasetNames, type DataFileSource } from "./sources.ts";

/** One registered dataset. `load` validates its options with `optionsSchema` (strict: unknown keys throw). */
export interface DatasetEntry {
  name: string;
  description: string;
  taskKind: DatasetTaskKind | "mixed";
  /** Human description of the default input (registry path(s), or the file shipped in the repo); null = user-supplied file. */
  source: string | null;
  /** Registry paths the loader reads by default (a path ending in "/" = every registered file under it); [] = none. */
  files: string[];
  /** Whether `load()` works without options (false for "jsonl", which needs a path). */
  bundled: boolean;
  optionsSchema: z.ZodType;
  load(options?: unknown): Promise<LoadedDataset>;
  /** Datasets fetched as one archive outside `sources.tsv` (BEIR): where it is now and its licence. */
  archive?: { where(): "cache" | "missing"; licence: string };
}

// Each loader parses its own options with its strict schema, so passing `unknown` through is safe.
const entry = (e: Omit<DatasetEntry, "load"> & { load: (o: any) => Promise<LoadedDataset<any>> }): DatasetEntry => ({
  ...e,
  load: (options?: unknown) => e.load(options ?? {}),
});

/** All datasets, keyed by name. */
export const DATASETS: Readonly<Record<string, DatasetEntry>> = Object.freeze(
  Object.fromEntries(
    [
      entry({
        name: "pubmedqa",
        description: "PubMedQA PQA-L: structured abstract minus conclusion → conclusion (MedConclusion-style)",
        taskKind: "conclusion",
        source: "pubmedqa/ori_pqal.json",
        files: ["pubmedqa/ori_pqal.json", "pubmedqa/test_ground_truth.json"],
        bundled: true,
        optionsSchema: PubmedqaOptionsSchema,
        load: loadPubmedqa,
      }),
      entry({
        name: "medmeta",
        description: "MedMeta: meta-analysis title → conclusion; golden PMIDs, no abstracts",
        taskKind: "synthesis",
        source: "medmeta/MedMeta.csv",
        files: ["medmeta/MedMeta.csv"],
        bundled: true,
        optionsSchema: MedMetaOptionsSchema,
        load: loadMedMeta,
      }),
      entry({
        name: "medevidence",
        description: "MedEvidence: clinical question → direction of effect from golden abstracts (+docs, qrels)",
        taskKind: "synthesis",
        source: "medevidence/med-evidence-abstract.jsonl",
        files: ["medevidence/med-evidence-abstract.jsonl"],
        bundled: true,
        optionsSchema: MedEvidenceOptionsSchema,
        load: loadMedEvidence,
      }),
      entry({
        name: "ms2",
        description: "MS² sample: review title → conclusion from included studies' abstracts",
        taskKind: "synthesis",
        source: "mslr/ms2-sample.json",
        files: ["mslr/ms2-sample.json"],
        bundled: true,
        optionsSchema: Ms2OptionsSchema,
        load: loadMs2,
      }),
      entry({
        name: "mslr",
        description: "MSLR2022 test summaries (your copy; needs {path}): review background → conclusion from included studies",
        taskKind: "synthesis",
        source: null,
        files: [],
        bundled: false,
        optionsSchema: MslrOptionsSchema,
        load: loadMslr,
      }),
      entry({
        name: "cohen2006",
        description: "Cohen 2006 drug-class review screening sets as qrels (+ abstracts as docs)",
        taskKind: "qrels",
        source: "cohen2006/*.csv",
        files: ["cohen2006/"],
        bundled: true,
        optionsSchema: Cohen2006OptionsSchema,
        load: loadCohen2006,
      }),
      entry({
        name: "mslr-annotations",
        description: "MSLR Cochrane expert ratings of generated vs target summaries",
        taskKind: "annotations",
        source: "mslr-annotations/cochrane-A1.tsv",
        files: ["mslr-annotations/cochrane-A1.tsv", "mslr-annotations/submission_info.json"],
        bundled: true,
        optionsSchema: MslrAnnotationsOptionsSchema,
        load: loadMslrAnnotations,
      }),
      entry({
        name: "rwe-glp1",
        description: "RWESummary example study: GLP-1 RA vs SGLT2i, respiratory hospitalisations",
        taskKind: "rwe",
        source: "corpus/datasets/data/glp1-vs-sglt2i-respiratory.json (shipped)",
        files: [],
        bundled: true,
        optionsSchema: RweGlp1OptionsSchema,
        load: loadRweGlp1,
      }),
      entry({
        name: "ohdsi-hcq",
        description: "OHDSI hydroxychloroquine safety study: one RWE study per comparison",
        taskKind: "rwe",
        source: "rwe/ohdsi-hcq/",
        files: ["rwe/ohdsi-hcq/"],
        bundled: true,
        optionsSchema: OhdsiHcqOptionsSchema,
        load: loadOhdsiHcq,
      }),
      entry({
        name: "corpus-store",
        description: "MedConclusion tasks streamed from a Lance corpus store built by `corpus ingest --store`; needs {uri}",
        taskKind: "conclusion",
        source: null,
        files: [],
        bundled: false,
        optionsSchema: StoreConclusionOptionsSchema,
        load: loadStoreConclusionTasks,
      }),
      entry({
        name: "medconclusion-hf",
        description: "MedConclusion as published on Hugging Face (your download: JSONL, Parquet or CSV; streamed); needs {path}",
        taskKind: "conclusion",
        source: null,
        files: [],
        bundled: false,
        optionsSchema: MedConclusionHfOptionsSchema,
        load: loadMedConclusionHf,
      }),
      entry({
        name: "jsonl",
        description: "Our own JSONL task files (conclusion | synthesis | rwe per line); needs {path}",
        taskKind: "mixed",
        source: null,
        files: [],
        bundled: false,
        optionsSchema: JsonlOptionsSchema,
        load: loadJsonlTasks,
      }),
      ...Object.values(BEIR_SOURCES).map((b) =>
        entry({
          name: `beir:${b.name}`,
          description: `${b.description} (corpus + queries + graded qrels)`,
          taskKind: "qrels",
          source: `${b.url} (md5 ${b.md5}; sha256 pinned on first download)`,
          files: [],
          bundled: true,
          optionsSchema: BeirOptionsSchema,
          load: (o) => loadBeir(b.name, o),
          archive: { where: () => (beirInCache(b.name) ? "cache" : "missing"), licence: b.licence },
        }),
      ),
    ].map((e) => [e.name, e]),
  ),
);

/** Names of all registered datasets, in registry order. */
export function datasetNames(): string[] {
  return Object.keys(DATASETS);
}

/**
 * Look up a dataset entry.
 * @throws Error "unknown dataset "x"; valid: pubmedqa, medmeta, …" on an unknown name.
 */
export function getDataset(name: string): DatasetEntry {
  const e = Object.prototype.hasOwnProperty.call(DATASETS, name) ? DATASETS[name] : undefined;
  if (!e) throw new Error(`unknown dataset "${name}"; valid: ${datasetNames().join(", ")}`);
  return e;
}

/**
 * Where a dataset's files are: all in the cache, all available (some from a local mirror), the
 * ones not on this machine all held by a URL mirror (pulled from there on first use), some
 * missing, shipped in the repo, or user-supplied.
 */
export type DatasetWhere = "cache" | "mirror" | "url mirror" | "missing" | "shipped" | "user file";

/** Registry entries of the files a loader reads by default (folders expanded). */
export function loaderFiles(entry: DatasetEntry): DataFileSource[] {
  const all = dataFileSources();
  return entry.files.flatMap((f) => (f.endsWith("/") ? all.filter((s) => s.path.startsWith(f)) : all.filter((s) => s.path === f)));
}

/**
 * Where a set of registered files is now (cheap: existence and size). "missing" when any is
 * absent from this machine and not held by a URL mirror; "url mirror" when every absent one is.
 * @param remote - registry paths a URL mirror holds ({@link probeUrlMirrors}); default none.
 * @returns where, and how many files are not on this machine (`missing`).
 */
export function filesWhere(
  files: DataFileSource[],
  access: DataAccessOptions = {},
  remote: ReadonlyMap<string, string> = new Map(),
): { where: "cache" | "mirror" | "url mirror" | "missing"; missing: number } {
  const locs = files.map((f) => ({ path: f.path, where: locateDataFile(f.path, access).where }));
  const absent = locs.filter((l) => l.where === "missing");
  if (absent.length) return { where: absent.every((l) => remote.has(l.path)) ? "url mirror" : "missing", missing: absent.length };
  return { where: locs.every((l) => l.where === "cache") ? "cache" : "mirror", missing: 0 };
}

/** Download datasets (registry groups) a loader needs, in registry order. */
export function loaderDownloads(entry: DatasetEntry): string[] {
  return [...new Set(loaderFiles(entry).map((s) => s.dataset))];
}

/** Summary row of {@link listDatasets}. */
export interface DatasetInfo {
  name: string;
  description: string;
  taskKind: DatasetTaskKind | "mixed";
  source: string | null;
  /** Where its files are (see {@link DatasetWhere}). */
  where: DatasetWhere;
  /** Licence(s) of its files; "medsynth (Apache-2.0)" when shipped; "-" for user files. */
  licence: string;
  /** Number of items, when counted (`withCounts`) and the files are on this machine; else null. */
  itemCount: number | null;
  /** Why counting failed (the loader's error, first line), when it did. */
  countError?: string;
}

/**
 * List the registered datasets with where their files are and their licence. Never downloads:
 * items are counted only for datasets whose files are already in the cache or a local mirror.
 * @param options.withCounts load each available dataset to count its items (≈ 0.3 s for all); default false.
 * @param options.dataDir data folder passed to the loaders when counting.
 * @param options.access cache / mirror settings used to locate files. The loaders that count read
 *   the process-wide settings (`MEDSYNTH_DATA_MIRROR`, …): a caller with other mirrors sets them.
 * @param options.remote registry paths a URL mirror holds ({@link probeUrlMirrors}); default none.
 * A loader that fails while counting leaves `itemCount` null with `countError` set (listing never fails).
 */
export async function listDatasets(options: { withCounts?: boolean; dataDir?: string; access?: DataAccessOptions; remote?: ReadonlyMap<string, string> } = {}): Promise<DatasetInfo[]> {
  const out: DatasetInfo[] = [];
  for (const e of Object.values(DATASETS)) {
    const files = loaderFiles(e);
    const where: DatasetWhere = e.archive ? e.archive.where() : !e.bundled ? "user file" : files.length === 0 ? "shipped" : filesWhere(files, options.access, options.remote).where;
    const licence = e.archive ? e.archive.licence : !e.bundled ? "-" : files.length === 0 ? "medsynth (Apache-2.0)" : [...new Set(files.map((f) => f.licence))].join("; ");
    let itemCount: number | null = null;
    let countError: string | undefined;
    const onMachine = where === "cache" || where === "mirror" || where === "shipped";
    if (options.withCounts && e.bundled && (onMachine || (options.dataDir && !e.archive))) {
      try {
        itemCount = (await e.load(options.dataDir && !e.archive ? { dataDir: options.dataDir } : {})).items.length;
      } catch (err) {
        countError = (err instanceof Error ? err.message : String(err)).split("\n")[0];
      }
    }
    out.push({ name: e.name, description: e.description, taskKind: e.taskKind, source: e.source, where, licence, itemCount, ...(countError ? { countError } : {}) });
  }
  return out;
}

/** Summary row of {@link listDownloads}: one download dataset (group of registry files). */
export interface DownloadInfo {
  name: string;
  files: number;
  bytes: number;
  where: "cache" | "mirror" | "url mirror" | "missing";
  /** Files not on this machine. */
  missing: number;
  licence: string;
  /** Upstream repositories ("owner/repo@commit7"). */
  upstreams: string[];
}

/**
 * Every download dataset with its size, where it is and its licence (no download).
 * @param remote - registry paths a URL mirror holds ({@link probeUrlMirrors}); default none.
 */
export function listDownloads(access: DataAccessOptions = {}, remote: ReadonlyMap<string, string> = new Map()): DownloadInfo[] {
  return downloadDatasetNames().map((name) => {
    const files = dataFilesOf(name);
    const w = filesWhere(files, access, remote);
    return {
      name,
      files: files.length,
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      where: w.where,
      missing: w.missing,
      licence: datasetLicence(name),
      upstreams: [...new Set(files.map((f) => `${f.upstreamRepo}@${f.upstreamCommit.slice(0, 7)}`))],
    };
  });
}

/**
 * Resolve names given to `datasets pull` (download dataset names or loader names) to download datasets.
 * @throws Error listing valid names on an unknown one, or naming a loader that has no registry files.
 */
export function resolveDownloadNames(names: string[]): string[] {
  const downloads = downloadDatasetNames();
  const out: string[] = [];
  for (const n of names) {
    if (downloads.includes(n)) out.push(n);
    else if (Object.prototype.hasOwnProperty.call(DATASETS, n)) {
      const d = loaderDownloads(DATASETS[n]);
      if (d.length === 0) throw new Error(`dataset "${n}" has nothing to download (${DATASETS[n].bundled ? "its file ships with medsynth" : "it reads a file you supply"})`);
      out.push(...d);
    } else throw new Error(`unknown dataset "${n}"; valid: ${[...new Set([...downloads, ...datasetNames().filter((x) => loaderDownloads(DATASETS[x]).length > 0)])].join(", ")}`);
  }
  return [...new Set(out)];
}

/**
 * Load a dataset by name.
 * @param name registry name (see {@link datasetNames}).
 * @param options the loader's options (validated by its strict zod schema).
 * @throws Error listing valid names on an unknown name; zod error on bad options; loader errors.
 */
export async function loadDataset(name: string, options?: unknown): Promise<LoadedDataset> {
  return getDataset(name).load(options);
}
