/**
 * `medsynth report <run-dir>`: reads spec.json, results.jsonl and (when present)
 * retrieval-eval.json of a run folder and writes report.md, report.html (standalone, inline SVG),
 * charts/*.svg and report.json (every table's numbers).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { RunRecord } from "../types.ts";
import { notARunFolder, readReportRecords } from "./read-records.ts";
import { skippedLinesText } from "../../results/results-file.ts";
import { columnsOf, matchesFilter, recordValues, sortByConfig } from "./columns.ts";
import {
  allColumnsTable,
  answerAccuracyTables,
  comparisonsTable,
  judgeVsJudgeTable,
  judgesOf,
  modelByVariantTable,
  perJudgeTable,
  rweTable,
  statusTable,
  subgroupTable,
  fmt,
  type ReportTable,
} from "./tables.ts";
import { barsWithCi, blandAltmanChart, paramSweep, type Chart } from "./charts.ts";
import { uncertaintyTable } from "./uncertainty.ts";
import { computeRweWeightedScore, RWE_DEFAULT_METRICS, type RweModelRow } from "../../judges/rwe-weighted-score.ts";
import { panelSection } from "./panel-section.ts";
import { humanRatingSections } from "./human-section.ts";
import { robustnessSection } from "./robustness-section.ts";
import { couplingSection } from "./coupling-section.ts";
import { reportToHtml, reportToMarkdown, type ReportSection } from "./render.ts";
import { usageSection } from "./usage-section.ts";
import { rweNoiseTable } from "./rwe-noise.ts";
import { medmetaAnalysisSection } from "./medmeta-analysis-section.ts";
import { sjrSection } from "./sjr-section.ts";
import { loadScimago, type ScimagoIndex } from "../../corpus/datasets/scimago.ts";
import { paperSectionForConfig } from "./paper-section.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** One row of retrieval-eval.json: macro means over a dataset's queries for one mode and K. */
export interface RetrievalEvalRow {
  dataset: string;
  mode: string;
  k: number;
  queries: number;
  recall: number;
  precision: number;
  ndcg: number;
  /** MRR@K: reciprocal rank of the first relevant hit within the top K. */
  mrrAtK: number;
  hit: number;
  /** Uncut MRR over the hits retrieved (100 per query by default). */
  mrr?: number;
  /** MAP (uncut average precision) over the hits retrieved. */
  map?: number;
}

/** Settings read from the run's spec.json (all optional). */
export interface ReportSettings {
  title?: string;
  subgroups?: string[];
  primaryMetric?: string;
  comparisons?: { metric: string; a: Record<string, unknown>; b: Record<string, unknown>; label?: string }[];
  /** Report every record of results.jsonl, not only the cells of the current spec (cells.json). */
  allRecords?: boolean;
  /** SCImago journal file (its own CSV export) for the MedConclusion journal subgroups (§5), already loaded. */
  scimago?: ScimagoIndex;
  /** Extra section (e.g. the RWESummary weighted score table) supplied by the caller. */
  extraSections?: (records: RunRecord[]) => ReportSection[];
}

/** Choose the primary column: explicit, else the first panel column, else rougeL, else the first column. */
export function primaryColumn(records: RunRecord[], explicit?: string): string | null {
  const cols = columnsOf(records);
  if (explicit) return explicit;
  return cols.find((c) => c.startsWith("judge:") && !c.includes("@")) ?? cols.find((c) => c === "rougeL" || c === "rougeL_fmeasure") ?? cols[0] ?? null;
}

/**
 * RWESummary weighted min–max score table from per-model means: panel columns
 * `judge:rwe-*.<metric>` map to the rubric metric `<metric>` and `latencySeconds` to
 * `inference_time`. Null unless at least two models have every metric.
 */
