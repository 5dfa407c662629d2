/**
 * vitest global setup: make sure every dataset the tests read is on this machine before any test
 * runs, through the dataset registry — used in place from a local mirror (`../shared/data`
 * beside the checkout, `$MEDSYNTH_DATA_MIRROR`), else pulled once into the data cache. Tests then
 * reach files with `datasetFile`/`datasetFileSync`/`datasetDir` and never build paths themselves.
 */
import { datasetFile } from "../../corpus/datasets/files.ts";
import { dataFileSources } from "../../corpus/datasets/sources.ts";

/** Download datasets the suite reads (everything in the registry but the unused case study). */
export const TEST_DATASETS = ["pubmedqa", "medmeta", "medevidence", "ms2", "mslr-annotations", "cohen2006", "ohdsi-hcq", "pubmed-xml"];

/** Fetch (or find) every file of {@link TEST_DATASETS}; throws the registry's error (dataset, upstream, pull command) when one cannot be had. */
export default async function setup(): Promise<void> {
  for (const s of dataFileSources()) if (TEST_DATASETS.includes(s.dataset)) await datasetFile(s.path);
}
