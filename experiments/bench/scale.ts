/**
 * Scale bench (issue 26 item 7): PubMed-sized corpora through the CLI a user runs, on the
 * SYNTHETIC PubMed of `synthetic-pubmed.ts` (never copies of one file).
 *
 * Per size (`--docs 25000,100000,1000000[,5700000,24000000]`):
 * - synthetic XML: generation s (not a product figure);
 * - `medsynth corpus ingest <xml> --store <store>`: wall s, peak RSS; store bytes on disk (du) and
 *   live (Σ LanceDB `table.stats().totalBytes` of the store's tables at their latest version);
 * - BM25 through `medsynth search --mode bm25 --corpus lance:<store>` with an empty cache: the first
 *   process builds the index (wall s, peak RSS; index bytes = what it added to the cache; bytes per
 *   posting when the engine's posting count is readable), then 3 new processes (reopen + 1 query:
 *   wall s, peak RSS) and `medsynth retrieval eval --mode bm25` (mean ms/query over 284 queries);
 * - the query process (`scale-query-child.mjs` on dist/: what `search` runs, timed inside): reopen s, cold
 *   first query ms, warm p50/p95 over 283 queries, query RSS — for bm25, dense and hybrid;
 * - dense: `medsynth index build --corpus lance:<store> --index ivf_pq` (wall s, peak RSS,
 *   recall@10 vs exact as the command prints it), dense and hybrid p50 from the query process;
 * - the in-memory BM25 engine vs the REAL bm25s (`../shared/anchors`, `bm25s-real-anchor.py`), same
 *   docs (read from the store), the 284 MedEvidence questions, one thread each, ≥ 3 interleaved
 *   rounds (median of per-round ratios of CPU q/s; wall q/s beside), build s and peak RSS of both;
 *   bm25s's peak RSS over sizes gives the size at which it runs out of memory here (linear fit).
 * Measurements whose engine is not there print `n/a (reason)`; {@link HOOKS} names where to point
 * the bench at the engines other branches add (streaming `--corpus lance:`, on-disk BM25).
 *
 * Usage: `nice -n 10 npx tsx experiments/bench/scale.ts --docs 25000,100000 [--json out.json]
 *   [--work dir] [--rounds 3] [--min-seconds 1] [--no-dense] [--no-bm25s] [--bm25s-max 1000000]
 *   [--timeout-min 30] [--keep] [--natural] [--stages ingest,bm25,cli,query,dense,bm25s] [--bm25-engine fast|wink|disk]
 *   [--compression none|lz4|zstd|lance-default] [--drop-xml]`; `--compression` is passed to `corpus ingest`, `--drop-xml`
 *   deletes the generated XML once it is ingested (at 24 M the XML and a full store do not fit this machine's disk together).
 *   `--natural` adds the same bm25s comparison on the real bundled abstracts (3.3 k, no copies) as a
 *   reference row. `--stages` measures only the stages named (default all; the synthetic XML is
 *   always generated or reused; without `ingest` an existing store of the work folder is reused, e.g.
 *   after `--keep`): `bm25` = the first `search` (index build), `cli` = new `search` processes and
 *   `retrieval eval`, `query` = the query process (reopen, p50/p95, RSS) for BM25, `dense` = `index
 *   build` + dense and hybrid query processes, `bm25s` = the real bm25s comparison. `--bm25-engine`
 *   is passed to every `search` / `retrieval eval` and to the query process (default: the CLI's).
 *   Needs `dist/` (run `node scripts/build.mjs` after changing code).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { cpus, loadavg, totalmem, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { CorpusDoc } from "../../corpus/types.ts";
import { peakRss } from "./bench-helpers.ts";
import { describeModel, GENERATOR_VERSION, generateSyntheticPubmed, loadModel, type SyntheticModel } from "./synthetic-pubmed.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "medsynth.js");
const ANCHORS = resolve(ROOT, "..", "shared", "anchors");

/**
 * Named hooks for engines other branches add (issue 26 items 2 and 4). After merging, point these
 * at the new engines; the bench detects what it can from `--help` and says `n/a (reason)` otherwise.
 */
export const HOOKS = {
  /**
   * Extra options of `search` / `retrieval eval` selecting the on-disk BM25 engine (h-bm25), e.g.
   * `["--bm25-engine", "disk"]`. null: detected from `medsynth search --help` (an engine named
   * "disk" in `--bm25-engine`), else the on-disk row is n/a.
   */
  diskBm25Args: null as string[] | null,
  /** Extra options of `index build` for the dense index measured (IVF-PQ in LanceDB). */
  denseIndexArgs: ["--index", "ivf_pq"],
  /** The query process (`scale-query-child.mjs` on dist/, see its `cliRetriever` hook): mirrors `medsynth search`. */
  queryChild: fileURLToPath(new URL("./scale-query-child.mjs", import.meta.url)),
};

/** Targets of issue 26 (this 2-core / 24 GB machine), printed beside the figures. */
const TARGETS = {
  buildRssGb: 4,
  queryRssGb: 1.5,
  reopenS: 2,
  bm25P50Ms: { 5700000: 50, 24000000: 100 } as Record<number, number>,
  bm25P95Ms: 200,
  hybridP50Ms: 150,
  denseRecall: 0.95,
  storeRatio: 1.2,
  vsBm25s: 2,
};

type Fig = number | string | null;
const na = (why: string) => `n/a (${why})`;

