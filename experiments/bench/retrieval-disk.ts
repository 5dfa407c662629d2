/**
 * Benchmark of the on-disk retrieval engines (issue 11.2): LanceDB full-text BM25, IVF-PQ ANN and
 * their hybrid (RRF), over `--docs N` documents = the bundled natural corpus replicated with new
 * ids (`<pmid>#r<n>`; NOT N distinct abstracts — said in the output).
 *
 *   npx tsx experiments/bench/retrieval-disk.ts --docs 100000 [--embedder word-vectors:sg-100d-sif]
 *     [--dir /tmp/medsynth-disk] [--min-seconds 5] [--no-anchor]
 *
 * Two child processes of this script do the work, so each peak RSS is its own:
 * 1. build: streams the replicated corpus from an in-process document source (replicas are made
 *    on the fly, batch by batch; the whole corpus is never in memory), builds the FTS table +
 *    index and the ANN table + index (recall@10 vs exact measured at build and stored), prints
 *    index times;
 * 2. query: reopens the indexes and times MedEvidence questions (cycled, ≥ `--min-seconds` per
 *    engine): q/s, p50, p95, peak RSS of the query process; ANN recall@10 vs exact search on the
 *    questions themselves; disk size of each index table.
 * Anchor (same run, same corpus; skipped above 100 k docs or with `--no-anchor`): the in-memory
 * fast BM25 engine and exact kNN in a third child process — q/s and peak RSS ratios printed.
 * Documents for hits are fetched by id from the source; the source is an in-process generator
 * standing in for the Lance corpus store (its cost per fetch is not what is measured here).
 *
 * Embedder: `word-vectors:sg-100d-sif` by default (the offline 100-d word vectors with
 * vocabulary-rank SIF weights: no corpus fit, so nothing corpus-sized is held to build it). At
 * build time its vectors are memoised by text (replicas repeat the natural corpus' 3.3 k texts),
 * so the build's embedding cost is that of the natural corpus — said in the output.
 * Recall@10 is tie-aware (`recallAtK`): each text has N / 3.3 k exact duplicates, so any copy
 * at the 10th exact score counts.
 * Targets (issue 11) at 1 M on disk: query RSS ≤ 2 GiB, BM25 p50 ≤ 50 ms, hybrid p50 ≤ 100 ms,
 * ANN recall@10 ≥ 0.95.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import type { DocumentSource } from "../../corpus/store/types.ts";
import type { Embedder } from "../../retrieval/types.ts";

const SELF = fileURLToPath(import.meta.url);

/** Candidates per leg of the on-disk hybrid in this bench (see the query phase's sweep). */
const HYBRID_CANDIDATES = 30;

/** A document source of `size` docs: `natural` first, then replicas `<id>#r<n>` made per batch. */
function replicaSource(natural: readonly CorpusDoc[], size: number): DocumentSource & { fetched: number } {
  const byId = new Map(natural.map((d) => [d.id, d]));
  const at = (i: number): CorpusDoc => {
    const r = Math.floor(i / natural.length);
    const d = natural[i % natural.length];
    return r === 0 ? d : { ...d, id: `${d.id}#r${r}` };
  };
  const src = {
    fetched: 0,
    async count() {
      return size;
    },
    async getDocs(ids: readonly string[]) {
      const out = new Map<string, CorpusDoc>();
      for (const id of ids) {
        const [base, rep] = id.split("#r");
        const d = byId.get(base);
        if (!d) continue;
        const r = rep === undefined ? 0 : Number(rep);
        const pos = r * natural.length + natural.indexOf(d);
        if (pos < size) out.set(id, r === 0 ? d : { ...d, id });
      }
      src.fetched += out.size;
      return out;
    },
    async *scanDocs(batchSize = 1000) {
      for (let s = 0; s < size; s += batchSize) {
        const b: CorpusDoc[] = [];
        for (let i = s; i < Math.min(size, s + batchSize); i++) b.push(at(i));
        yield b;
      }
    },
    async *ids(batchSize = 1000) {
      for await (const b of src.scanDocs(batchSize)) yield b.map((d) => d.id);
    },
  };
  return src;
}

