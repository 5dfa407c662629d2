#!/usr/bin/env node
// `npm run build`: compile the TypeScript sources to dist/ (ESM JavaScript, .d.ts declarations,
// source maps) with tsc, then copy the run-time assets the code reads relative to its own files
// (prompt templates, rubrics, bundled configs and panels, the viewer's static files: every
// non-TypeScript file under the source folders) to the same place under dist/.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const SOURCE_DIRS = ["corpus", "retrieval", "models", "results", "graphs", "judges", "experiments", "viewer"];
const SKIP_DIRS = new Set(["bench", "node_modules"]);

rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (tsc.status !== 0) {
  console.error("build: tsc failed");
  process.exit(tsc.status ?? 1);
}
let assets = 0;
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name)) copyAssets(p);
    } else if (!/\.(ts|mts|cts)$/.test(name)) {
      cpSync(p, join(dist, relative(root, p)));
      assets++;
    }
  }
}
for (const d of SOURCE_DIRS) if (existsSync(join(root, d))) copyAssets(join(root, d));
console.log(`build: dist/ compiled, ${assets} asset files copied`);
