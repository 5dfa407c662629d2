/**
 * Turning run records into score columns and groups for the report.
 *
 * Column ids:
 * - `<metric>` for reference metrics (`rouge1`, `rougeL`, `bleu`, `wordRatio` …) from `record.metrics`;
 * - `judge:<rubric>.<criterion>` for the panel score: the panel's recorded aggregate under its
 *   policy (mean, median, majority vote) when present, else the mean over the judges that answered —
 *   a missing judge answer is left out, never counted as 0; a record where every judge is missing
 *   has no value;
 * - `judge:<rubric>.<criterion>@<judgeId>` for one judge's score (judge-vs-judge tables);
 * - `latencySeconds`: generator inference time in seconds — the model calls' generation time
 *   (original time for cache hits), or the cell's wall-clock time when it made no model call
 *   (extractive baselines) — and `outputWords`.
 */
import type { RunRecord } from "../types.ts";
import { whitespaceWordCount, outputWordCount, OUTPUT_WORDS } from "../../results/run-record.ts";

/**
 * Label of a cell's configuration as it ran: workflow plus its parameters, e.g. `standard-rag k=5`.
 * A configured reranker that was not available (its model not in the local folder: the record's
 * `intermediate.reranker` is null) is labelled `reranker=none (<id> unavailable)` — the report
 * says what actually ran. `configured: true` gives the label of the config as written (used to
 * pair cells across runs).
 */
export function variantLabel(r: Pick<RunRecord, "workflow" | "params"> & { intermediate?: RunRecord["intermediate"] }, opts: { configured?: boolean } = {}): string {
  const ranWithout = !opts.configured && r.intermediate !== undefined && "reranker" in r.intermediate && r.intermediate.reranker === null;
  // Frozen (shared, read-only) params objects of the report's slim records: the label is computed
  // once per params object and workflow, not once per record and call.
  const frozen = Object.isFrozen(r.params);
  const cacheKey = `${ranWithout ? 1 : 0}${r.workflow}`;
  if (frozen) {
    const hit = labelCache.get(r.params)?.get(cacheKey);
    if (hit !== undefined) return hit;
  }
  const label = computeVariantLabel(r, ranWithout);
  if (frozen) {
    const m = labelCache.get(r.params) ?? new Map<string, string>();
    m.set(cacheKey, label);
    labelCache.set(r.params, m);
  }
  return label;
}

const labelCache = new WeakMap<object, Map<string, string>>();

function computeVariantLabel(r: Pick<RunRecord, "workflow" | "params">, ranWithout: boolean): string {
  const ps = Object.entries(r.params)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => (k === "reranker" && ranWithout && typeof v === "string" && v !== "none" ? `reranker=none (${v} unavailable)` : `${k}=${v}`));
  return ps.length ? `${r.workflow} ${ps.join(" ")}` : r.workflow;
}

/** Number of whitespace-separated words of a text (0 for null). */
export function wordCount(text: string | null): number {
  return whitespaceWordCount(text);
}

/** Where {@link recordValues} keeps its result on a slim, read-only record (see {@link OUTPUT_WORDS}). */
const VALUES: unique symbol = Symbol("medsynth.recordValues");

/**
 * All numeric values of one record, by column id: metrics, judge scores (per judge and panel),
 * Standard-RAG's `goldenRecall`, latency and output words. Only records with status "ok" carry values.
 */
export function recordValues(r: RunRecord): Record<string, number> {
  // A slim record of the report (read-records.ts: read-only, its output replaced by its word
  // count) computes its values once; the object is shared, callers must not change it.
  const slim = r as RunRecord & { [OUTPUT_WORDS]?: number; [VALUES]?: Record<string, number> };
  const kept = slim[VALUES];
  if (kept) return kept;
  const out = computeRecordValues(r);
  if (slim[OUTPUT_WORDS] === undefined) return out;
  // A copy: an object built key by key keeps a spare property store; a spread copy holds its fields.
  const compact = Object.freeze({ ...out });
  Object.defineProperty(slim, VALUES, { value: compact, enumerable: false });
  return compact;
}