/**
 * The embedder with vectors memoised by text: replicas repeat the natural corpus' texts, so only
 * its distinct texts are encoded (the vectors are the same as encoding every replica).
 */
function memoised(e: Embedder): Embedder {
  const memo = new Map<string, Float32Array>();
  return {
    ...e,
    id: e.id,
    dims: e.dims,
    async embed(texts) {
      const todo = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (todo.length) (await e.embed(todo)).forEach((v, i) => memo.set(todo[i], v));
      return texts.map((t) => memo.get(t)!);
    },
  };
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

function dirBytes(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

interface Timing {
  qps: number;
  p50: number;
  p95: number;
  queries: number;
}

async function timeQueries(search: (q: string) => Promise<unknown>, queries: string[], minSeconds: number): Promise<Timing> {
  for (const q of queries.slice(0, 20)) await search(q); // warm-up
  const lat: number[] = [];
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < minSeconds * 1000 || i < Math.min(queries.length, 100)) {
    const s = performance.now();
    await search(queries[i % queries.length]);
    lat.push(performance.now() - s);
    i++;
  }
  const wall = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { qps: i / wall, p50: pct(lat, 50), p95: pct(lat, 95), queries: i };
}

async function loadInputs() {
  const { loadBundledCorpus } = await import("../../corpus/bundled-corpus.ts");
  const { loadDataset } = await import("../../corpus/datasets/registry.ts");
  const { docs } = await loadBundledCorpus();
  const me = await loadDataset("medevidence");
  const queries = (me.items as SynthesisTask[]).map((t) => t.question);
  return { natural: docs, queries };
}

interface ChildArgs {
  docs: number;
  dir: string;
  embedder: string;
  minSeconds: number;
  /** ANN index kind. */
  index: "auto" | "ivf_pq" | "ivf_flat" | "hnsw_sq";
  /** Open the indexes already built in `dir`; never build (error when missing). */
  reuse: boolean;
  /** Hits each leg of the hybrid retrieves before fusion. */
  candidates: number;
}

function fingerprintOf(natural: readonly CorpusDoc[], size: number): string {
  const h = createHash("sha256").update(`replicas:${size}:`);
  for (const d of natural) h.update(JSON.stringify([d.id, d.title, d.text]) + "\n");
  return h.digest("hex");
}

async function phaseBuild(a: ChildArgs): Promise<Record<string, unknown>> {
  const { natural } = await loadInputs();
  const src = replicaSource(natural, a.docs);
  const disk = await import("../../retrieval/lance/disk-engines.ts");
  const { createEmbedder } = await import("../../retrieval/embedders/registry.ts");
  const fingerprint = fingerprintOf(natural, a.docs);
  const log = (l: string) => console.error(`  [build] ${l}`);
  const cfg = { dir: a.dir, mode: a.reuse ? ("open" as const) : ("open-or-build" as const), ann: { index: a.index } };
  let t = performance.now();
  const bm25 = await disk.openOrBuildLanceBm25(src, cfg, { log, fingerprint });
  const bm25S = (performance.now() - t) / 1000;
  const bm25BuildS = bm25.info.buildSeconds;
  const embedder = memoised(await createEmbedder(a.embedder, { docs: natural, log }));
  t = performance.now();
  const ann = await disk.openOrBuildLanceAnn(src, embedder, cfg, { log, fingerprint });
  const annS = (performance.now() - t) / 1000;
  return { bm25S, bm25BuildS, bm25Built: bm25.info.built, annS, annBuilt: ann.built, meta: ann.meta, bm25Table: bm25.info.tableName, annTable: ann.tableName, rss: peakRss() };
}

async function phaseQuery(a: ChildArgs): Promise<Record<string, unknown>> {
  const { natural, queries } = await loadInputs();
  const rssLoaded = peakRss();
  const src = replicaSource(natural, a.docs);
  const fingerprint = fingerprintOf(natural, a.docs);
  const { createEmbedder } = await import("../../retrieval/embedders/registry.ts");
  const embedder = await createEmbedder(a.embedder, { docs: natural, log: () => {} });
  const out: Record<string, unknown> = { rssLoaded, candidates: a.candidates };
  const t0 = performance.now();
  // The engines are opened directly (as createRetriever with engine "lance" does) so the known
  // fingerprint skips the streamed hash of every document; mode "open" never builds.
  const disk = await import("../../retrieval/lance/disk-engines.ts");
  const { embedQueries } = await import("../../retrieval/types.ts");
  const { rrfFuse } = await import("../../retrieval/fusion.ts");
  const cfg = { dir: a.dir, mode: "open" as const, ann: { index: a.index } };
  const bm25 = await disk.openOrBuildLanceBm25(src, cfg, { fingerprint, log: () => {} });
  const ann = await disk.openOrBuildLanceAnn(src, embedder, cfg, { fingerprint, log: () => {} });
  out.openS = (performance.now() - t0) / 1000;
  // nprobes for the timings: the build's value, doubled while the ANN recall@10 on the questions
  // (vs exact top-10 from one streamed pass over the vectors, tie-aware) is below 0.95.
  const qv = await embedQueries(embedder, queries);
  const nz = qv.filter((v) => v.some((x) => x !== 0));
  const tScan = performance.now();
  const exact = (await disk.exactTopKScan(ann.table, nz, 10)).hits;
  out.exactScanS = (performance.now() - tScan) / 1000;
  const recallAt = async (nprobes: number) => {
    let sum = 0;
    for (let i = 0; i < nz.length; i++) sum += disk.recallAtK(await ann.search(nz[i], 10, { nprobes }), exact[i], 10);
    return nz.length ? sum / nz.length : 1;
  };
  const sweep: { nprobes: number; recall: number }[] = [];
  let nprobes = ann.meta.nprobes!;
  for (;;) {
    sweep.push({ nprobes, recall: await recallAt(nprobes) });
    if (sweep[sweep.length - 1].recall >= 0.95 || nprobes >= ann.meta.numPartitions!) break;
    nprobes = Math.min(ann.meta.numPartitions!, nprobes * 2);
  }
  out.nprobesSweep = sweep;
  out.nprobes = nprobes;
  out.queryRecall = sweep[sweep.length - 1].recall;
  out.queryRecallN = nz.length;
  const store = { ...ann, search: (v: Float32Array, k: number, o: { exact?: boolean } = {}) => ann.search(v, k, { nprobes, ...o }) };
  const { createDenseRetriever } = await import("../../retrieval/dense/dense-retriever.ts");
  const { createHybridRetriever } = await import("../../retrieval/hybrid.ts");
  const bm25Ids = { id: "bm25-lance", search: async (q: string, k: number) => (await bm25.searchIds(q, k)).map((it, i) => ({ id: it.id, score: it.score, rank: i + 1 })) };
  const dense = createDenseRetriever({ store, embedder });
  const hybrid = createHybridRetriever({ bm25: bm25Ids, dense }, { fusion: "rrf", candidates: a.candidates });
  const hybridSeq = createHybridRetriever({ bm25: bm25Ids, dense }, { fusion: "rrf", candidates: a.candidates, concurrentLegs: false });
  const withDocs = (r: { search(q: string, k: number): Promise<import("../../retrieval/types.ts").SearchHit[]> }) => async (q: string) => disk.attachDocsFromSource(await r.search(q, 10), src);
  out.bm25 = await timeQueries(withDocs(bm25Ids), queries, a.minSeconds);
  out.rssBm25 = peakRss();
  out.dense = await timeQueries(withDocs(dense), queries, a.minSeconds);
  out.rssDense = peakRss();
  out.hybrid = await timeQueries(withDocs(hybrid), queries, a.minSeconds);
  out.hybridSeq = await timeQueries(withDocs(hybridSeq), queries, a.minSeconds);
  out.hybrid2 = await timeQueries(withDocs(hybrid), queries, a.minSeconds); // interleaved: concurrent, sequential, concurrent
  out.rssHybrid = peakRss();
  // Where one hybrid query's time goes: each stage timed alone, median over the questions.
  const qAll = await embedQueries(embedder, queries);
  const stage = async (f: (i: number) => Promise<unknown> | unknown) => {
    const lat: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const s = performance.now();
      await f(i);
      lat.push(performance.now() - s);
    }
    return lat.sort((x, y) => x - y)[Math.floor(lat.length / 2)];
  };
  const lex: Awaited<ReturnType<typeof bm25Ids.search>>[] = [];
  const den: Awaited<ReturnType<typeof ann.search>>[] = [];
  for (let i = 0; i < queries.length; i++) {
    lex.push(await bm25Ids.search(queries[i], a.candidates));
    den.push(await store.search(qAll[i], a.candidates));
  }
  out.stages = {
    embedQuery: await stage((i) => embedQueries(embedder, [queries[i]])),
    ftsLeg: await stage((i) => bm25Ids.search(queries[i], a.candidates)),
    annLeg: await stage((i) => store.search(qAll[i], a.candidates)),
    fusion: await stage((i) => rrfFuse([lex[i], den[i]], { k: 60, names: ["bm25", "dense"], limit: 10 })),
    fetchTop10: await stage((i) => disk.attachDocsFromSource(rrfFuse([lex[i], den[i]], { k: 60, names: ["bm25", "dense"], limit: 10 }), src)),
  };
  out.rssTimed = peakRss();
  out.fetchedDocs = src.fetched;
  out.buildMeta = ann.meta;
  out.rss = peakRss();
  out.disk = { bm25: dirBytes(join(a.dir, `${bm25.info.tableName}.lance`)), ann: dirBytes(join(a.dir, `${ann.tableName}.lance`)) };
  return out;
}

