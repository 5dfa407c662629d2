/**
 * Analyzer benchmark (issue 11): the scanner + raw-token memo analyzer (`createAnalyzer`) against
 * the regex reference it replaced (`createReferenceAnalyzer`, same output), interleaved in the same
 * run; only same-window ratios are meaningful on a shared machine (the load average is printed).
 *
 * Rows (each timed in ≥ 3 interleaved rounds — reference then new, new then reference
 * alternately — and reported as the median of per-round ratios):
 *   1. parity: every bundled-corpus field and MedEvidence question gives the same terms;
 *   2. tokens/s, warm memo (the steady state of an index build or a query stream): analysing the
 *      bundled corpus (~3.3 k abstracts: title and text) `--passes` times;
 *   3. tokens/s, cold memo (a fresh analyzer, one pass: every distinct token stemmed once);
 *   4. term ids: `termIds(...).analyzeInto` vs `analyze` + a vocabulary Map (what an index build does);
 *   5. the whole in-memory BM25 build through the public `buildBm25` (fast engine, no cache, fresh
 *      analyzer each time) at `--docs` docs (default 100,000 = the bundled corpus replicated with new
 *      ids `<pmid>#r<n>`, as experiments/bench/retrieval.ts does; not distinct abstracts).
 *
 * Usage: `npx tsx experiments/bench/analyzer.ts [--rounds 3] [--passes 5] [--docs 100000] [--no-build]`
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { createAnalyzer, createReferenceAnalyzer, type Analyzer } from "../../retrieval/analyzer.ts";
import { buildBm25 } from "../../retrieval/bm25/build.ts";

type Make = () => Analyzer;
const MAKERS: Record<"reference" | "new", Make> = { reference: createReferenceAnalyzer, new: createAnalyzer };

const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f2 = (x: number) => x.toFixed(2);

/** The natural corpus replicated to `size` docs with new ids (as experiments/bench/retrieval.ts). */
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

/**
 * Runs `measure` for both implementations in `rounds` interleaved rounds (order alternating) and
 * prints the medians and the median of per-round ratios new/reference of `measure`'s rate.
 */
