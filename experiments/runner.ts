/**
 * The experiment runner: expands the matrix (items × models × workflows × parameters × repeats),
 * runs cells with bounded concurrency, and appends each finished record to `results.jsonl` at once.
 * Re-running skips finished cells; `retryFailed` re-runs only failures; an abort (Ctrl-C) stops
 * scheduling at once (the event loop gets a turn before every cell, so a signal is seen even when
 * cells make no request), aborts the in-flight cells' model calls (generation, metrics, judges),
 * lets nothing half-finished into the results, and returns what was done.
 *
 * Everything the runner needs from the other layers comes in through {@link RunnerDeps}, so the
 * runner is tested with scripted endpoints and small fakes; experiments/wiring.ts builds the real
 * dependencies from the registries.
 */
import { mkdirSync, writeFileSync, existsSync, readFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import pLimit from "p-limit";
import seedrandom from "seedrandom";
import type { ExperimentConfig, DatasetSelection, ModelSelection } from "./config.ts";
import { configHash, ConfigError } from "./config.ts";
import { checkSettingsUnchanged } from "./settings-change.ts";
import { expandCells, type Cell, type CellItems } from "./cells.ts";
import { runCells, shardDir, type ShardSpec } from "./shards.ts";
import { latestEntries, newScanStats, ResultsWriter, type LatestEntry } from "../results/results-file.ts";
import { tryAcquireLock } from "../corpus/file-lock.ts";
import type { JudgeScoreEntry, RunRecord } from "./types.ts";
import type { CallInfo } from "../models/types.ts";
import { tokensUnknown, totalsOfCalls, type UsageTotals } from "../models/usage.ts";
import { linkedSignal } from "../models/abort-fanout.ts";
import { runUsage, type RunUsage } from "./usage-summary.ts";
import { failureReasonOf } from "./failures.ts";
import type { RunnableWorkflow, WorkflowRunResult } from "../graphs/types.ts";

/** An item of any task kind, as loaded from a dataset. */
export interface RunnerItem {
  id: string;
  [field: string]: unknown;
}

/** Items of one dataset selection after sampling. */
export interface LoadedItems {
  dataset: string;
  taskKind: "synthesis" | "conclusion" | "rwe";
  items: RunnerItem[];
  warnings: string[];
}

/** What the runner needs from the rest of medsynth. */
export interface RunnerDeps {
  /** Load all items of a dataset (sampling is done by the runner). */
  loadItems(sel: DatasetSelection): Promise<LoadedItems>;
  /** Task kind a workflow consumes. @throws on an unknown workflow id (listing valid ids). */
  workflowKind(workflowId: string): "synthesis" | "conclusion" | "rwe";
  /**
   * Build a runnable workflow for a model and a parameter set (called once per distinct
   * model × workflow × params, then reused for every item).
   */
  createWorkflow(model: ModelSelection, workflowId: string, params: Record<string, unknown>): Promise<RunnableWorkflow>;
  /** Reference metrics of a finished record (called for every record with status "ok"); `signal` aborts its model calls. */
  computeMetrics?(
    record: RunRecord,
    item: RunnerItem,
    opts?: { signal?: AbortSignal },
  ): Promise<{
    metrics: Record<string, number | null>;
    notes: Record<string, string>;
    labels?: Record<string, string> /** Model calls a metric made (LLM grounding judge); counted as judge usage. */;
    calls?: CallInfo[];
  }>;
  /** Judge a finished record with the panel; failures come back as `missing` entries; `signal` aborts its calls. */
  judge?(record: RunRecord, item: RunnerItem, opts?: { signal?: AbortSignal }): Promise<{ scores: JudgeScoreEntry[]; calls: CallInfo[]; panel?: RunRecord["panel"] }>;
  /**
   * Check the config against the registries before anything runs or is written (model ids,
   * workflow parameters); throws an error naming the field (e.g. `workflows.1.params.k`).
   */
  validate?(config: ExperimentConfig): void;
  /** Called once before cells run with the resolved environment (for env.json). */
  environment?(): Promise<Record<string, unknown>>;
}

/** Options of one runner invocation. */
export interface RunOptions {
  /** Run only this shard's cells (see experiments/shards.ts), into `<output>/shard-<i>-of-<n>/`. */
  shard?: ShardSpec;
  /** Re-run only cells whose latest record failed. */
  retryFailed?: boolean;
  /** Abort: stop scheduling, drop in-flight cells (they are not written), return. */
  signal?: AbortSignal;
  /** Progress callback after each finished cell. */
  onProgress?: (p: RunProgress) => void;
  /** Log sink for warnings (default console.error). */
  log?: (line: string) => void;
  /** Called once the pending cells are known, before any of them runs (the CLI prints the estimate). */
  onPlan?: (plan: RunPlan) => void;
  /**
   * Reuse the folder's finished cells even when they were computed with other retrieval settings,
   * seed or promptDir (experiments/settings-change.ts; default: refuse with a ConfigError).
   */
  reuseChangedSettings?: boolean;
}

/** The cells of a run before it starts. */
export interface RunPlan {
  pending: Cell[];
  /** Cells already finished (not run again). */
  finished: number;
  /** Items by `dataset\0id`. */
  items: Map<string, RunnerItem>;
}

/** Progress snapshot. */
export interface RunProgress {
  done: number;
  total: number;
  failed: number;
  /** Tokens spent so far (known ones: a lower bound when `unknownUsageCalls` > 0). */
  inputTokens: number;
  outputTokens: number;
  /** Calls whose answer came without usage (their tokens are unknown, never counted as 0). */
  unknownUsageCalls: number;
  /** Cost in USD of the known tokens spent (generator and judges) from `config.prices` (0 when no prices are given). */
  costUsd: number;
  /** Judge verdicts given so far and how many are missing. */
  verdicts?: number;
  missingVerdicts?: number;
  last?: RunRecord;
}

/** Summary of a runner invocation. */
export interface RunSummary {
  outputDir: string;
  resultsPath: string;
  configHash: string;
  totalCells: number;
  /** Cells already finished before this invocation and not re-run. */
  skippedFinished: number;
  /** Cells run (and written) in this invocation. */
  ran: number;
  failed: number;
  skippedItems: number;
  aborted: boolean;
  malformedLines: number[];
  warnings: string[];
  /** Tokens and cost of the cells run in this invocation: generator and judges, per model and in total. */
  usage: RunUsage;
  /** Cells that failed in this invocation, by reason (`truncated`, `http`, `timeout`, … see experiments/failures.ts). */
  failuresByReason: Record<string, number>;
  /** Judge verdicts given in this invocation and how many of them are missing. */
  judgeVerdicts: { total: number; missing: number };
}

/**
 * Deterministically sample `n` items with a seed (Fisher–Yates over a seedrandom stream),
 * keeping the original order of the chosen items. `ids` filters first.
 */
export function sampleItems<T extends { id: string }>(items: T[], sel: { sample?: number; ids?: string[]; seed?: number }, defaultSeed: number): T[] {
  let pool = items;
  if (sel.ids) {
    const want = new Set(sel.ids);
    pool = items.filter((i) => want.has(i.id));
    const missing = sel.ids.filter((id) => !pool.some((i) => i.id === id));
    if (missing.length) throw new Error(`datasets: unknown item ids ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? " …" : ""}`);
  }
  if (sel.sample === undefined || sel.sample >= pool.length) return pool;
  const rng = seedrandom(String(sel.seed ?? defaultSeed));
  const idx = pool.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx
    .slice(0, sel.sample)
    .sort((a, b) => a - b)
    .map((i) => pool[i]);
}

/** Usage of a cell's calls; tokens are null (unknown) when calls were made and none reported usage. */
function sumCalls(calls: CallInfo[]) {
  let latencyMs = 0;
  let modelLatencyMs = 0;
  for (const c of calls) {
    latencyMs += c.latencyMs;
    modelLatencyMs += c.cached ? (c.originalLatencyMs ?? c.latencyMs) : c.latencyMs;
  }
  const t = totalsOfCalls(calls);
  const unknown = tokensUnknown(t);
  return { ...t, inputTokens: unknown ? null : t.inputTokens, outputTokens: unknown ? null : t.outputTokens, latencyMs, modelLatencyMs, cached: calls.length > 0 && calls.every((c) => c.cached) };
}

/** Judge usage per judge model. */
function judgeByModel(calls: CallInfo[]): Record<string, UsageTotals> {
  const by = new Map<string, CallInfo[]>();
  for (const c of calls) by.set(c.modelId, [...(by.get(c.modelId) ?? []), c]);
  return Object.fromEntries([...by].sort(([a], [b]) => a.localeCompare(b)).map(([m, cs]) => [m, totalsOfCalls(cs)]));
}

function referenceOf(item: RunnerItem, kind: string): string | null {
  if (kind === "rwe") return null;
  const r = item.referenceConclusion;
  return typeof r === "string" && r.length ? r : null;
}

function metaOf(item: RunnerItem): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  const meta = item.meta;
  if (meta && typeof meta === "object") {
    for (const [k, v] of Object.entries(meta as Record<string, unknown>)) {
      if (v === null || typeof v === "string" || typeof v === "number") out[k] = v;
    }
  }
  for (const k of ["question", "referenceAnswer", "evidenceCertainty", "year", "design"]) {
    const v = item[k];
    if (v === null || typeof v === "string" || typeof v === "number") out[k] = v as string | number | null;
  }
  // The journal's ISSN and title (MedConclusion tasks) for the journal subgroups (SJR join).
  const journal = item.journal as { issn?: unknown; title?: unknown } | null | undefined;
  if (journal && typeof journal === "object") {
    if (typeof journal.issn === "string" && out.issn === undefined) out.issn = journal.issn;
    if (typeof journal.title === "string" && out.journal === undefined) out.journal = journal.title;
  }
  return out;
}

