/**
 * MedConclusion §5 journal subgroups: each record's journal joined to a SCImago journal file by
 * ISSN (print or electronic, normalised), giving its SJR, best quartile and subject categories;
 * then, for one condition (model × workflow), the top and bottom subject categories by each
 * metric (§5.2, Figure 3) and each metric's association with SJR at journal level (§5.1,
 * Figure 2: one point per journal, its mean score) — Spearman ρ with p and an OLS slope with its
 * standard error and p — with a scatter and fitted-line chart. Records whose ISSN is not in the
 * file are counted and listed by ISSN.
 *
 * ISSNs are read from the record's item fields `issn`, `issnPrint`, `issnElectronic`, `eissn`
 * (several may be given, separated by commas). Items that already carry journal metadata (the
 * published MedConclusion data has `sjr` and categories) are used as they are when their ISSN is
 * not in the SCImago file, or when no file is given.
 *
 * @see ../../../shared/seeds/000_* (MedConclusion §5.1, §5.2, Figure 2, Figure 3).
 */
import type { ScimagoIndex } from "../../corpus/datasets/scimago.ts";
import { normalizeIssn } from "../../corpus/datasets/scimago.ts";
import { linearRegression, spearman } from "../../judges/stats/index.ts";
import type { RunRecord } from "../types.ts";
import { columnsOf, groupBy, recordValues, variantLabel } from "./columns.ts";
import { renderSvg, type Chart } from "./charts.ts";
import { fmt, type ReportTable } from "./tables.ts";
import type { ReportSection } from "./render.ts";

/** Item fields holding ISSNs. */
export const ISSN_FIELDS = ["issn", "issnPrint", "issnElectronic", "eissn"] as const;

/** Journal metadata of one item. */
export interface JournalInfo {
  /** Journal key for journal-level aggregation (SCImago Sourceid, else title or ISSN). */
  journal: string;
  title: string | null;
  sjr: number | null;
  quartile: string | null;
  categories: string[];
  /** Where it came from: the SCImago file or the item's own fields. */
  source: "scimago" | "item";
}

/** Normalised ISSNs of a record's item (from {@link ISSN_FIELDS}). */
export function issnsOf(r: RunRecord): string[] {
  const out: string[] = [];
  for (const f of ISSN_FIELDS) {
    const v = r.itemMeta[f];
    if (typeof v !== "string") continue;
    for (const part of v.split(/[,;]/)) {
      const n = normalizeIssn(part);
      if (n.length === 8 && !out.includes(n)) out.push(n);
    }
  }
  return out;
}

/** Journal metadata the item carries itself (`sjr`, `quartile`, `category`/`categories` separated by ";"), or null without an SJR. */
function itemJournal(r: RunRecord): JournalInfo | null {
  const m = r.itemMeta;
  const sjr = typeof m.sjr === "number" ? m.sjr : typeof m.sjr === "string" && m.sjr.trim() ? Number(m.sjr.replace(",", ".")) : NaN;
  if (!Number.isFinite(sjr)) return null;
  const cats = String(m.categories ?? m.category ?? "")
    .split(";")
    .map((c) => c.replace(/\s*\((Q[1-4]|-)\)\s*$/, "").trim())
    .filter(Boolean);
  const title = typeof m.journal === "string" ? m.journal : typeof m.journalTitle === "string" ? m.journalTitle : null;
  const q = typeof m.quartile === "string" ? m.quartile : null;
  return { journal: title ?? issnsOf(r)[0] ?? `item ${r.itemId}`, title, sjr, quartile: q, categories: cats, source: "item" };
}

/** Journal metadata of a record: the SCImago row of its first matching ISSN, else the item's own fields, else null. */
export function journalInfoOf(r: RunRecord, index: ScimagoIndex | null): JournalInfo | null {
  if (index)
    for (const s of issnsOf(r)) {
      const j = index.byIssn.get(s);
      if (j) return { journal: j.sourceId || j.title, title: j.title, sjr: j.sjr, quartile: j.quartile, categories: j.categories, source: "scimago" };
    }
  return itemJournal(r);
}

/** Options of {@link sjrSection}. */
export interface SjrSectionOptions {
  /** Metric listed first and charted first (default: the first judge column, else the first column). */
  primaryMetric?: string;
  /** Categories with fewer records are not ranked (default 3). */
  minCategoryN?: number;
  /** Top and bottom categories shown per metric (default 5, as §5.2). */
  show?: number;
  /** Rows of the per-item journal table shown (all are in the JSON values; default 100). */
  maxItemRows?: number;
  /** Render the scatter chart (default true). */
  chart?: boolean;
}

const itemKey = (r: RunRecord) => `${r.dataset}\u0000${r.itemId}`;

/**
 * The journal-subgroup section for conclusion records.
 * @param index - the SCImago file, or null to use the items' own journal fields only.
 */