async function phaseAnchor(a: ChildArgs): Promise<Record<string, unknown>> {
  const { natural, queries } = await loadInputs();
  const src = replicaSource(natural, a.docs);
  const docs: CorpusDoc[] = [];
  for await (const b of src.scanDocs(16_384)) docs.push(...b);
  const { createRetriever } = await import("../../retrieval/registry.ts");
  let t = performance.now();
  const bm25 = await createRetriever({ mode: "bm25", engine: "memory", bm25: { cache: false } }, { docs, log: () => {} });
  const bm25BuildS = (performance.now() - t) / 1000;
  const out: Record<string, unknown> = { bm25BuildS };
  out.bm25 = await timeQueries((q) => bm25.search(q, 10), queries, a.minSeconds);
  out.rssBm25 = peakRss();
  t = performance.now();
  const dense = await createRetriever(
    { mode: "dense", engine: "memory", embedder: a.embedder, dense: { dir: join(a.dir, "anchor-exact") } },
    { docs, log: () => {}, embedderOptions: { log: () => {} } },
  );
  out.denseBuildS = (performance.now() - t) / 1000;
  out.dense = await timeQueries((q) => dense.search(q, 10), queries, a.minSeconds);
  out.rss = peakRss();
  return out;
}

/**
 * Retrieval quality on the natural corpus (3.3 k distinct abstracts, no replicas): recall@10,
 * nDCG@10 and MRR@10 on the 284 MedEvidence questions, for the in-memory engines (fast BM25,
 * exact kNN, their RRF hybrid) and the on-disk engines forced with `engine: "lance"` (LanceDB FTS,
 * ANN index, RRF hybrid at the tuned candidate depth and at 100) — so a latency setting that
 * costs quality shows here. Same embedder for both.
 */