/**
 * Stable part of a model selection that enters cell keys: the id plus its endpoint settings
 * (temperature, max tokens …) so a changed setting never reuses old outputs.
 */
function modelKeyPart(m: ModelSelection): string {
  return m.endpoint && Object.keys(m.endpoint).length ? `${m.id}#${JSON.stringify(Object.entries(m.endpoint).sort())}` : m.id;
}

/**
 * Why a matrix has no cells, in the user's terms: datasets without items, and for each workflow
 * the task kind it needs against the kinds the datasets hold (e.g. `golden-rag needs synthesis
 * items; pubmedqa has conclusion items`), or the datasets it is restricted to.
 */
export function explainEmptyMatrix(items: CellItems[], workflows: ExperimentConfig["workflows"], workflowKind: (id: string) => string): string {
  const reasons: string[] = [];
  const empty = items.filter((d) => d.itemIds.length === 0);
  for (const d of empty) reasons.push(`dataset ${d.dataset} has no items (check its sample/ids)`);
  const withItems = items.filter((d) => d.itemIds.length > 0);
  for (const wf of workflows) {
    const kind = workflowKind(wf.id);
    const pool = wf.datasets ? withItems.filter((d) => wf.datasets!.includes(d.dataset)) : withItems;
    if (wf.datasets && pool.length === 0) {
      reasons.push(
        `${wf.id} is restricted to ${wf.datasets.join(", ")}, which ${wf.datasets.length > 1 ? "are" : "is"} not among the loaded datasets with items (${withItems.map((d) => d.dataset).join(", ") || "none"})`,
      );
      continue;
    }
    if (!pool.some((d) => d.taskKind === kind) && pool.length) reasons.push(`${wf.id} needs ${kind} items; ${pool.map((d) => `${d.dataset} has ${d.taskKind} items`).join(", ")}`);
  }
  if (!reasons.length) reasons.push("no dataset × workflow pair matches");
  return reasons.join("; ");
}

