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

/**
 * Fetch (or find) every file of {@link TEST_DATASETS}. Tries them all before failing, so one
 * message names every dataset missing and the one command that pulls them (a suite stopped at
 * the first missing dataset sent a new user through one rerun per dataset).
 * @throws Error naming the missing datasets, the pull command, the mirror variable and the first
 *   registry error (upstream, reason).
 */
export default async function setup(): Promise<void> {
  const missing = new Map<string, string>();
  for (const s of dataFileSources()) {
    if (!TEST_DATASETS.includes(s.dataset) || missing.has(s.dataset)) continue;
    try {
      await datasetFile(s.path);
    } catch (e) {
      missing.set(s.dataset, (e as Error).message);
    }
  }
  if (missing.size === 0) return;
  const names = [...missing.keys()];
  throw new Error(
    [
      `the test suite reads ${names.length} dataset(s) that are not on this machine: ${names.join(", ")}.`,
      `Pull them once (needs the internet): node bin/medsynth.js datasets pull ${names.join(" ")}`,
      "or point MEDSYNTH_DATA_MIRROR at a folder that holds them (docs/datasets.md).",
      `First error (${names[0]}): ${missing.get(names[0])}`,
    ].join("\n"),
  );
}
