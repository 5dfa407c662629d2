/**
 * The results folder of `medsynth retrieval sweep`:
 *
 * | file | content |
 * |---|---|
 * | `results.tsv` | one row per (scope, setting): `scope setting queries`, then for each K `recall@K recall@K_lo recall@K_hi ndcg@K … mrr@K …`, then the setting's parameters `mode k1 b fusion weights normalization rrfK candidates reranker rerankDepth` (empty where a key does not apply) |
 * | `curves.tsv` | recall-vs-K: `scope setting K recall lo hi` |
 * | `comparisons.tsv` | paired tests against the baseline: `scope setting baseline metric n mean_diff t p_t p_t_holm p_rand p_rand_holm` |
 * | `folds.tsv` | (k folds only) `fold dev_queries test_queries chosen dev_score test_score` |
 * | `results.json` | all of the above, the split, the settings, and per-query values |
 * | `report.md`, `report.html` | the tables and the recall-vs-K chart (Vega-Lite, inline SVG) |
 *
 * Scopes: `all` (no protocol), `dev` and `test` (dev-test split), `cv` (k folds).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Chart } from "../report/charts.ts";
import { reportToHtml, reportToMarkdown, type ReportSection } from "../report/render.ts";
import { fmt, type ReportTable } from "../report/tables.ts";
import type { SweepSetting } from "./config.ts";
import type { SweepResult } from "./run.ts";

/** Parameter columns of results.tsv, in order. */
export const SETTING_COLUMNS = ["mode", "k1", "b", "fusion", "weights", "normalization", "rrfK", "candidates", "reranker", "rerankDepth"] as const;

/** Metric columns of results.tsv: recall@K, ndcg@K, mrr@K for each K (ascending). */
export function mainMetrics(ks: readonly number[]): string[] {
  return [...new Set(ks)].sort((a, b) => a - b).flatMap((k) => [`recall@${k}`, `ndcg@${k}`, `mrr@${k}`]);
}

/** Header of results.tsv for cutoffs `ks`. */
export function resultsHeader(ks: readonly number[]): string[] {
  return ["scope", "setting", "queries", ...mainMetrics(ks).flatMap((m) => [m, `${m}_lo`, `${m}_hi`]), ...SETTING_COLUMNS];
}

const num = (x: number) => (Number.isFinite(x) ? String(Number(x.toFixed(6))) : "");
const param = (s: SweepSetting | undefined, c: (typeof SETTING_COLUMNS)[number]) => {
  const v = s?.[c];
  return v === undefined ? "" : Array.isArray(v) ? v.join("/") : String(v);
};

function tsv(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map((c) => c.replace(/[\t\n]/g, " ")).join("\t")).join("\n") + "\n";
}

/** Rows of results.tsv (header first). */
export function resultsRows(r: SweepResult): string[][] {
  const byName = new Map(r.plan.settings.map((s) => [s.name, s]));
  const metrics = mainMetrics(r.plan.k);
  const rows = [resultsHeader(r.plan.k)];
  for (const sc of r.analysis.scopes)
    for (const row of sc.rows) {
      const s = byName.get(row.setting);
      rows.push([
        sc.id,
        row.setting,
        String(sc.queries),
        ...metrics.flatMap((m) => [num(row.metrics[m].mean), num(row.metrics[m].lo), num(row.metrics[m].hi)]),
        ...SETTING_COLUMNS.map((c) => param(s, c)),
      ]);
    }
  return rows;
}

function curveRows(r: SweepResult): string[][] {
  const rows = [["scope", "setting", "K", "recall", "lo", "hi"]];
  for (const sc of r.analysis.scopes)
    for (const row of sc.rows)
      for (const k of r.plan.curveK) rows.push([sc.id, row.setting, String(k), num(row.metrics[`recall@${k}`].mean), num(row.metrics[`recall@${k}`].lo), num(row.metrics[`recall@${k}`].hi)]);
  return rows;
}

function comparisonRows(r: SweepResult): string[][] {
  const rows = [["scope", "setting", "baseline", "metric", "n", "mean_diff", "t", "p_t", "p_t_holm", "p_rand", "p_rand_holm"]];
  for (const sc of r.analysis.scopes)
    for (const c of sc.comparisons)
      rows.push([sc.id, c.setting, c.baseline, c.metric, String(c.n), num(c.meanDiff), num(c.t), num(c.pT), num(c.pTHolm), num(c.pRandomization), num(c.pRandomizationHolm)]);
  return rows;
}