/**
 * The cells a run would execute, without running or writing anything (`medsynth run --dry-run`).
 * @throws ConfigError for an invalid config or a matrix without cells (saying why).
 */
export async function planExperiment(config: ExperimentConfig, deps: RunnerDeps, opts: Pick<RunOptions, "retryFailed" | "log" | "shard" | "reuseChangedSettings"> = {}): Promise<RunPlan> {
  for (const wf of config.workflows) deps.workflowKind(wf.id);
  deps.validate?.(config);
  const log = opts.log ?? ((l: string) => console.error(l));
  checkSettingsUnchanged(opts.shard ? shardDir(config.output, opts.shard) : config.output, config, opts.reuseChangedSettings ?? false, log);
  const { cells: matrix, itemIndex } = await loadCells(config, deps, log);
  const cells = runCells(matrix, opts.shard, log);
  const pending = pendingCells(cells, latestEntries(join(opts.shard ? shardDir(config.output, opts.shard) : config.output, "results.jsonl")), opts.retryFailed);
  return { pending, finished: cells.length - pending.length, items: itemIndex };
}

/** Items (sampled) and the expanded cells of a config. */
async function loadCells(
  config: ExperimentConfig,
  deps: RunnerDeps,
  log: (l: string) => void,
): Promise<{ cells: Cell[]; itemIndex: Map<string, RunnerItem>; kindOf: Map<string, string>; modelByKey: Map<string, ModelSelection>; warnings: string[] }> {
  const warnings: string[] = [];
  const loaded: LoadedItems[] = [];
  const itemIndex = new Map<string, RunnerItem>();
  const kindOf = new Map<string, string>();
  for (const sel of config.datasets) {
    const ds = await deps.loadItems(sel);
    for (const w of ds.warnings) warnings.push(`${ds.dataset}: ${w}`);
    const chosen = sampleItems(ds.items, sel, config.seed);
    loaded.push({ ...ds, items: chosen });
    for (const it of chosen) itemIndex.set(`${ds.dataset}\u0000${it.id}`, it);
    kindOf.set(ds.dataset, ds.taskKind);
  }
  for (const w of warnings) log(`warning: ${w}`);
  const cellItems: CellItems[] = loaded.map((l) => ({ dataset: l.dataset, taskKind: l.taskKind, itemIds: l.items.map((i) => i.id) }));
  const modelByKey = new Map(config.models.map((m) => [modelKeyPart(m), m]));
  const cells = expandCells(cellItems, [...modelByKey.keys()], config.workflows, config.repeats, (id) => deps.workflowKind(id));
  if (cells.length === 0)
    throw new ConfigError(`experiment "${config.name}": the matrix has no cells: ${explainEmptyMatrix(cellItems, config.workflows, (id) => deps.workflowKind(id))}`, null, [
      { path: "workflows", message: "no cells" },
    ]);
  return { cells, itemIndex, kindOf, modelByKey, warnings };
}

