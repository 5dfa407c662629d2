/**
 * `medsynth judge` and `medsynth metrics`: enrich a results file (JSONL of RunRecord) with judge
 * panel verdicts or reference metrics, writing a new JSONL atomically.
 *
 * ```
 * medsynth judge runs/x/results.jsonl --panel panel.yaml [--out judged.jsonl] [--retry-missing]
 * medsynth metrics runs/x/results.jsonl [--metrics rouge,bleu,count-ratios] [--out scored.jsonl]
 * ```
 */
import { tokensUnknown, totalsOfCalls } from "../../models/usage.ts";
import { mergePanelSummary } from "../panel-summary.ts";
import { existsSync } from "node:fs";
import pLimit from "p-limit";
import { createChatModel } from "../../models/registry.ts";
import { createPanel, loadPanelConfig, missingRates, type Panel } from "../../judges/panel.ts";
import { familyOverlapFlags } from "../../judges/diagnostics.ts";
import { computeRecordMetrics, validateMetricSpecs } from "../metrics-stage.ts";
import { readResults, writeResultsAtomic } from "../results-store.ts";
import type { JudgeScoreEntry, RunRecord } from "../types.ts";

/** Default output path: `<input without .jsonl>.<suffix>.jsonl`. */
export function defaultOutPath(input: string, suffix: string): string {
  return input.replace(/\.jsonl$/i, "") + `.${suffix}.jsonl`;
}

/** Aliases accepted by `--metrics`. */
const METRIC_ALIASES: Record<string, string> = { counts: "count-ratios", cosine: "embedding-cosine" };

/** Format rows as a fixed-width text table. */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const w = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r, k) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ") + (k === 0 ? "\n" + w.map((x) => "-".repeat(x)).join("  ") : "")).join("\n");
}

/** Options of {@link runJudgeCommand}. */
export interface JudgeCommandOptions {
  panel: string;
  out?: string;
  retryMissing?: boolean;
  /** Records judged at once (each record's judges also run concurrently, see the panel's `concurrency`). */
  concurrency?: number;
  /** Write a checkpoint of the output every this many records (default 20). */
  checkpointEvery?: number;
  /** Build the panel (tests); default: panel.yaml + the model registry's createChatModel. */
  panelFactory?: (panelPath: string) => Panel;
  log?: (line: string) => void;
}

/** Summary of a `medsynth judge` run. */
export interface JudgeCommandSummary {
  out: string;
  records: number;
  judged: number;
  skippedNotOk: number;
  malformedLines: number[];
  newVerdicts: number;
  table: string;
}

/**
 * Judge every finished record of a results file with a panel (resumable).
 * Verdicts already present — in the input record or, when the output file exists from an earlier
 * interrupted run, in its record with the same key — are kept and not asked again. The output is
 * rewritten atomically every `checkpointEvery` records and at the end.
 * @throws Error for an unreadable input or invalid panel file
 */
export async function runJudgeCommand(input: string, opts: JudgeCommandOptions): Promise<JudgeCommandSummary> {
  const log = opts.log ?? ((l: string) => console.log(l));
  if (!existsSync(input)) throw new Error(`judge: results file ${input} does not exist`);
  const out = opts.out ?? defaultOutPath(input, "judged");
  const panel =
    opts.panelFactory?.(opts.panel) ??
    (() => {
      const { config, baseDir } = loadPanelConfig(opts.panel);
      return createPanel(config, { baseDir, modelFor: (spec, endpoint) => createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }) });
    })();
  const load = readResults(input);
  if (load.malformedLines.length) log(`judge: skipped ${load.malformedLines.length} malformed line(s) of ${input}: ${load.malformedLines.slice(0, 10).join(", ")}${load.malformedLines.length > 10 ? ", …" : ""}`);
  // Resume: verdicts of an earlier (interrupted) run with the same output file.
  const previous = new Map<string, JudgeScoreEntry[]>();
  if (out !== input && existsSync(out)) for (const r of readResults(out).records) if (r.judgeScores?.length) previous.set(r.key, r.judgeScores);

  const records: RunRecord[] = load.records.map((r) => {
    const prev = previous.get(r.key);
    if (!prev) return r;
    const have = new Set((r.judgeScores ?? []).map((e) => JSON.stringify([e.judgeId, e.rubricId, (e as { repeat?: number }).repeat ?? 0])));
    return { ...r, judgeScores: [...(r.judgeScores ?? []), ...prev.filter((e) => !have.has(JSON.stringify([e.judgeId, e.rubricId, (e as { repeat?: number }).repeat ?? 0])))] };
  });
  let judged = 0;
  let skippedNotOk = 0;
  let newVerdicts = 0;
  let sinceCheckpoint = 0;
  const every = opts.checkpointEvery ?? 20;
  const limit = pLimit(opts.concurrency ?? 2);
  await Promise.all(
    records.map((rec, i) =>
      limit(async () => {
        if (rec.status !== "ok" || !rec.output) {
          skippedNotOk++;
          return;
        }
        const res = await panel.judgeRecord(rec, { retryMissing: opts.retryMissing });
        if (res.added.length || !rec.panel) {
          const j = rec.judge ?? { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0 };
          // Tokens of answers without usage are unknown (null when no call reported any), never 0.
          const added = totalsOfCalls(res.added.map((v) => v.call));
          const unknownUsageCalls = (j.unknownUsageCalls ?? 0) + added.unknownUsageCalls;
          const inputTokens = (j.inputTokens ?? 0) + res.usage.inputTokens;
          const outputTokens = (j.outputTokens ?? 0) + res.usage.outputTokens;
          const unknown = tokensUnknown({ unknownUsageCalls, inputTokens, outputTokens });
          records[i] = {
            ...rec,
            judgeScores: res.judgeScores,
            panel: mergePanelSummary(rec.panel, res.aggregate, panel.aggregation),
            judge: { calls: j.calls + res.usage.calls, inputTokens: unknown ? null : inputTokens, outputTokens: unknown ? null : outputTokens, latencyMs: j.latencyMs + res.usage.latencyMs, ...(unknownUsageCalls ? { unknownUsageCalls } : {}) },
          };
          newVerdicts += res.added.length;
        }
        judged++;
        if (++sinceCheckpoint >= every) {
          sinceCheckpoint = 0;
          writeResultsAtomic(out, records);
        }
      }),
    ),
  );
  writeResultsAtomic(out, records);

  const panelRubrics = new Set(panel.rubrics.map((r) => r.id));
  const entries = records.flatMap((r) => (r.judgeScores ?? []).filter((e) => panelRubrics.has(e.rubricId) && panel.judgeIds.includes(e.judgeId)));
  const modelOf = Object.fromEntries(panel.judges.map((j) => [j.id, j.modelId]));
  const table = formatTable(
    ["judge", "model", "verdicts", "missing", "missing rate", "no input"],
    missingRates(entries).map((r) => [r.judgeId, modelOf[r.judgeId] ?? "?", r.total, r.missing, `${(100 * r.rate).toFixed(1)}%`, r.noInput]),
  );
  log(`judge: ${judged} record(s) judged, ${skippedNotOk} not judged (failed/skipped/no output), ${newVerdicts} new verdict(s) → ${out}`);
  log(table);
  for (const f of familyOverlapFlags(modelOf, new Set(records.map((r) => r.model)))) {
    log(`warning: judge ${f.judgeId} (${f.judgeModel}) shares the ${f.family} model family with generator(s) ${f.generators.join(", ")} (self-preference risk)`);
  }
  return { out, records: records.length, judged, skippedNotOk, malformedLines: load.malformedLines, newVerdicts, table };
}

