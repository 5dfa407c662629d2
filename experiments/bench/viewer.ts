/**
 * Viewer benchmark: a synthetic run of `--cells` (default 100,000) judged cells, served by the
 * viewer; prints the time to load the run, then the response time of the routes a user waits on —
 * first page, a filter, a sort by a score, a sort + filter, an output search, the item page, the
 * CSV export of a filtered table — against the issue's target (each ≤ 300 ms), and the process
 * RSS. Anchors measured in the same run: reading the results file through experiments' results
 * store (the JSON parsing any viewer must do) for the load, and an HTTP round trip of a static file
 * from the same server for the routes.
 *
 * Cells: 1,000 items × 5 workflow configurations × 20 models by default shape (items × configs ×
 * models = cells), ~1.4 KB per line with an output of ~90 words, Standard-RAG evidence provenance,
 * metrics and a two-judge panel.
 *
 * "first CPU ms" is this process's CPU time during that first request (server and client share
 * the process): a figure a busy machine disturbs less than wall time.
 * "first ms" is the first request of a route (nothing cached); later pages of the same filter and
 * sort come from a small result cache, so the median of repeats shows paging within a view.
 *
 * Usage: `npx tsx experiments/bench/viewer.ts [--cells 100000] [--repeats 5]`
 */
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { resultRecords } from "../../results/results-file.ts";
import type { RunRecord } from "../types.ts";
import { startViewerServer } from "../../viewer/server.ts";

const TARGET_MS = 300;
const WORDS = "patients treatment trial outcome mortality risk reduced increased significant evidence randomized placebo dose week cohort analysis hazard ratio confidence interval".split(" ");
const CONFIGS = [
  { workflow: "golden-rag", params: {} },
  { workflow: "standard-rag", params: { k: 5 } },
  { workflow: "standard-rag", params: { k: 10 } },
  { workflow: "negated-rag", params: { fraction: 1 } },
  { workflow: "pcot", params: {} },
];

/** Deterministic synthetic record number i. */
function syntheticRecord(i: number): RunRecord {
  const cfg = CONFIGS[i % CONFIGS.length];
  const model = `model-${Math.floor(i / CONFIGS.length) % 20}`;
  const item = Math.floor(i / (CONFIGS.length * 20));
  const words: string[] = [];
  for (let w = 0; w < 90; w++) words.push(WORDS[(i * 7 + w * 13 + ((w * w) % 11)) % WORDS.length]);
  const score = (i * 37) % 6;
  return {
    key: `k${i.toString(16).padStart(8, "0")}`,
    itemId: `item:${item}`,
    dataset: item % 3 === 0 ? "medmeta" : item % 3 === 1 ? "medevidence" : "ms2",
    taskKind: "synthesis",
    model,
    workflow: cfg.workflow,
    params: cfg.params,
    repeat: 0,
    status: i % 97 === 0 ? "failed" : "ok",
    output: i % 97 === 0 ? null : words.join(" ") + ".",
    reference: "Reference conclusion of the review.",
    itemMeta: { question: `Question ${item}?` },
    intermediate:
      cfg.workflow === "standard-rag"
        ? { queries: ["q1", "q2"], evidence: [1, 2, 3].map((r) => ({ id: String(1000 + r + item), provenance: [{ queryIndex: 0, query: "q1", rank: r, score: 1 / (60 + r) }] })) }
        : {},
    generator: { calls: 1, inputTokens: 800 + (i % 400), outputTokens: 120 + (i % 80), latencyMs: 500 + (i % 1000), cached: false },
    judgeScores: [
      { judgeId: "j1", rubricId: "medmeta-semantic-equivalence", scores: { semantic_equivalence: score }, status: "ok" },
      { judgeId: "j2", rubricId: "medmeta-semantic-equivalence", scores: { semantic_equivalence: i % 53 === 0 ? null : score }, status: i % 53 === 0 ? "missing" : "ok" },
    ],
    panel: { aggregation: "mean", scores: { "medmeta-semantic-equivalence": { semantic_equivalence: { value: score, nPresent: 2, nJudges: 2 } } } },
    metrics: { rougeL_fmeasure: ((i * 61) % 1000) / 1000 },
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:00:01.000Z",
  };
}

