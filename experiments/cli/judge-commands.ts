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
import { closeSync, existsSync, openSync, rmSync } from "node:fs";
import pLimit from "p-limit";
import { createChatModel } from "../../models/registry.ts";
import { createPanel, loadPanelConfig, missingRates, type Panel } from "../../judges/panel.ts";
import { familyOverlapFlags } from "../../judges/diagnostics.ts";
import { computeRecordMetrics, validateMetricSpecs } from "../metrics-stage.ts";
import { AtomicResultsWriter, latestEntries, newScanStats, readRecordAt, resultRecords, ResultsWriter, type LatestEntry } from "../../results/results-file.ts";
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
  /** No longer used: every changed record is journaled at once (see {@link runJudgeCommand}); kept so old callers compile. */
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
 * Judge every finished record of a results file with a panel (resumable), as a stream.
 * The input is read one window of records at a time (never whole); each window's records are
 * judged concurrently and written, in input order, to a temporary output renamed over `out` at the
 * end. Every record whose verdicts changed is also appended at once to a journal
 * (`<out>.journal.jsonl`: key, judgeScores, panel, judge), so an interrupted run loses nothing:
 * verdicts already present — in the input record, in the journal, or (when the output file exists
 * from an earlier run) in its record with the same key — are kept and not asked again. Previous
 * verdicts are found through a key → byte offset map and read back one record at a time.
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
  // Resume: verdicts of an earlier (interrupted) run, found by key in the journal and the old output.
  const journalPath = `${out}.journal.jsonl`;
  const previous = previousVerdicts(out !== input ? out : null, journalPath);
  const journal = new ResultsWriter(journalPath);
  const stats = newScanStats();
  const writer = new AtomicResultsWriter(out);
  const counts = { records: 0, judged: 0, skippedNotOk: 0, newVerdicts: 0 };
  const rates = new VerdictTally();
  const generators = new Set<string>();
  const window = Math.max(64, (opts.concurrency ?? 2) * 16);
  const limit = pLimit(opts.concurrency ?? 2);
  const judgeOne = async (rec: RunRecord): Promise<RunRecord> => {
    if (rec.status !== "ok" || !rec.output) {
      counts.skippedNotOk++;
      return rec;
    }
    const res = await panel.judgeRecord(rec, { retryMissing: opts.retryMissing });
    counts.judged++;
    if (!res.added.length && rec.panel) return rec;
    const j = rec.judge ?? { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0 };
    // Tokens of answers without usage are unknown (null when no call reported any), never 0.
    const added = totalsOfCalls(res.added.map((v) => v.call));
    const unknownUsageCalls = (j.unknownUsageCalls ?? 0) + added.unknownUsageCalls;
    const inputTokens = (j.inputTokens ?? 0) + res.usage.inputTokens;
    const outputTokens = (j.outputTokens ?? 0) + res.usage.outputTokens;
    const unknown = tokensUnknown({ unknownUsageCalls, inputTokens, outputTokens });
    const judgedRec: RunRecord = {
      ...rec,
      judgeScores: res.judgeScores,
      panel: mergePanelSummary(rec.panel, res.aggregate, panel.aggregation),
      judge: {
        calls: j.calls + res.usage.calls,
        inputTokens: unknown ? null : inputTokens,
        outputTokens: unknown ? null : outputTokens,
        latencyMs: j.latencyMs + res.usage.latencyMs,
        ...(unknownUsageCalls ? { unknownUsageCalls } : {}),
      },
    };
    counts.newVerdicts += res.added.length;
    journal.append({ key: judgedRec.key, judgeScores: judgedRec.judgeScores, panel: judgedRec.panel, judge: judgedRec.judge } as unknown as RunRecord);
    return judgedRec;
  };
  const flush = async (batch: RunRecord[]) => {
    const done = await Promise.all(batch.map((r) => limit(() => judgeOne(r))));
    for (const r of done) {
      writer.write(r);
      generators.add(r.model);
      rates.add(r.judgeScores, panel);
    }
  };
  try {
    let batch: RunRecord[] = [];
    for (const { record } of resultRecords(input, stats)) {
      counts.records++;
      batch.push(previous.merge(record));
      if (batch.length >= window) {
        await flush(batch);
        batch = [];
      }
    }
    await flush(batch);
    writer.commit();
  } catch (err) {
    writer.abort();
    throw err;
  } finally {
    previous.close();
  }
  rmSync(journalPath, { force: true });
  if (stats.malformedLines.length)
    log(`judge: skipped ${stats.malformedLines.length} malformed line(s) of ${input}: ${stats.malformedLines.slice(0, 10).join(", ")}${stats.malformedLines.length > 10 ? ", …" : ""}`);

  const modelOf = Object.fromEntries(panel.judges.map((j) => [j.id, j.modelId]));
  const table = formatTable(
    ["judge", "model", "verdicts", "missing", "missing rate", "no input"],
    missingRates(rates.entries()).map((r) => [r.judgeId, modelOf[r.judgeId] ?? "?", r.total, r.missing, `${(100 * r.rate).toFixed(1)}%`, r.noInput]),
  );
  log(`judge: ${counts.judged} record(s) judged, ${counts.skippedNotOk} not judged (failed/skipped/no output), ${counts.newVerdicts} new verdict(s) → ${out}`);
  log(table);
  for (const f of familyOverlapFlags(modelOf, generators)) {
    log(`warning: judge ${f.judgeId} (${f.judgeModel}) shares the ${f.family} model family with generator(s) ${f.generators.join(", ")} (self-preference risk)`);
  }
  return { out, records: counts.records, judged: counts.judged, skippedNotOk: counts.skippedNotOk, malformedLines: stats.malformedLines, newVerdicts: counts.newVerdicts, table };
}

