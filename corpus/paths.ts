/**
 * Where medsynth finds the bundled data and keeps its caches.
 */
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** Repository root (the folder holding package.json). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Folder of the bundled real datasets: `$MEDSYNTH_DATA_DIR`, else `<repo>/../shared/data`.
 * @returns an absolute path (not checked for existence).
 */
export function sharedDataDir(): string {
  return process.env.MEDSYNTH_DATA_DIR ? resolve(process.env.MEDSYNTH_DATA_DIR) : resolve(REPO_ROOT, "..", "shared", "data");
}

/**
 * Cache folder for derived artefacts (word-vector binaries, BM25 indexes, LanceDB tables, model
 * call cache): `$MEDSYNTH_CACHE_DIR`, else `<repo>/.medsynth-cache`.
 */
export function cacheDir(): string {
  return process.env.MEDSYNTH_CACHE_DIR ? resolve(process.env.MEDSYNTH_CACHE_DIR) : resolve(REPO_ROOT, ".medsynth-cache");
}

/**
 * Folder of a dataset built on this machine by `medsynth datasets prepare <name>` (e.g. MedMeta's
 * golden abstracts and retrieval corpus fetched from PubMed): `$MEDSYNTH_PREPARED_DIR/<name>`, else
 * `<cacheDir()>/prepared/<name>`.
 * @returns an absolute path (not checked for existence).
 */
export function preparedDataDir(name: string): string {
  const root = process.env.MEDSYNTH_PREPARED_DIR ? resolve(process.env.MEDSYNTH_PREPARED_DIR) : resolve(cacheDir(), "prepared");
  return resolve(root, name);
}
