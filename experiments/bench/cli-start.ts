/**
 * CLI start-up benchmark (issue 13.10 / 19): wall time of `node bin/medsynth.js --help` (and a
 * few other light commands) against a bare `node -e 0` start measured in the same run,
 * interleaved, median of `--reps` (≥ 5) each. The ratio to the anchor is the figure to compare
 * across machines and loads; absolute times on a shared machine are not.
 *
 * Usage: `npx tsx experiments/bench/cli-start.ts [--reps 9] [--bin bin/medsynth.js] [--all]`
 * (`--bin` may name an installed `node_modules/.bin/medsynth` or `node_modules/medsynth/bin/medsynth.js`;
 * `--all` adds `--version`, `run --help` and `datasets list --no-counts`).
 * Runs whatever the bin runs: dist/ when built (`npm run build`), else the sources through tsx.
 */
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

/** Median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Wall time (ms) of one `node <args>` run; throws when it exits non-zero. */
function timeRun(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const { values } = parseArgs({ options: { reps: { type: "string", default: "9" }, bin: { type: "string", default: "bin/medsynth.js" }, all: { type: "boolean", default: false } } });
const reps = Number(values.reps);
if (!Number.isInteger(reps) || reps < 5) throw new Error(`--reps must be an integer ≥ 5 (got ${values.reps})`);
const bin = realpathSync(resolve(values.bin!));
const cases: [string, string[]][] = [
  ["node -e 0 (anchor)", ["-e", "0"]],
  ["medsynth --help", [bin, "--help"]],
  ...(values.all
    ? ([
        ["medsynth --version", [bin, "--version"]],
        ["medsynth run --help", [bin, "run", "--help"]],
        ["medsynth datasets list --no-counts", [bin, "datasets", "list", "--no-counts"]],
      ] as [string, string[]][])
    : []),
];
for (const [, args] of cases) timeRun(args); // warm the file cache
const times = cases.map(() => [] as number[]);
for (let i = 0; i < reps; i++) cases.forEach(([, args], j) => times[j].push(timeRun(args)));
const anchor = median(times[0]);
console.log(`bin: ${bin}; ${reps} interleaved runs each; median wall time`);
cases.forEach(([name], j) => {
  const m = median(times[j]);
  console.log(`${name.padEnd(38)} ${m.toFixed(0).padStart(6)} ms   ×${(m / anchor).toFixed(2)} anchor   (min ${Math.min(...times[j]).toFixed(0)}, max ${Math.max(...times[j]).toFixed(0)})`);
});
console.log(`--help minus anchor: ${(median(times[1]) - anchor).toFixed(0)} ms`);