async function phaseQuality(a: ChildArgs): Promise<Record<string, unknown>> {
  const { loadBundledCorpus } = await import("../../corpus/bundled-corpus.ts");
  const { loadDataset } = await import("../../corpus/datasets/registry.ts");
  const { evaluateRun } = await import("../../retrieval/eval/ir-metrics.ts");
  const { createRetriever } = await import("../../retrieval/registry.ts");
  const { createMemoryDocumentSource } = await import("../../corpus/store/memory-store.ts");
  const { docs } = await loadBundledCorpus();
  const me = await loadDataset("medevidence");
  const tasks = me.items as SynthesisTask[];
  const qrels = me.qrels ?? Object.fromEntries(tasks.map((t) => [t.id, Object.fromEntries(t.goldenPmids.map((p) => [p, 1]))]));
  const score = async (r: { search(q: string, k: number): Promise<import("../../retrieval/types.ts").SearchHit[]> }) => {
    const run: Record<string, import("../../retrieval/types.ts").SearchHit[]> = {};
    for (const t of tasks) run[t.id] = await r.search(t.question, 10);
    const ev = evaluateRun(run, qrels, ["recall@10", "ndcg@10", "mrr@10"]);
    return { ...ev.mean, questions: ev.queries };
  };
  const quiet = { log: () => {}, embedderOptions: { log: () => {} } };
  const out: Record<string, unknown> = {};
  const dir = join(a.dir, "quality-natural");
  const depths = [100, 50, 30, 20];
  const memModes: [string, number][] = [["bm25", 100], ["dense", 100], ...depths.map((c): [string, number] => ["hybrid", c])];
  for (const [mode, candidates] of memModes) {
    const mem = await createRetriever({ mode: mode as "bm25", engine: "memory", embedder: a.embedder, candidates, bm25: { cache: false }, dense: { dir } }, { docs, ...quiet });
    out[`in-memory ${mode}${mode === "hybrid" ? ` (${candidates} candidates)` : ""}`] = await score(mem);
  }
  const source = createMemoryDocumentSource(docs);
  const modes: [string, number][] = [["bm25", 100], ["dense", 100], ...depths.map((c): [string, number] => ["hybrid", c])];
  for (const [mode, candidates] of modes) {
    const disk = await createRetriever({ mode: mode as "bm25", engine: "lance", embedder: a.embedder, candidates, disk: { dir, ann: { index: a.index } } }, { source, ...quiet });
    out[`on-disk ${mode}${mode === "hybrid" ? ` (${candidates} candidates)` : ""}`] = await score(disk);
    if (mode === "dense") {
      // ANN recall@10 vs exact search on the questions (distinct docs: no replica ties).
      const { recallAtK } = await import("../../retrieval/lance/disk-engines.ts");
      const vecs = await disk.embedder!.embed(tasks.map((t) => t.question));
      let sum = 0;
      let n = 0;
      for (const v of vecs) {
        if (v.every((x) => x === 0)) continue;
        sum += recallAtK(await disk.store!.search(v, 10), await disk.store!.search(v, 10, { exact: true }), 10);
        n++;
      }
      out.annRecallQuestions = { recallAt10: sum / n, questions: n, nprobes: (disk.store as { meta?: { nprobes?: number } }).meta?.nprobes };
    }
  }
  return out;
}

