/**
 * The report's "Paper vs this run" section: the papers' published values beside this run's, and
 * their headline claims tested on this run.
 *
 * On by default when a config labels a model with `paperModel:` (the papers compared are those
 * whose tables name the labels), or for the papers `report.papers` lists; `report.papers: false`
 * turns it off. `medsynth reproduce <run folder>` recomputes it for an existing run.
 *
 * Three tables: every published value the run covers (published value and its interval, this
 * run's value with its 95 % CI over the same statistic and aggregation, the difference, whether
 * each lies in the other's interval); the headline claims with this run's statistic and a verdict
 * (reproduced / not reproduced / not covered); the published rows the run does not cover, with why.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunRecord } from "../types.ts";
import { latestRecords } from "../../results/results-file.ts";
import { fmt, type ReportTable } from "./tables.ts";
import { notARunFolder } from "./read-records.ts";
import type { ReportSection } from "./render.ts";
import { PAPER_IDS, PAPER_TITLES, papersOfModel, publishedInterval, publishedValues, type PaperId, type PublishedValue } from "./published/index.ts";
import { paperRun, type ClaimResult, type Coverage, type PaperRun, type RunStat } from "./paper-vs-run/common.ts";
import { medmetaClaims, medmetaCoverage, medmetaSampleNote } from "./paper-vs-run/medmeta.ts";
import { medconclusionClaims, medconclusionCoverage, medconclusionSampleNote } from "./paper-vs-run/medconclusion.ts";
import { rwesummaryClaims, rwesummaryCoverage, rwesummarySampleNote } from "./paper-vs-run/rwesummary.ts";

/** Section heading. */
export const PAPER_SECTION_HEADING = "Paper vs this run";

const COVERAGE: Record<PaperId, (run: PaperRun, v: PublishedValue) => Coverage> = { medmeta: medmetaCoverage, medconclusion: medconclusionCoverage, rwesummary: rwesummaryCoverage };
const CLAIMS: Record<PaperId, (run: PaperRun) => ClaimResult[]> = { medmeta: medmetaClaims, medconclusion: medconclusionClaims, rwesummary: rwesummaryClaims };
const SAMPLE: Record<PaperId, (run: PaperRun) => string> = { medmeta: medmetaSampleNote, medconclusion: medconclusionSampleNote, rwesummary: rwesummarySampleNote };

/** A config model as the section needs it: the name records carry (label or id) and its paper label. */
export interface PaperModelEntry {
  name: string;
  paperModel?: string;
}

/** One published value next to this run's. */
export interface PaperComparison {
  value: PublishedValue;
  /** The interval the paper gives (95 % CI, ±1.96·SE, or the LoA); null when it prints none. */
  publishedInterval: [number, number] | null;
  run: RunStat;
  /** This run − published (numbers only). */
  difference: number | null;
  /** The published value lies in this run's 95 % CI (null without a CI). */
  publishedInRunCi: boolean | null;
  /** This run's value lies in the published interval (null without one). */
  runInPublishedInterval: boolean | null;
}

/** A published value this run does not cover, and why. */
export interface PaperUncovered {
  value: PublishedValue;
  reason: string;
}

/** Everything the section shows, as data. */
export interface PaperVsRun {
  papers: PaperId[];
  covered: PaperComparison[];
  uncovered: PaperUncovered[];
  claims: ClaimResult[];
  /** Per paper, which items the run's values come from (the paper's own, or another sample). */
  samples: string[];
}

/**
 * The papers a config's section compares with: `report.papers` when given (false: none), else
 * the papers whose model names the models' `paperModel` labels use.
 */
export function sectionPapers(models: readonly PaperModelEntry[], papers?: readonly PaperId[] | false): PaperId[] {
  if (papers === false) return [];
  if (papers) return PAPER_IDS.filter((p) => papers.includes(p));
  const found = new Set(models.flatMap((m) => (m.paperModel ? papersOfModel(m.paperModel) : [])));
  return PAPER_IDS.filter((p) => found.has(p));
}

const within = (x: number, iv: [number, number] | null) => (iv ? x >= iv[0] - 1e-12 && x <= iv[1] + 1e-12 : null);