function computeRecordValues(r: RunRecord): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.status !== "ok") return out;
  for (const [k, v] of Object.entries(r.metrics ?? {})) if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  const perCriterion = new Map<string, number[]>();
  for (const e of r.judgeScores ?? []) {
    if (e.status !== "ok") continue;
    for (const [crit, v] of Object.entries(e.scores)) {
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      const col = `judge:${e.rubricId}.${crit}`;
      out[`${col}@${e.judgeId}`] = v;
      const list = perCriterion.get(col) ?? [];
      list.push(v);
      perCriterion.set(col, list);
    }
  }
  for (const [col, vs] of perCriterion) out[col] = vs.reduce((a, b) => a + b, 0) / vs.length;
  // The panel's own aggregate (its policy: mean, median or majority vote) wins when recorded.
  for (const [rubric, dims] of Object.entries(r.panel?.scores ?? {}))
    for (const [dim, a] of Object.entries(dims)) {
      const col = `judge:${rubric}.${dim}`;
      if (typeof a.value === "number" && Number.isFinite(a.value)) out[col] = a.value;
      else delete out[col];
    }
  // Standard-RAG's share of the item's golden PMIDs among the retrieved documents.
  const recall = (r.intermediate as Record<string, unknown> | undefined)?.goldenRecall;
  if (typeof recall === "number" && Number.isFinite(recall)) out.goldenRecall = recall;
  out.latencySeconds = (r.generator.modelLatencyMs ?? r.generator.latencyMs) / 1000;
  if (r.outputKind !== "score") out.outputWords = outputWordCount(r);
  return out;
}

/**
 * Column ids present in any record: panel columns first, then reference metrics, then latency and
 * output words, per-judge columns last. Within each group columns keep the order in which the
 * records carry them — records in config order ({@link sortByConfig}) carry metrics in the
 * config's `metrics` order (the metrics stage writes them in that order, nulls included) and judges
 * in panel order — so tables list them as the config declares them, the same in every run.
 */
export function columnsOf(records: RunRecord[]): string[] {
  const seen = new Map<string, number>();
  const see = (k: string) => {
    if (!seen.has(k)) seen.set(k, seen.size);
  };
  const present = new Set<string>();
  for (const r of records) {
    // Metric keys with null values too: a metric whose first value is null keeps its config position.
    for (const k of Object.keys(r.metrics ?? {})) see(k);
    for (const k of Object.keys(recordValues(r))) {
      see(k);
      present.add(k);
    }
  }
  const rank = (c: string) => (c.startsWith("judge:") ? (c.includes("@") ? 3 : 0) : c === "latencySeconds" || c === "outputWords" ? 2 : 1);
  return [...present].sort((a, b) => rank(a) - rank(b) || seen.get(a)! - seen.get(b)!);
}

/** Where a run's records belong in the config's order (see {@link sortByConfig}). */
export interface ConfigOrder {
  /** Cell keys in plan order (cells.json `keys`: models × workflows × parameter values × items × repeats as the config lists them). */
  cellKeys?: readonly string[];
  /** Model labels (or ids) in config order; used for records not in `cellKeys`. */
  models?: readonly string[];
  /** Workflow ids in config order; used for records not in `cellKeys`. */
  workflows?: readonly string[];
}

/**
 * Records in the config's order, whatever order results.jsonl holds them in (concurrent cells
 * finish in any order): by position in the plan's cell list, then — for records outside it — by
 * the config's model and workflow order, then by cell key. Report tables group records in
 * first-seen order, so their rows and columns (models, workflow variants, judges, metrics)
 * follow the config and do not change from run to run. Returns a new array.
 */
export function sortByConfig<T extends Pick<RunRecord, "key" | "model" | "workflow">>(records: readonly T[], order: ConfigOrder): T[] {
  const cell = new Map((order.cellKeys ?? []).map((k, i) => [k, i]));
  const idx = (list: readonly string[] | undefined, v: string) => {
    const i = list ? list.indexOf(v) : -1;
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const rank = (r: T) => cell.get(r.key) ?? Number.MAX_SAFE_INTEGER;
  return [...records].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      idx(order.models, a.model) - idx(order.models, b.model) ||
      idx(order.workflows, a.workflow) - idx(order.workflows, b.workflow) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** Records grouped by a key function, in first-seen order. */
export function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

/**
 * Does a record match a filter such as `{workflow: "golden-rag", k: 5}`? Keys `model`,
 * `workflow`, `dataset` match record fields; any other key matches `record.params[key]`.
 */
export function matchesFilter(r: RunRecord, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([k, v]) => {
    if (k === "model" || k === "workflow" || k === "dataset") return r[k] === v;
    return r.params[k] === v;
  });
}

/** Key pairing the same item and repeat across two groups (dataset, item id, repeat). */
export function pairKey(r: RunRecord): string {
  return `${r.dataset}\u0000${r.itemId}\u0000${r.repeat}`;
}

/**
 * True when paired differences vary (range above 1e-12 relative to their scale), so a paired
 * test is defined; float noise such as (0.2 + 0.1) − 0.2 ≠ 0.1 does not count as variation.
 */
export function differencesVary(d: number[]): boolean {
  if (d.length < 2) return false;
  const lo = Math.min(...d);
  const hi = Math.max(...d);
  return hi - lo > 1e-12 * Math.max(1, Math.abs(hi), Math.abs(lo));
}
