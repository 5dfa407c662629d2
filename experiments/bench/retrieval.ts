/**
 * Retrieval benchmark (issues 3 and 11): index build time, disk size, single-thread queries/s and
 * p50/p95 latency of each BM25 engine, process peak RSS, dense and hybrid retrieval, on
 *   (a) the natural bundled corpus (PubMedQA + MedEvidence sources + Cohen 2006, ~3.3k abstracts), and
 *   (b) `--docs N` docs (default 25,000; e.g. 100000 or 1000000) = the natural corpus replicated
 *       with new ids (`<pmid>#r<n>`), so vocabulary and term statistics are those of (a) scaled
 *       up — not N distinct abstracts (said in the output);
 * plus recall@10 / nDCG@10 / MRR@10 on the 284 MedEvidence questions per mode (natural corpus).
 *
 * The pruned fast engine (MaxScore) is timed interleaved with the exhaustive algorithm it replaced
 * (`searchExhaustive`, the pre-pruning engine: every posting of every query term, Float64 impacts),
 * ≥ 3 rounds each, and the median ratio is printed: the honest same-window speed-up. bm25s cannot
 * be installed here (no PyPI); its figures are quoted from issue 11's table (measured elsewhere,
 * another window) for orientation only, never as a pass/fail anchor.
 *
 * Queries for timing are the 284 MedEvidence questions, cycled; one process, one thread, warm-up
 * pass first. Peak RSS is the process high-water mark after each step (it only grows).
 *
 * Usage: `npx tsx experiments/bench/retrieval.ts [--docs 25000] [--rounds 3] [--min-seconds 1] [--no-wink] [--no-dense] [--embedder id]`
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { buildFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import type { Bm25Params } from "../../retrieval/bm25/params.ts";
import { buildWinkBm25 } from "../../retrieval/bm25/wink-engine.ts";
import { evaluateRun, type Qrels } from "../../retrieval/eval/ir-metrics.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";

const PARAMS: Bm25Params = { k1: 1.5, b: 0.75, fieldWeights: { title: 1, text: 1 } };
const TARGET = { recall10: 0.86, hybridP50Ms: 10 };
/** bm25s q/s from issue 11's table (another window, another process): orientation only. */
const BM25S_ISSUE_TABLE: Record<string, number> = { "3340": 4800, "25000": 2400, "100000": 1200, "1000000": 124 };
/** bm25s quality on MedEvidence (issue 3, same corpus and analyzer settings): reference values. */
const QUALITY_REF = { recall10: 0.863, ndcg10: 0.755, mrr: 0.767 };
const METRICS = ["recall@10", "ndcg@10", "mrr@10"];

interface Timing {
  /** Queries per wall-clock second. */
  qps: number;
  /** Queries per second of this process's CPU time (user + system): less sensitive to other load on a shared machine. */
  cpuQps: number;
  p50: number;
  p95: number;
  queries: number;
}

