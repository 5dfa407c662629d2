/**
 * On-disk BM25 at MedRAG's size without a corpus store: the SYNTHETIC PubMed documents
 * (synthetic-pubmed.ts's model and PRNG streams: the entries its files would hold, minus each
 * file's DeleteCitation) generated in a worker thread and streamed straight into `buildDiskBm25`,
 * then the 284 MedEvidence questions against the index. For sizes whose XML and full store do not
 * fit this machine's disk (24 M: ≈ 21 GB of XML + ≈ 67 GB of store); what it measures is the BM25
 * engine — build and query — not `corpus ingest` or the document fetch of `search` (scale.ts
 * measures those through the CLI at 5.7 M).
 *
 * Usage: `npx tsx experiments/bench/bm25-disk-pubmed.ts --docs 24000000 --dir /tmp/bm25-24m
 *   [--stages build,query] [--seed 1] [--rounds 3] [--generator process|thread] [--json out.json]`
 * - build: seconds, CPU seconds and peak RSS of the building process, postings, index bytes (with
 *   the impacts file apart); the generator runs in a child process feeding JSON lines (default) or
 *   in a worker thread of the building process (`--generator thread`: its memory and CPU counted
 *   with the build's);
 * - query (a child process per variant, interleaved over `--rounds`): open s, cold first query,
 *   warm p50 / p95 / mean, CPU per question, peak RSS — term-at-a-time on 1 thread, on 2 threads
 *   (the retriever's pool) and the pruned search on 1 thread.
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { peakRss } from "./bench-helpers.ts";
import { DEFAULT_PER_FILE, loadModel, syntheticFileDocs, type SyntheticDoc, type SyntheticModel } from "./synthetic-pubmed.ts";

interface GenData {
  model: SyntheticModel;
  entries: number;
  seed: number;
}

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

/** Worker: answers {file} with that file's documents. */
function generatorThread(): void {
  const d = workerData as GenData;
  parentPort?.on("message", (f: number) => parentPort?.postMessage({ f, docs: syntheticFileDocs(d.model, f, { entries: d.entries, seed: d.seed }) }));
}

/** The documents in file order, generated one file ahead in a worker thread. */
async function* documents(data: GenData): AsyncGenerator<SyntheticDoc[]> {
  const files = Math.ceil(data.entries / DEFAULT_PER_FILE);
  const worker = new Worker(new URL("./bm25-disk-pubmed-worker.mjs", import.meta.url), { workerData: data });
  const pending = new Map<number, SyntheticDoc[]>();
  let wake: (() => void) | null = null;
  worker.on("message", (m: { f: number; docs: SyntheticDoc[] }) => {
    pending.set(m.f, m.docs);
    wake?.();
  });
  try {
    // Two files in flight: one being generated while the build analyses the other.
    worker.postMessage(0);
    if (files > 1) worker.postMessage(1);
    for (let f = 0; f < files; f++) {
      while (!pending.has(f)) await new Promise<void>((res) => (wake = res));
      const docs = pending.get(f) as SyntheticDoc[];
      pending.delete(f);
      if (f + 2 < files) worker.postMessage(f + 2);
      yield docs;
    }
  } finally {
    await worker.terminate();
  }
}

/** Child process of `--generator process`: the documents as JSON lines on stdout (a pipe: writes block, so the build paces it). */
async function generatorProcess(entries: number, seed: number): Promise<void> {
  const model = await loadModel({ seed });
  const files = Math.ceil(entries / DEFAULT_PER_FILE);
  for (let f = 0; f < files; f++) {
    let out = "";
    for (const d of syntheticFileDocs(model, f, { entries, seed })) out += `${JSON.stringify(d)}\n`;
    const buf = Buffer.from(out, "utf8");
    for (let off = 0; off < buf.length; ) {
      try {
        off += writeSync(1, buf, off, buf.length - off);
      } catch (e) {
        // A full non-blocking pipe: wait for the reader.
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        await new Promise((res) => setTimeout(res, 5));
      }
    }
  }
}

/** The documents of a `--gen-child` process, in batches (the build process's memory is then its own). */
async function* documentsFromProcess(entries: number, seed: number): AsyncGenerator<SyntheticDoc[]> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--gen-child", String(entries), String(seed)], { stdio: ["ignore", "pipe", "inherit"] });
  let batch: SyntheticDoc[] = [];
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream, crlfDelay: Infinity })) {
    batch.push(JSON.parse(line));
    if (batch.length === 16_384) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
  const code: number = child.exitCode ?? (await new Promise((res) => child.once("exit", res)));
  if (code !== 0) throw new Error(`generator process exited with ${code}`);
}

