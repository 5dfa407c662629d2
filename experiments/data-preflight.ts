/**
 * Before a run does any work: make sure every registered data file the experiment config needs
 * is on this machine (found in the cache or a local mirror, else pulled with a one-line notice).
 * When one cannot be had, the run stops here, before any item is generated or any model called,
 * with the registry's error (dataset, upstream, pull command).
 */
import { datasetFile, DatasetUnavailableError, pullCommand, type DataAccessOptions } from "../corpus/datasets/files.ts";
import { getDataFileSource } from "../corpus/datasets/sources.ts";
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

/** Several datasets a run needs cannot be had: every one named at once (as missing variables are). */
export class DatasetsUnavailableError extends Error {
  constructor(readonly errors: readonly DatasetUnavailableError[]) {
    const names = errors.map((e) => e.source.dataset);
    super(
      [
        `${errors.length} datasets this run needs are not available: ${names.join(", ")} (nothing was run).`,
        ...errors.map((e) => `\n${e.message}`),
        `\nGet them all with \`${pullCommand(names.join(" "))}\` where the network or a mirror is reachable.`,
      ].join("\n"),
    );
    this.name = "DatasetsUnavailableError";
  }
}

/**
 * Find or pull every file of {@link configDataFiles}. Every dataset is tried before failing: after
 * a file of a dataset cannot be had, that dataset's other files are skipped and the next dataset
 * is tried, so the error names all the missing datasets at once.
 * @throws DatasetUnavailableError (one dataset missing: dataset, upstream, pull command);
 *   {@link DatasetsUnavailableError} (several: each one's message); CacheWriteError naming the cache folder.
 */
export async function ensureConfigData(config: ExperimentConfig, access: DataAccessOptions = {}): Promise<void> {
  const failed = new Map<string, DatasetUnavailableError>();
  for (const f of configDataFiles(config)) {
    const dataset = getDataFileSource(f).dataset;
    if (failed.has(dataset)) continue;
    try {
      await datasetFile(f, access);
    } catch (e) {
      if (!(e instanceof DatasetUnavailableError)) throw e;
      failed.set(dataset, e);
    }
  }
  if (failed.size === 1) throw [...failed.values()][0];
  if (failed.size > 1) throw new DatasetsUnavailableError([...failed.values()]);
}