async function timed(url: string, repeats: number): Promise<{ first: number; median: number; firstCpu: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  let firstCpu = 0;
  for (let r = 0; r < repeats; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (r === 0) {
      const c = process.cpuUsage(c0);
      firstCpu = (c.user + c.system) / 1000;
    }
    if (!res.ok) throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString()}`);
    bytes = body.byteLength;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { first: times[0], median: sorted[Math.floor(sorted.length / 2)], firstCpu, bytes };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cells: { type: "string", default: "100000" }, repeats: { type: "string", default: "5" } } });
  const n = Number(values.cells);
  const repeats = Number(values.repeats);
  const dir = mkdtempSync(join(tmpdir(), "medsynth-viewer-bench-"));
  try {
    const file = join(dir, "results.jsonl");
    writeFileSync(file, "");
    for (let start = 0; start < n; start += 10_000) {
      const chunk: string[] = [];
      for (let i = start; i < Math.min(n, start + 10_000); i++) chunk.push(JSON.stringify(syntheticRecord(i)) + "\n");
      appendFileSync(file, chunk.join(""));
    }
    const size = statSync(join(dir, "results.jsonl")).size;
    console.log(`synthetic run: ${n.toLocaleString("en")} cells, ${(size / 2 ** 20).toFixed(1)} MiB results.jsonl`);

    const rss0 = process.memoryUsage().rss;
    let t0 = performance.now();
    let parsed = 0;
    for (const _r of resultRecords(join(dir, "results.jsonl"))) parsed++;
    const anchorLoad = performance.now() - t0;
    t0 = performance.now();
    const srv = await startViewerServer({ runs: [dir], port: 0 });
    const load = performance.now() - t0;
    const rss = process.memoryUsage().rss;
    console.log(
      `load + index of ${srv.index!.totalCells.toLocaleString("en")} cells: ${load.toFixed(0)} ms (anchor: streamed parse of ${parsed.toLocaleString("en")} records ${anchorLoad.toFixed(0)} ms; ratio ${(load / anchorLoad).toFixed(2)}×)`,
    );
    console.log(`RSS after load: ${(rss / 2 ** 20).toFixed(0)} MiB (before the run was read: ${(rss0 / 2 ** 20).toFixed(0)} MiB)`);

    const anchor = await timed(`${srv.url}/static/style.css`, repeats);
    console.log(`anchor: static file round trip median ${anchor.median.toFixed(1)} ms\n`);
    const routes: [string, string][] = [
      ["first page", "/api/cells?size=50"],
      ["filter (workflow + status)", "/api/cells?workflow=standard-rag&status=ok&size=50"],
      ["filter (judge missing)", "/api/cells?judge=missing&size=50"],
      ["sort by panel score desc", `/api/cells?sort=${encodeURIComponent("panel:medmeta-semantic-equivalence.semantic_equivalence")}&dir=desc&size=50`],
      ["filter + sort (latency)", "/api/cells?model=model-3&sort=latencyMs&dir=desc&size=50"],
      ["search outputs", "/api/cells?q=hazard&size=50"],
      ["last page", `/api/cells?size=50&page=${Math.floor(n / 50) - 1}`],
      ["item page", "/api/item?id=item%3A500"],
      ["CSV export (filtered)", "/api/export.csv?model=model-3&workflow=pcot"],
    ];
    console.log(`route                          first ms  first CPU ms  median ms  ×anchor  target ≤ ${TARGET_MS} ms   KiB`);
    for (const [label, path] of routes) {
      const t = await timed(srv.url + path, repeats);
      const worst = Math.max(t.first, t.median);
      console.log(
        `${label.padEnd(30)} ${t.first.toFixed(1).padStart(8)} ${t.firstCpu.toFixed(1).padStart(13)} ${t.median.toFixed(1).padStart(10)} ${(t.median / anchor.median).toFixed(1).padStart(8)}  ${worst <= TARGET_MS ? "ok" : "MISSED"}${" ".repeat(14)}${(t.bytes / 1024).toFixed(1).padStart(6)}`,
      );
    }
    console.log(`\nRSS at the end: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    await srv.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