/** The sentence of the report that says which protocol was used and which setting was chosen on which split. */
export function protocolStatement(r: SweepResult): string {
  const a = r.analysis;
  const p = r.plan;
  const grouping = r.grouped ? `questions grouped by ${p.groupBy}` : `no question has ${p.groupBy}, so each is its own group`;
  if (a.protocol === "dev-test")
    return `Protocol: dev-test split (seed "${p.splitSeed}", dev share ${p.devFraction}, ${grouping}; no group is on both sides). Chosen on dev: "${a.chosen.setting}" (${p.metric} ${fmt(a.chosen.score, 4)} on dev); its figures below are on the test split only, next to the baseline "${p.baseline}".`;
  if (a.protocol === "folds")
    return `Protocol: ${p.folds}-fold cross-validation (seed "${p.splitSeed}", ${grouping}). On each fold the setting best by ${p.metric} on the other folds was scored; pooled held-out ${p.metric} ${fmt(a.chosen.score, 4)}. Picked most often: "${a.chosen.setting}". Per-fold choices are in the folds table.`;
  return `Protocol: none (every setting scored on all ${r.queries} questions). Best by ${p.metric}: "${a.chosen.setting}" (${fmt(a.chosen.score, 4)}), picked and scored on the same questions, so this figure is optimistic; use \`split: dev-test\` or \`folds: k\` for an honest estimate.`;
}

async function recallCurveChart(r: SweepResult): Promise<Chart | null> {
  const { renderSvg } = await import("../report/charts.ts");
  const sc = r.analysis.scopes[r.analysis.scopes.length - 1];
  if (r.plan.curveK.length < 2) return null;
  const data = sc.rows.flatMap((row) =>
    r.plan.curveK.map((k) => ({ setting: row.setting, K: k, recall: row.metrics[`recall@${k}`].mean, lo: row.metrics[`recall@${k}`].lo, hi: row.metrics[`recall@${k}`].hi })),
  );
  const svg = await renderSvg({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `recall@K (${sc.id})`,
    data: { values: data },
    width: 420,
    height: 260,
    encoding: {
      x: { field: "K", type: "quantitative", scale: { type: "log" }, axis: { values: r.plan.curveK, format: "d" } },
      color: { field: "setting", type: "nominal", sort: null, legend: { labelLimit: 400, orient: "bottom", columns: 1 } },
    },
    layer: [
      { mark: { type: "line", point: true }, encoding: { y: { field: "recall", type: "quantitative", title: "recall@K", scale: { domain: [0, 1] } } } },
      { mark: { type: "errorbar", ticks: true }, encoding: { y: { field: "lo", type: "quantitative" }, y2: { field: "hi" } } },
    ],
  });
  return { id: `recall-vs-k-${sc.id}`, title: `Recall against K (${sc.description.split(":")[0]}); bars: bootstrap ${Math.round(r.plan.bootstrap.level * 100)} % CIs`, svg, data };
}