/** Compare every published value of `papers` with this run, and test the papers' claims. */
export function comparePapers(records: RunRecord[], models: readonly PaperModelEntry[], papers: readonly PaperId[]): PaperVsRun {
  const run = paperRun(records, models);
  const covered: PaperComparison[] = [];
  const uncovered: PaperUncovered[] = [];
  for (const v of publishedValues(papers)) {
    const c = COVERAGE[v.paper](run, v);
    if ("uncovered" in c) {
      uncovered.push({ value: v, reason: c.uncovered });
      continue;
    }
    const s = c.stat;
    const pi = publishedInterval(v);
    const numeric = typeof s.value === "number" && typeof v.value === "number" && Number.isFinite(s.value);
    covered.push({
      value: v,
      publishedInterval: pi,
      run: s,
      difference: numeric ? (s.value as number) - (v.value as number) : null,
      publishedInRunCi: typeof v.value === "number" && s.ciLow !== null && s.ciHigh !== null ? within(v.value, [s.ciLow, s.ciHigh]) : null,
      runInPublishedInterval: numeric ? within(s.value as number, pi) : null,
    });
  }
  return { papers: [...papers], covered, uncovered, claims: papers.flatMap((p) => CLAIMS[p](run)), samples: papers.map((p) => SAMPLE[p](run)) };
}

const rowLabel = (row: Record<string, string>) => Object.values(row).join(" · ");
const yn = (b: boolean | null) => (b === null ? "–" : b ? "yes" : "no");
const KIND: Record<string, string> = { ci95: "95 % CI", se: "±1.96·SE", loa95: "95 % LoA" };
/** A run value in the published value's precision plus one digit. */
function fmtRun(x: number | string, printed: string): string {
  if (typeof x === "string") return x;
  const m = /\.(\d+)/.exec(printed);
  return fmt(x, (m ? m[1].length : 0) + 1);
}

/** The three tables of the section from {@link comparePapers}. */
export function paperTables(res: PaperVsRun): ReportTable[] {
  const values: ReportTable = {
    id: "paper-vs-run-values",
    title: "Published values this run covers",
    caption:
      "Published: the value as printed and the interval the paper gives (its 95 % CI; ±1.96·SE where it prints a standard error; the limits of agreement). This run: the same statistic over this run's items — means with the t-based 95 % CI (Wilson for 0/1 values), paired statistics over items scored in both conditions — and n, the items (or pairs) behind it. Difference = this run − published.",
    header: ["paper", "table", "row", "column", "published", "published interval", "this run", "95 % CI", "n", "difference", "published in run CI", "run in published interval"],
    rows: res.covered.map((c) => [
      PAPER_TITLES[c.value.paper],
      c.value.table,
      rowLabel(c.value.row),
      c.value.column,
      c.value.printed,
      c.publishedInterval ? `[${fmt(c.publishedInterval[0])}, ${fmt(c.publishedInterval[1])}] (${KIND[c.value.pmKind ?? "ci95"]})` : "–",
      fmtRun(c.run.value, c.value.printed),
      c.run.ciLow === null || c.run.ciHigh === null ? "–" : `[${fmtRun(c.run.ciLow, c.value.printed)}, ${fmtRun(c.run.ciHigh, c.value.printed)}]`,
      String(c.run.n),
      c.difference === null ? (typeof c.run.value === "string" ? (c.run.value === c.value.value ? "same" : "differs") : "–") : fmtRun(c.difference, c.value.printed),
      yn(c.publishedInRunCi),
      yn(c.runInPublishedInterval),
    ]),
    values: res.covered.map((c) => ({
      paper: c.value.paper,
      table: c.value.table,
      row: c.value.row,
      column: c.value.column,
      published: c.value.value,
      pm: c.value.pm ?? null,
      pmKind: c.value.pmKind ?? null,
      publishedInterval: c.publishedInterval,
      run: c.run,
      difference: c.difference,
      publishedInRunCi: c.publishedInRunCi,
      runInPublishedInterval: c.runInPublishedInterval,
    })),
  };
  const claims: ReportTable = {
    id: "paper-vs-run-claims",
    title: "Headline claims, tested on this run",
    caption: "Each claim with the test and criterion behind its verdict: reproduced, not reproduced, or not covered (and why).",
    header: ["paper", "claim", "test", "published", "this run", "verdict", "detail"],
    rows: res.claims.map((c) => [PAPER_TITLES[c.paper], c.claim, c.test, c.published, c.thisRun, c.verdict, c.detail || "–"]),
    values: res.claims as unknown as Record<string, unknown>[],
  };
  // Uncovered values, one line per published row (and reason), its columns listed.
  const groups = new Map<string, { value: PublishedValue; reason: string; columns: string[] }>();
  for (const u of res.uncovered) {
    const key = JSON.stringify([u.value.paper, u.value.table, u.value.row, u.reason]);
    const g = groups.get(key);
    if (g) g.columns.push(u.value.column);
    else groups.set(key, { value: u.value, reason: u.reason, columns: [u.value.column] });
  }
  const uncovered: ReportTable = {
    id: "paper-vs-run-uncovered",
    title: "Published rows this run does not cover",
    header: ["paper", "table", "row", "columns", "why"],
    rows: [...groups.values()].map((g) => [PAPER_TITLES[g.value.paper], g.value.table, rowLabel(g.value.row), g.columns.join(", "), g.reason]),
    values: [...groups.values()].map((g) => ({ paper: g.value.paper, table: g.value.table, row: g.value.row, columns: g.columns, reason: g.reason })),
  };
  return [values, claims, uncovered];
}