export function rweWeightedTable(perModel: Record<string, Record<string, number>>): ReportTable | null {
  const rows: RweModelRow[] = [];
  for (const [model, v] of Object.entries(perModel)) {
    const values: Record<string, number> = {};
    for (const [col, x] of Object.entries(v)) {
      if (col === "latencySeconds") values.inference_time = x;
      else if (col.startsWith("judge:rwe-")) values[col.slice(col.indexOf(".") + 1)] = x;
    }
    if (RWE_DEFAULT_METRICS.every((m) => values[m.id] !== undefined)) rows.push({ model, values });
  }
  if (rows.length < 2) return null;
  const res = computeRweWeightedScore(rows);
  return {
    id: "rwe-weighted",
    title: "RWESummary weighted score (min–max normalised across models)",
    caption: `Weights: ${RWE_DEFAULT_METRICS.map((m) => `${m.id} ${m.weight}${m.direction === "lower" ? " (lower is better)" : ""}`).join(", ")}; weighted sum renormalised to 0–100 % across models.${res.degenerateMetrics.length ? ` Metrics equal for every model: ${res.degenerateMetrics.join(", ")}.` : ""}`,
    header: ["model", ...RWE_DEFAULT_METRICS.map((m) => `${m.id} (norm.)`), "weighted sum", "score %"],
    rows: res.models.map((m) => [m.model, ...RWE_DEFAULT_METRICS.map((x) => fmt(m.normalized[x.id])), fmt(m.weightedSum, 2), fmt(m.score, 1)]),
    values: res.models as unknown as Record<string, unknown>[],
  };
}

/**
 * Warnings for report settings that match nothing: a primary metric or comparison metric that no
 * record carries, a comparison filter that selects no record, a subgroup field no item has.
 */
export function settingsNotes(records: RunRecord[], settings: ReportSettings): string[] {
  const cols = new Set(columnsOf(records));
  const notes: string[] = [];
  const known = () => [...cols].filter((c) => !c.includes("@")).join(", ");
  if (settings.primaryMetric && !cols.has(settings.primaryMetric))
    notes.push(`primaryMetric "${settings.primaryMetric}" is not a column of these records (columns: ${known()}); the first available column was used.`);
  for (const c of settings.comparisons ?? []) {
    const label = c.label ?? `${JSON.stringify(c.a)} vs ${JSON.stringify(c.b)}`;
    if (!cols.has(c.metric)) notes.push(`comparison "${label}": metric "${c.metric}" is not a column of these records.`);
    for (const side of ["a", "b"] as const) if (!records.some((r) => matchesFilter(r, c[side]))) notes.push(`comparison "${label}": filter ${side} ${JSON.stringify(c[side])} selects no record.`);
  }
  for (const f of settings.subgroups ?? []) if (!records.some((r) => r.itemMeta[f] !== undefined && r.itemMeta[f] !== null)) notes.push(`subgroup field "${f}" is not set on any item.`);
  // Metrics that never produced a number, with the reason the records give (model not available …).
  const reasons = new Map<string, string>();
  for (const r of records) for (const [k, v] of Object.entries(r.metricNotes ?? {})) if (!reasons.has(k)) reasons.set(k, v);
  for (const [k, v] of reasons) if (!cols.has(k)) notes.push(`metric ${k} was not computed: ${v}`);
  return notes;
}

/** Retrieval table from retrieval-eval.json rows. */
export function retrievalTable(rows: RetrievalEvalRow[]): ReportTable {
  return {
    id: "retrieval",
    title: "Retrieval against golden PMIDs (macro means over queries)",
    header: ["dataset", "mode", "K", "queries", "recall@K", "precision@K", "nDCG@K", "MRR@K", "hit@K", "MRR", "MAP"],
    rows: rows.map((r) => [
      r.dataset,
      r.mode,
      String(r.k),
      String(r.queries),
      fmt(r.recall),
      fmt(r.precision),
      fmt(r.ndcg),
      fmt(r.mrrAtK),
      fmt(r.hit),
      r.mrr === undefined ? "–" : fmt(r.mrr),
      r.map === undefined ? "–" : fmt(r.map),
    ]),
    caption: "MRR@K is cut at K; MRR and MAP are uncut, over the hits retrieved per query (TREC export depth, 100 by default).",
    values: rows as unknown as Record<string, unknown>[],
  };
}

