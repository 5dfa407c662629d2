/**
 * The query process of the BM25 benchmark (`retrieval.ts` runs it as a fresh child): loads a fast
 * BM25 cache folder, answers queries single-threaded and prints one JSON line
 * `{ rss, rssStart, rssAfterLoad, loadMs, t: { qps, cpuQps, p50, p95, queries } }` (RSS values are the
 * process's peak resident set, bytes: VmHWM, since a spawned process's maxRSS includes its parent's).
 *
 * `retrieval.ts` bundles this file with esbuild and runs the bundle with plain `node` (no tsx
 * loader in the process), so its peak RSS is that of compiled JavaScript, as the product runs
 * from `dist/`. The queries come from a JSON file (an array of strings), so no dataset is loaded.
 *
 * Usage: `node child.mjs <index dir> <queries.json> <min seconds>`
 */
import { readFileSync } from "node:fs";
import { readFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import { peakRss } from "./bench-helpers.ts";

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function main(): void {
  const rssStart = peakRss();
  const [dir, queriesFile, minSecondsArg] = process.argv.slice(2);
  const queries = JSON.parse(readFileSync(queriesFile, "utf8")) as string[];
  const minSeconds = Number(minSecondsArg ?? 1);
  const s = performance.now();
  const e = readFastBm25(dir);
  const loadMs = performance.now() - s;
  const rssAfterLoad = peakRss();
  for (const q of queries.slice(0, 50)) e.searchSync(q, 10); // warm-up
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < minSeconds * 1000 || i < queries.length) {
    const q0 = performance.now();
    e.searchSync(queries[i % queries.length], 10);
    lat.push(performance.now() - q0);
    i++;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  const t = { qps: i / wall, cpuQps: i / ((cpu.user + cpu.system) / 1e6), p50: pct(lat, 50), p95: pct(lat, 95), queries: i };
  console.log(JSON.stringify({ rss: peakRss(), rssStart, rssAfterLoad, loadMs, t }));
}

main();