/** Cells to run: new ones, or with `retryFailed` only those whose latest record failed. */
function pendingCells(cells: Cell[], latest: Map<string, Pick<LatestEntry, "status">>, retryFailed?: boolean): Cell[] {
  return cells.filter((c) => {
    const prev = latest.get(c.key);
    if (!prev) return !retryFailed;
    return retryFailed ? prev.status === "failed" : false;
  });
}

/**
 * Run (or resume) an experiment.
 * Writes `<output>/spec.json` (frozen config + hash), `<output>/env.json` and appends to
 * `<output>/results.jsonl`.
 * @throws config errors (unknown dataset/workflow/model ids) before any cell runs.
 */
export async function runExperiment(config: ExperimentConfig, deps: RunnerDeps, opts: RunOptions = {}): Promise<RunSummary> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const outputDir = opts.shard ? shardDir(config.output, opts.shard) : config.output;
  // Validate workflow ids and the config against the registries before writing anything.
  for (const wf of config.workflows) deps.workflowKind(wf.id);
  deps.validate?.(config);
  mkdirSync(outputDir, { recursive: true });
  const lock = tryAcquireLock(join(outputDir, ".run.lock"));
  if (!lock.acquired) throw new Error(`${outputDir}: another medsynth run (pid ${lock.pid ?? "?"}) is writing to this folder; wait for it or use another output folder`);
  try {
    return await runLocked(config, deps, opts, log, outputDir);
  } finally {
    lock.release();
  }
}

/**
 * The body of {@link runExperiment} once the output folder is locked, as a list of steps: keep a
 * changed spec, load the cells, write spec/cells/env, read what is finished, run the pending
 * cells, summarise.
 */