function pct(sorted: number[], p: number): number {
  // nearest-rank percentile
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

async function timeQueries(search: (q: string) => unknown, queries: string[], minSeconds: number, maxQueries = Infinity): Promise<Timing> {
  for (const q of queries.slice(0, 50)) await search(q); // warm-up
  const lat: number[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let i = 0;
  while ((performance.now() - t0 < minSeconds * 1000 || i < queries.length) && i < maxQueries) {
    const q = queries[i % queries.length];
    const s = performance.now();
    await search(q);
    lat.push(performance.now() - s);
    i++;
  }
  const total = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  return { qps: i / total, cpuQps: i / ((cpu.user + cpu.system) / 1e6), p50: pct(lat, 50), p95: pct(lat, 95), queries: i };
}

function replicate(docs: CorpusDoc[], size: number): CorpusDoc[] {
  const out = docs.slice(0, size);
  for (let r = 1; out.length < size; r++) {
    for (const d of docs) {
      if (out.length >= size) break;
      out.push({ ...d, id: `${d.id}#r${r}` });
    }
  }
  return out;
}

const f0 = (x: number) => x.toFixed(0);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** Process peak resident set size so far, bytes. */
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The timing whose CPU q/s is the median. */
const median = (ts: Timing[]) => [...ts].sort((a, b) => a.cpuQps - b.cpuQps)[Math.floor(ts.length / 2)];
const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const mark = (ok: boolean) => (ok ? "OK" : "MISS");

async function quality(label: string, search: (q: string, k: number) => Promise<SearchHit[]> | SearchHit[], tasks: SynthesisTask[], qrels: Qrels): Promise<Record<string, number>> {
  const run: Record<string, SearchHit[]> = {};
  for (const t of tasks) run[t.id] = await search(t.question, 10);
  const ev = evaluateRun(run, qrels, METRICS);
  const m = ev.mean;
  console.log(
    `  ${label.padEnd(22)} recall@10 ${f3(m["recall@10"])} (bm25s ${QUALITY_REF.recall10}, target ≥ ${TARGET.recall10})  nDCG@10 ${f3(m["ndcg@10"])} (bm25s ${QUALITY_REF.ndcg10})  MRR@10 ${f3(m["mrr@10"])} (bm25s ${QUALITY_REF.mrr})  [${ev.queries} questions]`,
  );
  return m;
}

async function main(): Promise<void> {
  // Silence lance's per-query Rust deprecation warnings on stderr (set before LanceDB loads).
  process.env.LANCEDB_LOG ??= "error";
  const { values } = parseArgs({
    options: {
      docs: { type: "string", default: "25000" },
      rounds: { type: "string", default: "3" },
      "min-seconds": { type: "string", default: "1" },
      "no-wink": { type: "boolean", default: false },
      "no-dense": { type: "boolean", default: false },
      embedder: { type: "string" },
    },
  });
  const size = Number(values.docs);
  const rounds = Math.max(3, Number(values.rounds));
  const minSeconds = Number(values["min-seconds"]);

  const { docs: natural, stats } = await loadBundledCorpus();
  const me = await loadDataset("medevidence");
  const tasks = me.items as SynthesisTask[];
  const qrels: Qrels = me.qrels ?? Object.fromEntries(tasks.map((t) => [t.id, Object.fromEntries(t.goldenPmids.map((p) => [p, 1]))]));
  const queries = tasks.map((t) => t.question);
  const big = replicate(natural, size);
  console.log(`# medsynth retrieval benchmark (Node ${process.version}, single thread)`);
  console.log(`natural corpus: ${natural.length} docs ${JSON.stringify(stats.bySource)}`);
  console.log(`large corpus:   ${big.length} docs = the natural corpus replicated with new ids (<pmid>#r<n>); NOT ${size} distinct abstracts`);
  console.log(`peak RSS after loading: ${mib(peakRss())}`);
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(" ")} on ${cpus().length} CPUs (wall q/s suffers when others share the machine; CPU q/s less so)`);
  console.log(`queries: ${queries.length} MedEvidence questions (cycled for timing, ≥ ${minSeconds} s per row); BM25 k1 ${PARAMS.k1}, b ${PARAMS.b}, Lucene stop words, Porter2`);
  console.log("");

  const bm25Rows: { corpus: string; engine: string; n: number; buildMs: number; diskBytes: number | null; rss: number; t: Timing; exhaustive?: Timing; ratios?: number[] }[] = [];
  const qualityRows: Record<string, Record<string, number>> = {};
  for (const [corpusName, docs] of [["natural", natural], [`${big.length / 1000}k-replicated`, big]] as const) {
    const s0 = performance.now();
    const fast = buildFastBm25(docs, PARAMS);
    const buildMs = performance.now() - s0;
    const dir = mkdtempSync(join(tmpdir(), "medsynth-bench-bm25-"));
    const diskBytes = fast.writeTo(dir);
    rmSync(dir, { recursive: true, force: true });
    // Pruned vs exhaustive, interleaved rounds; median of the per-round ratios.
    const pruned: Timing[] = [];
    const exhaustive: Timing[] = [];
    for (let r = 0; r < rounds; r++) {
      exhaustive.push(await timeQueries((q) => fast.searchExhaustive(q, 10), queries, minSeconds));
      pruned.push(await timeQueries((q) => fast.searchSync(q, 10), queries, minSeconds));
    }
    const ratios = pruned.map((p, i) => p.cpuQps / exhaustive[i].cpuQps);
    bm25Rows.push({ corpus: corpusName, engine: "fast", n: docs.length, buildMs, diskBytes, rss: peakRss(), t: median(pruned), exhaustive: median(exhaustive), ratios });
    console.log(`fast index (${corpusName}): ${fast.info.vocabSize} terms, ${fast.postingCount} postings, on-disk cache ${mib(diskBytes)}`);
    if (corpusName === "natural") qualityRows["bm25 (fast)"] = { ...(await quality("bm25 fast", (q, k) => fast.searchSync(q, k), tasks, qrels)) };
    if (!values["no-wink"] && docs.length <= 100_000) {
      const s = performance.now();
      const w = buildWinkBm25(docs, PARAMS);
      const ms = performance.now() - s;
      bm25Rows.push({ corpus: corpusName, engine: "wink", n: docs.length, buildMs: ms, diskBytes: Buffer.byteLength(w.exportJSON()), rss: peakRss(), t: await timeQueries((q) => w.searchSync(q, 10), queries, minSeconds, 2000) });
      if (corpusName === "natural") qualityRows["bm25 (wink)"] = await quality("bm25 wink", (q, k) => w.searchSync(q, k), tasks, qrels);
    }
  }
  console.log("");
  console.log("BM25 engines (k = 10; q/s = queries per CPU-second of this process, wall in brackets; medians of interleaved rounds for fast):");
  for (const r of bm25Rows) {
    const ref = BM25S_ISSUE_TABLE[String(r.n)];
    console.log(
      `  ${r.engine.padEnd(5)} ${r.corpus.padEnd(16)} n=${String(r.n).padStart(7)}  build ${f0(r.buildMs).padStart(7)} ms  disk ${mib(r.diskBytes ?? 0).padStart(9)}  ${f0(r.t.cpuQps).padStart(6)} q/s (${f0(r.t.qps)} wall)  p50 ${f3(r.t.p50)} ms  p95 ${f3(r.t.p95)} ms  peak RSS ${mib(r.rss)}${ref ? `  [bm25s in issue 11's table: ${ref} q/s, other window]` : ""}`,
    );
    if (r.exhaustive && r.ratios) {
      console.log(
        `        exhaustive (old algorithm), same rounds: ${f0(r.exhaustive.cpuQps)} q/s, p50 ${f3(r.exhaustive.p50)} ms  →  pruned/exhaustive ${r.ratios.map(f2).join(", ")} (median ${f2(medianOf(r.ratios))}×)`,
      );
    }
  }
  console.log("");

  // Dense and hybrid through the retrieval registry, when present.
  type CreateRetriever = (cfg: object, deps: { docs: readonly CorpusDoc[]; log?: (s: string) => void }) => Promise<Retriever>;
  let createRetriever: CreateRetriever | null = null;
  if (!values["no-dense"]) {
    try {
      // Imported lazily so the BM25 part runs even while the registry is missing or broken.
      const reg = (await import("../../retrieval/registry.ts")) as unknown as { createRetriever?: CreateRetriever };
      createRetriever = reg.createRetriever ?? null;
    } catch (e) {
      console.log(`dense/hybrid: not available yet (${(e as Error).message.split("\n")[0]})`);
    }
  }
  const embedderId = values.embedder ?? "word-vectors:sg-100d-sif-corpus-pc1";
  if (values["no-dense"]) console.log("dense/hybrid: skipped (--no-dense)");
  else if (big.length > 100_000) console.log(`dense/hybrid: skipped at ${big.length} docs (in-memory exact kNN over a replicated corpus; run with --docs ≤ 100000)`);
  else if (!createRetriever) console.log("dense/hybrid: not available yet");
  else if (big.length > 100_000) {
    /* skipped above */
  }
  else {
    console.log(`dense / hybrid (embedder ${embedderId} — the retrievers' default: SIF-pooled word vectors, corpus word frequencies, first principal component removed; LanceDB table, exact kNN in memory,`);
    console.log("   hybrid = fast BM25 + dense fused by RRF k 60 (hybrid) or equal-weight min–max (hybrid-minmax, MedMeta), 100 candidates each, no reranking; set --embedder to compare):");
    for (const [corpusName, docs] of [["natural", natural], [`${big.length / 1000}k-replicated`, big]] as const) {
      const variants = [
        { label: "dense", cfg: { mode: "dense" } },
        { label: "hybrid", cfg: { mode: "hybrid", fusion: "rrf" } },
        { label: "hybrid-minmax", cfg: { mode: "hybrid", fusion: "weighted" } },
      ];
      for (const { label: mode, cfg } of variants) {
        try {
          const s = performance.now();
          const r = await createRetriever({ ...cfg, embedder: embedderId, bm25: { engine: "fast" } }, { docs, log: () => {} });
          const buildMs = performance.now() - s;
          // Opening it again (a new retriever over the same corpus: BM25, embedder fit and table all cached).
          const s2 = performance.now();
          await createRetriever({ ...cfg, embedder: embedderId, bm25: { engine: "fast" } }, { docs, log: () => {} });
          const reopenMs = performance.now() - s2;
          const t = await timeQueries((q) => r.search(q, 10), queries, minSeconds, 3000);
          const target = mode.startsWith("hybrid") ? `  target p50 ≤ ${TARGET.hybridP50Ms} ms: ${mark(t.p50 <= TARGET.hybridP50Ms)}` : "";
          console.log(
            `  ${mode.padEnd(13)} ${corpusName.padEnd(16)} n=${String(docs.length).padStart(5)}  build/open ${f0(buildMs).padStart(6)} ms, reopen ${f0(reopenMs).padStart(5)} ms  ${f0(t.qps).padStart(5)} q/s wall, ${f0(t.cpuQps).padStart(5)} q/s CPU  p50 ${f2(t.p50)} ms  p95 ${f2(t.p95)} ms${target}`,
          );
          if (corpusName === "natural") qualityRows[mode] = await quality(mode, (q, k) => r.search(q, k), tasks, qrels);
        } catch (e) {
          console.log(`  ${mode} ${corpusName}: failed: ${(e as Error).message.split("\n")[0]}`);
        }
      }
    }
  }
  console.log("");
  console.log("MedEvidence retrieval quality (natural corpus, 284 questions, k = 10):");
  for (const [mode, m] of Object.entries(qualityRows)) {
    console.log(`  ${mode.padEnd(12)} recall@10 ${f3(m["recall@10"])}  nDCG@10 ${f3(m["ndcg@10"])}  MRR@10 ${f3(m["mrr@10"])}`);
  }
  const fastQ = qualityRows["bm25 (fast)"];
  if (fastQ) console.log(`  target fast BM25 recall@10 ≥ ${TARGET.recall10}: ${mark(fastQ["recall@10"] >= TARGET.recall10)}`);
  for (const h of ["hybrid", "hybrid-minmax"]) {
    if (fastQ && qualityRows[h]) {
      console.log(`  target ${h} recall@10 > BM25's (${f3(fastQ["recall@10"])}): ${mark(qualityRows[h]["recall@10"] > fastQ["recall@10"])}`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
