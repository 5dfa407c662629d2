/**
 * Helpers shared by the retrieval benchmarks (`retrieval.ts`, its query child `bm25-query-child.ts`,
 * `analyzer.ts`): the replicated corpus and the process's peak resident set. Kept free of heavy
 * imports so the esbuild-bundled query child stays small.
 */
import { readFileSync } from "node:fs";
import type { CorpusDoc } from "../../corpus/types.ts";

/**
 * The natural corpus replicated to `size` docs: the first `size` docs, then copies with new ids
 * `<id>#r<n>` (round n = 1, 2, …) until `size` is reached — the same texts, so vocabulary and term
 * statistics are the natural corpus's scaled up, NOT `size` distinct abstracts.
 */
export function replicate(docs: readonly CorpusDoc[], size: number): CorpusDoc[] {
  const out = docs.slice(0, size);
  for (let r = 1; out.length < size; r++) {
    for (const d of docs) {
      if (out.length >= size) break;
      out.push({ ...d, id: `${d.id}#r${r}` });
    }
  }
  return out;
}

/**
 * This process's peak resident set size so far, bytes: `VmHWM` of /proc/self/status (Linux), else
 * `getrusage`'s maxRSS. Not maxRSS on Linux: a spawned process inherits its parent's RSS high-water
 * mark there (measured: a child of a 1.5 GiB parent reports ≥ 1.5 GiB), so it would overstate the
 * query process's and the numpy anchor's peaks.
 */
export function peakRss(): number {
  try {
    const m = /VmHWM:\s*(\d+)\s*kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
