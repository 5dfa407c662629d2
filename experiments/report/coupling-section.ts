/**
 * The report's retrieval → synthesis coupling section (issue 18.4): for a run that sweeps
 * retrieval settings inside Standard-RAG (`params.retrieval` names a `retrieval.settings` entry),
 * a table per setting (× model) of the golden recall of the evidence the cells actually used
 * (Standard-RAG's `goldenRecall`: share of the item's golden PMIDs among the merged evidence)
 * next to the synthesis metrics and judge scores of the same cells, and the per-cell Spearman
 * correlation of golden recall with each of those scores (all settings pooled, then within each
 * setting), with n and the two-sided p. A user sees whether better recall produced better
 * conclusions.
 *
 * Each finished Standard-RAG cell (item × setting × model × repeat) that has both values is one
 * pair; a cell missing a score (a judge that did not answer) is left out of that column only.
 * @see scipy.stats.spearmanr (p from the t distribution with n − 2 df).
 */
import { spearman } from "../../judges/stats/correlation.ts";
import type { RunRecord } from "../types.ts";
import { recordValues } from "./columns.ts";
import type { ReportSection } from "./render.ts";
import type { ReportTable } from "./tables.ts";

/** Columns that are not synthesis outcomes: bookkeeping and the retrieval metric itself. */
const NOT_OUTCOMES = new Set(["goldenRecall", "latencySeconds", "outputWords"]);

/** Retrieval setting of a Standard-RAG cell: `params.retrieval`, else "(default)" (the run's own retriever). */
export function retrievalSettingOf(r: RunRecord): string {
  return typeof r.params.retrieval === "string" ? r.params.retrieval : "(default)";
}

/** One row of the per-setting table. */
export interface CouplingRow {
  setting: string;
  model: string;
  /** Finished cells with a golden recall. */
  cells: number;
  goldenRecall: number;
  /** Outcome column → mean over the cells that have it (absent when none has). */
  outcomes: Record<string, number>;
}

/** One Spearman correlation of golden recall with an outcome column. */
export interface CouplingCorrelation {
  outcome: string;
  /** "all settings" or a setting name. */
  scope: string;
  n: number;
  rho: number;
  p: number;
  /** `ok`, `constant-input` (a series without variance), or `too-few` (n < 3). */
  status: string;
}

/** The numbers of the coupling section. */
export interface Coupling {
  outcomes: string[];
  rows: CouplingRow[];
  correlations: CouplingCorrelation[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Coupling of retrieval and synthesis over finished Standard-RAG records that carry a golden recall.
 * @returns null when no record names a retrieval setting (`params.retrieval`), i.e. the run did not sweep retrieval.
 */
export function couplingOf(records: readonly RunRecord[]): Coupling | null {
  if (!records.some((r) => r.workflow === "standard-rag" && typeof r.params.retrieval === "string")) return null;
  const cells = records
    .filter((r) => r.workflow === "standard-rag" && r.status === "ok")
    .map((r) => ({ r, v: recordValues(r) }))
    .filter((c) => c.v.goldenRecall !== undefined);
  const outcomes = [...new Set(cells.flatMap((c) => Object.keys(c.v)))].filter((k) => !NOT_OUTCOMES.has(k) && !k.includes("@")).sort();
  const settings = [...new Set(cells.map((c) => retrievalSettingOf(c.r)))];
  const models = [...new Set(cells.map((c) => c.r.model))];
  const rows: CouplingRow[] = [];
  for (const s of settings)
    for (const m of models) {
      const cs = cells.filter((c) => retrievalSettingOf(c.r) === s && c.r.model === m);
      if (!cs.length) continue;
      const out: Record<string, number> = {};
      for (const o of outcomes) {
        const xs = cs.map((c) => c.v[o]).filter((x): x is number => x !== undefined);
        if (xs.length) out[o] = mean(xs);
      }
      rows.push({ setting: s, model: m, cells: cs.length, goldenRecall: mean(cs.map((c) => c.v.goldenRecall)), outcomes: out });
    }
  const correlations: CouplingCorrelation[] = [];
  for (const o of outcomes)
    for (const scope of ["all settings", ...(settings.length > 1 ? settings : [])]) {
      const pairs = cells.filter((c) => (scope === "all settings" || retrievalSettingOf(c.r) === scope) && c.v[o] !== undefined);
      const x = pairs.map((c) => c.v.goldenRecall);
      const y = pairs.map((c) => c.v[o]);
      if (pairs.length < 3) {
        correlations.push({ outcome: o, scope, n: pairs.length, rho: Number.NaN, p: Number.NaN, status: "too-few" });
        continue;
      }
      const r = spearman(x, y);
      correlations.push({ outcome: o, scope, n: r.n, rho: r.estimate, p: r.p, status: r.status });
    }
  return { outcomes, rows, correlations };
}

const f = (x: number | undefined, d = 3) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(d));

/** The report section, or null when the run did not sweep retrieval settings. */
export function couplingSection(records: readonly RunRecord[]): ReportSection | null {
  const c = couplingOf(records);
  if (!c || !c.rows.length) return null;
  const perSetting: ReportTable = {
    id: "coupling-settings",
    title: "Retrieval setting → synthesis: golden recall of the evidence used and the scores of the same cells",
    caption: "Means over finished Standard-RAG cells; golden recall = share of the item's golden PMIDs among the evidence the cell synthesised from.",
    header: ["setting", "model", "cells", "golden recall", ...c.outcomes],
    rows: c.rows.map((r) => [r.setting, r.model, String(r.cells), f(r.goldenRecall), ...c.outcomes.map((o) => f(r.outcomes[o]))]),
    values: c.rows as unknown as Record<string, unknown>[],
  };
  const corr: ReportTable = {
    id: "coupling-correlation",
    title: "Per-cell Spearman correlation of golden recall with each score",
    caption: "One pair per cell (item × setting × model × repeat); two-sided p from t with n − 2 df (scipy spearmanr); “–” with fewer than 3 pairs or a constant series.",
    header: ["score", "cells from", "n", "Spearman ρ", "p"],
    rows: c.correlations.map((x) => [x.outcome, x.scope, String(x.n), f(x.rho), f(x.p, 4)]),
    values: c.correlations as unknown as Record<string, unknown>[],
  };
  return {
    heading: "Retrieval → synthesis coupling",
    text: "Does better retrieval give better conclusions? Each retrieval setting of the sweep, its golden recall, and the synthesis metrics and judge scores of the same cells.",
    tables: [perSetting, corr],
    charts: [],
  };
}