export async function sjrSection(records: RunRecord[], index: ScimagoIndex | null, options: SjrSectionOptions = {}): Promise<ReportSection> {
  const minN = options.minCategoryN ?? 3;
  const show = options.show ?? 5;
  const tables: ReportTable[] = [];
  const charts: Chart[] = [];
  // 1. Join every item once.
  const items = new Map<string, { r: RunRecord; info: JournalInfo | null; issns: string[] }>();
  for (const r of records) if (!items.has(itemKey(r))) items.set(itemKey(r), { r, info: journalInfoOf(r, index), issns: issnsOf(r) });
  const all = [...items.values()];
  const matched = all.filter((x) => x.info);
  tables.push(itemJournalTable(all, options.maxItemRows ?? 100));
  const unmatched = unmatchedTable(all, index);
  if (unmatched) tables.push(unmatched);
  // 2. One condition: the model × workflow with the most records with a journal.
  const withInfo = records.filter((r) => items.get(itemKey(r))?.info);
  const groups = [...groupBy(withInfo, (r) => `${r.model} · ${variantLabel(r)}`)].sort((a, b) => b[1].length - a[1].length);
  const text = `${matched.length} of ${all.length} items joined to a journal${index ? ` (SCImago file ${index.source}: ${index.journals.length} journals)` : ""}.`;
  if (!groups.length)
    return { heading: "Journal subgroups: SJR and subject category (MedConclusion §5)", text: `${text} No record has a journal with an SJR, so no subgroup analysis.`, tables, charts };
  const [condition, rs] = groups[0];
  const cols = columnsOf(rs).filter((c) => !c.includes("@") && c !== "latencySeconds" && c !== "outputWords");
  const primary = options.primaryMetric && cols.includes(options.primaryMetric) ? options.primaryMetric : (cols.find((c) => c.startsWith("judge:")) ?? cols[0]);
  const metrics = primary ? [primary, ...cols.filter((c) => c !== primary)] : cols;
  const info = (r: RunRecord) => items.get(itemKey(r))!.info!;
  // 3. Association with SJR at journal level.
  const assoc: string[][] = [];
  const assocValues: Record<string, unknown>[] = [];
  const points: Record<string, unknown>[] = [];
  for (const metric of metrics) {
    const byJournal = new Map<string, { sjr: number; xs: number[] }>();
    for (const r of rs) {
      const v = recordValues(r)[metric];
      const j = info(r);
      if (v === undefined || j.sjr === null) continue;
      const e = byJournal.get(j.journal) ?? { sjr: j.sjr, xs: [] };
      e.xs.push(v);
      byJournal.set(j.journal, e);
    }
    const js = [...byJournal].map(([journal, e]) => ({ journal, sjr: e.sjr, mean: e.xs.reduce((a, b) => a + b, 0) / e.xs.length, n: e.xs.length }));
    const nRec = js.reduce((a, j) => a + j.n, 0);
    for (const j of js) points.push({ metric, journal: j.journal, sjr: j.sjr, value: j.mean, n: j.n });
    if (js.length < 3) {
      assoc.push([metric, String(js.length), String(nRec), "–", "–", "–", "–", "–"]);
      assocValues.push({ metric, journals: js.length, records: nRec, status: "too-few" });
      continue;
    }
    const x = js.map((j) => j.sjr);
    const y = js.map((j) => j.mean);
    const s = spearman(x, y);
    const ols = linearRegression(x, y);
    assoc.push([metric, String(js.length), String(nRec), fmt(s.estimate), fmt(s.p, 4), fmt(ols.slope, 4), fmt(ols.slopeSe, 4), fmt(ols.p, 4)]);
    assocValues.push({ metric, journals: js.length, records: nRec, spearman: s, ols });
  }
  tables.push({
    id: "sjr-association",
    title: `Association of each metric with journal SJR (${condition})`,
    caption:
      "One point per journal: its SJR and the mean of the metric over its records (MedConclusion Figure 2 aggregates by journal the same way; the paper also removes outliers, which this table does not). Spearman ρ with the t-approximation p; OLS slope of the journal mean on SJR with its standard error and two-sided t-test p (n − 2 df).",
    header: ["metric", "journals", "records", "Spearman ρ", "p (ρ)", "OLS slope", "SE", "p (slope)"],
    rows: assoc,
    values: assocValues,
  });
  // 4. Top and bottom subject categories by each metric.
  const catRows: string[][] = [];
  const catValues: Record<string, unknown>[] = [];
  let ranked = 0;
  for (const metric of metrics) {
    const byCat = new Map<string, number[]>();
    for (const r of rs) {
      const v = recordValues(r)[metric];
      if (v === undefined) continue;
      for (const c of info(r).categories) byCat.set(c, [...(byCat.get(c) ?? []), v]);
    }
    const cats = [...byCat]
      .map(([category, xs]) => ({ category, n: xs.length, mean: xs.reduce((a, b) => a + b, 0) / xs.length }))
      .filter((c) => c.n >= minN)
      .sort((a, b) => b.mean - a.mean || a.category.localeCompare(b.category));
    ranked = Math.max(ranked, cats.length);
    const chosen =
      cats.length <= 2 * show
        ? cats.map((c, i) => ({ ...c, pos: `${i + 1}` }))
        : [...cats.slice(0, show).map((c, i) => ({ ...c, pos: `top ${i + 1}` })), ...cats.slice(-show).map((c, i) => ({ ...c, pos: `bottom ${show - i}` }))];
    for (const c of chosen) catRows.push([metric, c.pos, c.category, String(c.n), fmt(c.mean)]);
    catValues.push({ metric, categories: cats });
  }
  tables.push({
    id: "sjr-categories",
    title: `Top and bottom subject categories by each metric (${condition})`,
    caption: `SCImago subject categories (a journal's records count in each of its categories); categories with at least ${minN} records ranked by mean, the top and bottom ${show} shown (all when there are at most ${2 * show}; "bottom 1" is the lowest).`,
    header: ["metric", "rank", "category", "n", "mean"],
    rows: catRows,
    values: catValues,
  });
  if (options.chart !== false && points.length) {
    const chart = await sjrScatter(points);
    if (chart) charts.push(chart);
  }
  return {
    heading: "Journal subgroups: SJR and subject category (MedConclusion §5)",
    text: `${text} Association and categories for ${condition} (the model and workflow with the most joined records; MedConclusion §5 uses one condition too).`,
    tables,
    charts,
  };
}