/** Report sections: protocol and chosen setting, one metrics table and one comparison table per scope, folds, the curve. */
export async function sweepSections(r: SweepResult): Promise<ReportSection[]> {
  const metrics = mainMetrics(r.plan.k);
  const lvl = `${Math.round(r.plan.bootstrap.level * 100)} %`;
  const sections: ReportSection[] = [];
  const settingsTable: ReportTable = {
    id: "settings",
    title: "Settings",
    header: ["setting", ...SETTING_COLUMNS],
    rows: r.plan.settings.map((s) => [s.name, ...SETTING_COLUMNS.map((c) => param(s, c) || "–")]),
  };
  sections.push({ heading: "Protocol and chosen setting", text: protocolStatement(r), tables: [settingsTable], charts: [] });
  for (const sc of r.analysis.scopes) {
    const table: ReportTable = {
      id: `metrics-${sc.id}`,
      title: `Metrics on ${sc.description}`,
      caption: `Means over questions with percentile-bootstrap ${lvl} CIs (${r.plan.bootstrap.iterations} resamples, seed "${r.plan.bootstrap.seed}"); MRR@K is cut at K.`,
      header: ["setting", ...metrics],
      rows: sc.rows.map((row) => [row.setting, ...metrics.map((m) => `${fmt(row.metrics[m].mean)} [${fmt(row.metrics[m].lo)}, ${fmt(row.metrics[m].hi)}]`)]),
    };
    const tables = [table];
    if (sc.comparisons.length)
      tables.push({
        id: `comparisons-${sc.id}`,
        title: `Paired tests against the baseline "${r.plan.baseline}" (${sc.id})`,
        caption: `Two-sided paired t and randomisation (${r.plan.randomization.iterations} seeded sign flips) tests per question; p-values Holm-adjusted across this table, each test separately.`,
        header: ["setting", "metric", "n", "mean diff", "t", "p (t)", "p (t, Holm)", "p (rand.)", "p (rand., Holm)"],
        rows: sc.comparisons.map((c) => [c.setting, c.metric, String(c.n), fmt(c.meanDiff, 4), fmt(c.t, 2), fmt(c.pT, 4), fmt(c.pTHolm, 4), fmt(c.pRandomization, 4), fmt(c.pRandomizationHolm, 4)]),
      });
    sections.push({ heading: `Results: ${sc.id}`, tables, charts: [] });
  }
  if (r.analysis.folds)
    sections.push({
      heading: "Folds",
      tables: [
        {
          id: "folds",
          title: "Setting chosen per fold",
          header: ["fold", "dev questions", "test questions", "chosen", `dev ${r.plan.metric}`, `test ${r.plan.metric}`],
          rows: r.analysis.folds.map((f) => [String(f.fold), String(f.devQueries), String(f.testQueries), f.chosen, fmt(f.devScore, 4), fmt(f.testScore, 4)]),
        },
      ],
      charts: [],
    });
  const chart = await recallCurveChart(r);
  if (chart) sections.push({ heading: "Recall against K", tables: [], charts: [chart] });
  return sections;
}

/** Paths written by {@link writeSweepResults}. */
export interface SweepFiles {
  dir: string;
  files: string[];
}

/**
 * Write the results folder (see the module comment for its files).
 * @returns the folder and the files written.
 */
export async function writeSweepResults(r: SweepResult, dir: string): Promise<SweepFiles> {
  mkdirSync(join(dir, "charts"), { recursive: true });
  const files: string[] = [];
  const put = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    files.push(join(dir, name));
  };
  put("results.tsv", tsv(resultsRows(r)));
  put("curves.tsv", tsv(curveRows(r)));
  put("comparisons.tsv", tsv(comparisonRows(r)));
  if (r.analysis.folds)
    put(
      "folds.tsv",
      tsv([
        ["fold", "dev_queries", "test_queries", "chosen", "dev_score", "test_score"],
        ...r.analysis.folds.map((f) => [String(f.fold), String(f.devQueries), String(f.testQueries), f.chosen, num(f.devScore), num(f.testScore)]),
      ]),
    );
  const { plan, ...rest } = r;
  put("results.json", JSON.stringify({ ...rest, config: { ...plan } }, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) + "\n");
  const sections = await sweepSections(r);
  const title = `medsynth retrieval sweep: ${r.plan.name}`;
  const intro = `${r.plan.settings.length} settings on ${r.queries} ${r.dataset} questions against a corpus of ${r.corpusDocs} documents (${r.corpus}). ${protocolStatement(r)} Shared work: ${r.rankStats.bm25Indexes} BM25 index(es), dense vectors ${r.rankStats.denseBuilt ? "computed once" : "not needed"}${r.rankStats.rerankGrades ? `, ${r.rankStats.rerankGrades} reranker grades` : ""}.${r.relevantMissing ? ` ${r.relevantMissing} relevant documents are not in the corpus (misses).` : ""}`;
  for (const s of sections)
    for (const c of s.charts) {
      writeFileSync(join(dir, "charts", `${c.id}.svg`), c.svg);
      files.push(join(dir, "charts", `${c.id}.svg`));
    }
  put("report.md", reportToMarkdown(title, intro, sections));
  put("report.html", reportToHtml(title, intro, sections));
  return { dir, files };
}
