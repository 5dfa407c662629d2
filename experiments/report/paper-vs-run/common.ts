/**
 * Shared pieces of the "Paper vs this run" comparison: the run as seen by paper model (records of
 * the config models whose `paperModel:` label names a paper's row), this run's statistic for a
 * published value with its 95 % CI, and the verdict of a headline claim.
 *
 * Statistics come from judges/stats: means with the t interval (Wilson for 0/1 values) through the
 * report's {@link meanCi}, paired t-tests, d_z and Kendall's τ-b.
 */
import { cohenDz, describe as describeSample, kendallTauB, pairedTTest } from "../../../judges/stats/index.ts";
import type { RunRecord } from "../../types.ts";
import { matchesFilter, pairKey, recordValues } from "../columns.ts";
import { meanCi } from "../tables.ts";
import type { PaperId, PublishedValue } from "../published/schema.ts";

/** This run's counterpart of one published value. `value` is a word for printed words ("Yes"). */
export interface RunStat {
  value: number | string;
  /** 95 % CI of the statistic (null when it has none: t, p, d, counts). */
  ciLow: number | null;
  ciHigh: number | null;
  /** Items (or item pairs) behind the statistic. */
  n: number;
}

/** A published value with this run's statistic, or the reason the run does not cover it. */
export type Coverage = { stat: RunStat } | { uncovered: string };

/** Verdict of a headline claim. */
export type Verdict = "reproduced" | "not reproduced" | "not covered";

/** One headline claim of a paper, tested on this run. */
export interface ClaimResult {
  paper: PaperId;
  /** The claim in a few words (e.g. "H2 (Gemma 27B): G-RAG > P-CoT"). */
  claim: string;
  /** The test and the criterion of the verdict. */
  test: string;
  /** The paper's own statistic, as printed or computed from its table. */
  published: string;
  /** This run's statistic ("–" when not covered). */
  thisRun: string;
  verdict: Verdict;
  /** Why (for "not covered") or the numbers behind the verdict. */
  detail: string;
}

/** A run seen through its models' paper labels. */
export interface PaperRun {
  /** Every record of the run (latest per cell). */
  records: RunRecord[];
  /** Paper model label → the records of the config models carrying it. */
  byPaperModel: Map<string, RunRecord[]>;
  /** Config models (label or id) without a paper label. */
  unlabelled: string[];
}

/**
 * Group a run's records by paper model.
 * @param models the config's models: record model name (label or id) and its `paperModel`.
 */
export function paperRun(records: RunRecord[], models: readonly { name: string; paperModel?: string }[]): PaperRun {
  const labelOf = new Map(models.filter((m) => m.paperModel).map((m) => [m.name, m.paperModel!]));
  const byPaperModel = new Map<string, RunRecord[]>();
  for (const r of records) {
    const p = labelOf.get(r.model);
    if (p) byPaperModel.set(p, [...(byPaperModel.get(p) ?? []), r]);
  }
  return { records, byPaperModel, unlabelled: models.filter((m) => !m.paperModel).map((m) => m.name) };
}

/** Why a paper model has no records: no label at all, or this model not among the labels. */
export function noModelReason(run: PaperRun, paperModel: string): string {
  const labels = [...run.byPaperModel.keys()];
  return labels.length
    ? `no model of this run is labelled paperModel "${paperModel}" (labels: ${labels.join(", ")})`
    : `no model of this run carries a paperModel label${run.unlabelled.length ? ` (models: ${run.unlabelled.join(", ")})` : ""}`;
}

/** Numeric values of `column` over records (status ok, value present). */
export function columnValues(records: readonly RunRecord[], column: string): number[] {
  const out: number[] = [];
  for (const r of records) {
    const v = recordValues(r)[column];
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** Records matching a filter ({@link matchesFilter}: model/workflow/dataset or any param). */
export function select(records: readonly RunRecord[], filter: Record<string, unknown>): RunRecord[] {
  return records.filter((r) => matchesFilter(r, filter));
}

/** Mean of `column` with its 95 % CI (t; Wilson for 0/1 values), or the reason there is none. */
export function meanCoverage(records: readonly RunRecord[], column: string, what: string): Coverage {
  if (!records.length) return { uncovered: `this run has no ${what} records` };
  const xs = columnValues(records, column);
  const m = meanCi(xs);
  if (!m) return { uncovered: `${what}: no record has a value for ${column}${records.every((r) => r.status !== "ok") ? " (every cell failed or was skipped)" : ""}` };
  return { stat: { value: m.mean, ciLow: m.ciLow, ciHigh: m.ciHigh, n: m.n } };
}

/** A paired comparison of `column` between two record sets, matched by item and repeat. */
export interface Paired {
  n: number;
  meanDiff: number;
  /** 95 % t interval of the mean difference (null when n < 2). */
  ci: [number, number] | null;
  t: number;
  p: number;
  dz: number;
}

/**
 * Paired t-test of `column`, a − b, over the items (and repeats) both sets scored; null with
 * fewer than two pairs. Constant differences give t = p = d_z = NaN (judges/stats).
 */
export function pairedOn(a: readonly RunRecord[], b: readonly RunRecord[], column: string): Paired | null {
  const bv = new Map<string, number>();
  for (const r of b) {
    const v = recordValues(r)[column];
    if (v !== undefined) bv.set(pairKey(r), v);
  }
  const xs: number[] = [];
  const ys: number[] = [];
  for (const r of a) {
    const v = recordValues(r)[column];
    const w = bv.get(pairKey(r));
    if (v !== undefined && w !== undefined) {
      xs.push(v);
      ys.push(w);
    }
  }
  if (xs.length < 2) return null;
  const t = pairedTTest(xs, ys);
  const d = xs.map((x, i) => x - ys[i]);
  const varies = d.some((x) => x !== d[0]);
  return { n: xs.length, meanDiff: t.meanDiff, ci: varies ? describeSample(d).ci : [t.meanDiff, t.meanDiff], t: t.t, p: t.p, dz: varies ? cohenDz(xs, ys) : Number.NaN };
}

/** Kendall's τ-b between two score lists over the same models (NaN when a list is constant). */
export function tau(x: readonly number[], y: readonly number[]): number {
  return x.length < 2 ? Number.NaN : kendallTauB(x, y).estimate;
}

/** Index of the largest value (first on ties). */
export function argmax(xs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

/** A number for a claim's statistic column (3 decimals; "–" for NaN). */
export function f3(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : "–";
}

/** A p-value, "< 0.001" below 0.001. */
export function fp(p: number): string {
  return !Number.isFinite(p) ? "–" : p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** The numeric value of a published value (throws on a printed word: a programming error). */
export function pubNum(v: PublishedValue): number {
  if (typeof v.value !== "number") throw new Error(`paper-vs-run: ${v.paper} ${v.table} ${v.column} is not numeric`);
  return v.value;
}

/** Claim verdict over several sub-results: not covered when none is covered, else reproduced only when all covered ones are. */
export function overall(verdicts: readonly Verdict[]): Verdict {
  const covered = verdicts.filter((v) => v !== "not covered");
  if (!covered.length) return "not covered";
  return covered.every((v) => v === "reproduced") ? "reproduced" : "not reproduced";
}