/** Per-item journal table (first `max` rows; all in `values`). */
function itemJournalTable(all: { r: RunRecord; info: JournalInfo | null; issns: string[] }[], max: number): ReportTable {
  const values = all.map(({ r, info, issns }) => ({
    itemId: r.itemId,
    issns,
    journal: info?.title ?? null,
    sjr: info?.sjr ?? null,
    quartile: info?.quartile ?? null,
    categories: info?.categories ?? [],
    source: info?.source ?? null,
  }));
  return {
    id: "sjr-items",
    title: "Journal of each item: SJR, best quartile and subject categories",
    caption: `${all.length} items${all.length > max ? `; the first ${max} shown, all in report.json` : ""}. ISSNs normalised (no hyphen); source "scimago" = joined to the SCImago file, "item" = the item's own journal fields.`,
    header: ["item", "ISSN", "journal", "SJR", "quartile", "categories", "source"],
    rows: values.slice(0, max).map((v) => [v.itemId, v.issns.join(", ") || "–", v.journal ?? "–", fmt(v.sjr), v.quartile ?? "–", v.categories.join("; ") || "–", v.source ?? "not matched"]),
    values,
  };
}

/** Items without a journal, counted by ISSN; null when every item matched. */
function unmatchedTable(all: { r: RunRecord; info: JournalInfo | null; issns: string[] }[], index: ScimagoIndex | null): ReportTable | null {
  const un = all.filter((x) => !x.info);
  if (!un.length) return null;
  const byIssn = [...groupBy(un, (x) => x.issns.join(", ") || "(no ISSN)")].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  return {
    id: "sjr-unmatched",
    title: `Items not joined to a journal: ${un.length} of ${all.length}`,
    caption: index ? `ISSN(s) not found in ${index.source} (and no journal fields on the item), by ISSN.` : "No SCImago file given and no journal fields on the item.",
    header: ["ISSN", "items", "example item"],
    rows: byIssn.map(([issn, xs]) => [issn, String(xs.length), xs[0].r.itemId]),
    values: byIssn.map(([issn, xs]) => ({ issn, items: xs.length, itemIds: xs.map((x) => x.r.itemId) })),
  };
}

/** Scatter of journal means against SJR with the OLS line, one panel per metric (Figure 2). */
async function sjrScatter(points: Record<string, unknown>[]): Promise<Chart | null> {
  const metrics = [...new Set(points.map((p) => String(p.metric)))];
  if (!metrics.length) return null;
  const svg = await renderSvg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Journal mean of each metric against SJR, with the OLS line",
    data: { values: points },
    facet: { field: "metric", type: "nominal", title: null, sort: metrics },
    columns: Math.min(4, metrics.length),
    spec: {
      width: 180,
      height: 140,
      layer: [
        {
          mark: { type: "point", filled: true, opacity: 0.6 },
          encoding: { x: { field: "sjr", type: "quantitative", title: "SJR" }, y: { field: "value", type: "quantitative", title: "journal mean", scale: { zero: false } } },
        },
        {
          transform: [{ regression: "value", on: "sjr", groupby: ["metric"] }],
          mark: { type: "line", color: "firebrick" },
          encoding: { x: { field: "sjr", type: "quantitative" }, y: { field: "value", type: "quantitative" } },
        },
      ],
    },
    resolve: { scale: { y: "independent" } },
  } as never);
  return { id: "sjr-scatter", title: "Metrics against journal SJR (MedConclusion Figure 2)", svg, data: points };
}
