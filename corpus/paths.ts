/**
 * Where medsynth keeps its caches. (Datasets: `corpus/datasets/files.ts`, `datasetFile`.)
 */
import { fileURLToPath } from "node:url";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Package root: the nearest folder above this file holding medsynth's package.json — the
 * repository in a checkout (sources run from `corpus/`), the package folder when installed
 * (compiled code runs from `dist/corpus/`).
 */
export const REPO_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "medsynth") return dir;
      } catch {
        // not a readable package.json: keep looking upwards
      }
    }
    if (dirname(dir) === dir) return resolve(start, "..");
  }
}

/**
 * How to call the medsynth CLI in a message telling the user what to run: `npx medsynth` where
 * medsynth is an installed package (its root lies in a `node_modules` folder: npx finds the
 * installed bin), else — a checkout or an unpacked copy — `node <bin/medsynth.js relative to the
 * current folder>` (`node bin/medsynth.js` from the checkout's root): there `npx medsynth` would
 * install the checkout again on every call.
 */
export function medsynthCommand(root: string = REPO_ROOT, cwd: string = process.cwd()): string {
  if (root.split(sep).includes("node_modules")) return "npx medsynth";
  const bin = relative(cwd, join(root, "bin", "medsynth.js")) || join(root, "bin", "medsynth.js");
  return `node ${/[\s'"$`\\]/.test(bin) ? `'${bin.replace(/'/g, `'\\''`)}'` : bin}`;
}

/**
 * Cache folder for derived artefacts (word-vector binaries, BM25 indexes, LanceDB tables, model
 * call cache): `$MEDSYNTH_CACHE_DIR`, else `<repo>/.medsynth-cache` in a git checkout, else
 * `$XDG_CACHE_HOME/medsynth` (default `~/.cache/medsynth`) for an installed package.
 */
export function cacheDir(): string {
  if (process.env.MEDSYNTH_CACHE_DIR) return resolve(process.env.MEDSYNTH_CACHE_DIR);
  // a checkout keeps its caches beside the code; an installed package must not write into node_modules
  if (existsSync(join(REPO_ROOT, ".git"))) return resolve(REPO_ROOT, ".medsynth-cache");
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "medsynth");
}