/**
 * Build all sections from records (pure apart from SVG rendering).
 */
export async function buildSections(records: RunRecord[], settings: ReportSettings, retrieval: RetrievalEvalRow[] = []): Promise<ReportSection[]> {
  const sections: ReportSection[] = [];
  sections.push({ heading: "Overview", tables: [statusTable(records)], charts: [] });
  const primary = primaryColumn(records, settings.primaryMetric);
  const byKind: [string, string][] = [
    ["synthesis", "Evidence synthesis (MedMeta / MedEvidence / MS²)"],
    ["conclusion", "Conclusion generation (MedConclusion)"],
    ["rwe", "Real-world-evidence summaries (RWESummary)"],
  ];
  for (const [kind, heading] of byKind) {
    const rs = records.filter((r) => r.taskKind === kind);
    if (!rs.length) continue;
    const tables: ReportTable[] = [];
    const charts: Chart[] = [];
    const cols = columnsOf(rs).filter((c) => !c.includes("@"));
    const main = primaryColumn(rs, settings.primaryMetric && cols.includes(settings.primaryMetric) ? settings.primaryMetric : undefined);
    const panelCols = cols.filter((c) => c.startsWith("judge:"));
    if (kind === "conclusion" && panelCols.some((c) => judgesOf(rs, c).length >= 2)) {
      // MedConclusion (Tables 2 and 5): the primary and the secondary judge separately, the panel
      // aggregate only as the last column.
      if (main && !main.startsWith("judge:")) tables.push(modelByVariantTable(rs, main, `main-${kind}-${main}`));
      for (const c of panelCols) {
        const t = perJudgeTable(rs, c, `per-judge-${kind}-${c}`);
        tables.push(t ?? modelByVariantTable(rs, c, `main-${kind}-${c}`));
      }
    } else for (const c of [...new Set([main, ...panelCols].filter((x): x is string => !!x))]) tables.push(modelByVariantTable(rs, c, `main-${kind}-${c}`));
    const unc = main ? uncertaintyTable(rs, main, `uncertainty-${kind}-${main}`) : null;
    if (unc) tables.push(unc);
    tables.push({ ...allColumnsTable(rs, cols), id: `all-${kind}` });
    if (kind === "synthesis") tables.push(...answerAccuracyTables(rs));
    if (kind === "rwe") {
      const t = rweTable(rs);
      if (t) {
        tables.push(t.table);
        const w = rweWeightedTable(t.perModel);
        if (w) {
          tables.push(w);
          const noise = rweNoiseTable(rs);
          if (noise) tables.push(noise);
        }
      }
    }
    if (main) {
      const b = await barsWithCi(rs, main);
      if (b) charts.push({ ...b, id: `${b.id}-${kind}`.replace(/[^A-Za-z0-9_.-]/g, "_") });
      for (const [param, title] of [
        ["k", `K sweep: ${main} against K`],
        ["fraction", `Negation dose–response: ${main} against the fraction of negated abstracts`],
      ] as const) {
        const s = await paramSweep(rs, param, main, title);
        if (s) charts.push({ ...s, id: `${s.id}-${kind}`.replace(/[^A-Za-z0-9_.-]/g, "_") });
      }
    }
    sections.push({ heading, tables, charts });
  }
  // MedMeta's own analyses (κ on binned scores, feasibility, topic, year, BERTScore beside the judges).
  const medmeta = records.filter((r) => r.taskKind === "synthesis" && r.dataset.includes("medmeta"));
  if (medmeta.length) {
    const judged = columnsOf(medmeta).filter((c) => c.startsWith("judge:") && !c.includes("@"));
    const col = settings.primaryMetric && judged.includes(settings.primaryMetric) ? settings.primaryMetric : (judged[0] ?? null);
    const mm = medmetaAnalysisSection(medmeta, col);
    if (mm) sections.push(mm);
  }
  // MedConclusion §5: journal subgroups by SJR, quartile and subject category.
  const conclusions = records.filter((r) => r.taskKind === "conclusion");
  if (conclusions.length && (settings.scimago || conclusions.some((r) => r.itemMeta.sjr !== undefined && r.itemMeta.sjr !== null)))
    sections.push(await sjrSection(conclusions, settings.scimago ?? null, { primaryMetric: settings.primaryMetric }));
  const jj = judgeVsJudgeTable(records);
  if (jj && jj.rows.length) {
    const charts: Chart[] = [];
    const judgeCols = columnsOf(records).filter((c) => c.includes("@"));
    const first = judgeCols[0]?.split("@")[0];
    const pair = judgeCols.filter((c) => c.split("@")[0] === first).slice(0, 2);
    if (pair.length === 2) {
      const vals = records.map(recordValues).filter((v) => v[pair[0]] !== undefined && v[pair[1]] !== undefined);
      const ch = await blandAltmanChart(
        "bland-altman-judges",
        `Bland–Altman: ${pair[0].split("@")[1]} vs ${pair[1].split("@")[1]} on ${first}`,
        vals.map((v) => v[pair[0]]),
        vals.map((v) => v[pair[1]]),
      );
      if (ch) charts.push({ ...ch, id: ch.id.replace(/[^A-Za-z0-9_.-]/g, "_") });
    }
    sections.push({ heading: "Judge vs judge (MedConclusion Table 5)", tables: [jj], charts });
  }
  const ps = panelSection(records);
  if (ps) sections.push(ps);
  const rob = await robustnessSection(records);
  if (rob) sections.push(rob);
  const coupling = couplingSection(records);
  if (coupling) sections.push(coupling);
  if (retrieval.length) sections.push({ heading: "Retrieval", tables: [retrievalTable(retrieval)], charts: [] });
  const comp = comparisonsTable(records, settings.comparisons ?? []);
  if (comp) sections.push({ heading: "Paired comparisons", tables: [comp], charts: [] });
  if (primary && settings.subgroups?.length) {
    const tables = settings.subgroups.map((f) => subgroupTable(records, f, primary)).filter((t): t is ReportTable => !!t);
    if (tables.length) sections.push({ heading: "Subgroups", text: "Top and bottom groups by the primary score (MedConclusion §5).", tables, charts: [] });
  }
  if (settings.extraSections) sections.push(...settings.extraSections(records));
  const notes = settingsNotes(records, settings);
  if (notes.length)
    sections.push({
      heading: "Notes on the report settings",
      tables: [{ id: "notes", title: "Settings that matched nothing, and metrics that were not computed", header: ["note"], rows: notes.map((n) => [n]) }],
      charts: [],
    });
  return sections;
}

