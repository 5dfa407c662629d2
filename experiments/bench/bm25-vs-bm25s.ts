/**
 * Quick bench of issue 26's in-memory BM25 target — ours ≥ 2× the REAL bm25s CPU q/s at 25 k, 100 k
 * and 1 M docs, same window (median of ≥ 3 interleaved rounds), query RSS ≤ bm25s's — without
 * XML files or ingest: the SYNTHETIC PubMed records are generated in memory with the generator's
 * model ({@link syntheticDocs}: the same entries `synthetic-pubmed.ts` writes for the same seed),
 * then {@link vsBm25sOn} (scale.ts's comparison: our fast engine built in this process, the real
 * bm25s in its own, `bm25s-real-anchor.py`, one thread each, interleaved rounds of ≥ `--min-seconds`).
 * Our query RSS is measured in a fresh query process (`bm25-query-child.ts` bundled with esbuild,
 * plain `node`) loading the index written by this run: the peak resident set of a process that
 * loads the index and answers the queries, as bm25s's peak RSS is that of its process (build
 * included, so bm25s's figure is its build peak — its query-only RSS is not separable).
 *
 * Queries: the 284 MedEvidence questions (real questions; relevance not measured, only cost).
 *
 * Usage: `nice -n 10 npx tsx experiments/bench/bm25-vs-bm25s.ts [--docs 25000,100000,1000000]
 *   [--rounds 3] [--min-seconds 2] [--seed 1] [--work dir] [--json out.json] [--cache dir]
 *   [--generate-only]`. `--cache dir` keeps the generated documents as JSONL
 *   (`synthetic-<entries>-seed<seed>-v<generator version>.jsonl`, one `{id,title,text}` per line) and
 *   reads them back on the next run (generating 1 M takes minutes); `--generate-only` stops there.
 */
import { spawn } from "node:child_process";
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { CorpusDoc } from "../../corpus/types.ts";
import { vsBm25sOn } from "./scale.ts";
import { GENERATOR_VERSION, loadModel, syntheticDocs, type SyntheticModel } from "./synthetic-pubmed.ts";

/** Target of issue 26: ours / bm25s CPU q/s. */
const TARGET = 2;

interface ChildResult {
  rss: number;
  rssAfterLoad: number;
  loadMs: number;
  t: { qps: number; cpuQps: number; p50: number; p95: number; queries: number };
}

/** Our query process on index folder `dir` (bundled `bm25-query-child.ts`, plain node): peak RSS and its own q/s. */
async function queryChild(dir: string, queries: readonly string[], minSeconds: number): Promise<ChildResult> {
  const { buildSync } = await import("esbuild");
  const tmp = mkdtempSync(join(tmpdir(), "medsynth-bm25s-child-"));
  try {
    const bundle = join(tmp, "child.mjs");
    const qfile = join(tmp, "queries.json");
    writeFileSync(qfile, JSON.stringify(queries));
    buildSync({ entryPoints: [fileURLToPath(new URL("./bm25-query-child.ts", import.meta.url))], bundle: true, platform: "node", format: "esm", target: "node20", outfile: bundle, logLevel: "error" });
    const nodeModules = fileURLToPath(new URL("../../node_modules", import.meta.url));
    const child = spawn(process.execPath, [bundle, dir, qfile, String(minSeconds)], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_PATH: nodeModules } });
    let out = "";
    child.stdout!.on("data", (b) => (out += b));
    const code = await new Promise((res) => child.on("close", res));
    if (code !== 0) throw new Error(`query child exited with ${code}`);
    return JSON.parse(out.trim().split("\n").pop()!) as ChildResult;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The synthetic documents of `n` entries: read from the JSONL cache when present, else generated (and cached when `cache` is set). */
