/**
 * Query process of `experiments/bench/scale.ts`: does what `medsynth search` does — {@link cliRetriever}
 * (the corpus named by `--corpus`, the retriever config the CLI builds from its options) — then
 * answers every query of a JSON list once, timing each, and prints one JSON line:
 * `{openS, firstMs, p50, p95, mean, queries, rssAfterOpen, peakRss, engine, id}` (ms, bytes).
 * `openS` is the reopen cost (load/open the corpus and the cached indexes); `firstMs` the cold
 * first query of the process; p50/p95 are over the warm queries after it.
 *
 * Usage: `tsx scale-query-child.ts <corpus> <mode> <queries.json> [index]`; MEDSYNTH_CACHE_DIR
 * chooses the cache (as for the CLI).
 */
import { readFileSync } from "node:fs";
import { loadCorpusArg } from "../../corpus/corpus-file.ts";
import { retrieverConfig } from "../cli/retrieval-commands.ts";
import { createRetriever, type BuiltRetriever, type RetrievalMode } from "../../retrieval/registry.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID } from "../../retrieval/registry.ts";
import { peakRss } from "./bench-helpers.ts";

/**
 * HOOK (issue 26 item 2): the retriever `medsynth search --corpus <corpus> --mode <mode>` builds.
 * Today the CLI loads the whole corpus with `loadCorpusArg` and hands `docs` to `createRetriever`;
 * once the CLI streams from the store (h-store), mirror its new call here (e.g. `{ source }`).
 */
export async function cliRetriever(corpus: string, mode: RetrievalMode, index: string): Promise<BuiltRetriever> {
  const config = retrieverConfig({ embedder: DEFAULT_RETRIEVER_EMBEDDER_ID, bm25Engine: "fast", fusion: "rrf", candidates: "100", index }, mode);
  const docs = await loadCorpusArg(corpus, () => {});
  return createRetriever(config, { docs, log: () => {} });
}

async function main(): Promise<void> {
  process.env.LANCEDB_LOG ??= "error";
  const [corpus, mode, queriesPath, index = "none"] = process.argv.slice(2);
  const queries = JSON.parse(readFileSync(queriesPath, "utf8")) as string[];
  const t0 = performance.now();
  const r = await cliRetriever(corpus, mode as RetrievalMode, index);
  const openS = (performance.now() - t0) / 1000;
  const rssAfterOpen = peakRss();
  const f0 = performance.now();
  await r.search(queries[0], 10);
  const firstMs = performance.now() - f0;
  const lat: number[] = [];
  for (const q of queries.slice(1)) {
    const s = performance.now();
    await r.search(q, 10);
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.max(0, Math.ceil((p / 100) * lat.length) - 1))];
  const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
  console.log(JSON.stringify({ openS, firstMs, p50: pct(50), p95: pct(95), mean, queries: lat.length, rssAfterOpen, peakRss: peakRss(), engine: r.engine, id: r.id }));
  process.exit(0);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