/**
 * Write report.json — `JSON.stringify({ title, sections }, null, 2)` byte for byte — streamed:
 * values are written as they are walked (arrays and objects element by element, leaves through
 * `JSON.stringify`) into a 1 MiB buffer, so no string of the whole file, or of one section, is
 * built (at 10⁶ cells the panel diagnostics carry several values per record).
 * @param extra fields written between `title` and `sections` (e.g. `skippedLines`); none by default.
 */
export function writeReportJson(path: string, title: string, sections: ReportSection[], extra: Record<string, unknown> = {}): void {
  const fd = openSync(path, "w");
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = () => {
    if (pending.length) writeSync(fd, pending.join(""));
    pending = [];
    pendingLength = 0;
  };
  const put = (t: string) => {
    pending.push(t);
    pendingLength += t.length;
    if (pendingLength >= 1 << 20) flush();
  };
  try {
    streamJson({ title, ...extra, sections: sections.map((s) => ({ heading: s.heading, tables: s.tables, charts: s.charts.map((c) => ({ id: c.id, title: c.title, data: c.data })) })) }, "", put);
    flush();
  } finally {
    closeSync(fd);
  }
}

/** A value as JSON.stringify sees it: the result of its `toJSON` when it has one. */
function withToJson(v: unknown): unknown {
  return v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function" ? (v as { toJSON: () => unknown }).toJSON() : v;
}