async function docsFor(model: SyntheticModel, n: number, seed: number, cache: string | undefined): Promise<CorpusDoc[]> {
  const file = cache ? join(cache, `synthetic-${n}-seed${seed}-v${GENERATOR_VERSION}.jsonl`) : null;
  if (file && existsSync(file)) {
    const out: CorpusDoc[] = [];
    // Line by line: at 1 M docs the file is longer than V8's longest string.
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line) out.push(JSON.parse(line) as CorpusDoc);
    return out;
  }
  const docs: CorpusDoc[] = [...syntheticDocs(model, { entries: n, seed })];
  if (file) {
    mkdirSync(cache!, { recursive: true });
    const fd = openSync(file + ".tmp", "w");
    for (let i = 0; i < docs.length; i += 10_000)
      writeSync(
        fd,
        docs
          .slice(i, i + 10_000)
          .map((d) => JSON.stringify({ id: d.id, title: d.title, text: d.text }) + "\n")
          .join(""),
      );
    closeSync(fd);
    renameSync(file + ".tmp", file);
  }
  return docs;
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      docs: { type: "string", default: "25000,100000,1000000" },
      rounds: { type: "string", default: "3" },
      "min-seconds": { type: "string", default: "2" },
      seed: { type: "string", default: "1" },
      work: { type: "string" },
      json: { type: "string" },
      cache: { type: "string" },
      "generate-only": { type: "boolean", default: false },
    },
  });
  const sizes = values.docs.split(",").map((s) => Number(s.trim()));
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0)) throw new Error(`--docs must be comma-separated positive integers (got "${values.docs}")`);
  const rounds = Math.max(3, Number(values.rounds));
  const minSeconds = Number(values["min-seconds"]);
  const seed = Number(values.seed);
  const work = resolve(values.work ?? join(tmpdir(), "medsynth-bm25-vs-bm25s"));
  mkdirSync(work, { recursive: true });
  console.log(
    `# in-memory BM25 vs the real bm25s on SYNTHETIC PubMed (Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}, ${new Date().toISOString()})`,
  );
  const model = await loadModel({ seed, log: (l) => console.log(l) });
  const { loadDataset } = await import("../../corpus/datasets/registry.ts");
  const me = await loadDataset("medevidence");
  const queries = (me.items as Array<{ question: string }>).map((t) => t.question);
  console.log(`queries: the ${queries.length} MedEvidence questions; ${rounds} interleaved rounds of ≥ ${minSeconds} s each; k = 10; one thread each`);
  const rows: Record<string, unknown>[] = [];
  for (const n of sizes) {
    const g0 = performance.now();
    const docs = await docsFor(model, n, seed, values.cache);
    const genS = (performance.now() - g0) / 1000;
    if (values["generate-only"]) {
      console.log(`${n.toLocaleString("en")} entries: ${docs.length.toLocaleString("en")} docs in ${genS.toFixed(0)} s`);
      continue;
    }
    const indexDir = join(work, `fast-${n}`);
    rmSync(indexDir, { recursive: true, force: true });
    const v = await vsBm25sOn(docs, queries, rounds, minSeconds, work, { indexDir });
    docs.length = 0;
    if (v.error) {
      console.log(`${n.toLocaleString("en")} entries: ${v.error}`);
      rows.push({ entries: n, ...v });
      continue;
    }
    const child = await queryChild(indexDir, queries, minSeconds);
    rmSync(indexDir, { recursive: true, force: true });
    const ratio = v.ratioCpu as number;
    const bRss = v.bm25sPeakRss as number;
    const ok = ratio >= TARGET && child.rss <= bRss;
    console.log(
      `${(v.docs as number).toLocaleString("en")} docs (generated or read in ${genS.toFixed(0)} s): ours ${(v.oursCpuQps as number).toFixed(0)} q/s CPU, bm25s ${(v.bm25sCpuQps as number).toFixed(0)} → per round [${(v.cpuRatios as number[]).map((x) => x.toFixed(2)).join(", ")}], median ${ratio.toFixed(2)}× (wall ${(v.ratioWall as number).toFixed(2)}×); ` +
        `query RSS ours ${mib(child.rss)} (query process: load ${child.loadMs.toFixed(0)} ms, ${child.t.cpuQps.toFixed(0)} q/s CPU, p50 ${child.t.p50.toFixed(2)} ms) vs bm25s peak ${mib(bRss)}; build ours ${(v.oursBuildS as number).toFixed(1)} s, bm25s ${(v.bm25sBuildS as number).toFixed(1)} s; same top-1 ${((v.sameTop1Share as number) * 100).toFixed(0)} %; bm25s on ${v.bm25sPython}, ${v.bm25sStemmer}; target ≥ ${TARGET}× and RSS ≤ bm25s: ${ok ? "OK" : "MISS"}`,
    );
    rows.push({ entries: n, ...v, oursQueryRss: child.rss, oursQueryChild: child, ok });
  }
  console.log(
    `# load average at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ synthetic: true, node: process.version, rows }, null, 2) + "\n");
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
