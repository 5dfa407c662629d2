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
 * With `--corpus pubmed` the documents are the synthetic PubMed generator's instead
 * (synthetic-pubmed.ts, its stored fit: the entries its baseline-like files would hold, each
 * file's DeleteCitation applied) and each random query is 1–7 words drawn from a random document
 * of 8 random files (seeded; written once by the parent, read by every child). `--strategies`
 * runs the query phase once per on-disk strategy (`auto`, `taat`, `pruned`), each compared with
 * the in-memory engine under `--exact`.
 *
 * Usage: `npx tsx experiments/bench/bm25-disk.ts [--docs 1000000] [--queries 1000] [--exact]
 *   [--corpus zipf|pubmed] [--strategies auto[,taat,pruned]]
 *   [--dir /tmp/bm25-disk-bench] [--page-cache-mib 256] [--run-postings 16000000] [--keep] [--reuse]`
 * (`--keep` leaves the index in `--dir`; `--reuse` queries it again without building).
 * Prints one line per phase and a JSON summary (`--json out.json` writes it).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDiskBm25, type DiskBm25Strategy, openDiskBm25 } from "../../retrieval/bm25/disk-engine.ts";
import { diskIo } from "../../retrieval/bm25/disk-segment.ts";
import { buildFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { mulberry32, ZipfWords, zipfDocs, zipfQuery } from "../../tests/helpers/zipf-docs.ts";
import { peakRss } from "./bench-helpers.ts";
import { DEFAULT_PER_FILE, storedModel, syntheticFileDocs } from "./synthetic-pubmed.ts";

const DOC_SEED = 11;
const QUERY_SEED = 5;

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

type CorpusKind = "zipf" | "pubmed";

/** The bench's documents: seeded Zipfian ones, or the synthetic PubMed generator's (stored fit, seed 1). */
function* corpusDocs(kind: CorpusKind, n: number): Generator<CorpusDoc> {
  if (kind === "zipf") {
    yield* zipfDocs(new ZipfWords(), n, DOC_SEED);
    return;
  }
  const model = storedModel();
  for (let f = 0; f * DEFAULT_PER_FILE < n; f++) yield* syntheticFileDocs(model, f, { entries: n });
}

/** Random 1–7-word queries from the documents of 8 random files of the synthetic PubMed corpus. */
function pubmedQueries(n: number, docs: number): string[] {
  const rnd = mulberry32(QUERY_SEED);
  const files = Math.ceil(docs / DEFAULT_PER_FILE);
  const model = storedModel();
  const pool = Array.from({ length: Math.min(8, files) }, () => syntheticFileDocs(model, Math.floor(rnd() * files), { entries: docs })).flat();
  return Array.from({ length: n }, () => {
    const d = pool[Math.floor(rnd() * pool.length)];
    const words = `${d.title} ${d.text}`.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
    const len = 1 + Math.floor(rnd() * 7);
    return Array.from({ length: len }, () => words[Math.floor(rnd() * words.length)]).join(" ");
  });
}

/** The queries of a run: Zipfian ones made in each process, PubMed ones read from the parent's file. */
function queries(kind: CorpusKind, n: number, file: string): string[] {
  if (kind === "pubmed") return JSON.parse(readFileSync(file, "utf8")) as string[];
  const words = new ZipfWords();
  const rnd = mulberry32(QUERY_SEED);
  return Array.from({ length: n }, () => zipfQuery(words, rnd));
}

async function* batches(kind: CorpusKind, n: number): AsyncGenerator<CorpusDoc[]> {
  let b: CorpusDoc[] = [];
  for (const d of corpusDocs(kind, n)) {
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

async function childBuild(kind: CorpusKind, dir: string, docs: number, runPostings: number): Promise<unknown> {
  const t0 = performance.now();
  rmSync(dir, { recursive: true, force: true });
  await buildDiskBm25(dir, batches(kind, docs), { runPostings, log: (l) => console.error(l) });
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

function childQuery(kind: CorpusKind, qfile: string, dir: string, nq: number, pageCacheMiB: number, strategy: DiskBm25Strategy, out: string): unknown {
  const qs = queries(kind, nq, qfile);
  const rssBefore = peakRss();
  const io0 = diskIo.bytesRead;
  const t0 = performance.now();
  const e = openDiskBm25(dir, { pageCacheMiB, strategy });
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

function childMemory(kind: CorpusKind, qfile: string, docs: number, nq: number, out: string): unknown {
  const all = [...corpusDocs(kind, docs)];
  const t0 = performance.now();
  const e = buildFastBm25(all);
  const buildSeconds = (performance.now() - t0) / 1000;
  e.attachDocs([]); // the docs are not needed for ids and scores
  const qs = queries(kind, nq, qfile);
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

/** The query phase for one on-disk strategy: its line and, under `--exact`, its hits compared with the in-memory engine's. */
function printQuery(strategy: string, query: any): void {
  console.log(
    `query (${strategy}): open ${query.openMs.toFixed(0)} ms (${query.openBytes} B read); cold first query ${query.coldFirstMs.toFixed(1)} ms (${(query.firstQueryBytes / 1024).toFixed(0)} KiB read); first pass p50 ${query.firstPass.p50.toFixed(1)} / p95 ${query.firstPass.p95.toFixed(1)} ms; warm p50 ${query.warm.p50.toFixed(1)} / p95 ${query.warm.p95.toFixed(1)} ms (${query.warm.qps.toFixed(0)} q/s; CPU per query p50 ${query.warmCpu.p50.toFixed(1)} / p95 ${query.warmCpu.p95.toFixed(1)} / mean ${query.warmCpu.mean.toFixed(1)} ms); decoded ${(100 * query.decodedShare).toFixed(1)}% of the lists' postings; peak RSS ${gib(query.peakRss)} (after open ${gib(query.rssOpen)}, page cache ${gib(query.pageCacheResident)})`,
  );
}

/** How many queries have the same top-10 ids and bit-identical float64 scores in two hit files. */
function identicalQueries(fileA: string, fileB: string): { same: number; of: number; hits: number } {
  const a = JSON.parse(readFileSync(fileA, "utf8")) as unknown[][];
  const b = JSON.parse(readFileSync(fileB, "utf8")) as unknown[][];
  let same = 0;
  for (let i = 0; i < a.length; i++) if (JSON.stringify(a[i]) === JSON.stringify(b[i])) same++;
  return { same, of: a.length, hits: a.reduce((n, h) => n + h.length, 0) };
}

function parseStrategies(text: string): DiskBm25Strategy[] {
  const out = text.split(",").map((x) => x.trim());
  for (const x of out) if (!["auto", "taat", "pruned"].includes(x)) throw new Error(`--strategies: unknown strategy ${JSON.stringify(x)} (auto, taat, pruned)`);
  return out as DiskBm25Strategy[];
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const a = process.argv;
  if (mode === "child-build") return console.log(JSON.stringify(await childBuild(a[3] as CorpusKind, a[4], Number(a[5]), Number(a[6]))));
  if (mode === "child-query") return console.log(JSON.stringify(childQuery(a[3] as CorpusKind, a[4], a[5], Number(a[6]), Number(a[7]), a[8] as DiskBm25Strategy, a[9])));
  if (mode === "child-memory") return console.log(JSON.stringify(childMemory(a[3] as CorpusKind, a[4], Number(a[5]), Number(a[6]), a[7])));
  const docs = Number(arg("docs", "1000000"));
  const nq = Number(arg("queries", "1000"));
  const dir = arg("dir", join(tmpdir(), "bm25-disk-bench"));
  const pageCache = Number(arg("page-cache-mib", "256"));
  const runPostings = Number(arg("run-postings", "16000000"));
  const kind = arg("corpus", "zipf") as CorpusKind;
  if (kind !== "zipf" && kind !== "pubmed") throw new Error(`--corpus: ${JSON.stringify(kind)} is neither zipf nor pubmed`);
  const strategies = parseStrategies(arg("strategies", "auto"));
  console.log(
    kind === "zipf"
      ? `bm25-disk bench: ${docs} SYNTHETIC Zipfian docs (Zipf–Mandelbrot α 1.65, q 74.74 as fitted by synthetic-pubmed.ts; seed ${DOC_SEED}), ${nq} random queries, k = 10`
      : `bm25-disk bench: ${docs} SYNTHETIC PubMed entries (synthetic-pubmed.ts, stored fit, seed 1; DeleteCitations applied), ${nq} random 1–7-word queries from its documents (seed ${QUERY_SEED}), k = 10`,
  );
  const qfile = join(dir, "..", `bm25-disk-queries-${process.pid}.json`);
  if (kind === "pubmed") writeFileSync(qfile, JSON.stringify(pubmedQueries(nq, docs)));
  // `--reuse`: query an index a previous `--keep` run left in `--dir` (same --docs), no build.
  const reuse = process.argv.includes("--reuse");
  const build = reuse ? null : runChild(["child-build", kind, dir, String(docs), String(runPostings)], 4096);
  if (build)
    console.log(
      `build: ${build.seconds.toFixed(1)} s (CPU ${build.cpuSeconds.toFixed(1)} s, generation included), peak RSS ${gib(build.peakRss)}, ${build.postings} postings, ${build.vocab} terms, ${build.bytesPerPosting.toFixed(2)} B/posting (postings + block index), index ${gib(build.indexBytes)}`,
    );
  const summary: Record<string, unknown> = { docs, corpus: kind, queries: nq, build, query: {} as Record<string, unknown> };
  const hitFiles: Record<string, string> = {};
  for (const st of strategies) {
    hitFiles[st] = join(dir, "..", `bm25-disk-hits-${st}-${process.pid}.json`);
    const query = runChild(["child-query", kind, qfile, dir, String(nq), String(pageCache), st, hitFiles[st]], 4096);
    printQuery(st, query);
    (summary.query as Record<string, unknown>)[st] = query;
  }
  if (process.argv.includes("--exact")) {
    const memHits = join(dir, "..", `bm25-mem-hits-${process.pid}.json`);
    const mem = runChild(["child-memory", kind, qfile, String(docs), String(nq), memHits], 12_288);
    console.log(
      `in-memory fast engine: build ${mem.buildSeconds.toFixed(1)} s, p50 ${mem.p50.toFixed(1)} / p95 ${mem.p95.toFixed(1)} ms (CPU p50 ${mem.cpuP50.toFixed(1)} / p95 ${mem.cpuP95.toFixed(1)} ms), peak RSS ${gib(mem.peakRss)}`,
    );
    summary.memory = mem;
    summary.identical = {} as Record<string, number>;
    for (const st of strategies) {
      const { same, of, hits } = identicalQueries(hitFiles[st], memHits);
      console.log(`exactness (${st}): ${same}/${of} queries with identical top-10 ids and bit-identical scores (${hits} hits compared)`);
      (summary.identical as Record<string, number>)[st] = same;
    }
    rmSync(memHits, { force: true });
  }
  for (const f of Object.values(hitFiles)) rmSync(f, { force: true });
  rmSync(qfile, { force: true });
  const json = arg("json", "");
  if (json) writeFileSync(json, JSON.stringify(summary, null, 1) + "\n");
  if (!process.argv.includes("--keep") && !reuse) rmSync(dir, { recursive: true, force: true });
}

await main();