/**
 * `JSON.stringify(value, null, 2)` written piece by piece through `put` (same bytes): `toJSON`
 * applied, undefined / functions / symbols left out of objects and written as null in arrays,
 * empty arrays and objects as `[]` / `{}`. Returns false when the value is not serialisable
 * (undefined, a function, a symbol), so the caller leaves it out.
 */
function streamJson(value: unknown, indent: string, put: (t: string) => void, resolved = false): boolean {
  const v = resolved ? value : withToJson(value);
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return false;
  if (v === null || typeof v !== "object") {
    put(JSON.stringify(v));
    return true;
  }
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (!v.length) {
      put("[]");
      return true;
    }
    put("[");
    v.forEach((x, i) => {
      put(`${i ? "," : ""}\n${inner}`);
      if (!streamJson(x, inner, put)) put("null");
    });
    put(`\n${indent}]`);
    return true;
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const x = withToJson((v as Record<string, unknown>)[k]);
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    put(`${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `);
    first = false;
    streamJson(x, inner, put, true);
  }
  put(first ? "{}" : `\n${indent}}`);
  return true;
}

/** Paths written by {@link writeReport}. */
export interface ReportFiles {
  markdown: string;
  html: string;
  json: string;
  charts: string[];
  /** What the report warns about (lines of results.jsonl it left out), one line each; absent when none. */
  warnings?: string[];
}

/**
 * Write the report of a run folder.
 * @throws Error naming the folder when it does not exist or has no results.jsonl (`notARunFolder` in read-records.ts).
 */
