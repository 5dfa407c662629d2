/**
 * Retrieval benchmark (issue 3): index build time, single-thread queries/s and p50/p95 latency of
 * each BM25 engine, dense and hybrid retrieval, on
 *   (a) the natural bundled corpus (PubMedQA + MedEvidence sources + Cohen 2006, ~3.3k abstracts), and
 *   (b) 25,000 docs = the natural corpus replicated with new ids (`<pmid>#r<n>`), so vocabulary and
 *       term statistics are those of (a) scaled up — not 25k distinct abstracts;
 * plus recall@10 / nDCG@10 / MRR@10 on the 284 MedEvidence questions (query = question, relevant =
 * relevant_sources) per mode, on the natural corpus.
 *
 * Queries for timing are the 284 MedEvidence questions, cycled; one process, one thread, warm-up
 * pass first. Anchors (bm25s, Lucene BM25, k1 1.5, b 0.75, English stop words, stemmer, this
 * machine): 3,300 q/s at 3.3k docs, 2,100 q/s at 25k docs (p50 0.36 ms); MedEvidence recall@10
 * 0.863, nDCG@10 0.755, MRR 0.767.
 *
 * Usage: `npx tsx experiments/bench/retrieval.ts [--size 25000] [--min-seconds 2] [--no-wink] [--no-dense] [--embedder id]`
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
const TARGET = { fastQpsAt25k: 2100, recall10: 0.86, hybridP50Ms: 10 };
const ANCHOR = { qps3k: 3300, qps25k: 2100, p50At25k: 0.36, recall10: 0.863, ndcg10: 0.755, mrr: 0.767 };
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
const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const mark = (ok: boolean) => (ok ? "OK" : "MISS");

async function quality(label: string, search: (q: string, k: number) => Promise<SearchHit[]> | SearchHit[], tasks: SynthesisTask[], qrels: Qrels): Promise<Record<string, number>> {
  const run: Record<string, SearchHit[]> = {};
  for (const t of tasks) run[t.id] = await search(t.question, 10);
  const ev = evaluateRun(run, qrels, METRICS);
  const m = ev.mean;
  console.log(
    `  ${label.padEnd(22)} recall@10 ${f3(m["recall@10"])} (anchor ${ANCHOR.recall10}, target ≥ ${TARGET.recall10})  nDCG@10 ${f3(m["ndcg@10"])} (anchor ${ANCHOR.ndcg10})  MRR@10 ${f3(m["mrr@10"])} (anchor ${ANCHOR.mrr})  [${ev.queries} questions]`,
  );
  return m;
}

async function main(): Promise<void> {
  // Silence lance's per-query Rust deprecation warnings on stderr (set before LanceDB loads).
  process.env.LANCEDB_LOG ??= "error";
  const { values } = parseArgs({
    options: {
      size: { type: "string", default: "25000" },
      "min-seconds": { type: "string", default: "2" },
      "no-wink": { type: "boolean", default: false },
      "no-dense": { type: "boolean", default: false },
      embedder: { type: "string" },
    },
  });
  const size = Number(values.size);
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
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(" ")} on ${cpus().length} CPUs (wall q/s suffers when others share the machine; CPU q/s less so)`);
  console.log(`queries: ${queries.length} MedEvidence questions (cycled for timing, ≥ ${minSeconds} s per row); BM25 k1 ${PARAMS.k1}, b ${PARAMS.b}, Lucene stop words, Porter2`);
  console.log("");

  const bm25Rows: { corpus: string; engine: string; n: number; buildMs: number; t: Timing }[] = [];
  const qualityRows: Record<string, Record<string, number>> = {};
  for (const [corpusName, docs] of [["natural", natural], [`${big.length / 1000}k-replicated`, big]] as const) {
    const fast = (() => {
      const s = performance.now();
      const e = buildFastBm25(docs, PARAMS);
      return { e, ms: performance.now() - s };
    })();
    bm25Rows.push({ corpus: corpusName, engine: "fast", n: docs.length, buildMs: fast.ms, t: await timeQueries((q) => fast.e.searchSync(q, 10), queries, minSeconds) });
    const cacheDirTmp = mkdtempSync(join(tmpdir(), "medsynth-bench-bm25-"));
    const bytes = fast.e.writeTo(cacheDirTmp);
    rmSync(cacheDirTmp, { recursive: true, force: true });
    console.log(`fast index (${corpusName}): ${fast.e.info.vocabSize} terms, on-disk cache ${(bytes / 1e6).toFixed(1)} MB`);
    if (corpusName === "natural") qualityRows["bm25 (fast)"] = { ...(await quality("bm25 fast", (q, k) => fast.e.searchSync(q, k), tasks, qrels)) };
    if (!values["no-wink"]) {
      const s = performance.now();
      const w = buildWinkBm25(docs, PARAMS);
      const ms = performance.now() - s;
      bm25Rows.push({ corpus: corpusName, engine: "wink", n: docs.length, buildMs: ms, t: await timeQueries((q) => w.searchSync(q, 10), queries, minSeconds, 2000) });
      if (corpusName === "natural") qualityRows["bm25 (wink)"] = await quality("bm25 wink", (q, k) => w.searchSync(q, k), tasks, qrels);
    }
  }
  console.log("");
  console.log("BM25 engines (k = 10):");
  for (const r of bm25Rows) {
    const anchor = r.corpus === "natural" ? ANCHOR.qps3k : ANCHOR.qps25k;
    const target = r.engine === "fast" && r.corpus !== "natural" ? `  target ≥ ${TARGET.fastQpsAt25k} q/s: ${mark(r.t.qps >= TARGET.fastQpsAt25k)} wall, ${mark(r.t.cpuQps >= TARGET.fastQpsAt25k)} CPU` : "";
    console.log(
      `  ${r.engine.padEnd(5)} ${r.corpus.padEnd(16)} n=${String(r.n).padStart(5)}  build ${f0(r.buildMs).padStart(6)} ms  ${f0(r.t.qps).padStart(6)} q/s wall, ${f0(r.t.cpuQps).padStart(6)} q/s CPU (bm25s anchor ${anchor})  p50 ${f3(r.t.p50)} ms  p95 ${f3(r.t.p95)} ms${r.corpus !== "natural" ? ` (anchor p50 ${ANCHOR.p50At25k})` : ""}${target}`,
    );
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
  else if (!createRetriever) console.log("dense/hybrid: not available yet");
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
          const t = await timeQueries((q) => r.search(q, 10), queries, minSeconds, 3000);
          const target = mode.startsWith("hybrid") ? `  target p50 ≤ ${TARGET.hybridP50Ms} ms: ${mark(t.p50 <= TARGET.hybridP50Ms)}` : "";
          console.log(
            `  ${mode.padEnd(13)} ${corpusName.padEnd(16)} n=${String(docs.length).padStart(5)}  build/open ${f0(buildMs).padStart(6)} ms  ${f0(t.qps).padStart(5)} q/s wall, ${f0(t.cpuQps).padStart(5)} q/s CPU  p50 ${f2(t.p50)} ms  p95 ${f2(t.p95)} ms${target}`,
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