/** The section from {@link comparePapers}' result. */
export function paperSection(res: PaperVsRun): ReportSection {
  const n = res.covered.length + res.uncovered.length;
  const count = (v: string) => res.claims.filter((c) => c.verdict === v).length;
  return {
    heading: PAPER_SECTION_HEADING,
    text: `${res.papers.map((p) => PAPER_TITLES[p]).join(", ")}: this run covers ${res.covered.length} of the ${n} published values. Headline claims: ${count("reproduced")} reproduced, ${count("not reproduced")} not reproduced, ${count("not covered")} not covered. Items: ${res.samples.join("; ")}. Models are matched to the papers' rows by their paperModel labels (docs/reproducing-the-papers.md).`,
    tables: paperTables(res),
    charts: [],
  };
}

/** The parts of a run's spec.json config the section reads. */
interface SpecConfig {
  models?: { id: string; label?: string; paperModel?: string }[];
  report?: { papers?: PaperId[] | false };
}

/** Config models as {@link PaperModelEntry}s, with optional extra labels (`name → paperModel`). */
export function paperModelEntries(config: SpecConfig | undefined, extra: Readonly<Record<string, string>> = {}): PaperModelEntry[] {
  return (config?.models ?? []).map((m) => {
    const name = m.label ?? m.id;
    const paperModel = extra[name] ?? extra[m.id] ?? m.paperModel;
    return paperModel ? { name, paperModel } : { name };
  });
}

/**
 * The section for a run's records and spec config, or null when it is off (no paperModel label
 * and no `report.papers`).
 */
export function paperSectionForConfig(records: RunRecord[], config: SpecConfig | undefined): ReportSection | null {
  const models = paperModelEntries(config);
  const papers = sectionPapers(models, config?.report?.papers);
  return papers.length ? paperSection(comparePapers(records, models, papers)) : null;
}

/**
 * Read a run folder for the section: the latest record per cell (only the cells of the current
 * spec when cells.json is there) and the spec's config.
 * @throws Error naming the folder when it does not exist or has no results.jsonl.
 */
export function readRunForPapers(runDir: string): { records: RunRecord[]; config: SpecConfig | undefined } {
  const resultsPath = join(runDir, "results.jsonl");
  if (!existsSync(resultsPath)) throw new Error(notARunFolder(runDir));
  let records = [...latestRecords(resultsPath)].map((l) => l.record);
  const cellsPath = join(runDir, "cells.json");
  if (existsSync(cellsPath)) {
    const keys = new Set((JSON.parse(readFileSync(cellsPath, "utf8")) as { keys: string[] }).keys);
    records = records.filter((r) => keys.has(r.key));
  }
  const specPath = join(runDir, "spec.json");
  const config = existsSync(specPath) ? (JSON.parse(readFileSync(specPath, "utf8")) as { config?: SpecConfig }).config : undefined;
  return { records, config };
}
