#!/usr/bin/env node
// `npm run build`: compile the TypeScript sources to dist/ (ESM JavaScript, .d.ts declarations,
// source maps) with tsc, then copy the run-time assets the code reads relative to its own files
// (prompt templates, rubrics, bundled configs and panels, the viewer's static files: every
// non-TypeScript file under the source folders) to the same place under dist/.
//
// The build goes into a temporary folder beside dist/ (`.dist-build-<pid>`) and replaces dist/
// only once it is complete: the old dist/ is renamed aside (`.dist-old-<pid>`), the new one renamed
// into place, then the old one removed. A build that fails or is killed leaves the previous
// dist/ as it was (a kill between the two renames, a window of microseconds, is repaired by the
// next build, which puts the set-aside dist/ back first). Leftover temporary folders of earlier,
// killed builds are removed.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const SOURCE_DIRS = ["corpus", "retrieval", "models", "results", "graphs", "judges", "experiments", "viewer"];
const SKIP_DIRS = new Set(["bench", "node_modules"]);
const BUILD_PREFIX = ".dist-build-";
const OLD_PREFIX = ".dist-old-";

/** Whether process `pid` is alive (a concurrent build's folders are left alone). */
function alive(pid) {
  if (!Number.isInteger(pid) || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

// Repair and clean up after killed builds.
for (const name of readdirSync(root)) {
  const prefix = name.startsWith(BUILD_PREFIX) ? BUILD_PREFIX : name.startsWith(OLD_PREFIX) ? OLD_PREFIX : null;
  if (!prefix || alive(Number(name.slice(prefix.length)))) continue;
  const p = join(root, name);
  if (prefix === OLD_PREFIX && !existsSync(dist)) renameSync(p, dist);
  else rmSync(p, { recursive: true, force: true });
}

const tmp = join(root, `${BUILD_PREFIX}${process.pid}`);
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp);
const fail = (msg, status) => {
  rmSync(tmp, { recursive: true, force: true });
  console.error(msg);
  process.exit(status ?? 1);
};
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.build.json"), "--outDir", tmp], { stdio: "inherit" });
if (tsc.status !== 0) fail(`build: tsc failed${existsSync(dist) ? "; the previous dist/ is kept" : ""}`, tsc.status);
let assets = 0;
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name)) copyAssets(p);
    } else if (!/\.(ts|mts|cts)$/.test(name)) {
      cpSync(p, join(tmp, relative(root, p)));
      assets++;
    }
  }
}
try {
  for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) copyAssets(join(root, d));
} catch (e) {
  fail(`build: copying assets failed: ${e.message}`);
}
// Swap: the complete new build replaces dist/.
const old = join(root, `${OLD_PREFIX}${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
console.log(`build: dist/ compiled, ${assets} asset files copied`);