const verdictId = (e: JudgeScoreEntry) => JSON.stringify([e.judgeId, e.rubricId, (e as { repeat?: number }).repeat ?? 0]);

/**
 * Verdicts of an earlier run of `medsynth judge` with the same output, by cell key: the journal's
 * and the old output's records are located in one streamed pass each (key → byte offset) and read
 * back one at a time when their key comes up.
 */
function previousVerdicts(oldOut: string | null, journalPath: string): { merge(r: RunRecord): RunRecord; close(): void } {
  const sources: { fd: number; at: Map<string, LatestEntry> }[] = [];
  for (const path of [journalPath, oldOut]) {
    if (!path || !existsSync(path)) continue;
    const at = latestEntries(path);
    if (at.size) sources.push({ fd: openSync(path, "r"), at });
  }
  return {
    merge(r: RunRecord): RunRecord {
      let out = r;
      for (const s of sources) {
        const e = s.at.get(r.key);
        if (!e) continue;
        const prev = readRecordAt(s.fd, e.offset, e.length).judgeScores;
        if (!prev?.length) continue;
        const have = new Set((out.judgeScores ?? []).map(verdictId));
        const added = prev.filter((v) => !have.has(verdictId(v)));
        if (added.length) out = { ...out, judgeScores: [...(out.judgeScores ?? []), ...added] };
      }
      return out;
    },
    close: () => sources.forEach((s) => closeSync(s.fd)),
  };
}

/**
 * Counts of the panel's verdicts by judge, rubric, status and whether the judge got its input,
 * kept instead of the verdicts themselves; {@link entries} expands them for `missingRates`
 * (one shared object per distinct kind, repeated by reference).
 */
class VerdictTally {
  private counts = new Map<string, { e: JudgeScoreEntry; n: number }>();

  add(entries: JudgeScoreEntry[] | undefined, panel: Panel): void {
    const rubrics = new Set(panel.rubrics.map((r) => r.id));
    for (const e of entries ?? []) {
      if (!rubrics.has(e.rubricId) || !panel.judgeIds.includes(e.judgeId)) continue;
      const attempts = (e as { attempts?: number }).attempts;
      const k = JSON.stringify([e.judgeId, e.rubricId, e.status, attempts === 0]);
      const c = this.counts.get(k);
      if (c) c.n++;
      else this.counts.set(k, { e: { judgeId: e.judgeId, rubricId: e.rubricId, status: e.status, scores: {}, ...(attempts === 0 ? { attempts: 0 } : {}) } as JudgeScoreEntry, n: 1 });
    }
  }

  entries(): JudgeScoreEntry[] {
    const out: JudgeScoreEntry[] = [];
    for (const { e, n } of this.counts.values()) for (let i = 0; i < n; i++) out.push(e);
    return out;
  }
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
  const stats = newScanStats();
  let records = 0;
  let scored = 0;
  let skipped = 0;
  const sums: Record<string, { sum: number; n: number; nulls: number }> = {};
  const writer = new AtomicResultsWriter(out);
  try {
    for (const { record: r } of resultRecords(input, stats)) {
      records++;
      // A whitespace-only output (or reference) is no text, as "" is: never scored 0 into the means.
      if (!r.output?.trim() || !r.reference?.trim()) {
        skipped++;
        writer.write(r);
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
      writer.write({ ...r, metrics: { ...(r.metrics ?? {}), ...metrics }, ...(Object.keys(metricNotes).length ? { metricNotes } : {}) });
      scored++;
    }
    if (records === 0) {
      throw new Error(
        `metrics: ${input} is not a results file: ${stats.malformedLines.length ? `none of its ${stats.malformedLines.length} non-empty line(s) is a run record (JSON with a "key")` : "it holds no records"}; pass the results.jsonl of a run folder`,
      );
    }
    writer.commit();
  } catch (err) {
    writer.abort();
    throw err;
  }
  if (stats.malformedLines.length) log(`metrics: skipped ${stats.malformedLines.length} malformed line(s) of ${input}`);
  const means = Object.fromEntries(Object.entries(sums).map(([k, s]) => [k, { mean: s.n ? s.sum / s.n : null, n: s.n, nulls: s.nulls }]));
  const table = formatTable(
    ["metric", "mean", "n", "null"],
    Object.entries(means).map(([k, m]) => [k, m.mean === null ? "—" : m.mean.toFixed(6), m.n, m.nulls]),
  );
  log(`metrics: ${scored} record(s) scored, ${skipped} without output or reference → ${out}`);
  log(table);
  return { out, records, scored, skipped, means, table };
}
