// Query process of experiments/bench/scale.ts. Plain JavaScript on purpose: it imports the
// compiled CLI code in dist/ (what `medsynth search` runs), not the TypeScript sources through a
// loader. It does what `search` does — cliRetriever below: the corpus named by `--corpus`, the
// retriever config the CLI builds from its default options — then answers every query of a JSON
// list once, timing each, and prints one JSON line:
//   {openS, openCpuS, firstMs, p50, p95, mean, queries, rssAfterOpen, peakRss, engine, id}  (s, ms, bytes)
// openS is the reopen cost (load/open the corpus and the cached indexes; openCpuS its CPU seconds), firstMs the cold first
// query of the process, p50/p95 are over the warm queries after it; peakRss is VmHWM.
// Usage: node scale-query-child.mjs <corpus> <mode> <queries.json> [dense index] [bm25 engine: fast | wink | disk; default: the CLI's]
//   [on-disk BM25 threads per query: auto | n; default: the CLI's (auto)]
// (MEDSYNTH_CACHE_DIR chooses the cache, as for the CLI).
import { readFileSync } from "node:fs";

const dist = new URL("../../dist/", import.meta.url);

function peakRss() {
  const m = /VmHWM:\s*(\d+)\s*kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

/**
 * The retriever `medsynth search --corpus <corpus> --mode <mode> [--bm25-engine <engine>]` builds:
 * runSearch in experiments/cli/retrieval-commands.ts opens the corpus with openRetrievalCorpus (a
 * store comes back as a streamed source, never materialised) and hands `{source}` or `{docs}` to
 * createRetriever, which picks its engine from the store's size.
 */
async function cliRetriever(corpus, mode, index, bm25Engine, bm25Threads) {
  const { openRetrievalCorpus } = await import(new URL("corpus/corpus-file.js", dist).href);
  const { retrieverConfig } = await import(new URL("experiments/cli/retrieval-commands.js", dist).href);
  const { createRetriever, DEFAULT_RETRIEVER_EMBEDDER_ID } = await import(new URL("retrieval/registry.js", dist).href);
  const config = retrieverConfig(
    { embedder: DEFAULT_RETRIEVER_EMBEDDER_ID, ...(bm25Engine ? { bm25Engine } : {}), ...(bm25Threads ? { bm25Threads } : {}), fusion: "rrf", candidates: "100", index },
    mode,
  );
  const c = await openRetrievalCorpus(corpus, () => {});
  return createRetriever(config, { ...(c.source ? { source: c.source } : { docs: c.docs }), log: () => {} });
}

// bm25Engine: "fast" is the default of `--bm25-engine` in experiments/cli/retrieval-register.ts.
const [corpus, mode, queriesPath, index = "none", bm25Engine = "fast", bm25Threads] = process.argv.slice(2);
process.env.LANCEDB_LOG ??= "error";
const queries = JSON.parse(readFileSync(queriesPath, "utf8"));
const t0 = performance.now();
const c0 = process.cpuUsage();
const r = await cliRetriever(corpus, mode, index, bm25Engine, bm25Threads);
const openS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
const cpuSeconds = (u) => (u.user + u.system) / 1e6;
const openCpuS = cpuSeconds(cpu);
const rssAfterOpen = peakRss();
const f0 = performance.now();
await r.search(queries[0], 10);
const firstMs = performance.now() - f0;
const lat = [];
for (const q of queries.slice(1)) {
  const s = performance.now();
  await r.search(q, 10);
  lat.push(performance.now() - s);
}
lat.sort((a, b) => a - b);
const pct = (p) => lat[Math.min(lat.length - 1, Math.max(0, Math.ceil((p / 100) * lat.length) - 1))];
const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
console.log(
  JSON.stringify({
    openS,
    openCpuS,
    firstMs,
    p50: pct(50),
    p95: pct(95),
    mean,
    queries: lat.length,
    rssAfterOpen,
    peakRss: peakRss(),
    engine: r.engine,
    id: r.id,
    bm25Threads: r.bm25DiskPool?.threads ?? 1,
    cpuS: cpuSeconds(process.cpuUsage()),
  }),
);
process.exit(0);