function runChild(phase: string, a: ChildArgs): Record<string, unknown> {
  const r = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      SELF,
      "--phase",
      phase,
      "--docs",
      String(a.docs),
      "--dir",
      a.dir,
      "--embedder",
      a.embedder,
      "--min-seconds",
      String(a.minSeconds),
      "--index",
      a.index,
      "--candidates",
      String(a.candidates),
      ...(a.reuse ? ["--reuse", a.dir] : []),
    ],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 64 * 2 ** 20,
    },
  );
  if (r.status !== 0) throw new Error(`${phase} phase failed (exit ${r.status})`);
  const line = r.stdout.trim().split("\n").pop()!;
  return JSON.parse(line) as Record<string, unknown>;
}

async function main(): Promise<void> {
  process.env.LANCEDB_LOG ??= "error";
  const { values } = parseArgs({
    options: {
      docs: { type: "string", default: "100000" },
      dir: { type: "string" },
      embedder: { type: "string", default: "word-vectors:sg-100d-sif" },
      "min-seconds": { type: "string", default: "5" },
      "no-anchor": { type: "boolean", default: false },
      "no-quality": { type: "boolean", default: false },
      index: { type: "string", default: "auto" },
      candidates: { type: "string", default: String(HYBRID_CANDIDATES) },
      reuse: { type: "string" },
      phase: { type: "string" },
    },
  });
  if (!["auto", "ivf_pq", "ivf_flat", "hnsw_sq"].includes(values.index!)) throw new Error(`--index must be auto, ivf_pq, ivf_flat or hnsw_sq, got ${values.index}`);
  const a: ChildArgs = {
    docs: Number(values.docs),
    dir: values.reuse ?? values.dir ?? join(tmpdir(), `medsynth-disk-bench-${values.docs}`),
    embedder: values.embedder!,
    minSeconds: Number(values["min-seconds"]),
    index: values.index as ChildArgs["index"],
    reuse: values.reuse !== undefined,
    candidates: Number(values.candidates),
  };
  if (!(Number.isInteger(a.candidates) && a.candidates >= 10)) throw new Error(`--candidates must be an integer ≥ 10, got ${values.candidates}`);
  if (!(a.docs > 0)) throw new Error(`--docs must be a positive number, got ${values.docs}`);
  if (values.phase) {
    const f = values.phase === "build" ? phaseBuild : values.phase === "query" ? phaseQuery : values.phase === "quality" ? phaseQuality : phaseAnchor;
    console.log(JSON.stringify(await f(a)));
    return;
  }
  console.log(`# medsynth on-disk retrieval benchmark (Node ${process.version})`);
  console.log(`corpus: ${a.docs} docs = the bundled natural corpus replicated with new ids (<pmid>#r<n>), streamed from an in-process source; NOT ${a.docs} distinct abstracts`);
  console.log(`embedder: ${a.embedder} (build: vectors memoised per distinct text — replicas repeat 3.3 k texts); index tables in ${a.dir}`);
  console.log(`ANN recall@10 is tie-aware: a hit at the 10th exact cosine counts (each text has ~N/3.3k exact duplicates)`);
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} on ${cpus().length} CPUs (absolute times move with the load; compare ratios)`,
  );
  console.log(`hybrid: RRF (k 60) of the two legs, ${a.candidates} candidates each, legs run concurrently; ANN index ${a.index}; document text fetched by id for the final 10 hits only`);
  console.log(`processes: build, query and anchor are child processes of this script run through tsx (its loader adds to each RSS; no compiled JS for benches)`);
  const b = runChild("build", a);
  const meta = b.meta as { recallMethod?: string; recallAt10?: number; nprobes?: number; numPartitions?: number; recallSample?: number; refineFactor?: number; index?: string; buildSeconds?: number };
  console.log(`\n## build (process peak RSS ${mib(b.rss as number)})${a.reuse ? ` — reused the indexes in ${a.dir} (--reuse): times below are those stored when they were built` : ""}`);
  console.log(`BM25 FTS table + index: ${(b.bm25BuildS as number).toFixed(1)} s${b.bm25Built ? "" : " (built earlier; opened now)"}`);
  console.log(
    `ANN table + ${meta.index} index + recall check: ${(meta.buildSeconds ?? 0).toFixed(1)} s${b.annBuilt ? "" : " (built earlier; opened now)"}; ${meta.recallMethod === "queries-held-out" ? `recall@10 vs exact = ${meta.recallAt10?.toFixed(3)} on ${meta.recallSample} held-out questions (index tune)` : `recall@10 vs exact at build = ${meta.recallAt10?.toFixed(3)} on ${meta.recallSample} corpus vectors as queries, ${meta.recallMethod === "duplicates-left-out" ? "each with its duplicates left out of its own results" : "self-matches included (index built before duplicates were left out: optimistic)"}`} (nprobes ${meta.nprobes}/${meta.numPartitions}${meta.index === "ivf_pq" ? `, refine ${meta.refineFactor}` : ""})`,
  );
  const q = runChild("query", a);
  const row = (name: string, t: Timing) => `| ${name} | ${t.qps.toFixed(1)} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${t.queries} |`;
  console.log(
    `\n## query process (opened in ${(q.openS as number).toFixed(2)} s; peak RSS ${mib(q.rss as number)}, of which ${mib(q.rssLoaded as number)} after loading the natural corpus + questions)`,
  );
  console.log(
    `load average now: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log("| engine (k = 10, docs fetched for hits) | q/s | p50 ms | p95 ms | queries |\n|---|---|---|---|---|");
  console.log(row("bm25 (LanceDB FTS)", q.bm25 as Timing));
  console.log(row(`dense (${meta.index})`, q.dense as Timing));
  console.log(row(`hybrid (RRF, ${a.candidates} candidates each, legs concurrent)`, q.hybrid as Timing));
  console.log(row(`hybrid, legs sequential (interleaved check)`, q.hybridSeq as Timing));
  console.log(row(`hybrid, legs concurrent (again)`, q.hybrid2 as Timing));
  const st = q.stages as Record<string, number>;
  console.log(
    `one hybrid query, stages timed alone (median ms over ${(q.queryRecallN as number) ?? "?"}+ questions): embed query ${st.embedQuery.toFixed(2)}, FTS leg (${a.candidates}) ${st.ftsLeg.toFixed(1)}, ANN leg (${a.candidates}) ${st.annLeg.toFixed(1)}, RRF fusion ${st.fusion.toFixed(2)}, fetch text of the top 10 ${st.fetchTop10.toFixed(2)}`,
  );
  const d = q.disk as { bm25: number; ann: number };
  console.log(`disk: FTS table + index ${mib(d.bm25)}, ANN table + index ${mib(d.ann)}`);
  const sw = q.nprobesSweep as { nprobes: number; recall: number }[];
  console.log(
    `ANN recall@10 vs exact search on ${q.queryRecallN} MedEvidence questions (tie-aware; exact top-10 of all questions in one streamed pass over the vectors, ${(q.exactScanS as number).toFixed(1)} s): ${sw.map((x) => `nprobes ${x.nprobes} → ${x.recall.toFixed(3)}`).join(", ")}; timings above use nprobes ${q.nprobes} (set it with disk.ann.searchNprobes)`,
  );
  console.log(`docs fetched from the source by id: ${q.fetchedDocs} (hits only)`);
  const hybridP50 = Math.min((q.hybrid as Timing).p50, (q.hybrid2 as Timing).p50);
  {
    const ok = (c: boolean) => (c ? "OK" : "MISS");
    console.log(
      `\ntargets (issue 11, at 1 M): RSS ≤ 2 GiB ${ok((q.rss as number) <= 2 * 2 ** 30)}; BM25 p50 ≤ 50 ms ${ok((q.bm25 as Timing).p50 <= 50)}; hybrid p50 ≤ 100 ms ${ok(hybridP50 <= 100)}; ANN recall@10 (questions) ≥ 0.95 ${ok(((q.queryRecall as number) ?? 0) >= 0.95)} (at ${a.docs} docs)`,
    );
  }
  if (!values["no-quality"]) {
    const qa = runChild("quality", { ...a, dir: join(a.dir, "..", `${a.dir.split("/").pop()}-quality`) });
    console.log(`\n## retrieval quality on the natural corpus (3,340 distinct abstracts, 284 MedEvidence questions; on-disk engines forced with engine "lance")`);
    console.log("| retriever | recall@10 | nDCG@10 | MRR@10 |\n|---|---|---|---|");
    for (const [name, m] of Object.entries(qa)) {
      if (name === "annRecallQuestions") continue;
      const r = m as Record<string, number>;
      console.log(`| ${name} | ${r["recall@10"].toFixed(3)} | ${r["ndcg@10"].toFixed(3)} | ${r["mrr@10"].toFixed(3)} |`);
    }
    const ar = qa.annRecallQuestions as { recallAt10: number; questions: number; nprobes?: number };
    console.log(`on-disk ANN recall@10 vs exact on the natural corpus (distinct docs, no ties): ${ar.recallAt10.toFixed(3)} on ${ar.questions} questions (nprobes ${ar.nprobes})`);
  }
  if (!values["no-anchor"] && a.docs <= 100_000) {
    const an = runChild("anchor", a);
    const bq = q.bm25 as Timing;
    const aq = an.bm25 as Timing;
    const dq = q.dense as Timing;
    const adq = an.dense as Timing;
    console.log(`\n## anchor: in-memory engines on the same corpus, same run (separate process)`);
    console.log(`in-memory fast BM25: build ${(an.bm25BuildS as number).toFixed(1)} s, ${aq.qps.toFixed(1)} q/s, p50 ${aq.p50.toFixed(2)} ms; peak RSS ${mib(an.rssBm25 as number)}`);
    console.log(`in-memory exact kNN: build ${(an.denseBuildS as number).toFixed(1)} s, ${adq.qps.toFixed(1)} q/s, p50 ${adq.p50.toFixed(2)} ms; peak RSS (both) ${mib(an.rss as number)}`);
    console.log(
      `ratios on-disk / in-memory: BM25 q/s ${(bq.qps / aq.qps).toFixed(2)}×, dense q/s ${(dq.qps / adq.qps).toFixed(2)}×, query-process peak RSS ${((q.rss as number) / (an.rss as number)).toFixed(2)}×`,
    );
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
