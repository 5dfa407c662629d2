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
  // Per group two parallel arrays (value, item) instead of an object per record, and one item
  // key string per item, not one per record (10⁶ records at scale); every sum in record order.
  const itemKeys = new Map<string, Map<string, string>>();
  const itemKey = (r: RunRecord): string => {
    let byId = itemKeys.get(r.dataset);
    if (!byId) itemKeys.set(r.dataset, (byId = new Map()));
    let k = byId.get(r.itemId);
    if (k === undefined) byId.set(r.itemId, (k = `${r.dataset}\u0000${r.itemId}`));
    return k;
  };
  const prepared: { model: string; variant: string; vs: number[]; items: string[]; nItems: number; repeats: number; itemMeans: number[] }[] = [];
  for (const [k, rs] of groups) {
    const [model, variant] = k.split("\u0000");
    const vs: number[] = [];
    const items: string[] = [];
    // Item → position (first-seen order), its values' sum (in record order) and count.
    const slot = new Map<string, number>();
    const sums: number[] = [];
    const counts: number[] = [];
    for (const r of rs) {
      const v = recordValues(r)[column];
      if (v === undefined) continue;
      const item = itemKey(r);
      vs.push(v);
      items.push(item);
      let s = slot.get(item);
      if (s === undefined) {
        slot.set(item, (s = sums.length));
        sums.push(0);
        counts.push(0);
      }
      sums[s] += v;
      counts[s]++;
    }
    if (!vs.length) continue;
    const itemMeans = sums.map((x, i) => x / counts[i]);
    let repeats = 0;
    for (const c of counts) repeats = Math.max(repeats, c);
    prepared.push({ model, variant, vs, items, nItems: sums.length, repeats, itemMeans });
  }
  const boots = bootstrapMeanCis(prepared.map((g) => g.itemMeans));
  for (const [gi, { model, variant, vs, items, nItems, repeats }] of prepared.entries()) {
    const m = meanCi(vs)!;
    const b = boots[gi];
    const c = repeats > 1 && nItems >= 2 ? clusteredMean(vs, items) : null;
    const row: UncertaintyRow = {
      model,
      variant,
      column,
      n: vs.length,
      items: nItems,
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