async function build(dir: string, entries: number, seed: number, inProcess: boolean): Promise<Record<string, unknown>> {
  const { buildDiskBm25 } = await import("../../retrieval/bm25/disk-engine.ts");
  const model = inProcess ? await loadModel({ seed, log: (l) => console.log(l) }) : null;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let last = 0;
  const stream = model ? documents({ model, entries, seed }) : documentsFromProcess(entries, seed);
  const m = await buildDiskBm25(dir, stream, {
    log: (l) => {
      if (performance.now() - last > 60_000 || !l.includes(" run ")) {
        console.log(`  [${((performance.now() - t0) / 1000).toFixed(0)} s] ${l}`);
        last = performance.now();
      }
    },
  });
  const cpu = process.cpuUsage(c0);
  const seg = join(dir, m.segments[0].name);
  const bytes = (d: string): number => readdirSync(d).reduce((s, f) => s + statSync(join(d, f)).size, 0);
  const header = JSON.parse(readFileSync(join(seg, "header.json"), "utf8"));
  return {
    docs: m.liveDocs,
    buildS: (performance.now() - t0) / 1000,
    buildCpuS: (cpu.user + cpu.system) / 1e6,
    peakRss: peakRss(),
    postings: header.postings,
    terms: header.vocabSize,
    indexBytes: bytes(seg),
    impactBytes: statSync(join(seg, "impacts.u32")).size + statSync(join(seg, "impact-start.f64")).size,
  };
}

/** Child: one query variant over the questions; prints a JSON line. */
async function queryChild(dir: string, variant: string, questionsPath: string): Promise<void> {
  const { openDiskBm25 } = await import("../../retrieval/bm25/disk-engine.ts");
  const { openDiskBm25Pool } = await import("../../retrieval/bm25/disk-parallel.ts");
  const { defaultAnalyzer } = await import("../../retrieval/analyzer.ts");
  const questions: string[] = JSON.parse(readFileSync(questionsPath, "utf8"));
  const threads = variant === "taat-2" ? 2 : 1;
  const t0 = performance.now();
  const engine = openDiskBm25(dir, { strategy: variant === "pruned-1" ? "pruned" : "auto", pageCacheMiB: 256 / threads });
  const pool = threads > 1 ? await openDiskBm25Pool(engine, { threads, pageCacheMiB: 256, analyzerConfig: defaultAnalyzer.config }) : null;
  const openS = (performance.now() - t0) / 1000;
  const search = (q: string) => (pool ? pool.search(q, 10) : Promise.resolve(engine.searchSync(q, 10)));
  const f0 = performance.now();
  await search(questions[0]);
  const firstMs = performance.now() - f0;
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  for (const q of questions.slice(1)) {
    const s = performance.now();
    await search(q);
    lat.push(performance.now() - s);
  }
  const cpu = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  const pick = (p: number) => lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)];
  console.log(
    JSON.stringify({
      variant,
      openS,
      firstMs,
      p50: pick(0.5),
      p95: pick(0.95),
      mean: lat.reduce((a, b) => a + b, 0) / lat.length,
      cpuMsPerQuestion: (cpu.user + cpu.system) / 1000 / lat.length,
      peakRss: peakRss(),
    }),
  );
  await pool?.close();
  engine.close();
}

async function main(): Promise<void> {
  if (process.argv[2] === "--child") return queryChild(process.argv[3], process.argv[4], process.argv[5]);
  if (process.argv[2] === "--gen-child") return generatorProcess(Number(process.argv[3]), Number(process.argv[4]));
  const entries = Number(arg("docs", "24000000"));
  const dir = arg("dir", "/tmp/bm25-disk-pubmed");
  const seed = Number(arg("seed", "1"));
  const stages = arg("stages", "build,query").split(",");
  const rounds = Number(arg("rounds", "3"));
  console.log(
    `# on-disk BM25 on SYNTHETIC PubMed, ${entries.toLocaleString("en")} entries (Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}, ${new Date().toISOString()})`,
  );
  const out: Record<string, unknown> = { entries };
  if (stages.includes("build")) {
    // `process`: the generator in a child process, so peak RSS and CPU are the build's own; `thread`: in a worker thread of this process.
    out.build = await build(dir, entries, seed, arg("generator", "process") === "thread");
    console.log("build", JSON.stringify(out.build));
  }
  if (stages.includes("query")) {
    const { loadDataset } = await import("../../corpus/datasets/registry.ts");
    const questions = ((await loadDataset("medevidence")).items as Array<{ question: string }>).map((t) => t.question);
    const qPath = join(dir, "questions.json");
    writeFileSync(qPath, JSON.stringify(questions));
    const runs: unknown[] = [];
    for (let r = 0; r < rounds; r++)
      for (const v of ["taat-1", "taat-2", "pruned-1"]) {
        const res = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--child", dir, v, qPath], { encoding: "utf8", maxBuffer: 1 << 26 });
        const line = res.stdout.trim().split("\n").pop() ?? "";
        if (res.status !== 0) throw new Error(`query child ${v} failed: ${res.stderr.slice(-2000)}`);
        console.log(`round ${r + 1} ${line}`);
        runs.push(JSON.parse(line));
      }
    out.queries = runs;
  }
  const json = arg("json", "");
  if (json) writeFileSync(json, `${JSON.stringify(out, null, 1)}\n`);
}

if (isMainThread) await main();
else generatorThread();
