/**
 * Alignment from a study's collected ratings (`medsynth validate --human <study>`):
 * - rater–rater agreement per rubric dimension: ICC (Shrout & Fleiss, complete tasks × raters),
 *   Krippendorff's α (interval; nominal for binary scales; missing ratings allowed) and, for
 *   binary dimensions, Cohen's κ for every pair of raters;
 * - human vs LLM panel per dimension, overall and per workflow configuration: the mean human
 *   rating of each cell against the panel aggregate on the run record, by `alignScores` (Pearson,
 *   Spearman, Bland–Altman bias and limits of agreement, paired t, Cohen's d_z);
 * - pairwise studies: the crosstab of human preference × the panel's preference (from the panel
 *   aggregate of the study's first dimension) with the agreement rate.
 * Calibration tasks are left out. The statistics are judges/' functions.
 *
 * @see MedMeta (seed 001), human validation of the LLM judges.
 */
import { alignScores, type AlignmentResult } from "../../judges/alignment.ts";
import { cohenKappa, type KappaResult } from "../../judges/stats/kappa.ts";
import { icc, type IccResult } from "../../judges/stats/icc.ts";
import { krippendorffAlpha, type KrippendorffAlpha } from "../../judges/stats/krippendorff.ts";
import type { RunRecord } from "../../results/run-record.ts";
import type { Rating } from "./store.ts";
import { studyDimensions, type Study } from "./study.ts";

/** Agreement among raters on one dimension. */
export interface RaterAgreement {
  dimension: string;
  /** Tasks rated by at least one rater. */
  tasks: number;
  /** ICC over tasks every rater rated; null (with a note) when fewer than 2 such tasks or 1 rater. */
  icc: IccResult | null;
  alpha: KrippendorffAlpha | null;
  /** Binary dimensions: Cohen's κ per pair of raters. */
  kappa: { raters: [string, string]; result: KappaResult }[];
  notes: string[];
}

/** Human vs panel on one dimension for one group of cells. */
export interface HumanPanelAlignment {
  dimension: string;
  /** "all" or a workflow configuration label. */
  group: string;
  result: AlignmentResult | null;
  /** Why the result is null (e.g. fewer than 3 cells with both scores). */
  note: string | null;
}

/** Pairwise preference crosstab: human (rows a/b/tie) × panel (a/b/tie/missing). */
export interface PreferenceCrosstab {
  dimension: string;
  table: Record<"a" | "b" | "tie", Record<"a" | "b" | "tie" | "missing", number>>;
  /** Ratings where the panel gave both cells a score. */
  n: number;
  /** Share of those where human and panel prefer the same side (ties count as a side). */
  agreement: number | null;
}

/** The whole human-alignment report. */
export interface HumanAlignmentReport {
  study: string;
  mode: Study["mode"];
  raters: string[];
  ratings: number;
  calibrationRatingsLeftOut: number;
  agreement: RaterAgreement[];
  humanVsPanel: HumanPanelAlignment[];
  preferences: PreferenceCrosstab[];
}