async function runLocked(config: ExperimentConfig, deps: RunnerDeps, opts: RunOptions, log: (l: string) => void, outputDir: string): Promise<RunSummary> {
  const hash = configHash(config);
  const specPath = join(outputDir, "spec.json");
  checkSettingsUnchanged(outputDir, config, opts.reuseChangedSettings ?? false, log);
  keepChangedSpec(specPath, hash, outputDir, log);

  const { cells: matrix, itemIndex, kindOf, modelByKey, warnings } = await loadCells(config, deps, log);
  const cells = runCells(matrix, opts.shard, log);
  writeSpecAndCells(specPath, outputDir, hash, config, cells, matrix.length, opts.shard);
  await writeEnvironment(outputDir, hash, config, deps);

  const resultsPath = join(outputDir, "results.jsonl");
  const { existing, latest } = readFinished(resultsPath, log);
  const pending = pendingCells(cells, latest, opts.retryFailed);
  const skippedFinished = cells.length - pending.length;
  opts.onPlan?.({ pending, finished: skippedFinished, items: itemIndex });

  const writer = new ResultsWriter(resultsPath);
  const limit = pLimit(config.concurrency);
  const getWorkflow = workflowCache(deps, modelByKey);
  const tally = new RunTally(pending.length, config);
  const aborted = () => opts.signal?.aborted ?? false;

  const runCell = async (c: Cell): Promise<void> => {
    // Give the event loop a turn before each cell: cells that make no request (extractive
    // baselines) would otherwise run on microtasks alone and a SIGINT/SIGTERM would be handled
    // only after the last cell.
    await new Promise<void>((r) => setImmediate(r));
    if (aborted()) return;
    const item = itemIndex.get(`${c.dataset}\u0000${c.itemId}`)!;
    const kind = kindOf.get(c.dataset)!;
    const model = modelByKey.get(c.model)!;
    const startedAt = new Date().toISOString();
    // The cell's own signal, linked to the run's at O(1): every pending cell of a batch run is in
    // flight at once, and listeners of thousands of cells on one signal cost O(n²) in Node.
    const cell = linkedSignal(opts.signal);
    let record: RunRecord;
    try {
      const { result, outputKind } = await runWorkflowOf(c, item, getWorkflow, cell.signal);
      if (aborted()) return; // an interrupted cell is not a finished cell
      record = recordOf(c, item, kind, model, result, startedAt);
      await scoreRecord(record, item, outputKind, c.workflow, deps, cell.signal);
    } finally {
      cell.release();
    }
    if (aborted()) return;
    record.finishedAt = new Date().toISOString();
    writer.append(record);
    const snapshot = tally.add(record);
    opts.onProgress?.(snapshot);
  };

  await Promise.all(pending.map((c) => limit(() => runCell(c))));

  return {
    outputDir,
    resultsPath,
    configHash: hash,
    totalCells: cells.length,
    skippedFinished,
    ran: tally.ran,
    failed: tally.progress.failed,
    skippedItems: tally.skippedItems,
    aborted: aborted(),
    malformedLines: existing.malformedLines,
    warnings,
    usage: tally.usage(),
    failuresByReason: tally.failuresByReason,
    judgeVerdicts: tally.verdicts,
  };
}

/** Step: when the folder's spec.json has another config hash, keep it as `spec.<hash12>.json` and say so. */
function keepChangedSpec(specPath: string, hash: string, outputDir: string, log: (l: string) => void): void {
  if (!existsSync(specPath)) return;
  try {
    const prev = JSON.parse(readFileSync(specPath, "utf8")) as { configHash?: string };
    if (prev.configHash && prev.configHash !== hash) {
      copyFileSync(specPath, join(outputDir, `spec.${prev.configHash.slice(0, 12)}.json`));
      log(
        `note: config changed since the last run in ${outputDir} (previous spec kept as spec.${prev.configHash.slice(0, 12)}.json); finished cells with the same key (dataset, item, model, workflow, parameters, repeat) are reused`,
      );
    }
  } catch {
    /* unreadable old spec: overwritten below */
  }
}

/**
 * Step: write spec.json and cells.json. They are written once the config has loaded its items:
 * the report covers exactly these cells, even when the folder holds records of earlier configs.
 */
function writeSpecAndCells(specPath: string, outputDir: string, hash: string, config: ExperimentConfig, cells: Cell[], matrixCells: number, shardSpec: ShardSpec | undefined): void {
  const shard = shardSpec ? { shard: shardSpec } : {};
  writeFileSync(specPath, JSON.stringify({ configHash: hash, config, ...shard }, null, 2) + "\n");
  writeFileSync(join(outputDir, "cells.json"), JSON.stringify({ configHash: hash, keys: cells.map((c) => c.key), ...(shardSpec ? { ...shard, matrixCells } : {}) }) + "\n");
}

