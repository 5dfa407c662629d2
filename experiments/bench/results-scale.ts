/**
 * Results-at-scale benchmark (issue 27 item 3, issue 25 items 15–16): a synthetic run of `--cells`
 * demo-like cells (evidence with provenance, extracted sentences, a 3-judge panel with raw answers,
 * panel aggregate, reference metrics, labels, usage; ~5 KB a line like the demo's) written as one
 * run folder and as 8 shard folders, then, each in its own process:
 *   - the viewer server (`startViewerServer`): index build s; first page ms; sort / filter / search
 *     page p50; item page; server RSS (current and peak); then a second start with the run and
 *     its merged copy (with `--skip merge`: a hard-linked copy of the run and its index), reusing
 *     the index; compare (first page = computed in the worker, while /api/meta keeps answering),
 *     then compare pages p50; RSS again; load averages beside the build;
 *   - `medsynth report` (writeReportBounded: the heap capped as the CLI caps it): seconds and peak RSS;
 *   - `medsynth merge` of the 8 shards (mergeShards): seconds and peak RSS.
 * Targets (issue 27, 10⁶ cells): index ≤ 2 min; first page ≤ 1 s; sort/filter/compare page p50
 * ≤ 300 ms; server RSS ≤ 1 GB; report ≤ 5 min at ≤ 2 GB peak; merge of 8 shards ≤ 2 min.
 *
 * Usage: `npx tsx experiments/bench/results-scale.ts --cells 1000000 [--dir /tmp/x] [--keep]
 *   [--skip report,merge]`. The folder (default under the system temp folder) is removed at the
 * end unless `--keep`; an existing folder with the same cell count is reused (generation skipped).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { peakRss } from "./bench-helpers.ts";
import { CONFIGS, MODELS, syntheticRecord } from "./synthetic-results.ts";

const SELF = fileURLToPath(import.meta.url);
const SHARDS = 8;
const CONFIG = {
  name: "results-scale",
  prices: Object.fromEntries(MODELS.map((m) => [m, { input: 0.15, output: 0.6 }])),
  models: MODELS.map((id) => ({ id })),
  workflows: CONFIGS.map((c) => ({ id: c.workflow })),
};

/** Write the run folder and its 8 shard folders (shard i holds matrix positions i−1, i−1+8, …). */
function generate(dir: string, n: number): void {
  const hash = `bench-${n}`;
  const runDir = join(dir, "run");
  mkdirSync(runDir, { recursive: true });
  const keys: string[] = [];
  for (let i = 0; i < n; i++) keys.push(`c${i.toString(16).padStart(10, "0")}`);
  writeFileSync(join(runDir, "spec.json"), JSON.stringify({ configHash: hash, config: CONFIG }));
  writeFileSync(join(runDir, "cells.json"), JSON.stringify({ configHash: hash, keys }));
  const main = openSync(join(runDir, "results.jsonl"), "w");
  const shards = Array.from({ length: SHARDS }, (_, s) => {
    const d = join(dir, `shard-${s + 1}-of-${SHARDS}`);
    mkdirSync(d, { recursive: true });
    const own = keys.filter((_, p) => p % SHARDS === s);
    writeFileSync(join(d, "spec.json"), JSON.stringify({ configHash: hash, config: CONFIG, shard: { index: s + 1, count: SHARDS } }));
    writeFileSync(join(d, "cells.json"), JSON.stringify({ configHash: hash, keys: own, shard: { index: s + 1, count: SHARDS }, matrixCells: n }));
    return { fd: openSync(join(d, "results.jsonl"), "w"), buf: [] as string[] };
  });
  let buf: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const line = JSON.stringify(syntheticRecord(i)) + "\n";
    buf.push(line);
    shards[i % SHARDS].buf.push(line);
    if (buf.length >= 2000 || i === n - 1) {
      writeSync(main, buf.join(""));
      buf = [];
      for (const s of shards) {
        if (s.buf.length) writeSync(s.fd, s.buf.join(""));
        s.buf = [];
      }
    }
    if (i % 200_000 === 199_999) console.error(`  generated ${(i + 1).toLocaleString("en")} cells (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  closeSync(main);
  for (const s of shards) closeSync(s.fd);
  writeFileSync(join(dir, "generated.json"), JSON.stringify({ cells: n }));
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Child: serve the runs, report index figures on stdout, keep serving until stdin closes. */
async function childServe(dirs: string[]): Promise<void> {
  const { startViewerServer } = await import("../../viewer/server.ts");
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const srv = await startViewerServer({ runs: dirs, port: 0 });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ url: srv.url, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, runs: srv.index!.runs.map((r) => ({ action: r.action, seconds: r.seconds, cells: r.cells })) }));
  process.stdin.resume();
  process.stdin.on("end", () => void srv.close().then(() => process.exit(0)));
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s*(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

async function startServer(
  dirs: string[],
): Promise<{ url: string; info: { seconds: number; cpuSeconds: number; runs: { action: string; seconds: number; cells: number }[] }; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", SELF, "--child", "serve", ...dirs], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) ok(out.slice(0, nl));
    });
    child.once("exit", (code) => fail(new Error(`server child exited with ${code}`)));
  });
  const info = JSON.parse(line) as { url: string; seconds: number; cpuSeconds: number; runs: { action: string; seconds: number; cells: number }[] };
  return {
    url: info.url,
    info,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((ok) => {
        child.once("exit", () => ok());
        child.stdin.end();
      }),
  };
}

async function timedGet(url: string): Promise<{ ms: number; body: unknown }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms: performance.now() - t0, body };
}

/**
 * The run's compare partner: the merged folder when `merge` ran, else (`--skip merge`) a copy of
 * the run made of hard links (same results file, same inode) with a copy of its index, which the
 * viewer then reuses — a comparison of two 10⁶-cell runs without building a second index.
 */
function comparePartner(dir: string, run: string): string {
  const merged = join(dir, "merged");
  if (existsSync(join(merged, "results.jsonl"))) return merged;
  const copy = join(dir, "run-copy");
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(join(copy, ".medsynth-index"), { recursive: true });
  linkSync(join(run, "results.jsonl"), join(copy, "results.jsonl"));
  copyFileSync(join(run, "spec.json"), join(copy, "spec.json"));
  copyFileSync(join(run, ".medsynth-index", "cells.sqlite"), join(copy, ".medsynth-index", "cells.sqlite"));
  return copy;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

async function benchViewer(dir: string, n: number): Promise<void> {
  const run = join(dir, "run");
  console.log(`load average before the index build: ${load()}`);
  const srv = await startServer([run]);
  const r0 = srv.info.runs[0];
  console.log(
    `viewer index (${r0.action}): ${r0.seconds.toFixed(1)} s for ${r0.cells.toLocaleString("en")} cells; server started in ${srv.info.seconds.toFixed(1)} s, ${srv.info.cpuSeconds.toFixed(0)} s of CPU (all threads; load average after: ${load()})`,
  );
  const first = await timedGet(`${srv.url}/api/cells?size=50`);
  console.log(`first page: ${first.ms.toFixed(0)} ms`);
  const routes: [string, string][] = [
    ["sort by score desc", "/api/cells?run=0&sort=panel%3Amedmeta-semantic-equivalence.semantic_equivalence&dir=desc&size=50"],
    ["sort by latency asc", "/api/cells?run=0&sort=latencyMs&size=50"],
    ["filter workflow + status", "/api/cells?run=0&workflow=standard-rag&status=ok&size=50"],
    ["filter + sort by metric", "/api/cells?run=0&model=openai%3Agpt-4.1&sort=metric%3ArougeL_fmeasure&dir=desc&size=50"],
    ["page 100 of a sort", "/api/cells?run=0&sort=metric%3Ableu&page=100&size=50"],
    ["sort by model (low cardinality) desc", "/api/cells?run=0&sort=model&dir=desc&size=50"],
  ];
  const all: number[] = [];
  for (const [name, path] of routes) {
    const t: number[] = [];
    for (let k = 0; k < 5; k++) t.push((await timedGet(srv.url + path)).ms);
    all.push(...t);
    console.log(`  ${name}: first ${t[0].toFixed(0)} ms, p50 ${median(t).toFixed(0)} ms`);
  }
  console.log(`sort/filter page p50 (all above): ${median(all).toFixed(0)} ms`);
  for (const [name, q] of [
    ["a common word", "fortifier"],
    ["a phrase found nowhere", "fortifier%20breast"],
  ]) {
    const s1 = await timedGet(`${srv.url}/api/cells?run=0&q=${q}&size=50`);
    const s2 = await timedGet(`${srv.url}/api/cells?run=0&q=${q}&page=1&size=50`);
    console.log(`output search, ${name}: first page ${s1.ms.toFixed(0)} ms (${(s1.body as { total: number }).total.toLocaleString("en")} matches), next page ${s2.ms.toFixed(0)} ms`);
  }
  const item = await timedGet(`${srv.url}/api/item?id=medevidence%3A${Math.floor(n / 56)}`);
  console.log(`item page (${(item.body as { cells: unknown[] }).cells.length} cells read by offset): ${item.ms.toFixed(0)} ms`);
  const rss = rssOf(srv.pid);
  console.log(`viewer server RSS: ${mib(rss.rss)} now, ${mib(rss.hwm)} peak`);
  await srv.stop();
  const partner = comparePartner(dir, run);
  const again = await startServer([run, partner]);
  console.log(`second start with the compare partner (${partner.split("/").pop()}; indexes ${again.info.runs.map((r) => r.action).join(", ")}): ${again.info.seconds.toFixed(2)} s`);
  const p = await timedGet(`${again.url}/api/cells?run=0&size=50`);
  console.log(`  first page after it: ${p.ms.toFixed(0)} ms`);
  const t0 = performance.now();
  const cmp = timedGet(`${again.url}/api/compare?a=0&b=1&size=50`);
  const during: number[] = [];
  let done = false;
  void cmp.then(() => (done = true));
  while (!done) {
    during.push((await timedGet(`${again.url}/api/meta`)).ms);
    await new Promise((r) => setTimeout(r, 200));
  }
  const c = await cmp;
  console.log(
    `compare, first page (computed once in a worker): ${((performance.now() - t0) / 1000).toFixed(1)} s; meanwhile ${during.length} /api/meta requests answered, p50 ${median(during).toFixed(0)} ms, max ${Math.max(...during).toFixed(0)} ms`,
  );
  const counts = (c.body as { counts: unknown }).counts;
  const t: number[] = [];
  for (let q = 0; q < 10; q++) t.push((await timedGet(`${again.url}/api/compare?a=0&b=1&page=${q * 97}&size=50`)).ms);
  for (let q = 0; q < 5; q++) t.push((await timedGet(`${again.url}/api/compare?a=0&b=1&diff=1&page=${q}&size=50`)).ms);
  console.log(`compare page p50 (cached): ${median(t).toFixed(0)} ms (max ${Math.max(...t).toFixed(0)} ms); counts ${JSON.stringify(counts)}`);
  const rss2 = rssOf(again.pid);
  console.log(`viewer server RSS with two runs after compare: ${mib(rss2.rss)} now, ${mib(rss2.hwm)} peak; load average ${load()}`);
  await again.stop();
}

function childTimed(args: string[]): { seconds: number; peak: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--import", "tsx", SELF, "--child", ...args], { encoding: "utf8", maxBuffer: 1 << 24, stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`child ${args[0]} failed (${r.status})`);
  const m = JSON.parse(r.stdout.trim().split("\n").pop() as string) as { peak: number };
  return { seconds: (performance.now() - t0) / 1000, peak: m.peak, out: r.stdout };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { cells: { type: "string", default: "150000" }, dir: { type: "string" }, keep: { type: "boolean", default: false }, skip: { type: "string", default: "" }, child: { type: "string" } },
    allowPositionals: true,
  });
  if (values.child === "serve") return childServe(positionals);
  if (values.child === "report") {
    // What `medsynth report` does: the heap capped for a large run (a worker thread, bounded.ts).
    const { writeReportBounded } = await import("../report/bounded.ts");
    await writeReportBounded(positionals[0]);
    console.log(JSON.stringify({ peak: peakRss() }));
    return;
  }
  if (values.child === "merge") {
    const { mergeShards } = await import("../shards.ts");
    const s = mergeShards(positionals.slice(1), positionals[0]);
    console.log(JSON.stringify({ peak: peakRss(), records: s.records }));
    return;
  }
  const n = Number(values.cells);
  const skip = new Set(values.skip.split(",").filter(Boolean));
  const dir = values.dir ?? join(tmpdir(), `medsynth-results-scale-${n}`);
  const gen = join(dir, "generated.json");
  if (!existsSync(gen) || JSON.parse(readFileSync(gen, "utf8")).cells !== n) {
    rmSync(dir, { recursive: true, force: true });
    const t0 = performance.now();
    generate(dir, n);
    console.log(`generated ${n.toLocaleString("en")} cells in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  console.log(
    `results.jsonl: ${mib(statSync(join(dir, "run", "results.jsonl")).size)} (${n.toLocaleString("en")} cells; ${(statSync(join(dir, "run", "results.jsonl")).size / n).toFixed(0)} bytes a line); ${SHARDS} shard folders\n`,
  );
  try {
    if (!skip.has("merge")) {
      rmSync(join(dir, "merged"), { recursive: true, force: true });
      const m = childTimed(["merge", join(dir, "merged"), ...Array.from({ length: SHARDS }, (_, s) => join(dir, `shard-${s + 1}-of-${SHARDS}`))]);
      console.log(`merge of ${SHARDS} shards: ${m.seconds.toFixed(1)} s, peak RSS ${mib(m.peak)}`);
    }
    if (!skip.has("viewer")) await benchViewer(dir, n);
    if (!skip.has("report")) {
      const r = childTimed(["report", join(dir, "run")]);
      console.log(`report: ${r.seconds.toFixed(1)} s, peak RSS ${mib(r.peak)}`);
    }
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
