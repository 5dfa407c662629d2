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
import { dirname, resolve } from "node:path";
import { loadExperimentConfig } from "../config.ts";
import { planExperiment, runExperiment, type RunPlan, type RunSummary } from "../runner.ts";
import { estimateRun, formatEstimate, type RunEstimate } from "../estimate.ts";
import { readResults, latestByKey } from "../results-store.ts";
import { createRunnerDeps, judgePlan } from "../wiring.ts";
import { validateMetricSpecs } from "../metrics-stage.ts";
import { runRetrievalEval } from "../retrieval-eval-stage.ts";
import { writeReport } from "../report/build.ts";
import { loadScimago } from "../../corpus/datasets/scimago.ts";
import { compareRuns } from "../report/compare.ts";
import { mergeShards, parseShard, shardDir } from "../shards.ts";
import { tableToMarkdown } from "../report/render.ts";
import { formatRunUsage } from "../usage-summary.ts";
import { failureSummary, shortenError } from "../failures.ts";
import { runExitCode } from "../exit-codes.ts";
import { formatCostUsd, formatTokenCount } from "../../models/usage.ts";

/** Options of `medsynth run`. */
export interface RunCommandOptions {
  retryFailed?: boolean;
  /** `i/n`: run only shard i of n (see experiments/shards.ts). */
  shard?: string;
  report?: boolean;
  json?: boolean;
  progress?: boolean;
  /** Print the estimate (cells, calls, tokens, cost) and stop: no call, nothing written. */
  dryRun?: boolean;
}

/**
 * `medsynth run --dry-run`: validate everything, then estimate the run without running it.
 * @returns the estimate (also printed, or as JSON with `json`).
 */
export async function dryRunCommand(file: string, opts: RunCommandOptions = {}, print: (l: string) => void = console.log): Promise<RunEstimate> {
  const config = loadExperimentConfig(file);
  validateMetricSpecs(config.metrics);
  const deps = createRunnerDeps(config, (l) => console.error(l));
  const plan = await planExperiment(config, deps, { retryFailed: opts.retryFailed, ...(opts.shard !== undefined ? { shard: parseShard(opts.shard) } : {}) });
  const est = estimateRun(config, plan.pending, plan.finished, plan.items, judgePlan(config));
  if (opts.json) print(JSON.stringify(est, null, 2));
  else for (const l of formatEstimate(est)) print(l);
  return est;
}

/**
 * Run an experiment config end to end (exported for tests).
 * @returns the runner summary plus the report paths.
 * @throws ConfigError for an invalid config; errors for unknown dataset/workflow/model/metric ids.
 */
export async function runCommand(file: string, opts: RunCommandOptions = {}, print: (l: string) => void = console.log): Promise<RunSummary & { report: string | null; retrievalRecomputed: boolean; failures: ReturnType<typeof failureSummary> }> {
  const config = loadExperimentConfig(file);
  const shard = opts.shard !== undefined ? parseShard(opts.shard) : undefined;
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
    console.error(signal === "SIGINT" ? "\nstopping: finishing nothing new; finished records are kept (Ctrl-C again to quit now)" : `\nstopping on ${signal}: finishing nothing new; finished records are kept`);
    ac.abort();
  };
  const onSigint = () => onSignal("SIGINT");
  const onSigterm = () => onSignal("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  try {
    const t0 = Date.now();
    // Everything is checked (models, endpoints, panel, rubrics, env variables) before any call.
    const deps = createRunnerDeps(config, log);
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
      ? new cliProgress.SingleBar({ format: "{bar} {value}/{total} cells | ETA {eta_formatted} | failed {failed} | tokens {tokens} | {cost}", hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic)
      : null;
    let started = false;
    let lastLog = 0;
    const plan = judgePlan(config);
    const summary = await runExperiment(config, deps, {
      retryFailed: opts.retryFailed,
      shard,
      signal: ac.signal,
      log,
      onPlan: (p: RunPlan) => {
        if (!opts.json && p.pending.length) for (const l of formatEstimate(estimateRun(config, p.pending, p.finished, p.items, plan))) log(l);
      },
      onProgress: (p) => {
        // Unknown usage is shown as unknown ("–", "≥ N (k calls unknown)"), never as 0 tokens / $0.
        const spent = p.inputTokens + p.outputTokens;
        const allUnknown = p.unknownUsageCalls > 0 && spent === 0;
        const payload = { failed: p.failed, tokens: formatTokenCount(spent, p.unknownUsageCalls), cost: Object.keys(config.prices).length ? formatCostUsd(p.costUsd, p.unknownUsageCalls, allUnknown) : "not priced" };
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
    if (shard) print(`shard ${shard.index}/${shard.count}: combine the ${shard.count} shard folders with \`medsynth merge ${config.output}/shard-*-of-${shard.count}\``);
    if (opts.report !== false && !summary.aborted && !shard) {
      const files = await writeReport(config.output, { subgroups: config.report.subgroups, primaryMetric: config.report.primaryMetric, comparisons: config.comparisons });
      report = files.html;
    }
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    if (opts.json) print(JSON.stringify({ ...summary, report, retrievalRecomputed: retrieval.recomputed, seconds: Number(seconds), failures: failureSummary([...latestByKey(readResults(summary.resultsPath).records).values()]) }, null, 2));
    else {
      print(`${summary.totalCells} cells: ${summary.ran} run now (${summary.failed} failed, ${summary.skippedItems} skipped items), ${summary.skippedFinished} already finished${summary.aborted ? " — interrupted" : ""}; ${seconds} s`);
      print(`results: ${summary.resultsPath}`);
      if (report) print(`report:  ${report} (and report.md)`);
    }
    const failedNow = readResults(summary.resultsPath).records;
    const latest = [...latestByKey(failedNow).values()];
    const failures = failureSummary(latest);
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
    process.exitCode = runExitCode({ aborted: summary.aborted, failedCells: stillFailed, verdicts: summary.judgeVerdicts });
    return { ...summary, report, retrievalRecomputed: retrieval.recomputed, failures };
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  }
}

/** `merge`: combine the shard folders of one sharded run, then write its report (unless `report` is false). */
export async function mergeCommand(dirs: string[], opts: { output?: string; allowMissing?: boolean; report?: boolean }): Promise<void> {
  const out = opts.output ?? dirname(resolve(dirs[0]));
  const s = mergeShards(dirs, out, { allowMissing: opts.allowMissing });
  console.log(`merged shards ${s.shards.join(", ")} into ${s.outputDir}: ${s.records} of ${s.totalCells} cells have a record${s.missingCells ? ` (${s.missingCells} without: run the missing shard(s) or resume them, then merge again)` : ""}`);
  if (opts.report !== false) {
    const files = await writeReport(out);
    console.log(`report: ${files.html}`);
  }
}

/**
 * `report`: write report.md, report.html and charts/ for a run folder and print where.
 * @param opts.scimago a SCImago journal file for the MedConclusion journal subgroups (overrides the config's `report.scimago`).
 */
export async function reportCommand(dir: string, opts: { scimago?: string } = {}): Promise<void> {
  const files = await writeReport(dir, opts.scimago ? { scimago: loadScimago(opts.scimago) } : {});
  console.log(`report: ${files.html}\n        ${files.markdown}\n        ${files.charts.length} charts in ${dir}/charts`);
}

/** `compare`: per-metric deltas between two runs, printed as a Markdown table (or JSON). */
export async function compareCommand(a: string, b: string, opts: { json?: boolean }): Promise<void> {
  const { deltas, table } = compareRuns(a, b);
  console.log(opts.json ? JSON.stringify(deltas, null, 2) : tableToMarkdown(table));
}