export async function writeReport(runDir: string, settings: ReportSettings = {}): Promise<ReportFiles> {
  const resultsPath = join(runDir, "results.jsonl");
  if (!existsSync(resultsPath)) throw new Error(notARunFolder(runDir));
  const cellsPath = join(runDir, "cells.json");
  const cellsJson = existsSync(cellsPath) ? (JSON.parse(readFileSync(cellsPath, "utf8")) as { keys: string[]; matrixCells?: number; shard?: unknown }) : null;
  let cellKeys: string[] = cellsJson?.keys ?? [];
  let planned = cellsJson && !settings.allRecords ? new Set(cellKeys) : null;
  const read = readReportRecords(resultsPath, planned);
  let { records } = read;
  const { spent, otherRecords } = read;
  // Cells of the run's matrix without a record: the plan's cells (cells.json), or the whole
  // matrix's when a partial merge recorded its size (a shard folder's own cells.json lists its
  // share of the matrix: only those count there).
  const matrixCells = planned ? (typeof cellsJson?.matrixCells === "number" && cellsJson.shard === undefined ? Math.max(cellsJson.matrixCells, planned.size) : planned.size) : null;
  const missingCells = matrixCells === null ? 0 : matrixCells - read.records.length;
  planned = null;
  const skipped = skippedLinesText(read.malformedLines, read.truncatedTail, read.tornLine ?? undefined);
  let spec: {
    config?: {
      name?: string;
      report?: { subgroups?: string[]; primaryMetric?: string; scimago?: string };
      comparisons?: ReportSettings["comparisons"];
      prices?: Record<string, { input: number; output: number }>;
      models?: { id: string; label?: string }[];
      workflows?: { id: string }[];
    };
  } = {};
  if (existsSync(join(runDir, "spec.json"))) spec = JSON.parse(readFileSync(join(runDir, "spec.json"), "utf8"));
  // Tables list models, workflows, judges and metrics in the config's order, not in the order
  // concurrent cells happened to finish (which changes from run to run).
  records = sortByConfig(records, { cellKeys, models: (spec.config?.models ?? []).map((m) => m.label ?? m.id), workflows: (spec.config?.workflows ?? []).map((w) => w.id) });
  cellKeys = []; // the plan's keys (10⁶ strings at scale) are not needed past this point
  const retrievalPath = join(runDir, "retrieval-eval.json");
  const retrieval: RetrievalEvalRow[] = existsSync(retrievalPath) ? (JSON.parse(readFileSync(retrievalPath, "utf8")).rows ?? []) : [];
  const merged: ReportSettings = {
    subgroups: settings.subgroups ?? spec.config?.report?.subgroups ?? [],
    primaryMetric: settings.primaryMetric ?? spec.config?.report?.primaryMetric,
    comparisons: settings.comparisons ?? spec.config?.comparisons ?? [],
    extraSections: settings.extraSections,
    scimago: settings.scimago ?? (spec.config?.report?.scimago ? loadScimago(spec.config.report.scimago) : undefined),
  };
  const sections = await buildSections(records, merged, retrieval);
  // Published tables beside this run (on when a model has a paperModel label, or report.papers).
  const paper = paperSectionForConfig(records, spec.config as Parameters<typeof paperSectionForConfig>[1]);
  if (paper) sections.push(paper);
  const idByLabel = new Map((spec.config?.models ?? []).map((m) => [m.label ?? m.id, m.id]));
  sections.push(usageSection(spent, records, spec.config?.prices ?? {}, (r) => idByLabel.get(r.model) ?? r.model));
  sections.push(...humanRatingSections(runDir));
  const title = settings.title ?? `medsynth report: ${spec.config?.name ?? runDir}`;
  const envPath = join(runDir, "env.json");
  const corpusNote = existsSync(envPath) ? (JSON.parse(readFileSync(envPath, "utf8")) as { retrievalCorpusNote?: string | null }).retrievalCorpusNote : null;
  let intro = `${records.length} records from ${resultsPath}${otherRecords ? ` (the cells of the current spec.json; ${otherRecords} records of earlier configs in the same folder are left out)` : ""}. Every number is computed from these records; means carry t-based 95 % confidence intervals over items and repeats. Read every output next to its reference, evidence and judge verdicts with \`${medsynthCommand()} view ${runDir}\`.${corpusNote ? ` Note: ${corpusNote}` : ""}`;
  const extra: Record<string, unknown> = {};
  if (missingCells > 0) {
    intro += ` ${missingCells} of the ${matrixCells} cells of the run's matrix (cells.json) have no record (not run yet, or in shards not merged): the tables cover the ${records.length} that have one.`;
    extra.missingCells = { matrixCells, withRecord: records.length, missing: missingCells };
  }
  if (skipped) {
    intro += ` Left out of ${resultsPath}: ${skipped}.`;
    extra.skippedLines = {
      file: resultsPath,
      malformedLines: read.malformedLines.length,
      firstMalformedLines: [...read.malformedLines].sort((a, b) => a - b).slice(0, 20),
      tornLastLine: read.tornLine,
    };
  }
  const chartsDir = join(runDir, "charts");
  mkdirSync(chartsDir, { recursive: true });
  const chartFiles: string[] = [];
  for (const s of sections)
    for (const c of s.charts) {
      const p = join(chartsDir, `${c.id}.svg`);
      writeFileSync(p, c.svg);
      chartFiles.push(p);
    }
  const files = { markdown: join(runDir, "report.md"), html: join(runDir, "report.html"), json: join(runDir, "report.json"), charts: chartFiles };
  writeFileSync(files.markdown, reportToMarkdown(title, intro, sections));
  writeFileSync(files.html, reportToHtml(title, intro, sections));
  writeReportJson(files.json, title, sections, extra);
  return skipped ? { ...files, warnings: [`${resultsPath}: ${skipped}`] } : files;
}