/** Panel aggregate of a record for `<rubric>.<dim>`, or null. */
export function panelValue(r: RunRecord | undefined, dimId: string): number | null {
  if (!r) return null;
  const dot = dimId.indexOf(".");
  const v = r.panel?.scores?.[dimId.slice(0, dot)]?.[dimId.slice(dot + 1)]?.value;
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** Rater agreement on one dimension from single-mode ratings. */
export function raterAgreement(dimension: string, binary: boolean, raters: readonly string[], ratings: readonly Rating[]): RaterAgreement {
  const tasks = [...new Set(ratings.filter((r) => typeof r.scores[dimension] === "number").map((r) => r.task))].sort();
  const value = new Map(ratings.map((r) => [`${r.rater}\u0000${r.task}`, r.scores[dimension]] as const));
  const get = (rater: string, task: string) => value.get(`${rater}\u0000${task}`) ?? null;
  const notes: string[] = [];
  let iccRes: IccResult | null = null;
  let alpha: KrippendorffAlpha | null = null;
  const complete = tasks.filter((t) => raters.every((r) => get(r, t) !== null));
  if (raters.length < 2) notes.push("one rater: no agreement statistics");
  else if (complete.length < 2) notes.push(`ICC needs at least 2 tasks rated by all ${raters.length} raters (have ${complete.length})`);
  else iccRes = icc(complete.map((t) => raters.map((r) => get(r, t))));
  if (raters.length >= 2) {
    try {
      alpha = krippendorffAlpha(
        raters.map((r) => tasks.map((t) => get(r, t))),
        binary ? "nominal" : "interval",
      );
    } catch (err) {
      notes.push(`Krippendorff's α: ${(err as Error).message}`);
    }
  }
  const kappa: RaterAgreement["kappa"] = [];
  if (binary) {
    for (let i = 0; i < raters.length; i++) {
      for (let j = i + 1; j < raters.length; j++) {
        const lab = (r: string) => tasks.map((t) => (get(r, t) === null ? null : String(get(r, t))));
        kappa.push({ raters: [raters[i], raters[j]], result: cohenKappa(lab(raters[i]), lab(raters[j])) });
      }
    }
  }
  return { dimension, tasks: tasks.length, icc: iccRes, alpha, kappa, notes };
}

function align(dimension: string, group: string, items: { id: string; human: number | null; judge: number | null }[]): HumanPanelAlignment {
  try {
    return { dimension, group, result: alignScores(items), note: null };
  } catch (err) {
    return { dimension, group, result: null, note: (err as Error).message };
  }
}

/**
 * Compute the report.
 * @param records the run's records by cell key (checked unchanged by `checkStudyRun`)
 * @param ratings every stored rating of the study
 */
export function humanAlignment(study: Study, records: Map<string, RunRecord>, ratings: readonly Rating[]): HumanAlignmentReport {
  const tasks = new Map(study.tasks.map((t) => [t.id, t] as const));
  const used = ratings.filter((r) => tasks.get(r.task) && !tasks.get(r.task)!.calibration);
  const raters = study.raters.map((r) => r.id);
  const dims = studyDimensions(study);
  const report: HumanAlignmentReport = {
    study: study.name,
    mode: study.mode,
    raters,
    ratings: used.length,
    calibrationRatingsLeftOut: ratings.length - used.length,
    agreement: [],
    humanVsPanel: [],
    preferences: [],
  };
  if (study.mode === "single") {
    for (const d of dims) {
      report.agreement.push(raterAgreement(d.id, d.rubric.scale.type === "binary", raters, used));
      // mean human rating per task (cell) vs the panel aggregate of that cell
      const perTask = new Map<string, number[]>();
      for (const r of used) {
        const v = r.scores[d.id];
        if (typeof v === "number") perTask.set(r.task, [...(perTask.get(r.task) ?? []), v]);
      }
      const items = [...perTask].map(([taskId, vs]) => {
        const t = tasks.get(taskId)!;
        return { id: taskId, config: t.configs[0], human: vs.reduce((a, b) => a + b, 0) / vs.length, judge: panelValue(records.get(t.keys[0]), d.id) };
      });
      report.humanVsPanel.push(align(d.id, "all", items));
      for (const c of [...new Set(items.map((i) => i.config))].sort())
        report.humanVsPanel.push(
          align(
            d.id,
            c,
            items.filter((i) => i.config === c),
          ),
        );
    }
  } else {
    const d = dims[0];
    const table: PreferenceCrosstab["table"] = { a: { a: 0, b: 0, tie: 0, missing: 0 }, b: { a: 0, b: 0, tie: 0, missing: 0 }, tie: { a: 0, b: 0, tie: 0, missing: 0 } };
    let n = 0;
    let agree = 0;
    for (const r of used) {
      if (!r.preference) continue;
      const t = tasks.get(r.task)!;
      const va = panelValue(records.get(t.keys[0]), d.id);
      const vb = panelValue(records.get(t.keys[1]), d.id);
      const panel = va === null || vb === null ? "missing" : va > vb ? "a" : vb > va ? "b" : "tie";
      table[r.preference][panel]++;
      if (panel !== "missing") {
        n++;
        if (panel === r.preference) agree++;
      }
    }
    report.preferences.push({ dimension: d.id, table, n, agreement: n ? agree / n : null });
  }
  return report;
}

const f = (v: number | null | undefined, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(d));

/** A Markdown table cell: `|` escaped and line breaks flattened (labels are `model | workflow | params`). */
const cell = (v: unknown): string => String(v).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** The report as Markdown tables (the `validate --human` output and the report section). */
export function humanAlignmentMarkdown(r: HumanAlignmentReport): string {
  const out: string[] = [
    `## Human ratings: study "${r.study}"`,
    "",
    `${r.raters.length} raters (${r.raters.join(", ")}), ${r.ratings} ratings (${r.calibrationRatingsLeftOut} calibration ratings left out), mode ${r.mode}.`,
    "",
  ];
  if (r.agreement.length) {
    out.push("### Rater–rater agreement", "", "| dimension | tasks | ICC(2,1) | ICC(2,k) | ICC n | Krippendorff α | Cohen's κ (pairs) | notes |", "|---|---|---|---|---|---|---|---|");
    for (const a of r.agreement) {
      out.push(
        `| ${cell(a.dimension)} | ${a.tasks} | ${f(a.icc?.icc21)} | ${f(a.icc?.icc2k)} | ${a.icc?.n ?? "–"} | ${f(a.alpha?.alpha)} | ${cell(a.kappa.map((k) => `${k.raters.join("–")} ${f(k.result.kappa)}`).join("; ") || "–")} | ${cell(a.notes.join("; "))} |`,
      );
    }
    out.push("");
  }
  if (r.humanVsPanel.length) {
    out.push(
      "### Human (mean of raters) vs LLM panel",
      "",
      "| dimension | group | n | Pearson r | Spearman ρ | bias (panel − human) | LoA | paired t | p | Cohen's d_z | notes |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
    );
    for (const h of r.humanVsPanel) {
      const a = h.result;
      out.push(
        a
          ? `| ${cell(h.dimension)} | ${cell(h.group)} | ${a.n} | ${f(a.pearson.estimate)} | ${f(a.spearman.estimate)} | ${f(a.blandAltman.bias)} | ${f(a.blandAltman.loaLower)} to ${f(a.blandAltman.loaUpper)} | ${f(a.pairedT.t)} | ${f(a.pairedT.p, 4)} | ${f(a.cohenDz)} | ${cell(a.notes.join("; "))} |`
          : `| ${cell(h.dimension)} | ${cell(h.group)} | – | – | – | – | – | – | – | – | ${cell(h.note ?? "")} |`,
      );
    }
    out.push("");
  }
  for (const p of r.preferences) {
    out.push(`### Pairwise preference: human × panel (${p.dimension})`, "", "| human \\ panel | A | B | tie | panel missing |", "|---|---|---|---|---|");
    for (const k of ["a", "b", "tie"] as const) out.push(`| ${k === "tie" ? "tie" : k.toUpperCase()} | ${p.table[k].a} | ${p.table[k].b} | ${p.table[k].tie} | ${p.table[k].missing} |`);
    out.push("", `Agreement: ${p.agreement === null ? "–" : `${(p.agreement * 100).toFixed(1)} %`} of ${p.n} ratings with both panel scores.`, "");
  }
  return out.join("\n");
}
