/**
 * Where medsynth keeps its caches. (Datasets: `corpus/datasets/files.ts`, `datasetFile`.)
 */
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** Repository root (the folder holding package.json). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Cache folder for derived artefacts (word-vector binaries, BM25 indexes, LanceDB tables, model
 * call cache): `$MEDSYNTH_CACHE_DIR`, else `<repo>/.medsynth-cache`.
 */
export function cacheDir(): string {
  return process.env.MEDSYNTH_CACHE_DIR ? resolve(process.env.MEDSYNTH_CACHE_DIR) : resolve(REPO_ROOT, ".medsynth-cache");
}
