/**
 * `medsynth run <config> [--shard i/n]`, `medsynth merge <shard-dirs…>`, `medsynth report <run-dir>`,
 * `medsynth compare <runA> <runB>`.
 *
 * `run` validates the config, runs the retrieval evaluation (when configured) and every pending
 * cell with a progress bar (ETA, tokens, cost), then writes the report. Ctrl-C stops scheduling,
 * keeps every finished record and exits 130; a second Ctrl-C exits at once.
 */
import cliProgress from "cli-progress";
import { ensureConfigData } from "../data-preflight.ts";
import { setMaxListeners } from "node:events";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { loadExperimentConfig } from "../config.ts";
import { planExperiment, runExperiment, type RunPlan, type RunSummary } from "../runner.ts";
import { estimateRun, formatEstimate, type EstimateOptions, type RunEstimate } from "../estimate.ts";
import { latestEntries, readRecordAt } from "../../results/results-file.ts";
import type { RunRecord } from "../../results/run-record.ts";
import { checkRegistryIds, createRunnerDeps, judgePlan } from "../wiring.ts";
import { validateMetricSpecs } from "../metrics-stage.ts";
import { runRetrievalEval } from "../retrieval-eval-stage.ts";
import { writeReportBounded } from "../report/bounded.ts";
import { compareRuns } from "../report/compare.ts";
import { mergeShards, shardDir, type ShardSpec } from "../shards.ts";
import { parseShardCount, resolveShard } from "../shard-auto.ts";
import { tableToMarkdown } from "../report/render.ts";
import { formatRunUsage } from "../usage-summary.ts";
import { failureSummary, shortenError } from "../failures.ts";
import { runExitCode } from "../exit-codes.ts";
import { BatchCollector } from "../../models/batch-collector.ts";
import { createHttpBatchApi } from "../../models/batch-api.ts";
import { createFileBatchApi } from "../../models/batch-file-api.ts";
import { resolveBatchSettings } from "../../models/batch-settings.ts";
import { formatCostUsd, formatTokenCount } from "../../models/usage.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** Options of `medsynth run`. */
export interface RunCommandOptions {
  retryFailed?: boolean;
  reuseChangedSettings?: boolean;
  /** `i/n`: run only shard i of n (see experiments/shards.ts); `auto`: i/n from Slurm or a Kubernetes Indexed Job (experiments/shard-auto.ts). */
  shard?: string;
  /** `n`: the shard count for `--shard auto` under Kubernetes (the Job's completions). */
  shardCount?: string;
  report?: boolean;
  json?: boolean;
  progress?: boolean;
  /** Print the estimate (cells, calls, tokens, cost) and stop: no call, nothing written. */
  dryRun?: boolean;
  /** Send every chat call through the endpoints' Batch APIs, in waves (models/batch-collector.ts). */
  batch?: boolean;
  /** On exit (Ctrl-C included) cancel this run's batches still in flight instead of leaving them running. */
  cancelBatches?: boolean;
  /** A failed, expired or cancelled batch line is retried `online` (default) or in a new `batch`. */
  batchRetry?: string;
  /**
   * `medsynth batch export`: write each wave's requests to `<output>/batch-files/` (OpenAI batch
   * format, for `vllm run-batch`) instead of a Batch API, and stop once the wave is written.
   */
  exportBatches?: boolean;
}

/** Whether any endpoint of the config (generators; judges are checked when built) asks for batches. */
function configBatches(config: ReturnType<typeof loadExperimentConfig>): boolean {
  return config.models.some((m) => (m.endpoint as { batch?: unknown } | undefined)?.batch === true);
}

/**
 * The estimate's batch options: which model ids' calls go through Batch APIs — every `openai:`
 * model with `--batch` (or `batch export`); else the config's models whose endpoint has
 * `batch: true` and the judges whose panel endpoint has it — and whether any does (`batching`).
 */