function interleaved(label: string, unit: string, rounds: number, measure: (make: Make) => number): number {
  const rates: Record<"reference" | "new", number[]> = { reference: [], new: [] };
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (["reference", "new"] as const) : (["new", "reference"] as const);
    const got: Partial<Record<"reference" | "new", number>> = {};
    for (const which of order) got[which] = measure(MAKERS[which]);
    rates.reference.push(got.reference!);
    rates.new.push(got.new!);
    ratios.push(got.new! / got.reference!);
  }
  const ratio = medianOf(ratios);
  console.log(
    `${label.padEnd(44)} reference ${medianOf(rates.reference).toExponential(3)} ${unit}  new ${medianOf(rates.new).toExponential(3)} ${unit}  ` +
      `new/reference ${f2(ratio)}× (rounds ${ratios.map(f2).join(", ")}; load ${load()})`,
  );
  return ratio;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      passes: { type: "string", default: "5" },
      docs: { type: "string", default: "100000" },
      "no-build": { type: "boolean", default: false },
    },
  });
  const rounds = Math.max(3, Number(values.rounds));
  const passes = Math.max(1, Number(values.passes));
  const size = Number(values.docs);

  const { docs } = await loadBundledCorpus();
  const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
  const texts = docs.flatMap((d) => [d.title, d.text]);
  const chars = texts.reduce((s, t) => s + t.length, 0);
  console.log(`# medsynth analyzer benchmark (Node ${process.version}, one thread, ${cpus().length} CPUs, load ${load()})`);
  console.log(`corpus: ${docs.length} bundled docs → ${texts.length} fields, ${(chars / 1e6).toFixed(2)} M chars; ${tasks.length} MedEvidence questions`);

  // 1. Parity (the tests check it too; a benchmark of a wrong analyzer means nothing).
  const ref = createReferenceAnalyzer();
  const neu = createAnalyzer();
  let differ = 0;
  let tokens = 0;
  for (const t of [...texts, ...tasks.map((q) => q.question)]) {
    const a = ref.analyze(t);
    const b = neu.analyze(t);
    tokens += a.length;
    if (a.length !== b.length || a.some((x, i) => x !== b[i])) differ++;
  }
  console.log(`parity: ${differ} of ${texts.length + tasks.length} texts differ (${tokens} terms)${differ ? "  ← WRONG" : ""}`);
  if (differ) process.exitCode = 1;

  // 2. Warm memo: one warm-up pass, then `passes` timed passes.
  const warm = (make: Make): number => {
    const a = make();
    for (const t of texts) a.analyze(t);
    let n = 0;
    const t0 = performance.now();
    for (let p = 0; p < passes; p++) for (const t of texts) n += a.analyze(t).length;
    return n / ((performance.now() - t0) / 1000);
  };
  const warmRatio = interleaved(`tokens/s, warm memo (${passes} passes)`, "tok/s", rounds, warm);

  // 3. Cold memo: a fresh analyzer, one pass.
  const cold = (make: Make): number => {
    const a = make();
    let n = 0;
    const t0 = performance.now();
    for (const t of texts) n += a.analyze(t).length;
    return n / ((performance.now() - t0) / 1000);
  };
  interleaved("tokens/s, cold memo (fresh analyzer, 1 pass)", "tok/s", rounds, cold);

  // 4. Term ids, as an index build needs them: analyzeInto (new) vs analyze + vocabulary Map (reference).
  const buf = new Int32Array(texts.reduce((m, t) => Math.max(m, t.length), 0));
  const ids = (make: Make): number => {
    const a = make();
    const vocab = new Map<string, number>();
    const idOf = (term: string): number => {
      let id = vocab.get(term);
      if (id === undefined) vocab.set(term, (id = vocab.size));
      return id;
    };
    let n = 0;
    let sum = 0;
    let t0 = 0;
    if (make === createAnalyzer) {
      const ti = a.termIds(idOf);
      for (let p = 0; p <= passes; p++) {
        if (p === 1) t0 = performance.now();
        for (const t of texts) {
          const k = ti.analyzeInto(t, buf);
          for (let i = 0; i < k; i++) sum += buf[i];
          if (p > 0) n += k;
        }
      }
    } else {
      for (let p = 0; p <= passes; p++) {
        if (p === 1) t0 = performance.now();
        for (const t of texts) {
          const terms = a.analyze(t);
          for (let i = 0; i < terms.length; i++) sum += idOf(terms[i]);
          if (p > 0) n += terms.length;
        }
      }
    }
    if (sum < 0) console.log(sum); // keep the sums alive
    return n / ((performance.now() - t0) / 1000);
  };
  interleaved("term ids/s: analyzeInto vs analyze + Map", "ids/s", rounds, ids);

  // 5. The whole in-memory BM25 build (public buildBm25, fast engine, no cache) at `size` docs.
  let buildRatio = NaN;
  if (!values["no-build"]) {
    const big = replicate(docs, size);
    console.log(`BM25 build corpus: ${big.length} docs = the bundled corpus plus replicas with new ids (<pmid>#r<n>); NOT ${size} distinct abstracts`);
    const build = (make: Make): number => {
      const t0 = performance.now();
      const r = buildBm25(big, { engine: "fast", cache: false }, { analyzer: make() });
      const ms = performance.now() - t0;
      if (r.engine.info.docCount !== big.length) throw new Error("build lost docs");
      return big.length / (ms / 1000);
    };
    buildRatio = interleaved(`BM25 build (buildBm25 fast, ${big.length} docs)`, "docs/s", rounds, build);
  }
  console.log(`summary: analyze warm ${f2(warmRatio)}×, BM25 build ${Number.isNaN(buildRatio) ? "skipped" : `${f2(buildRatio)}×`} (new vs reference, same window)`);
}

await main();