/** Step: write env.json (config hash, Node, platform, seed, model ids and the deps' environment). */
async function writeEnvironment(outputDir: string, hash: string, config: ExperimentConfig, deps: RunnerDeps): Promise<void> {
  const env = deps.environment ? await deps.environment() : {};
  writeFileSync(
    join(outputDir, "env.json"),
    JSON.stringify({ configHash: hash, node: process.version, platform: `${process.platform}-${process.arch}`, seed: config.seed, models: config.models.map((m) => m.id), ...env }, null, 2) + "\n",
  );
}

/** Step: one streamed pass over results.jsonl keeping only each key's latest status (never the records themselves); repairs a cut-off tail. */
function readFinished(resultsPath: string, log: (l: string) => void): { existing: ReturnType<typeof newScanStats>; latest: Map<string, LatestEntry> } {
  const existing = newScanStats();
  const latest = latestEntries(resultsPath, existing, { repair: true });
  if (existing.truncatedTail) log(`warning: ${resultsPath}: cut off an unfinished last line (a crash mid-write); that cell will run again`);
  if (existing.malformedLines.length) log(`warning: ${resultsPath}: skipped malformed lines ${existing.malformedLines.join(", ")}`);
  return { existing, latest };
}

/** One runnable workflow per distinct model × workflow × params, built on first use and shared. */
function workflowCache(deps: RunnerDeps, modelByKey: Map<string, ModelSelection>): (c: Cell) => Promise<RunnableWorkflow> {
  const cache = new Map<string, Promise<RunnableWorkflow>>();
  return (c: Cell) => {
    const k = JSON.stringify([c.model, c.workflow, c.params]);
    let w = cache.get(k);
    if (!w) {
      w = deps.createWorkflow(modelByKey.get(c.model)!, c.workflow, c.params);
      cache.set(k, w);
    }
    return w;
  };
}

/** Step of a cell: run its workflow on the item; a throw becomes a failed result, an empty answer a failed one (reason `empty`). */
async function runWorkflowOf(
  c: Cell,
  item: RunnerItem,
  getWorkflow: (c: Cell) => Promise<RunnableWorkflow>,
  signal: AbortSignal | undefined,
): Promise<{ result: WorkflowRunResult; outputKind: "text" | "score" }> {
  let result: WorkflowRunResult;
  let outputKind: "text" | "score" = "text";
  try {
    const wf = await getWorkflow(c);
    outputKind = wf.outputKind ?? "text";
    result = await wf.run(item as never, { repeat: c.repeat, signal });
  } catch (e) {
    result = { status: "failed", output: null, error: e instanceof Error ? e.message : String(e), intermediate: {}, calls: [], latencyMs: 0 };
  }
  if (result.status === "ok" && (result.output === null || result.output.trim() === "")) {
    // An empty answer is an endpoint failure, not an output: never scored, never silently left out.
    result = { ...result, status: "failed", output: null, error: "the model returned an empty answer", failureReason: "empty" };
  }
  return { result, outputKind };
}

