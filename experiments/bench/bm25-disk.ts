/**
 * Benchmark of medsynth's on-disk BM25 engine (retrieval/bm25/disk-engine.ts) on a seeded
 * SYNTHETIC Zipfian corpus (tests/helpers/zipf-docs.ts: made-up words, Zipf–Mandelbrot term
 * frequencies with the parameters the synthetic-PubMed generator fitted to real abstracts, so the
 * vocabulary grows by Heaps' law; 6–18-word titles, 80–300-word abstracts; not PubMed). Each phase runs in a fresh child process so its peak RSS (VmHWM) is
 * its own:
 * 1. build: documents generated and streamed into `buildDiskBm25` (sorted runs merged on disk):
 *    seconds, peak RSS, postings, bytes per posting, index bytes.
 * 2. query: open the index, 1,000 random queries (1–7 words, seeded) at k = 10: open ms, cold
 *    first query, p50 / p95 / mean over all, peak RSS; hits written for the exactness check.
 * 3. (`--exact`) memory: the same documents in the in-memory fast engine, the same queries;
 *    compared to 2: queries whose ids AND float64 scores are identical.
 *
 * Usage: `npx tsx experiments/bench/bm25-disk.ts [--docs 1000000] [--queries 1000] [--exact]
 *   [--dir /tmp/bm25-disk-bench] [--page-cache-mib 256] [--run-postings 16000000] [--keep] [--reuse]`
 * (`--keep` leaves the index in `--dir`; `--reuse` queries it again without building).
 * Prints one line per phase and a JSON summary (`--json out.json` writes it).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDiskBm25, openDiskBm25 } from "../../retrieval/bm25/disk-engine.ts";
import { diskIo } from "../../retrieval/bm25/disk-segment.ts";
import { buildFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { mulberry32, ZipfWords, zipfDocs, zipfQuery } from "../../tests/helpers/zipf-docs.ts";
import { peakRss } from "./bench-helpers.ts";

const DOC_SEED = 11;
const QUERY_SEED = 5;

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function queries(words: ZipfWords, n: number): string[] {
  const rnd = mulberry32(QUERY_SEED);
  return Array.from({ length: n }, () => zipfQuery(words, rnd));
}

async function* batches(words: ZipfWords, n: number): AsyncGenerator<CorpusDoc[]> {
  let b: CorpusDoc[] = [];
  for (const d of zipfDocs(words, n, DOC_SEED)) {
    b.push(d);
    if (b.length === 16_384) {
      yield b;
      b = [];
    }
  }
  if (b.length) yield b;
}

function dirBytes(dir: string): number {
  let s = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) s += f.isDirectory() ? dirBytes(join(dir, f.name)) : statSync(join(dir, f.name)).size;
  return s;
}

async function childBuild(dir: string, docs: number, runPostings: number): Promise<unknown> {
  const words = new ZipfWords();
  const t0 = performance.now();
  rmSync(dir, { recursive: true, force: true });
  await buildDiskBm25(dir, batches(words, docs), { runPostings, log: (l) => console.error(l) });
  const seconds = (performance.now() - t0) / 1000;
  const cu = process.cpuUsage();
  const h = JSON.parse(readFileSync(join(dir, "seg-000000", "header.json"), "utf8"));
  const bytes = dirBytes(dir);
  return {
    seconds,
    cpuSeconds: (cu.user + cu.system) / 1e6,
    peakRss: peakRss(),
    postings: h.postings,
    vocab: h.vocabSize,
    postingBytes: h.postingBytes,
    bytesPerPosting: (h.postingBytes + 16 * h.blocks) / h.postings,
    indexBytes: bytes,
  };
}

function childQuery(dir: string, nq: number, pageCacheMiB: number, out: string): unknown {
  const words = new ZipfWords();
  const qs = queries(words, nq);
  const rssBefore = peakRss();
  const io0 = diskIo.bytesRead;
  const t0 = performance.now();
  const e = openDiskBm25(dir, { pageCacheMiB });
  const openMs = performance.now() - t0;
  const openBytes = diskIo.bytesRead - io0;
  let firstQueryBytes = -1;
  const rssOpen = peakRss();
  const lat: number[] = [];
  const hits: [string, number][][] = [];
  let decoded = 0;
  let postings = 0;
  for (const q of qs) {
    const s = performance.now();
    const io1 = diskIo.bytesRead;
    const h = e.searchSync(q, 10);
    lat.push(performance.now() - s);
    if (firstQueryBytes < 0) firstQueryBytes = diskIo.bytesRead - io1;
    hits.push(h.map((x) => [x.id, x.score]));
    decoded += e.lastStats.decoded;
    postings += e.lastStats.postings;
  }
  // Warm pass (page cache filled by the first); CPU time per query too (on a shared machine the
  // wall time includes waiting for a core).
  const warm: number[] = [];
  const cpu: number[] = [];
  for (const q of qs) {
    const c = process.cpuUsage();
    const s = performance.now();
    e.searchSync(q, 10);
    warm.push(performance.now() - s);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
  }
  const cs = [...cpu].sort((a, b) => a - b);
  writeFileSync(out, JSON.stringify(hits));
  const cold = lat[0];
  const sorted = [...lat].sort((a, b) => a - b);
  const ws = [...warm].sort((a, b) => a - b);
  return {
    openMs,
    openBytes,
    firstQueryBytes,
    coldFirstMs: cold,
    firstPass: { p50: pct(sorted, 50), p95: pct(sorted, 95), mean: lat.reduce((a, b) => a + b, 0) / lat.length },
    warm: { p50: pct(ws, 50), p95: pct(ws, 95), mean: warm.reduce((a, b) => a + b, 0) / warm.length, qps: 1000 / (warm.reduce((a, b) => a + b, 0) / warm.length) },
    warmCpu: { p50: pct(cs, 50), p95: pct(cs, 95), mean: cpu.reduce((a, b) => a + b, 0) / cpu.length },
    decodedShare: decoded / postings,
    pageCacheResident: e.cache.residentBytes,
    rssBefore,
    rssOpen,
    peakRss: peakRss(),
  };
}

function childMemory(docs: number, nq: number, out: string): unknown {
  const words = new ZipfWords();
  const all = [...zipfDocs(words, docs, DOC_SEED)];
  const t0 = performance.now();
  const e = buildFastBm25(all);
  const buildSeconds = (performance.now() - t0) / 1000;
  e.attachDocs([]); // the docs are not needed for ids and scores
  const qs = queries(words, nq);
  const lat: number[] = [];
  const cpu: number[] = [];
  const hits: [string, number][][] = [];
  for (const q of qs) {
    const c = process.cpuUsage();
    const s = performance.now();
    const h = e.searchSync(q, 10);
    lat.push(performance.now() - s);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
    hits.push(h.map((x) => [x.id, x.score]));
  }
  writeFileSync(out, JSON.stringify(hits));
  lat.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { buildSeconds, p50: pct(lat, 50), p95: pct(lat, 95), cpuP50: pct(cpu, 50), cpuP95: pct(cpu, 95), peakRss: peakRss() };
}

function runChild(args: string[], heapMiB: number): any {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMiB}`, "--import", "tsx", self, ...args], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`child ${args[0]} failed (status ${r.status}): ${r.stdout}`);
  const lines = r.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === "child-build") return console.log(JSON.stringify(await childBuild(process.argv[3], Number(process.argv[4]), Number(process.argv[5]))));
  if (mode === "child-query") return console.log(JSON.stringify(childQuery(process.argv[3], Number(process.argv[4]), Number(process.argv[5]), process.argv[6])));
  if (mode === "child-memory") return console.log(JSON.stringify(childMemory(Number(process.argv[3]), Number(process.argv[4]), process.argv[5])));
  const docs = Number(arg("docs", "1000000"));
  const nq = Number(arg("queries", "1000"));
  const dir = arg("dir", join(tmpdir(), "bm25-disk-bench"));
  const pageCache = Number(arg("page-cache-mib", "256"));
  const runPostings = Number(arg("run-postings", "16000000"));
  console.log(`bm25-disk bench: ${docs} SYNTHETIC Zipfian docs (Zipf–Mandelbrot α 1.65, q 74.74 as fitted by synthetic-pubmed.ts; seed ${DOC_SEED}), ${nq} random queries, k = 10`);
  // `--reuse`: query an index a previous `--keep` run left in `--dir` (same --docs), no build.
  const reuse = process.argv.includes("--reuse");
  const build = reuse ? null : runChild(["child-build", dir, String(docs), String(runPostings)], 4096);
  if (build)
    console.log(
      `build: ${build.seconds.toFixed(1)} s (CPU ${build.cpuSeconds.toFixed(1)} s, generation included), peak RSS ${gib(build.peakRss)}, ${build.postings} postings, ${build.vocab} terms, ${build.bytesPerPosting.toFixed(2)} B/posting (postings + block index), index ${gib(build.indexBytes)}`,
    );
  const diskHits = join(dir, "..", `bm25-disk-hits-${process.pid}.json`);
  const query = runChild(["child-query", dir, String(nq), String(pageCache), diskHits], 4096);
  console.log(
    `query: open ${query.openMs.toFixed(0)} ms (${query.openBytes} B read); cold first query ${query.coldFirstMs.toFixed(1)} ms (${(query.firstQueryBytes / 1024).toFixed(0)} KiB read); first pass p50 ${query.firstPass.p50.toFixed(1)} / p95 ${query.firstPass.p95.toFixed(1)} ms; warm p50 ${query.warm.p50.toFixed(1)} / p95 ${query.warm.p95.toFixed(1)} ms (${query.warm.qps.toFixed(0)} q/s; CPU per query p50 ${query.warmCpu.p50.toFixed(1)} / p95 ${query.warmCpu.p95.toFixed(1)} / mean ${query.warmCpu.mean.toFixed(1)} ms); decoded ${(100 * query.decodedShare).toFixed(1)}% of the lists' postings; peak RSS ${gib(query.peakRss)} (after open ${gib(query.rssOpen)}, page cache ${gib(query.pageCacheResident)})`,
  );
  const summary: Record<string, unknown> = { docs, queries: nq, build, query };
  if (process.argv.includes("--exact")) {
    const memHits = join(dir, "..", `bm25-mem-hits-${process.pid}.json`);
    const mem = runChild(["child-memory", String(docs), String(nq), memHits], 12_288);
    const a = JSON.parse(readFileSync(diskHits, "utf8")) as unknown[];
    const b = JSON.parse(readFileSync(memHits, "utf8")) as unknown[];
    let same = 0;
    for (let i = 0; i < a.length; i++) if (JSON.stringify(a[i]) === JSON.stringify(b[i])) same++;
    console.log(
      `in-memory fast engine: build ${mem.buildSeconds.toFixed(1)} s, p50 ${mem.p50.toFixed(1)} / p95 ${mem.p95.toFixed(1)} ms (CPU p50 ${mem.cpuP50.toFixed(1)} / p95 ${mem.cpuP95.toFixed(1)} ms), peak RSS ${gib(mem.peakRss)}`,
    );
    console.log(`exactness: ${same}/${a.length} queries with identical top-10 ids and bit-identical scores`);
    summary.memory = mem;
    summary.identical = same;
    rmSync(memHits, { force: true });
  }
  rmSync(diskHits, { force: true });
  const json = arg("json", "");
  if (json) writeFileSync(json, JSON.stringify(summary, null, 1) + "\n");
  if (!process.argv.includes("--keep") && !reuse) rmSync(dir, { recursive: true, force: true });
}

await main();
