/**
 * Benchmark: ROUGE-1/2/L pairs per second on ≥ 10k PubMedQA conclusion pairs, one core.
 *
 * Pairs: reference = LONG_ANSWER (the abstract's conclusion), candidate = the last CONTEXTS
 * section, for the 1,000 PQA-L items; then 9 more rounds where each reference is paired with the
 * candidate of another item (seeded permutation) → 10,000 pairs. Prints throughput of a cold
 * scorer (stemmer cache empty) and a warm pass, the mean F1 over the 1,000 original pairs (must
 * equal Google rouge-score's rouge1 0.238774, rouge2 0.069270, rougeL 0.156089 to 1e-6), and a
 * check against the 600 PubMedQA rows of the parity fixture.
 *
 * Run: npx tsx experiments/bench/metrics.ts
 */
import { readFileSync } from "node:fs";
import seedrandom from "seedrandom";
import { datasetFile } from "../../corpus/datasets/files.ts";
import { loadParityRows } from "../../tests/fixtures/parity/pairs.ts";
import { RougeScorer } from "../../judges/metrics/rouge.ts";

interface PqaItem {
  CONTEXTS: string[];
  LONG_ANSWER: string;
}

const EXPECTED = { rouge1: 0.238774, rouge2: 0.06927, rougeL: 0.156089 } as const;
const TYPES = ["rouge1", "rouge2", "rougeL"] as const;

async function main(): Promise<void> {
  const file = await datasetFile("pubmedqa/ori_pqal.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as Record<string, PqaItem>;
  const items = Object.entries(data).map(([pmid, it]) => ({ pmid, reference: it.LONG_ANSWER, candidate: it.CONTEXTS[it.CONTEXTS.length - 1] }));
  const rng = seedrandom("medsynth-bench-metrics");
  const pairs: Array<{ reference: string; candidate: string }> = items.map((x) => ({ reference: x.reference, candidate: x.candidate }));
  for (let round = 1; round < 10; round++) {
    const perm = items.map((_, i) => i);
    for (let i = perm.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    items.forEach((x, i) => pairs.push({ reference: x.reference, candidate: items[perm[i]].candidate }));
  }

  const run = (scorer: RougeScorer): { ms: number; sums: number[] } => {
    const sums = [0, 0, 0];
    const t0 = process.hrtime.bigint();
    for (const p of pairs) {
      const s = scorer.score(p.reference, p.candidate);
      sums[0] += s.rouge1.fmeasure;
      sums[1] += s.rouge2.fmeasure;
      sums[2] += s.rougeL.fmeasure;
    }
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, sums };
  };
  const scorer = new RougeScorer([...TYPES], true);
  const cold = run(scorer);
  const warm = run(scorer);
  console.log(`pairs: ${pairs.length} (1,000 PubMedQA pairs + 9 permuted rounds), rouge1/2/L with stemming, one core`);
  console.log(`cold (empty stemmer cache): ${cold.ms.toFixed(0)} ms → ${Math.round((pairs.length / cold.ms) * 1000)} pairs/s`);
  console.log(`warm: ${warm.ms.toFixed(0)} ms → ${Math.round((pairs.length / warm.ms) * 1000)} pairs/s`);
  const same = cold.sums.every((v, i) => v === warm.sums[i]);
  console.log(`cold and warm passes give identical sums: ${same}`);

  const fresh = new RougeScorer([...TYPES], true);
  const means = [0, 0, 0];
  for (const x of items) {
    const s = fresh.score(x.reference, x.candidate);
    TYPES.forEach((t, i) => (means[i] += s[t].fmeasure / items.length));
  }
  let ok = true;
  TYPES.forEach((t, i) => {
    const diff = Math.abs(means[i] - EXPECTED[t]);
    const pass = diff <= 1e-6;
    ok &&= pass;
    console.log(`mean ${t} F1 over ${items.length} pairs: ${means[i].toFixed(6)} (rouge-score ${EXPECTED[t].toFixed(6)}, |diff| ${diff.toExponential(2)}) ${pass ? "OK" : "MISMATCH"}`);
  });

  const parity = (await loadParityRows()).filter((r) => r.source === "pubmedqa_ori_pqal");
  let maxDiff = 0;
  for (const r of parity) {
    const s = scorer.score(r.reference, r.candidate);
    for (const t of TYPES) maxDiff = Math.max(maxDiff, Math.abs(s[t].fmeasure - r.rouge.use_stemmer_true[t].fmeasure));
  }
  console.log(`parity fixture: ${parity.length} PubMedQA rows, max |F1 diff| vs rouge-score = ${maxDiff}`);
  if (!ok || maxDiff > 1e-6 || !same) process.exitCode = 1;
}

await main();