function batchEstimateOptions(config: ReturnType<typeof loadExperimentConfig>, opts: RunCommandOptions, judgeModels: string[]): EstimateOptions {
  if (opts.batch === true || opts.exportBatches === true) return { isBatched: (id) => id.startsWith("openai:"), batching: true };
  const ids = new Set([...config.models.filter((m) => (m.endpoint as { batch?: unknown } | undefined)?.batch === true).map((m) => m.id), ...judgeModels]);
  return { isBatched: (id) => ids.has(id), batching: ids.size > 0 };
}

/**
 * The run's batch session: journal in the run (or shard) folder; the HTTP Batch API per endpoint,
 * or with `exportBatches` request files in the run folder (`onWaiting` hears of each unanswered one).
 */
function batchSession(outputDir: string, opts: RunCommandOptions, log: (l: string) => void, onWaiting: (batchId: string, file: string) => void): BatchCollector {
  if (opts.batchRetry !== undefined && opts.batchRetry !== "online" && opts.batchRetry !== "batch") throw new Error(`--batch-retry: expected online or batch, got ${JSON.stringify(opts.batchRetry)}`);
  // batch export: unanswered lines go into the next wave, never online (unless a caller sets batchRetry "online").
  const exportOnly = opts.exportBatches === true && opts.batchRetry !== "online";
  const settings = resolveBatchSettings({
    ...(opts.batchRetry ? { onFailedLine: opts.batchRetry as "online" | "batch" } : {}),
    ...(opts.exportBatches ? { pollMs: 200 } : {}),
    ...(exportOnly ? { onFailedLine: "batch" as const, batchOnly: true } : {}),
  });
  const fileApi = opts.exportBatches ? createFileBatchApi(outputDir, onWaiting) : null;
  return new BatchCollector(join(outputDir, "batches.jsonl"), (url, key) => fileApi ?? createHttpBatchApi(url, key), settings, log, opts.batch === true || opts.exportBatches === true);
}

/** The summary line of a batch session, or null when nothing went through batches. */
function batchSummaryLine(b: BatchCollector, left: string[], cancelled: boolean): string | null {
  const s = b.stats;
  if (!s.batches && !s.reattached && !left.length) return null;
  const retried = s.retriedOnline + s.retriedInBatch;
  const parts = [`${s.batches} batch(es) submitted with ${s.linesSubmitted} request(s)`, `${s.linesDone} result line(s) received`];
  if (s.reattached) parts.push(`${s.reattached} answered by batches of an earlier run (re-attached, not resubmitted)`);
  if (s.failedLines || s.missingLines || retried)
    parts.push(
      `${s.failedLines} error line(s), ${s.missingLines} request(s) left unanswered by their batch (expired, cancelled, or missing from imported results); ${retried} retried (${s.retriedOnline} online, ${s.retriedInBatch} in new batches)`,
    );
  if (left.length) parts.push(cancelled ? `cancelled ${left.join(", ")}` : `left running: ${left.join(", ")} (re-run the same command to re-attach; nothing is resubmitted)`);
  return `batches: ${parts.join("; ")}`;
}

/**
 * The failed records among the latest record per cell key of a results file: one streamed pass
 * keeping each key's latest status and offset, then only the failed records read back by offset.
 */
function latestFailedRecords(resultsPath: string): RunRecord[] {
  const failed: RunRecord[] = [];
  for (const e of latestEntries(resultsPath).values()) if (e.status === "failed") failed.push(readRecordAt(resultsPath, e.offset, e.length));
  return failed;
}

/**
 * `medsynth run --dry-run`: validate everything, then estimate the run without running it.
 * @returns the estimate (also printed, or as JSON with `json`).
 */
export async function dryRunCommand(file: string, opts: RunCommandOptions = {}, print: (l: string) => void = console.log): Promise<RunEstimate> {
  const config = loadExperimentConfig(file);
  checkRegistryIds(config, file);
  validateMetricSpecs(config.metrics);
  const deps = createRunnerDeps(config, (l) => console.error(l));
  const shard = shardOf(opts, (l) => console.error(l));
  const plan = await planExperiment(config, deps, { retryFailed: opts.retryFailed, reuseChangedSettings: opts.reuseChangedSettings, ...(shard !== undefined ? { shard } : {}) });
  const judges = judgePlan(config);
  const est = estimateRun(config, plan.pending, plan.finished, plan.items, judges, batchEstimateOptions(config, opts, judges?.batchedModels ?? []));
  if (opts.batchRetry !== undefined && opts.batchRetry !== "online" && opts.batchRetry !== "batch") throw new Error(`--batch-retry: expected online or batch, got ${JSON.stringify(opts.batchRetry)}`);
  if (opts.json) print(JSON.stringify(est, null, 2));
  else for (const l of formatEstimate(est)) print(l);
  return est;
}

