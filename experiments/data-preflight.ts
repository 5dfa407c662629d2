/**
 * Before a run does any work: make sure every registered data file the experiment config needs
 * is on this machine (found in the cache or a local mirror, else pulled with a one-line notice).
 * When one cannot be had, the run stops here, before any item is generated or any model called,
 * with the registry's error (dataset, upstream, pull command).
 */
import { datasetFile, type DataAccessOptions } from "../corpus/datasets/files.ts";
import { getDataset, loaderFiles } from "../corpus/datasets/registry.ts";
import { BUNDLED_CORPUS_SOURCES } from "../corpus/bundled-corpus.ts";
import type { ExperimentConfig } from "./config.ts";

/** Loader options that point at the user's own files, so the registry is not consulted. */
const OWN_FILE_OPTIONS = ["path", "dir", "dataDir"];

function filesOfLoader(name: string, options?: Record<string, unknown>): string[] {
  const entry = getDataset(name);
  if (options && OWN_FILE_OPTIONS.some((k) => options[k] !== undefined)) return [];
  return loaderFiles(entry).map((f) => f.path);
}

/**
 * Registry paths an experiment config reads by default: its datasets (unless given a path), the
 * bundled retrieval corpus when something retrieves from it, the noise corpus' golden dataset, and
 * the retrieval-evaluation datasets.
 * @returns unique registry paths, in first-use order.
 * @throws Error naming an unknown dataset (with the valid names).
 */
export function configDataFiles(config: ExperimentConfig): string[] {
  const files: string[] = [];
  for (const d of config.datasets) files.push(...filesOfLoader(d.name, d.options));
  const retrieves = config.workflows.some((w) => w.id === "standard-rag") || config.retrievalEval !== undefined;
  if (retrieves && config.retrieval.corpus === "bundled") for (const s of BUNDLED_CORPUS_SOURCES) files.push(...filesOfLoader(s));
  if (retrieves && config.retrieval.noise) files.push(...filesOfLoader(config.retrieval.noise.goldenFrom));
  for (const d of config.retrievalEval?.datasets ?? []) files.push(...filesOfLoader(d));
  return [...new Set(files)];
}

/**
 * Find or pull every file of {@link configDataFiles}.
 * @throws DatasetUnavailableError naming dataset, upstream and pull command; CacheWriteError naming the cache folder.
 */
export async function ensureConfigData(config: ExperimentConfig, access: DataAccessOptions = {}): Promise<void> {
  for (const f of configDataFiles(config)) await datasetFile(f, access);
}
