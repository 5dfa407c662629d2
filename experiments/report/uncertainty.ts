/**
 * The report's uncertainty table: for one score column, per model × workflow variant, the mean
 * with three intervals side by side — the t-based 95 % CI the main tables show (Wilson for binary
 * metrics), a seeded percentile bootstrap CI over items, and, when items were run more than once
 * (repeats > 1), the cluster-robust SE and CI with items as clusters, so repeats of one item are
 * not counted as independent observations.
 *
 * @see judges/stats/bootstrap.ts (Efron & Tibshirani 1993, percentile interval);
 *   judges/stats/proportions.ts `clusteredMean` (Inspect's clustered `stderr`).
 */
import { clusteredMean } from "../../judges/stats/index.ts";
import { bootstrapMeanCis } from "../../judges/stats/bootstrap.ts";
import type { RunRecord } from "../types.ts";
import { groupBy, recordValues, variantLabel } from "./columns.ts";
import { fmt, fmtMeanCi, meanCi, type ReportTable } from "./tables.ts";

/** Numbers behind one row of {@link uncertaintyTable}. */
export interface UncertaintyRow {
  model: string;
  variant: string;
  column: string;
  /** Records with a value. */
  n: number;
  /** Distinct items among them (the clusters). */
  items: number;
  /** Largest number of records of one item (1 = no repeats). */
  repeats: number;
  mean: number;
  /** Percentile bootstrap 95 % CI of the mean of item means (null with < 2 items). */
  bootstrap: { lower: number; upper: number; iterations: number; seed: string } | null;
  /** Cluster-robust SE and 95 % CI by item (null unless repeats > 1 and ≥ 2 items). */
  clustered: { se: number; lower: number; upper: number } | null;
}

/**
 * Uncertainty of `column` per model × variant: mean ± t CI (or Wilson), bootstrap CI over items
 * (2,000 resamples of the item means, seed "medsynth"; with balanced repeats the mean of item
 * means is the record mean), and the item-clustered SE/CI when an item has more than one record.
 * @returns the table, or null when no record has the column.
 */
export function uncertaintyTable(records: RunRecord[], column: string, id = `uncertainty-${column}`): ReportTable | null {
  const groups = groupBy(records, (r) => `${r.model}\u0000${variantLabel(r)}`);
  const rows: string[][] = [];
  const values: UncertaintyRow[] = [];
  // Step 1: per group, its values by item; step 2: the bootstrap of every group's item means at
  // once (groups with as many items share their draws: bootstrapMeanCis); step 3: the rows.
  const prepared: { model: string; variant: string; pts: { item: string; v: number }[]; byItem: Map<string, { item: string; v: number }[]>; itemMeans: number[] }[] = [];
  for (const [k, rs] of groups) {
    const [model, variant] = k.split("\u0000");
    const pts = rs.map((r) => ({ item: `${r.dataset}\u0000${r.itemId}`, v: recordValues(r)[column] })).filter((p): p is { item: string; v: number } => p.v !== undefined);
    if (!pts.length) continue;
    const byItem = groupBy(pts, (p) => p.item);
    const itemMeans = [...byItem.values()].map((ps) => ps.reduce((a, p) => a + p.v, 0) / ps.length);
    prepared.push({ model, variant, pts, byItem, itemMeans });
  }
  const boots = bootstrapMeanCis(prepared.map((g) => g.itemMeans));
  for (const [gi, { model, variant, pts, byItem }] of prepared.entries()) {
    let repeats = 0;
    for (const ps of byItem.values()) repeats = Math.max(repeats, ps.length);
    const m = meanCi(pts.map((p) => p.v))!;
    const b = boots[gi];
    const c =
      repeats > 1 && byItem.size >= 2
        ? clusteredMean(
            pts.map((p) => p.v),
            pts.map((p) => p.item),
          )
        : null;
    const row: UncertaintyRow = {
      model,
      variant,
      column,
      n: pts.length,
      items: byItem.size,
      repeats,
      mean: m.mean,
      bootstrap: b ? { lower: b.lower, upper: b.upper, iterations: b.iterations, seed: b.seed } : null,
      clustered: c && c.status === "ok" ? { se: c.se, lower: c.ci[0], upper: c.ci[1] } : null,
    };
    values.push(row);
    rows.push([
      model,
      variant,
      String(row.n),
      String(row.items),
      String(row.repeats),
      fmtMeanCi(m),
      row.bootstrap ? `[${fmt(row.bootstrap.lower)}, ${fmt(row.bootstrap.upper)}]` : "–",
      row.clustered ? fmt(row.clustered.se) : "–",
      row.clustered ? `[${fmt(row.clustered.lower)}, ${fmt(row.clustered.upper)}]` : "–",
    ]);
  }
  if (!rows.length) return null;
  return {
    id,
    title: `${column}: bootstrap and item-clustered confidence intervals`,
    caption:
      "t CI: mean ± t·SD/√n over records (Wilson [low, high] for 0/1 metrics). Bootstrap: seeded percentile 95 % CI over items (2,000 resamples of item means). Clustered: standard error with items as clusters (Inspect's clustered stderr; t with items − 1 df), shown when an item has repeats, so repeats are not counted as independent items.",
    header: ["model", "workflow", "n", "items", "repeats", "mean (t CI)", "bootstrap 95 % CI", "clustered SE", "clustered 95 % CI"],
    rows,
    values: values as unknown as Record<string, unknown>[],
  };
}