/** Summary of a `medsynth metrics` run. */
export interface MetricsCommandSummary {
  out: string;
  records: number;
  scored: number;
  /** Records without an output or a reference. */
  skipped: number;
  /** Metric output name → mean over records where it is not null, and how many are null. */
  means: Record<string, { mean: number | null; n: number; nulls: number }>;
  table: string;
}

/**
 * Compute reference metrics (judges/metrics registry, through experiments/metrics-stage.ts) for
 * every record that has both an output and a reference (whitespace-only counts as none); write `metrics` / `metricNotes` into the
 * records and a new JSONL atomically.
 * @param specs metric ids (aliases: counts → count-ratios, cosine → embedding-cosine)
 * @throws Error listing valid ids for an unknown metric
 */
export async function runMetricsCommand(input: string, opts: { metrics: string[]; out?: string; log?: (line: string) => void }): Promise<MetricsCommandSummary> {
  const log = opts.log ?? ((l: string) => console.log(l));
  if (!existsSync(input)) throw new Error(`metrics: results file ${input} does not exist`);
  const specs = opts.metrics.map((m) => {
    const [id, rest] = m.split("@");
    return (METRIC_ALIASES[id] ?? id) + (rest !== undefined ? `@${rest}` : "");
  });
  validateMetricSpecs(specs);
  const out = opts.out ?? defaultOutPath(input, "metrics");
  const load = readResults(input);
  if (load.records.length === 0) {
    throw new Error(`metrics: ${input} is not a results file: ${load.malformedLines.length ? `none of its ${load.malformedLines.length} non-empty line(s) is a run record (JSON with a "key")` : "it holds no records"}; pass the results.jsonl of a run folder`);
  }
  if (load.malformedLines.length) log(`metrics: skipped ${load.malformedLines.length} malformed line(s) of ${input}`);
  let scored = 0;
  let skipped = 0;
  const sums: Record<string, { sum: number; n: number; nulls: number }> = {};
  const records: RunRecord[] = [];
  for (const r of load.records) {
    // A whitespace-only output (or reference) is no text, as "" is: never scored 0 into the means.
    if (!r.output?.trim() || !r.reference?.trim()) {
      skipped++;
      records.push(r);
      continue;
    }
    const { metrics, notes } = await computeRecordMetrics(r, specs);
    for (const [k, v] of Object.entries(metrics)) {
      const s = (sums[k] ??= { sum: 0, n: 0, nulls: 0 });
      if (v === null) s.nulls++;
      else {
        s.sum += v;
        s.n++;
      }
    }
    const metricNotes = { ...(r.metricNotes ?? {}), ...notes };
    records.push({ ...r, metrics: { ...(r.metrics ?? {}), ...metrics }, ...(Object.keys(metricNotes).length ? { metricNotes } : {}) });
    scored++;
  }
  writeResultsAtomic(out, records);
  const means = Object.fromEntries(Object.entries(sums).map(([k, s]) => [k, { mean: s.n ? s.sum / s.n : null, n: s.n, nulls: s.nulls }]));
  const table = formatTable(["metric", "mean", "n", "null"], Object.entries(means).map(([k, m]) => [k, m.mean === null ? "—" : m.mean.toFixed(6), m.n, m.nulls]));
  log(`metrics: ${scored} record(s) scored, ${skipped} without output or reference → ${out}`);
  log(table);
  return { out, records: load.records.length, scored, skipped, means, table };
}