/**
 * The shard of `--shard i/n` or `--shard auto` (from Slurm / Kubernetes, said on `log`); undefined
 * without `--shard`.
 * @throws Error on a malformed option or scheduler variables that do not give a shard.
 */
function shardOf(opts: RunCommandOptions, log: (l: string) => void): ShardSpec | undefined {
  if (opts.shard === undefined) {
    if (opts.shardCount !== undefined) throw new Error("--shard-count is only used with --shard auto");
    return undefined;
  }
  const resolved = resolveShard(opts.shard, parseShardCount(opts.shardCount));
  if (resolved.source !== "explicit") log(resolved.detail);
  return resolved.shard;
}

/**
 * Run an experiment config end to end (exported for tests).
 * @returns the runner summary plus the report paths.
 * @throws ConfigError for an invalid config; errors for unknown dataset/workflow/model/metric ids.
 */
export async function runCommand(
  file: string,
  opts: RunCommandOptions = {},
  print: (l: string) => void = console.log,
): Promise<RunSummary & { report: string | null; retrievalRecomputed: boolean; failures: ReturnType<typeof failureSummary>; batch: BatchCollector["stats"] }> {
  const config = loadExperimentConfig(file);
  checkRegistryIds(config, file);
  const shard = shardOf(opts, (l) => console.error(l));
  validateMetricSpecs(config.metrics);
  await ensureConfigData(config); // stop here, before any work, when a dataset cannot be had
  if (Object.keys(config.prices).length) {
    for (const m of config.models) if (!m.id.startsWith("extractive:") && !config.prices[m.id]) console.error(`note: no entry in prices for ${m.id}: its cost is not counted (tokens are)`);
  }
  const log = (l: string) => console.error(l);
  const ac = new AbortController();
  setMaxListeners(0, ac.signal); // every in-flight call listens to the run's signal
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    // Only a person at a terminal presses Ctrl-C again; a SIGTERM comes from a process manager.
    console.error(
      signal === "SIGINT" ? "\nstopping: finishing nothing new; finished records are kept (Ctrl-C again to quit now)" : `\nstopping on ${signal}: finishing nothing new; finished records are kept`,
    );
    ac.abort();
  };
  const onSigint = () => onSignal("SIGINT");
  const onSigterm = () => onSignal("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  let batch: BatchCollector | undefined;
  let batchClosed = false;
  const exported = new Map<string, string>();
  try {
    const t0 = Date.now();
    // Everything is checked (models, endpoints, panel, rubrics, env variables) before any call.
    // Export mode: once a wave's request files are written and nothing else is queued for a moment, stop the run.
    let exportTimer: NodeJS.Timeout | undefined;
    const onWaiting = (id: string, path: string) => {
      if (exported.has(id)) return;
      exported.set(id, path);
      if (exportTimer) clearTimeout(exportTimer);
      // Other endpoints' queues of the same wave close within the quiet time: let them be written too.
      exportTimer = setTimeout(() => ac.abort(), (batch?.settings.idleMs ?? 2000) + 1000);
    };
    batch = batchSession(shard ? shardDir(config.output, shard) : config.output, opts, log, onWaiting);
    const session = batch;
    ac.signal.addEventListener("abort", () => session.abandon(), { once: true });
    const deps = createRunnerDeps(config, log, { batch });
    // In batch mode every pending cell runs at once, so each wave holds every cell's next call.
    const batching = opts.batch === true || opts.exportBatches === true || configBatches(config);
    deps.validate?.(config);
    // A sharded run evaluates retrieval once, in shard 1 (merge carries it over).
    const retrieval =
      shard === undefined
        ? await runRetrievalEval(config, log)
        : shard.index === 1
          ? await runRetrievalEval({ ...config, output: shardDir(config.output, shard) }, log)
          : { rows: [], recomputed: false };
    if (config.retrievalEval) log(`retrieval evaluation: ${retrieval.recomputed ? "computed" : "reused"} (${retrieval.rows.length} rows)`);
    const showBar = opts.progress !== false && !opts.json && process.stderr.isTTY;
    const bar = showBar
      ? new cliProgress.SingleBar(
          { format: "{bar} {value}/{total} cells | ETA {eta_formatted} | failed {failed} | tokens {tokens} | {cost}", hideCursor: true, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        )
      : null;
    let started = false;
    let lastLog = 0;
    const plan = judgePlan(config);
    const summary = await runExperiment(batching ? { ...config, concurrency: Math.max(config.concurrency, 1_000_000) } : config, deps, {
      retryFailed: opts.retryFailed,
      reuseChangedSettings: opts.reuseChangedSettings,
      shard,
      signal: ac.signal,
      log,
      onPlan: (p: RunPlan) => {
        if (!opts.json && p.pending.length)
          for (const l of formatEstimate(estimateRun(config, p.pending, p.finished, p.items, plan, batchEstimateOptions(config, opts, plan?.batchedModels ?? [])))) log(l);
      },
      onProgress: (p) => {
        // Unknown usage is shown as unknown ("–", "≥ N (k calls unknown)"), never as 0 tokens / $0.
        const spent = p.inputTokens + p.outputTokens;
        const allUnknown = p.unknownUsageCalls > 0 && spent === 0;
        const payload = {
          failed: p.failed,
          tokens: formatTokenCount(spent, p.unknownUsageCalls),
          cost: Object.keys(config.prices).length ? formatCostUsd(p.costUsd, p.unknownUsageCalls, allUnknown) : "not priced",
        };
        if (bar) {
          if (!started) {
            bar.start(p.total, 0, payload);
            started = true;
          }
          bar.update(p.done, payload);
        } else if (!opts.json && (Date.now() - lastLog > 5000 || p.done === p.total)) {
          lastLog = Date.now();
          const verdicts = p.verdicts ? `, ${p.missingVerdicts ?? 0} of ${p.verdicts} judge verdicts missing` : "";
          log(`${p.done}/${p.total} cells, ${p.failed} failed${verdicts}, tokens spent ${payload.tokens}, cost ${payload.cost}`);
        }
      },
    });
    bar?.stop();
    // A signal that arrived while the last cells finished still means "interrupted".
    if (ac.signal.aborted && !summary.aborted) summary.aborted = true;
    let report: string | null = null;
    if (shard) print(`shard ${shard.index}/${shard.count}: combine the ${shard.count} shard folders with \`${medsynthCommand()} merge ${config.output}/shard-*-of-${shard.count}\``);
    if (opts.report !== false && !summary.aborted && !shard) {
      // The report settings come from the spec.json this run wrote; a large run's report has its heap capped (bounded.ts).
      const files = await writeReportBounded(config.output);
      report = files.html;
    }
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    const failures = failureSummary(latestFailedRecords(summary.resultsPath));
    if (opts.json) print(JSON.stringify({ ...summary, report, retrievalRecomputed: retrieval.recomputed, seconds: Number(seconds), failures }, null, 2));
    else {
      print(
        `${summary.totalCells} cells: ${summary.ran} run now (${summary.failed} failed, ${summary.skippedItems} skipped items), ${summary.skippedFinished} already finished${summary.aborted ? " — interrupted" : ""}; ${seconds} s`,
      );
      print(existsSync(summary.resultsPath) ? `results: ${summary.resultsPath}` : `results: none yet (no cell has finished; ${summary.resultsPath} is written when one does)`);
      if (report) print(`report:  ${report} (and report.md)`);
    }
    const stillFailed = failures.reduce((a, f) => a + f.count, 0);
    if (!opts.json) {
      for (const l of formatRunUsage(summary.usage)) print(`tokens ${l}`);
      const v = summary.judgeVerdicts;
      if (v.total) print(`judge verdicts: ${v.total - v.missing} of ${v.total} given, ${v.missing} missing${v.missing ? " (raw answers kept in results.jsonl)" : ""}`);
      if (stillFailed) {
        print(`${stillFailed} cell(s) failed, by reason:`);
        for (const f of failures) print(`  ${f.reason}: ${f.count} (e.g. ${shortenError(f.example)})`);
        print("fix the cause and re-run with --retry-failed");
      }
    }
    const left = await batch.close({ cancel: opts.cancelBatches === true });
    batchClosed = true;
    const batchLine = batchSummaryLine(batch, opts.exportBatches ? [] : left, opts.cancelBatches === true);
    if (batchLine && !opts.json) print(batchLine);
    if (opts.exportBatches && exported.size) {
      print(`wave written: ${exported.size} request file(s) waiting for results (OpenAI batch format):`);
      for (const path of exported.values()) print(`  ${path}`);
      print("run each through your server, e.g. `vllm run-batch -i <file> -o <file>.results.jsonl --model <model>`,");
      print(`then \`${medsynthCommand()} batch import ${file} <results files…>\` and \`${medsynthCommand()} batch export ${file}\` again for the next wave`);
      process.exitCode = 0;
      return { ...summary, report, retrievalRecomputed: retrieval.recomputed, failures, batch: batch.stats };
    }
    process.exitCode = runExitCode({ aborted: summary.aborted, failedCells: stillFailed, verdicts: summary.judgeVerdicts });
    return { ...summary, report, retrievalRecomputed: retrieval.recomputed, failures, batch: batch.stats };
  } finally {
    if (batch && !batchClosed) await batch.close({ cancel: opts.cancelBatches === true }).catch(() => undefined);
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  }
}

/** `merge`: combine the shard folders of one sharded run, then write its report (unless `report` is false). */
export async function mergeCommand(dirs: string[], opts: { output?: string; allowMissing?: boolean; report?: boolean }): Promise<void> {
  const out = opts.output ?? dirname(resolve(dirs[0]));
  const s = mergeShards(dirs, out, { allowMissing: opts.allowMissing });
  console.log(
    `merged shards ${s.shards.join(", ")} into ${s.outputDir}: ${s.records} of ${s.totalCells} cells have a record${s.missingCells ? ` (${s.missingCells} without: run the missing shard(s) or resume them, then merge again)` : ""}`,
  );
  if (opts.report !== false) {
    const files = await writeReportBounded(out);
    for (const w of files.warnings ?? []) console.error(`warning: ${w}`);
    console.log(`report: ${files.html}`);
  }
}

/**
 * `report`: write report.md, report.html and charts/ for a run folder and print where. A
 * results.jsonl of 256 MiB or more is reported with the heap capped (`writeReportBounded`;
 * `MEDSYNTH_REPORT_HEAP_MB` sets the cap, 0 none).
 * @param opts.scimago a SCImago journal file for the MedConclusion journal subgroups (overrides the config's `report.scimago`).
 */
export async function reportCommand(dir: string, opts: { scimago?: string } = {}): Promise<void> {
  // Large runs: the report's heap is capped (a worker thread), see experiments/report/bounded.ts.
  const files = await writeReportBounded(dir, { scimago: opts.scimago });
  for (const w of files.warnings ?? []) console.error(`warning: ${w}`);
  console.log(`report: ${files.html}\n        ${files.markdown}\n        ${files.charts.length} charts in ${dir}/charts`);
}

/** `compare`: per-metric deltas between two runs, printed as a Markdown table (or JSON). */
export async function compareCommand(a: string, b: string, opts: { json?: boolean }): Promise<void> {
  const { deltas, table, warnings } = compareRuns(a, b);
  for (const w of warnings) console.error(`warning: ${w}`);
  console.log(opts.json ? JSON.stringify(deltas, null, 2) : tableToMarkdown(table));
}