/** Step of a cell: the run record of a workflow result (no metrics or judge scores yet; `finishedAt` is set when written). */
function recordOf(c: Cell, item: RunnerItem, kind: string, model: ModelSelection, result: WorkflowRunResult, startedAt: string): RunRecord {
  return {
    key: c.key,
    itemId: c.itemId,
    dataset: c.dataset,
    taskKind: kind as RunRecord["taskKind"],
    model: model.label ?? model.id,
    workflow: c.workflow,
    params: c.params,
    repeat: c.repeat,
    status: result.status,
    output: result.output,
    ...(result.status === "ok" && result.calls.some((call) => call.finishReason === "length") ? { truncated: true as const } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...(result.status === "failed" && result.failureReason ? { failureReason: result.failureReason } : {}),
    ...(result.raw ? { raw: result.raw } : {}),
    reference: referenceOf(item, kind),
    itemMeta: metaOf(item),
    intermediate: result.intermediate,
    generator: (() => {
      const { latencyMs: _l, modelLatencyMs, cached, ...g } = sumCalls(result.calls);
      return { ...g, latencyMs: result.latencyMs, cached, ...(result.calls.length ? { modelLatencyMs } : {}) };
    })(),
    startedAt,
    finishedAt: startedAt,
  };
}

/**
 * Step of a cell: score an ok record in place. A score output (feasibility) is a metric; a text
 * output gets reference metrics (a throw becomes `metricNotes._error`) and the judge panel; the
 * model calls of metrics and judges are summed into `record.judge`.
 */
async function scoreRecord(record: RunRecord, item: RunnerItem, outputKind: "text" | "score", workflow: string, deps: RunnerDeps, signal: AbortSignal | undefined): Promise<void> {
  if (record.status === "ok" && outputKind === "score") {
    // A score output (feasibility) is a measurement, not prose: it is reported as a metric
    // and neither compared with the reference text nor judged.
    const v = Number(record.output);
    record.outputKind = "score";
    record.metrics = { [`${workflow}_score`]: Number.isFinite(v) ? v : null };
    if (!Number.isFinite(v)) record.metricNotes = { [`${workflow}_score`]: `output is not a number: ${JSON.stringify(record.output)}` };
  }
  const metricCalls: CallInfo[] = [];
  if (record.status === "ok" && outputKind !== "score" && deps.computeMetrics) {
    try {
      const m = await deps.computeMetrics(record, item, { signal });
      metricCalls.push(...(m.calls ?? []));
      if (Object.keys(m.metrics).length) record.metrics = m.metrics;
      if (Object.keys(m.notes).length) record.metricNotes = m.notes;
      if (m.labels && Object.keys(m.labels).length) record.labels = m.labels;
    } catch (e) {
      record.metricNotes = { _error: e instanceof Error ? e.message : String(e) };
    }
  }
  const judgeCalls = [...metricCalls];
  if (record.status === "ok" && outputKind === "text" && deps.judge) {
    const j = await deps.judge(record, item, { signal });
    record.judgeScores = j.scores;
    if (j.panel) record.panel = j.panel;
    judgeCalls.push(...j.calls);
  }
  if (judgeCalls.length || (record.status === "ok" && outputKind === "text" && deps.judge)) {
    const { cached: _c, modelLatencyMs: _m, ...s } = sumCalls(judgeCalls);
    record.judge = { ...s, byModel: judgeByModel(judgeCalls) };
  }
}

/** Running counts of the records written in this invocation: progress, failures by reason, verdicts, usage. */
class RunTally {
  readonly progress: RunProgress;
  ran = 0;
  skippedItems = 0;
  readonly failuresByReason: Record<string, number> = {};
  readonly verdicts = { total: 0, missing: 0 };
  /** Light copies of the records written now (no texts), for the usage summary. */
  private readonly written: RunRecord[] = [];
  private readonly modelIdOf: (r: RunRecord) => string;

  constructor(
    total: number,
    private readonly config: ExperimentConfig,
  ) {
    this.progress = { done: 0, total, failed: 0, inputTokens: 0, outputTokens: 0, unknownUsageCalls: 0, costUsd: 0 };
    const idByLabel = new Map(config.models.map((m) => [m.label ?? m.id, m.id]));
    this.modelIdOf = (r: RunRecord) => idByLabel.get(r.model) ?? r.model;
  }

  /** Count a written record; returns a snapshot of the progress for `onProgress`. */
  add(record: RunRecord): RunProgress {
    const progress = this.progress;
    this.ran++;
    if (record.status === "failed") progress.failed++;
    if (record.status === "skipped") this.skippedItems++;
    progress.done++;
    if (record.status === "failed") {
      const reason = failureReasonOf(record);
      this.failuresByReason[reason] = (this.failuresByReason[reason] ?? 0) + 1;
    }
    for (const v of record.judgeScores ?? []) {
      this.verdicts.total++;
      if (v.status === "missing") this.verdicts.missing++;
    }
    this.written.push({ ...record, output: null, intermediate: {}, judgeScores: undefined, raw: undefined });
    const u = runUsage(this.written.slice(-1), this.config.prices, this.modelIdOf);
    progress.inputTokens += u.total.inputTokens ?? 0;
    progress.outputTokens += u.total.outputTokens ?? 0;
    progress.unknownUsageCalls += u.total.unknownUsageCalls;
    progress.costUsd += u.total.costUsd ?? 0;
    progress.missingVerdicts = this.verdicts.missing;
    progress.verdicts = this.verdicts.total;
    progress.last = record;
    return { ...progress };
  }

  /** Tokens and cost of every record written in this invocation. */
  usage(): RunUsage {
    return runUsage(this.written, this.config.prices, this.modelIdOf);
  }
}
