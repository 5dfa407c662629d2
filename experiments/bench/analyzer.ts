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
 *      analyzer) at `--docs` docs (default 100,000 = the bundled corpus replicated with new ids
 *      `<pmid>#r<n>`, as experiments/bench/retrieval.ts does; not distinct abstracts), each build
 *      in a fresh child process (so one build's garbage does not slow the next).
 * Rows 2–4 time CPU seconds of this process (user + system; less sensitive than wall time to
 * other processes on a shared machine), row 5 the child's CPU seconds; wall-clock ratios are
 * printed beside them.
 *
 * Usage: `npx tsx experiments/bench/analyzer.ts [--rounds 3] [--passes 5] [--docs 100000] [--no-build]`
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { SynthesisTask } from "../../corpus/types.ts";
import { createAnalyzer, createReferenceAnalyzer, type Analyzer } from "../../retrieval/analyzer.ts";
import { buildBm25 } from "../../retrieval/bm25/build.ts";
import { replicate } from "./bench-helpers.ts";

const MAKERS: Record<"reference" | "new", () => Analyzer> = { reference: createReferenceAnalyzer, new: createAnalyzer };

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f2 = (x: number) => x.toFixed(2);

/** A measurement: `count` items processed in `cpuS` CPU seconds and `wallS` wall seconds. */
interface Sample {
  count: number;
  cpuS: number;
  wallS: number;
}

/** Times `f` (which returns how many items it processed) in CPU and wall seconds. */
function sample(f: () => number): Sample {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const count = f();
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { count, cpuS: (c.user + c.system) / 1e6, wallS };
}

/**
 * Runs `measure` for both implementations in `rounds` interleaved rounds (order alternating) and
 * prints median rates and the medians of per-round ratios new/reference (CPU time and wall time).
 * @returns the median CPU-time ratio.
 */
function interleaved(label: string, unit: string, rounds: number, measure: (which: "reference" | "new") => Sample): number {
  const rates: Record<"reference" | "new", number[]> = { reference: [], new: [] };
  const cpuRatios: number[] = [];
  const wallRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (["reference", "new"] as const) : (["new", "reference"] as const);
    const got: Partial<Record<"reference" | "new", Sample>> = {};
    for (const which of order) got[which] = measure(which);
    const [a, b] = [got.reference!, got.new!];
    rates.reference.push(a.count / a.cpuS);
    rates.new.push(b.count / b.cpuS);
    cpuRatios.push(b.count / b.cpuS / (a.count / a.cpuS));
    wallRatios.push(b.count / b.wallS / (a.count / a.wallS));
  }
  const ratio = medianOf(cpuRatios);
  console.log(
    `${label.padEnd(44)} reference ${medianOf(rates.reference).toExponential(3)} ${unit}  new ${medianOf(rates.new).toExponential(3)} ${unit} (per CPU s)  ` +
      `new/reference CPU ${f2(ratio)}× (rounds ${cpuRatios.map(f2).join(", ")}), wall ${f2(medianOf(wallRatios))}×; load ${load()}`,
  );
  return ratio;
}

/** Child process: builds the BM25 index over `size` replicated docs with one implementation, prints a {@link Sample}. */
async function buildChild(which: "reference" | "new", size: number): Promise<void> {
  const { docs } = await loadBundledCorpus();
  const big = replicate(docs, size);
  const s = sample(() => {
    const r = buildBm25(big, { engine: "fast", cache: false }, { analyzer: MAKERS[which]() });
    return r.engine.info.docCount;
  });
  console.log(JSON.stringify(s));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      passes: { type: "string", default: "5" },
      docs: { type: "string", default: "100000" },
      "no-build": { type: "boolean", default: false },
      "build-child": { type: "string" },
    },
  });
  if (values["build-child"]) return buildChild(values["build-child"] as "reference" | "new", Number(values.docs));
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
  const warm = (which: "reference" | "new"): Sample => {
    const a = MAKERS[which]();
    for (const t of texts) a.analyze(t);
    return sample(() => {
      let n = 0;
      for (let p = 0; p < passes; p++) for (const t of texts) n += a.analyze(t).length;
      return n;
    });
  };
  const warmRatio = interleaved(`tokens/s, warm memo (${passes} passes)`, "tok/s", rounds, warm);

  // 3. Cold memo: a fresh analyzer, one pass.
  const cold = (which: "reference" | "new"): Sample => {
    const a = MAKERS[which]();
    return sample(() => {
      let n = 0;
      for (const t of texts) n += a.analyze(t).length;
      return n;
    });
  };
  interleaved("tokens/s, cold memo (fresh analyzer, 1 pass)", "tok/s", rounds, cold);

  // 4. Term ids, as an index build needs them: analyzeInto (new) vs analyze + vocabulary Map (reference).
  const buf = new Int32Array(texts.reduce((m, t) => Math.max(m, t.length), 0));
  const ids = (which: "reference" | "new"): Sample => {
    const a = MAKERS[which]();
    const vocab = new Map<string, number>();
    const idOf = (term: string): number => {
      let id = vocab.get(term);
      if (id === undefined) vocab.set(term, (id = vocab.size));
      return id;
    };
    let sum = 0;
    // One untimed pass (memo and vocabulary warm), then `passes` timed ones.
    const pass =
      which === "new"
        ? (() => {
            const ti = a.termIds(idOf);
            return () => {
              let n = 0;
              for (const t of texts) {
                const k = ti.analyzeInto(t, buf);
                for (let i = 0; i < k; i++) sum += buf[i];
                n += k;
              }
              return n;
            };
          })()
        : () => {
            let n = 0;
            for (const t of texts) {
              const terms = a.analyze(t);
              for (let i = 0; i < terms.length; i++) sum += idOf(terms[i]);
              n += terms.length;
            }
            return n;
          };
    pass();
    const s = sample(() => {
      let n = 0;
      for (let p = 0; p < passes; p++) n += pass();
      return n;
    });
    if (sum < 0) console.log(sum); // keeps the sums alive
    return s;
  };
  interleaved("term ids/s: analyzeInto vs analyze + Map", "ids/s", rounds, ids);

  // 5. The whole in-memory BM25 build (public buildBm25, fast engine, no cache) at `size` docs.
  let buildRatio = NaN;
  if (!values["no-build"]) {
    const self = fileURLToPath(import.meta.url);
    console.log(`BM25 build corpus: ${size} docs = the bundled corpus plus replicas with new ids (<pmid>#r<n>); NOT ${size} distinct abstracts; one child process per build`);
    const build = (which: "reference" | "new"): Sample => {
      const r = spawnSync(process.execPath, [...process.execArgv, self, "--build-child", which, "--docs", String(size)], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
        maxBuffer: 1 << 20,
      });
      if (r.status !== 0) throw new Error(`build child (${which}) failed with status ${r.status}`);
      const s = JSON.parse(r.stdout.trim().split("\n").pop()!) as Sample;
      if (s.count !== size) throw new Error(`build child (${which}) indexed ${s.count} docs, not ${size}`);
      return s;
    };
    buildRatio = interleaved(`BM25 build (buildBm25 fast, ${size} docs)`, "docs/s", rounds, build);
  }
  console.log(`summary (new vs reference, CPU time, same window): analyze warm ${f2(warmRatio)}×, BM25 build ${Number.isNaN(buildRatio) ? "skipped" : `${f2(buildRatio)}×`}`);
}

await main();