interface CliRun {
  code: number | null;
  wallS: number;
  /** Peak RSS of the command's process (GNU time %M), bytes. */
  rss: number | null;
  /** CPU seconds (user + system) of the command, all its threads: less sensitive than wall time to other load on a shared machine. */
  cpuS: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Run `medsynth <args>` under GNU time (wall s, peak RSS), with `env` added; killed after `timeoutMs`. */
function runCli(args: string[], env: Record<string, string>, timeoutMs: number): Promise<CliRun> {
  return runTimed([process.execPath, BIN, ...args], env, timeoutMs);
}

function runTimed(argv: string[], env: Record<string, string>, timeoutMs: number): Promise<CliRun> {
  const hasTime = existsSync("/usr/bin/time");
  const cmd = hasTime ? "/usr/bin/time" : argv[0];
  const args = hasTime ? ["-f", "__SCALE_TIME__ %e %M %U %S", ...argv] : argv.slice(1);
  const t0 = performance.now();
  return new Promise((res) => {
    const child = spawn(cmd, args, { env: { ...process.env, LANCEDB_LOG: "error", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => (stdout += b));
    child.stderr.on("data", (b) => (stderr += b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const m = /__SCALE_TIME__ ([\d.]+) (\d+) ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      const wallS = (performance.now() - t0) / 1000;
      res({
        code,
        wallS: m ? Number(m[1]) : wallS,
        rss: m ? Number(m[2]) * 1024 : null,
        cpuS: m ? Number(m[3]) + Number(m[4]) : null,
        stdout,
        stderr: stderr.replace(/__SCALE_TIME__.*$/s, ""),
        timedOut,
      });
    });
  });
}

function failure(r: CliRun, what: string): string | null {
  if (r.timedOut) return na(`${what} timed out`);
  if (r.code !== 0)
    return na(
      `${what} exited ${r.code}: ${(
        r.stderr
          .trim()
          .split("\n")
          .filter((l) => !/^\s+at /.test(l))
          .pop() ?? ""
      ).slice(0, 160)}`,
    );
  return null;
}

/** Bytes under a path (files only), 0 when absent. */
function duBytes(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) n += duBytes(join(p, e.name));
  return n;
}

/** Live bytes of a Lance store: Σ `stats().totalBytes` over its tables (latest versions). */
async function liveBytes(store: string): Promise<Fig> {
  try {
    const lancedb = await import("@lancedb/lancedb");
    const db = await lancedb.connect(store);
    let n = 0;
    for (const t of await db.tableNames()) n += (await (await db.openTable(t)).stats()).totalBytes;
    return n;
  } catch (e) {
    return na(`LanceDB stats failed: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** Postings of the fast BM25 index in a cache folder (its array files read back), or n/a. HOOK: add the on-disk engine's count here. */
async function postingCount(cache: string): Promise<Fig> {
  const root = join(cache, "bm25");
  const dir = existsSync(root) ? readdirSync(root).find((d) => d.startsWith("fast-")) : undefined;
  if (!dir) return na("no in-memory BM25 index folder in the cache (engine chosen by size is not `fast`)");
  try {
    const { readFastBm25 } = await import("../../retrieval/bm25/fast-engine.ts");
    return (readFastBm25 as unknown as (d: string) => { postingCount: number })(join(root, dir)).postingCount;
  } catch (e) {
    return na(`reading ${dir}: ${(e as Error).message.split("\n")[0]}`);
  }
}

interface ChildOut {
  openS: number;
  /** CPU seconds of the reopen (absent from older children). */
  openCpuS?: number;
  /** On-disk BM25 threads per query and the process's CPU seconds (absent from older children). */
  bm25Threads?: number;
  cpuS?: number;
  firstMs: number;
  p50: number;
  p95: number;
  mean: number;
  queries: number;
  peakRss: number;
  engine: string;
  id: string;
}

/**
 * Step of the dense stage: `medsynth index tune --queries <the bench's questions>` on the index
 * just built (or reopened): the build's recall (corpus vectors as queries) stays in
 * `denseRecall10`; the tuned `nprobes` and the recall@10 on the held-out half of the questions go
 * to `denseTunedNprobes` / `denseRecall10Questions`. The query processes after it search with
 * the tuned `nprobes` (stored in the index).
 */
async function tuneOnQuestions(store: string, queriesFile: string, env: Record<string, string>, timeoutMs: number, out: Record<string, unknown>, log: (l: string) => void): Promise<void> {
  const t = await runCli(["index", "tune", "--corpus", `lance:${store}`, "--queries", queriesFile, "--json"], env, timeoutMs);
  const tf = failure(t, "index tune");
  if (tf) {
    out.denseRecall10Questions = tf;
    log(`dense: index tune failed: ${tf}`);
    return;
  }
  const rep = JSON.parse(t.stdout.trim().split("\n").pop() ?? "{}") as { nprobes: number; recallAt10HeldOut: number; recallAt10Tune: number; tuning: { tuneQueries: number; heldOutQueries: number } };
  out.denseTunedNprobes = rep.nprobes;
  out.denseRecall10Questions = rep.recallAt10HeldOut;
  out.denseTuneS = t.wallS;
  log(
    `dense: \`index tune\` on ${rep.tuning.tuneQueries} questions → nprobes ${rep.nprobes}; recall@10 vs exact ${rep.recallAt10HeldOut.toFixed(3)} on ${rep.tuning.heldOutQueries} held-out questions (${rep.recallAt10Tune.toFixed(3)} on the tuning half), ${s1(t.wallS)}`,
  );
}

async function queryChild(store: string, mode: string, queriesFile: string, cache: string, index: string, timeoutMs: number, bm25Engine: string | null): Promise<ChildOut | string> {
  const r = await runTimed([process.execPath, HOOKS.queryChild, `lance:${store}`, mode, queriesFile, index, ...(bm25Engine ? [bm25Engine] : [])], { MEDSYNTH_CACHE_DIR: cache }, timeoutMs);
  const f = failure(r, `query process (${mode})`);
  if (f) return f;
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as ChildOut;
}

/**
 * The first Python (`$MEDSYNTH_PYTHON`, `python3`, Debian's `/usr/bin/python3`) that imports
 * numpy ≥ 1.25, scipy and PyStemmer, or null. Without PyStemmer bm25s tokenises without a stemmer:
 * a different (and faster) pipeline than ours; numpy before 1.25 runs `np.add.at` (bm25s's scoring
 * step) ~10× slower (measured here: 2.1 vs 0.14 ms per question at 25 k docs with Debian 12's
 * numpy 1.24). Either way its q/s is no anchor.
 */
export function findBm25sPython(candidates = [process.env.MEDSYNTH_PYTHON, "python3", "/usr/bin/python3"]): string | null {
  const probe = "import numpy, scipy, Stemmer, sys; sys.exit(0 if tuple(int(x) for x in numpy.__version__.split('.')[:2]) >= (1, 25) else 1)";
  for (const py of candidates) {
    if (!py) continue;
    const r = spawnSync(py, ["-c", probe], { stdio: "ignore" });
    if (r.status === 0) return py;
  }
  return null;
}

/** The real bm25s in its own process (`bm25s-real-anchor.py`), or the reason it cannot run. */
async function startBm25s(docsFile: string, queriesFile: string) {
  const pkg = join(ANCHORS, "bm25s");
  if (!existsSync(join(pkg, "bm25s", "__init__.py"))) return na(`real bm25s not found at ${pkg}`);
  const python = findBm25sPython();
  if (!python) return na("no Python with numpy ≥ 1.25, scipy and PyStemmer: `python3 -m pip install numpy scipy PyStemmer`, or set $MEDSYNTH_PYTHON");
  const py = spawn(python, [fileURLToPath(new URL("./bm25s-real-anchor.py", import.meta.url)), docsFile, queriesFile], {
    env: { ...process.env, PYTHONPATH: pkg },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  py.stderr!.on("data", (b) => (err += b));
  const lines = createInterface({ input: py.stdout! })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const r = await lines.next();
    if (r.done) throw new Error(`bm25s anchor exited: ${err.trim().split("\n").pop() ?? ""}`);
    return JSON.parse(r.value) as T;
  };
  const t0 = performance.now();
  const ready = await next<{ build_s: number; tokenize_s: number; docs: number; vocab: number; peak_rss: number; stemmer: string; python: string; numpy: string }>();
  const wall = (performance.now() - t0) / 1000;
  const ask = <T>(cmd: string) => {
    py.stdin!.write(cmd + "\n");
    return next<T>();
  };
  return {
    ready,
    loadAndBuildWallS: wall,
    round: (s: number) => ask<{ wall_qps: number; cpu_qps: number; queries: number }>(`round ${s}`),
    top: () => ask<number[][]>("top"),
    rss: async () => (await ask<{ peak_rss: number }>("rss")).peak_rss,
    quit: () => py.stdin!.end("quit\n"),
  };
}

/** Single-thread timing of our in-memory engine: CPU and wall q/s over ≥ `minSeconds`. */
function timeOurs(search: (q: string) => unknown, queries: string[], minSeconds: number): { cpuQps: number; wallQps: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < minSeconds * 1000 || i < queries.length) search(queries[i++ % queries.length]);
  const cpu = process.cpuUsage(c0);
  return { cpuQps: i / ((cpu.user + cpu.system) / 1e6), wallQps: i / ((performance.now() - t0) / 1000) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** In-memory BM25 (ours) vs the real bm25s at one size: same docs from the store, interleaved rounds. */
async function vsBm25s(store: string, queries: string[], rounds: number, minSeconds: number, work: string): Promise<Record<string, Fig | number[]>> {
  const { openCorpusSource } = await import("../../corpus/corpus-file.ts");
  const src = await openCorpusSource(`lance:${store}`);
  if (!src) return { error: na("store did not open") };
  const docs: CorpusDoc[] = [];
  for await (const b of src.scanDocs(16_384)) docs.push(...b);
  return vsBm25sOn(docs, queries, rounds, minSeconds, work);
}

/**
 * {@link vsBm25s} on documents in memory (also used for the real bundled corpus, `--natural`): our
 * fast engine built in this process, the real bm25s in its own, `rounds` interleaved rounds of ≥
 * `minSeconds` each; per-round CPU and wall q/s ratios and their medians, build s, bm25s peak RSS.
 * `opts.indexDir`: also write our index there (for a query process measuring our query RSS).
 */
export async function vsBm25sOn(docs: CorpusDoc[], queries: string[], rounds: number, minSeconds: number, work: string, opts: { indexDir?: string } = {}): Promise<Record<string, Fig | number[]>> {
  const { buildFastBm25 } = await import("../../retrieval/bm25/fast-engine.ts");
  const docsFile = join(work, "bm25s-docs.jsonl");
  const qFile = join(work, "bm25s-queries.json");
  // In chunks: at 1 M docs the whole file is longer than V8's longest string.
  const fd = openSync(docsFile, "w");
  for (let i = 0; i < docs.length; i += 10_000)
    writeSync(
      fd,
      docs
        .slice(i, i + 10_000)
        .map((d) => JSON.stringify(`${d.title} ${d.text}`) + "\n")
        .join(""),
    );
  closeSync(fd);
  writeFileSync(qFile, JSON.stringify(queries));
  const rss0 = peakRss();
  const b0 = performance.now();
  const ours = buildFastBm25(docs, { k1: 1.5, b: 0.75, fieldWeights: { title: 1, text: 1 } });
  const oursBuildS = (performance.now() - b0) / 1000;
  const oursBuildRss = peakRss();
  const anchor = await startBm25s(docsFile, qFile);
  rmSync(docsFile, { force: true });
  if (typeof anchor === "string") return { error: anchor, oursBuildS, oursPostings: ours.postingCount };
  const mine: Array<{ cpuQps: number; wallQps: number }> = [];
  const theirs: Array<{ cpu_qps: number; wall_qps: number }> = [];
  timeOurs((q) => ours.searchSync(q, 10), queries.slice(0, 50), 0); // warm-up
  await anchor.round(0);
  for (let r = 0; r < rounds; r++) {
    mine.push(timeOurs((q) => ours.searchSync(q, 10), queries, minSeconds));
    theirs.push(await anchor.round(minSeconds));
  }
  // Agreement of the top-1 document (bm25s tokenises and stems on its own; not expected identical).
  const top = await anchor.top();
  let sameTop1 = 0;
  queries.forEach((q, i) => {
    if (ours.searchSync(q, 1)[0]?.id === docs[top[i][0]]?.id) sameTop1++;
  });
  const bm25sRss = await anchor.rss();
  anchor.quit();
  if (opts.indexDir) ours.writeTo(opts.indexDir);
  const cpuRatios = mine.map((m, i) => m.cpuQps / theirs[i].cpu_qps);
  const wallRatios = mine.map((m, i) => m.wallQps / theirs[i].wall_qps);
  return {
    docs: docs.length,
    oursBuildS,
    oursBuildRssDelta: oursBuildRss - rss0,
    oursPostings: ours.postingCount,
    oursCpuQps: median(mine.map((m) => m.cpuQps)),
    oursWallQps: median(mine.map((m) => m.wallQps)),
    bm25sCpuQps: median(theirs.map((t) => t.cpu_qps)),
    bm25sWallQps: median(theirs.map((t) => t.wall_qps)),
    cpuRatios,
    wallRatios,
    ratioCpu: median(cpuRatios),
    ratioWall: median(wallRatios),
    bm25sBuildS: anchor.ready.build_s,
    bm25sTokenizeS: anchor.ready.tokenize_s,
    bm25sVocab: anchor.ready.vocab,
    bm25sPeakRss: bm25sRss,
    bm25sStemmer: anchor.ready.stemmer,
    bm25sPython: `${anchor.ready.python} (numpy ${anchor.ready.numpy})`,
    sameTop1Share: sameTop1 / queries.length,
  };
}

function parseFlagHelp(): { diskBm25: string[] | null; lanceInHelp: boolean } {
  const r = spawnSync(process.execPath, [BIN, "search", "--help"], { encoding: "utf8" });
  const help = r.stdout ?? "";
  const m = /--bm25-engine <engine>\s+([^\n]*)/.exec(help);
  return { diskBm25: HOOKS.diskBm25Args ?? (m && /\bdisk\b/.test(m[1]) ? ["--bm25-engine", "disk"] : null), lanceInHelp: /lance:/.test(help) };
}

/** A figure that is not a number: its `n/a (…)` text, or — absent from a run whose `--stages` skipped it — say so (never "undefined"). */
const notNumber = (x: Fig | undefined) => (x === undefined || x === null ? "n/a (not measured in this run)" : String(x));
const gb = (b: Fig) => (typeof b === "number" ? `${(b / 2 ** 30).toFixed(2)} GiB` : notNumber(b));
const mb = (b: Fig) => (typeof b === "number" ? `${(b / 2 ** 20).toFixed(0)} MiB` : notNumber(b));
const s1 = (x: Fig) => (typeof x === "number" ? `${x.toFixed(1)} s` : notNumber(x));
const ms = (x: Fig) => (typeof x === "number" ? `${x.toFixed(1)} ms` : notNumber(x));
const mark = (ok: boolean) => (ok ? "OK" : "MISS");

/** Everything measured at one size (figures are numbers; `n/a (…)` strings where not measurable). */
type SizeResult = Record<string, unknown>;

/** Stages of {@link measureSize} that `--stages` selects (the synthetic XML is always generated or reused). */
export const STAGES = ["ingest", "bm25", "cli", "query", "dense", "bm25s"] as const;
type Stage = (typeof STAGES)[number];

/**
 * `--drop-xml`: delete a size's generated `.xml.gz` files after its ingest succeeded, and mark the
 * manifest (`xmlDropped`) so a later run with `--stages` leaving ingest out reuses the store
 * without regenerating the XML (at 24 M the XML is ≈ 21 GB of disk beside the store).
 */
function dropXmlFiles(xml: string, manifest: string, log: (l: string) => void): void {
  let bytes = 0;
  for (const f of readdirSync(xml)) {
    if (!f.endsWith(".xml.gz")) continue;
    bytes += statSync(join(xml, f)).size;
    rmSync(join(xml, f));
  }
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), xmlDropped: true }) + "\n");
  log(`synthetic XML deleted after the ingest (--drop-xml): ${mb(bytes)} freed`);
}

/**
 * `--stages` → the set of stages to run.
 * @throws Error naming an unknown stage.
 */
export function parseStages(s: string | undefined): Set<Stage> {
  if (s === undefined || s.trim() === "" || s.trim() === "all") return new Set(STAGES);
  const names = s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  const bad = names.filter((x) => !(STAGES as readonly string[]).includes(x));
  if (bad.length) throw new Error(`--stages: unknown stage(s) ${bad.join(", ")} (expected a comma-separated subset of ${STAGES.join(", ")})`);
  return new Set(names as Stage[]);
}

async function measureSize(
  n: number,
  model: SyntheticModel,
  o: {
    work: string;
    queries: string[];
    queriesFile: string;
    rounds: number;
    minSeconds: number;
    dense: boolean;
    bm25s: boolean;
    bm25sMax: number;
    timeoutMs: number;
    diskBm25: string[] | null;
    seed: number;
    stages: Set<Stage>;
    bm25Engine: string | null;
    /** `corpus ingest --compression` (null: the CLI's default). */
    compression: string | null;
    /** Delete the generated `.xml.gz` files once the ingest succeeded (the manifest stays, so later `--stages` without ingest reuse the store). */
    dropXml: boolean;
  },
): Promise<SizeResult> {
  const out: SizeResult = { docs: n };
  const dir = join(o.work, `n${n}`);
  const xml = join(dir, "xml");
  const store = join(dir, "store");
  const cache = join(dir, "cache");
  const env = { MEDSYNTH_CACHE_DIR: cache };
  const log = (l: string) => console.log(`[${n}] ${l}`);
  // 1. Synthetic XML (reused when the folder already holds this size and seed).
  const manifest = join(xml, "SYNTHETIC.json");
  const prior = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { entries: number; seed: number; generatorVersion?: number }) : null;
  const same = prior !== null && prior.entries === n && prior.seed === o.seed && prior.generatorVersion === GENERATOR_VERSION;
  const dropped = same && (prior as { xmlDropped?: boolean }).xmlDropped === true;
  if (dropped && !o.stages.has("ingest")) {
    out.generateS = (prior as { seconds?: number }).seconds ?? null;
    out.xmlBytes = na("XML deleted after its ingest (--drop-xml)");
    log(`synthetic XML: deleted after the ingest of an earlier run (--drop-xml); its store is reused`);
  } else if (!same || dropped) {
    rmSync(xml, { recursive: true, force: true });
    const g = await generateSyntheticPubmed(model, { outDir: xml, entries: n, seed: o.seed });
    writeFileSync(manifest, JSON.stringify({ synthetic: true, generatorVersion: GENERATOR_VERSION, entries: n, seed: o.seed, seconds: g.seconds, deletes: g.deletes, words: g.words }) + "\n");
    out.generateS = g.seconds;
    out.deletes = g.deletes;
    out.xmlBytes = duBytes(xml);
    log(`synthetic XML: ${n} entries (${g.deletes} deleted again), ${mb(out.xmlBytes as number)} gz, generated in ${s1(g.seconds)}`);
  } else {
    out.generateS = (prior as { seconds?: number }).seconds ?? null;
    out.xmlBytes = duBytes(xml);
    log(`synthetic XML: reused (${mb(out.xmlBytes as number)} gz; generated in ${s1(out.generateS as Fig)})`);
  }
  // 2. Ingest through the CLI (or the store of an earlier `--keep` run when `--stages` leaves ingest out).
  const has = (s: Stage) => o.stages.has(s);
  const bm25Args = o.bm25Engine ? ["--bm25-engine", o.bm25Engine] : [];
  out.stages = [...o.stages];
  if (has("ingest")) {
    rmSync(store, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
    const compression = o.compression ? ["--compression", o.compression] : [];
    const ing = await runCli(["corpus", "ingest", xml, "--store", store, ...compression, "--json", "--no-progress"], env, o.timeoutMs);
    const ingFail = failure(ing, "corpus ingest");
    out.ingestS = ingFail ?? ing.wallS;
    out.ingestPeakRss = ingFail ?? ing.rss;
    out.ingestCpuS = ingFail ?? ing.cpuS;
    if (ingFail) {
      log(`ingest: ${ingFail}`);
      return out;
    }
    log(`ingest: ${s1(ing.wallS)} (CPU ${s1(ing.cpuS)}), peak RSS ${gb(ing.rss)}`);
    if (o.dropXml) dropXmlFiles(xml, manifest, log);
  } else if (existsSync(store)) {
    out.ingestS = na("--stages without ingest: store reused");
    log(`ingest: skipped, store reused (${store})`);
  } else {
    out.ingestS = na(`--stages without ingest and no store at ${store}`);
    log(`ingest: ${out.ingestS}`);
    return out;
  }
  out.storeDiskBytes = duBytes(store);
  out.storeLiveBytes = await liveBytes(store);
  log(`store ${gb(out.storeDiskBytes as number)} on disk, ${gb(out.storeLiveBytes as Fig)} live`);
  // 3. BM25 through `search`: first process builds, then new processes reopen.
  const q = o.queries;
  const first = has("bm25") ? await runCli(["search", "--mode", "bm25", ...bm25Args, "--corpus", `lance:${store}`, q[0]], env, o.timeoutMs) : null;
  const firstFail = first ? failure(first, "search (BM25 build)") : na("--stages without bm25");
  out.bm25Engine = firstFail ?? /^(\S+): \d+ hit/m.exec(first!.stdout)?.[1] ?? "?";
  out.bm25BuildS = firstFail ?? first!.wallS;
  out.bm25BuildPeakRss = firstFail ?? first!.rss;
  out.bm25BuildCpuS = firstFail ?? first!.cpuS;
  out.bm25IndexBytes = firstFail ?? duBytes(cache);
  out.bm25IndexBytesPerDoc = typeof out.bm25IndexBytes === "number" ? out.bm25IndexBytes / n : out.bm25IndexBytes;
  const postings = await postingCount(cache);
  out.bm25Postings = postings;
  out.bm25BytesPerPosting = typeof postings === "number" && typeof out.bm25IndexBytes === "number" ? out.bm25IndexBytes / postings : typeof postings === "string" ? postings : na("no index");
  log(
    `BM25 (${out.bm25Engine}): first search process (load + build + 1 query) ${s1(out.bm25BuildS as Fig)} (CPU ${s1(out.bm25BuildCpuS as Fig)}), peak RSS ${gb(out.bm25BuildPeakRss as Fig)}; index ${mb(out.bm25IndexBytes as Fig)} (${typeof out.bm25IndexBytesPerDoc === "number" ? out.bm25IndexBytesPerDoc.toFixed(0) : out.bm25IndexBytesPerDoc} B/doc), ${typeof out.bm25BytesPerPosting === "number" ? out.bm25BytesPerPosting.toFixed(2) : out.bm25BytesPerPosting} bytes/posting`,
  );
  const bm25Failed = first !== null && firstFail !== null;
  if (has("cli") && !bm25Failed) {
    const reopen: CliRun[] = [];
    for (const qq of q.slice(1, 4)) reopen.push(await runCli(["search", "--mode", "bm25", ...bm25Args, "--corpus", `lance:${store}`, qq], env, o.timeoutMs));
    const bad = reopen.map((r) => failure(r, "search")).find((x) => x);
    out.cliSearchProcessS = bad ?? median(reopen.map((r) => r.wallS));
    out.cliSearchPeakRss = bad ?? Math.max(...reopen.map((r) => r.rss ?? 0));
    out.cliSearchCpuS = bad ?? median(reopen.map((r) => r.cpuS ?? NaN));
    const ev = await runCli(
      ["retrieval", "eval", "--mode", "bm25", ...bm25Args, "--corpus", `lance:${store}`, "--dataset", "medevidence", "--k", "10", "--trec-depth", "10", "--json"],
      env,
      o.timeoutMs,
    );
    const evFail = failure(ev, "retrieval eval");
    out.cliEvalMsPerQuery = evFail ?? (JSON.parse(ev.stdout) as { msPerQuery: number }).msPerQuery;
    out.cliEvalPeakRss = evFail ?? ev.rss;
    log(
      `BM25 CLI: new \`search\` process (reopen + 1 query) ${s1(out.cliSearchProcessS as Fig)} (CPU ${s1(out.cliSearchCpuS as Fig)}) median of 3, peak RSS ${gb(out.cliSearchPeakRss as Fig)}; \`retrieval eval\` ${ms(out.cliEvalMsPerQuery as Fig)}/query (mean, 284 queries), peak RSS ${gb(out.cliEvalPeakRss as Fig)}`,
    );
  }
  if (has("query") && !bm25Failed) {
    // Without the bm25 stage the index is built inside the query process (its reopen figure then includes the build).
    const c = await queryChild(store, "bm25", o.queriesFile, cache, "none", o.timeoutMs, o.bm25Engine);
    if (typeof c === "string") out.bm25Query = c;
    else {
      Object.assign(out, {
        reopenS: c.openS,
        reopenCpuS: c.openCpuS ?? null,
        bm25ColdFirstMs: c.firstMs,
        bm25WarmP50Ms: c.p50,
        bm25WarmP95Ms: c.p95,
        bm25QueryPeakRss: c.peakRss,
        bm25Threads: c.bm25Threads ?? null,
        bm25QueryCpuS: c.cpuS ?? null,
      });
      log(
        `BM25 query process (${c.id}, engine ${c.engine}, ${c.bm25Threads ?? "?"} thread(s) per query; process CPU ${s1(c.cpuS ?? null)}): reopen ${s1(c.openS)} (CPU ${s1(c.openCpuS ?? null)}), cold first query ${ms(c.firstMs)}, warm p50 ${ms(c.p50)} p95 ${ms(c.p95)} (${c.queries} queries), peak RSS ${gb(c.peakRss)}`,
      );
    }
  }
  if (o.bm25Engine === "disk") out.diskBm25 = "the BM25 rows above (--bm25-engine disk)";
  else if (!has("bm25")) out.diskBm25 = na("--stages without bm25");
  else if (o.diskBm25) {
    const d = await runCli(["search", "--mode", "bm25", ...o.diskBm25, "--corpus", `lance:${store}`, q[0]], env, o.timeoutMs);
    out.diskBm25 = failure(d, "search (on-disk BM25)") ?? { firstProcessS: d.wallS, peakRss: d.rss };
    log(`on-disk BM25 (${o.diskBm25.join(" ")}): ${JSON.stringify(out.diskBm25)}`);
  } else out.diskBm25 = na("no on-disk BM25 engine in `medsynth search --help` (issue 26 item 4, h-bm25); set HOOKS.diskBm25Args");
  // 4. Dense (IVF-PQ) through `index build`, dense and hybrid latency from the query process.
  if (!o.dense || !has("dense")) out.dense = na(o.dense ? "--stages without dense" : "--no-dense");
  else {
    const b = await runCli(["index", "build", "--corpus", `lance:${store}`, ...HOOKS.denseIndexArgs], env, o.timeoutMs);
    const bf = failure(b, "index build");
    out.denseBuildS = bf ?? b.wallS;
    out.denseBuildPeakRss = bf ?? b.rss;
    out.denseBuildCpuS = bf ?? b.cpuS;
    const rec = /recall@10 vs exact ([\d.]+)/.exec(b.stdout);
    out.denseRecall10 = bf ?? (rec ? Number(rec[1]) : na(/exact search/.test(b.stdout) ? "exact search, no ANN index built" : "not printed by index build"));
    log(
      `dense: \`index build ${HOOKS.denseIndexArgs.join(" ")}\` ${s1(out.denseBuildS as Fig)} (CPU ${s1(out.denseBuildCpuS as Fig)}; BM25 already cached), peak RSS ${gb(out.denseBuildPeakRss as Fig)}, recall@10 vs exact ${out.denseRecall10}`,
    );
    if (!bf && /^engine: memory\b/m.test(b.stdout)) out.denseRecall10Questions = na("in-memory engine (below 250,000 docs): no on-disk IVF index to tune");
    else if (!bf) await tuneOnQuestions(store, o.queriesFile, env, o.timeoutMs, out, log);
    if (!bf) {
      const index = HOOKS.denseIndexArgs[HOOKS.denseIndexArgs.indexOf("--index") + 1] ?? "none";
      for (const mode of ["dense", "hybrid"]) {
        const c = await queryChild(store, mode, o.queriesFile, cache, index, o.timeoutMs, o.bm25Engine);
        if (typeof c === "string") out[`${mode}P50Ms`] = c;
        else {
          Object.assign(out, { [`${mode}P50Ms`]: c.p50, [`${mode}P95Ms`]: c.p95, [`${mode}ReopenS`]: c.openS, [`${mode}QueryPeakRss`]: c.peakRss });
          log(`${mode} query process (${c.id}): reopen ${s1(c.openS)}, cold first ${ms(c.firstMs)}, warm p50 ${ms(c.p50)} p95 ${ms(c.p95)}, peak RSS ${gb(c.peakRss)}`);
        }
      }
    }
  }
  out.cacheBytesAfterAll = duBytes(cache);
  // 5. In-memory BM25 vs the real bm25s.
  if (!o.bm25s || !has("bm25s")) out.vsBm25s = na(o.bm25s ? "--stages without bm25s" : "--no-bm25s");
  else if (n > o.bm25sMax) out.vsBm25s = na(`size above --bm25s-max ${o.bm25sMax}`);
  else {
    const v = await vsBm25s(store, o.queries, o.rounds, o.minSeconds, dir);
    out.vsBm25s = v;
    if (v.error) log(`vs bm25s: ${v.error}`);
    else {
      const f0 = (x: unknown) => (x as number).toFixed(0);
      log(
        `in-memory BM25 vs real bm25s (${v.docs} docs, ${o.rounds} interleaved rounds, one thread): ours ${f0(v.oursCpuQps)} q/s CPU (${f0(v.oursWallQps)} wall), bm25s ${f0(v.bm25sCpuQps)} q/s CPU (${f0(v.bm25sWallQps)} wall, tokenize + retrieve) → ${(v.ratioCpu as number).toFixed(2)}× CPU [${(v.cpuRatios as number[]).map((x) => x.toFixed(2)).join(", ")}], ${(v.ratioWall as number).toFixed(2)}× wall; target ≥ ${TARGETS.vsBm25s}×: ${mark((v.ratioCpu as number) >= TARGETS.vsBm25s)}`,
      );
      log(
        `  build: ours ${s1(v.oursBuildS as number)} (+${gb(v.oursBuildRssDelta as number)} RSS in the bench process), bm25s ${s1(v.bm25sBuildS as number)} (tokenize ${s1(v.bm25sTokenizeS as number)}; ${v.bm25sStemmer}), bm25s peak RSS ${gb(v.bm25sPeakRss as number)}; same top-1 doc on ${((v.sameTop1Share as number) * 100).toFixed(0)} % of queries`,
      );
    }
  }
  return out;
}

function printSummary(results: SizeResult[]): Record<string, unknown> {
  console.log("");
  console.log("# Summary (SYNTHETIC PubMed; figures through the CLI unless said; targets of issue 26)");
  for (const r of results) {
    const n = r.docs as number;
    const num = (k: string) => (typeof r[k] === "number" ? (r[k] as number) : null);
    const lines: string[] = [];
    const ingestRss = num("ingestPeakRss");
    lines.push(`ingest ${s1(r.ingestS as Fig)}, peak RSS ${gb(r.ingestPeakRss as Fig)}${ingestRss !== null ? ` (≤ ${TARGETS.buildRssGb} GB: ${mark(ingestRss <= TARGETS.buildRssGb * 1e9)})` : ""}`);
    const disk = num("storeDiskBytes");
    const live = num("storeLiveBytes");
    lines.push(
      `store ${gb(r.storeDiskBytes as Fig)} on disk / ${gb(r.storeLiveBytes as Fig)} live${disk && live ? ` = ${(disk / live).toFixed(2)}× (≤ ${TARGETS.storeRatio}: ${mark(disk / live <= TARGETS.storeRatio)})` : ""}`,
    );
    const br = num("bm25BuildPeakRss");
    lines.push(
      `BM25 ${r.bm25Engine}: build (first search) ${s1(r.bm25BuildS as Fig)}, peak RSS ${gb(r.bm25BuildPeakRss as Fig)}${br !== null ? ` (≤ ${TARGETS.buildRssGb} GB: ${mark(br <= TARGETS.buildRssGb * 1e9)})` : ""}, index ${mb(r.bm25IndexBytes as Fig)}, bytes/posting ${typeof r.bm25BytesPerPosting === "number" ? r.bm25BytesPerPosting.toFixed(2) : r.bm25BytesPerPosting}`,
    );
    const reopen = num("reopenS");
    const p50 = num("bm25WarmP50Ms");
    const p95 = num("bm25WarmP95Ms");
    const qr = num("bm25QueryPeakRss");
    const p50t = TARGETS.bm25P50Ms[n];
    lines.push(
      `BM25 query: reopen ${s1(r.reopenS as Fig)}${reopen !== null ? ` (≤ ${TARGETS.reopenS} s: ${mark(reopen <= TARGETS.reopenS)})` : ""}, cold first ${ms(r.bm25ColdFirstMs as Fig)}, warm p50 ${ms(r.bm25WarmP50Ms as Fig)}${p50 !== null && p50t ? ` (≤ ${p50t}: ${mark(p50 <= p50t)})` : ""} p95 ${ms(r.bm25WarmP95Ms as Fig)}${p95 !== null ? ` (≤ ${TARGETS.bm25P95Ms}: ${mark(p95 <= TARGETS.bm25P95Ms)})` : ""}, query RSS ${gb(r.bm25QueryPeakRss as Fig)}${qr !== null ? ` (≤ ${TARGETS.queryRssGb} GB: ${mark(qr <= TARGETS.queryRssGb * 1e9)})` : ""}; CLI new search process ${s1(r.cliSearchProcessS as Fig)}`,
    );
    lines.push(`on-disk BM25: ${typeof r.diskBm25 === "string" ? r.diskBm25 : JSON.stringify(r.diskBm25)}`);
    const rec = num("denseRecall10");
    const recQ = num("denseRecall10Questions");
    const hp = num("hybridP50Ms");
    const rssMark = (key: string) => {
      const x = num(key);
      return `${gb((r[key] ?? r.dense) as Fig)}${x !== null ? ` (≤ ${TARGETS.queryRssGb} GB: ${mark(x <= TARGETS.queryRssGb * 1e9)})` : ""}`;
    };
    lines.push(
      `dense: build ${s1((r.denseBuildS ?? r.dense) as Fig)}, peak RSS ${gb((r.denseBuildPeakRss ?? r.dense) as Fig)}, recall@10 at build (corpus vectors) ${r.denseRecall10 ?? r.dense}${rec !== null ? ` (≥ ${TARGETS.denseRecall}: ${mark(rec >= TARGETS.denseRecall)})` : ""}, on held-out questions ${typeof r.denseRecall10Questions === "number" ? (r.denseRecall10Questions as number).toFixed(3) : (r.denseRecall10Questions ?? r.dense)}${recQ !== null ? ` (≥ ${TARGETS.denseRecall}: ${mark(recQ >= TARGETS.denseRecall)}) at nprobes ${r.denseTunedNprobes}` : ""}`,
    );
    lines.push(
      `dense query: p50 ${ms((r.denseP50Ms ?? r.dense) as Fig)}, RSS ${rssMark("denseQueryPeakRss")}; hybrid p50 ${ms((r.hybridP50Ms ?? r.dense) as Fig)}${hp !== null ? ` (≤ ${TARGETS.hybridP50Ms}: ${mark(hp <= TARGETS.hybridP50Ms)})` : ""} p95 ${ms((r.hybridP95Ms ?? r.dense) as Fig)}, RSS ${rssMark("hybridQueryPeakRss")}`,
    );
    const v = r.vsBm25s as Record<string, unknown> | string;
    if (typeof v === "string") lines.push(`vs bm25s: ${v}`);
    else if (v.error) lines.push(`vs bm25s: ${v.error}`);
    else {
      lines.push(
        `in-memory BM25 vs real bm25s: ${(v.ratioCpu as number).toFixed(2)}× CPU q/s (${(v.ratioWall as number).toFixed(2)}× wall; ours ${(v.oursCpuQps as number).toFixed(0)}, bm25s ${(v.bm25sCpuQps as number).toFixed(0)}) (≥ ${TARGETS.vsBm25s}: ${mark((v.ratioCpu as number) >= TARGETS.vsBm25s)}); bm25s peak RSS ${gb(v.bm25sPeakRss as number)}, build ${s1(v.bm25sBuildS as number)} vs ours ${s1(v.oursBuildS as number)}`,
      );
      if (qr !== null)
        lines.push(`query RSS: our query process ${gb(qr)} (engine ${r.bm25Engine}, the CLI's path) vs bm25s ${gb(v.bm25sPeakRss as number)}: ${mark(qr <= (v.bm25sPeakRss as number))}`);
    }
    console.log(`${n.toLocaleString("en")} docs:`);
    for (const l of lines) console.log(`  ${l}`);
  }
  // bm25s out-of-memory size: linear fit of its peak RSS on docs.
  const pts = results.flatMap((r) =>
    typeof r.vsBm25s === "object" && r.vsBm25s && typeof (r.vsBm25s as Record<string, unknown>).bm25sPeakRss === "number"
      ? [[r.docs as number, (r.vsBm25s as Record<string, number>).bm25sPeakRss]]
      : [],
  );
  let oom: Record<string, unknown> = { estimate: na("bm25s measured at fewer than 2 sizes") };
  if (pts.length >= 2) {
    const [x0, y0] = pts[0];
    const [x1, y1] = pts[pts.length - 1];
    const slope = (y1 - y0) / (x1 - x0);
    const docs = (totalmem() - y0) / slope + x0;
    oom = { bytesPerDoc: slope, fixedBytes: y0 - slope * x0, memory: totalmem(), docs };
    console.log(
      `bm25s runs out of memory here at ≈ ${(docs / 1e6).toFixed(1)} M docs (linear in its measured peak RSS: ${(slope / 1024).toFixed(1)} KiB/doc from ${pts.map((p) => `${p[0]}: ${gb(p[1])}`).join(", ")}; ${gb(totalmem())} RAM) — an extrapolation, not a run`,
    );
  } else console.log(`bm25s out-of-memory size: ${oom.estimate}`);
  return oom;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      docs: { type: "string", default: "25000,100000" },
      json: { type: "string" },
      work: { type: "string" },
      rounds: { type: "string", default: "3" },
      "min-seconds": { type: "string", default: "1" },
      "no-dense": { type: "boolean", default: false },
      "no-bm25s": { type: "boolean", default: false },
      "bm25s-max": { type: "string", default: "1000000" },
      "timeout-min": { type: "string", default: "30" },
      seed: { type: "string", default: "1" },
      keep: { type: "boolean", default: false },
      natural: { type: "boolean", default: false },
      stages: { type: "string" },
      "bm25-engine": { type: "string" },
      compression: { type: "string" },
      "drop-xml": { type: "boolean", default: false },
    },
  });
  const sizes = values.docs === "none" ? [] : values.docs.split(",").map((s) => Number(s.trim()));
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0)) throw new Error(`--docs must be comma-separated positive integers (got "${values.docs}")`);
  if (!existsSync(join(ROOT, "dist"))) throw new Error("dist/ is missing: run `node scripts/build.mjs` first (the bench runs the compiled CLI, bin/medsynth.js)");
  const work = resolve(values.work ?? join(tmpdir(), "medsynth-scale"));
  mkdirSync(work, { recursive: true });
  const seed = Number(values.seed);
  const stages = parseStages(values.stages);
  const bm25Engine = values["bm25-engine"] ?? null;
  console.log(
    `# medsynth scale bench (Node ${process.version}, ${cpus().length} CPUs, ${gb(totalmem())} RAM, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}; work folder ${work})`,
  );
  const t0 = performance.now();
  const model = await loadModel({ seed, log: (l) => console.log(l) });
  for (const l of describeModel(model)) console.log(l);
  console.log(`  model fitted in ${s1((performance.now() - t0) / 1000)}`);
  const { loadDataset } = await import("../../corpus/datasets/registry.ts");
  const me = await loadDataset("medevidence");
  const queries = (me.items as Array<{ question: string }>).map((t) => t.question);
  const queriesFile = join(work, "queries.json");
  writeFileSync(queriesFile, JSON.stringify(queries));
  const help = parseFlagHelp();
  let naturalRow: Record<string, unknown> | null = null;
  console.log(`queries: the ${queries.length} MedEvidence questions (real questions over a synthetic corpus: relevance is not measured, only cost)`);
  console.log(`CLI: ${BIN}; on-disk BM25 option: ${help.diskBm25 ? help.diskBm25.join(" ") : "none found"}; \`--corpus lance:\` named in search --help: ${help.lanceInHelp}`);
  console.log("");
  if (values.natural) {
    // Reference row: the real bundled abstracts (PubMedQA, MedEvidence sources, Cohen 2006), no copies.
    const { loadBundledCorpus } = await import("../../corpus/bundled-corpus.ts");
    const { docs } = await loadBundledCorpus({ cache: true });
    const v = await vsBm25sOn(docs, queries, Math.max(3, Number(values.rounds)), Number(values["min-seconds"]), work);
    naturalRow = v;
    if (v.error) console.log(`[natural] vs bm25s: ${v.error}`);
    else
      console.log(
        `[natural] in-memory BM25 vs real bm25s on the ${v.docs} REAL bundled abstracts (no copies): ours ${(v.oursCpuQps as number).toFixed(0)} q/s CPU, bm25s ${(v.bm25sCpuQps as number).toFixed(0)} → ${(v.ratioCpu as number).toFixed(2)}× CPU [${(v.cpuRatios as number[]).map((x) => x.toFixed(2)).join(", ")}], ${(v.ratioWall as number).toFixed(2)}× wall; bm25s peak RSS ${gb(v.bm25sPeakRss as number)}`,
      );
  }
  const results: SizeResult[] = [];
  for (const n of sizes) {
    results.push(
      await measureSize(n, model, {
        work,
        queries,
        queriesFile,
        rounds: Math.max(3, Number(values.rounds)),
        minSeconds: Number(values["min-seconds"]),
        dense: !values["no-dense"],
        bm25s: !values["no-bm25s"],
        bm25sMax: Number(values["bm25s-max"]),
        timeoutMs: Number(values["timeout-min"]) * 60_000,
        diskBm25: help.diskBm25,
        seed,
        stages,
        bm25Engine,
        compression: values.compression ?? null,
        dropXml: values["drop-xml"],
      }),
    );
    if (values.json) writeFileSync(values.json, JSON.stringify({ partial: true, results }, null, 2) + "\n");
  }
  const bm25sOom = printSummary(results);
  if (values.json) {
    const s = model.stats;
    writeFileSync(
      values.json,
      JSON.stringify(
        {
          synthetic: true,
          node: process.version,
          cpus: cpus().length,
          memory: totalmem(),
          model: { provenance: s.provenance, heaps: s.heaps, zipf: model.zipf, copyProbability: model.copyProbability },
          results,
          bm25sOom,
          naturalVsBm25s: naturalRow,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`wrote ${values.json}`);
  }
  if (!values.keep) for (const n of sizes) rmSync(join(work, `n${n}`, "store"), { recursive: true, force: true });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
