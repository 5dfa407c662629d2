/**
 * The report's robustness section (issue 15): for runs with perturbed evidence (Negated-RAG's
 * `fraction`, Perturbed-/Critic-RAG's `strength`), the robustness curve (answer accuracy by
 * strength with Wilson 95% CIs, per model × workflow × operator, as a table and a chart), the
 * misleading-rate table (with how many eligible cells were really perturbed and how many
 * abstained), the perturbed cells left unchanged with their reason, perturbation uptake and
 * grounding per model × workflow (lexical baseline; LLM judge columns when `grounding:llm` ran),
 * and the oracle gap (Golden-RAG − Standard-RAG) on answer accuracy. Every table has a caption
 * defining its numbers.
 */
import { misleadingRate, oracleGap, robustnessCurve, type RobustnessRow } from "../../judges/robustness.ts";
import type { RunRecord } from "../types.ts";
import { renderSvg, type Chart } from "./charts.ts";
import { groupBy, recordValues } from "./columns.ts";
import type { ReportSection } from "./render.ts";
import { meanCi, type ReportTable } from "./tables.ts";

const fmt = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? "–" : x.toFixed(d));

/**
 * Workflow label carrying the operator (`perturbed-rag[numeric]`, `perturbed-rag[swap:outcome]`),
 * so curves of different operators (and swapped elements) stay apart.
 */
export function workflowOf(r: RunRecord): string {
  const op = r.params.op;
  if (typeof op !== "string") return r.workflow;
  const element = typeof r.params.element === "string" ? `:${r.params.element}` : "";
  return `${r.workflow}[${op}${element}${typeof r.params.also === "string" && r.params.also ? `+${r.params.also}` : ""}]`;
}

/** Perturbation strength of a record: Golden-RAG 0 (clean), Negated-RAG `fraction`, else `strength`, else null (not perturbed). */
export function strengthOf(r: RunRecord): number | null {
  if (r.workflow === "golden-rag") return 0;
  if (r.workflow === "negated-rag") return typeof r.params.fraction === "number" ? r.params.fraction : 1;
  if (r.workflow === "perturbed-rag") return typeof r.params.strength === "number" ? r.params.strength : 1;
  if (r.workflow === "critic-rag") return typeof r.params.op === "string" ? (typeof r.params.strength === "number" ? r.params.strength : 1) : 0;
  return null;
}

/**
 * Whether the perturbation changed a record's evidence: some recorded step applied
 * (Perturbed-/Critic-RAG), or some abstract was negated (Negated-RAG); undefined when the record
 * says nothing (clean workflows).
 */
export function perturbationApplied(r: RunRecord): boolean | undefined {
  const p = r.intermediate.perturbation as { steps?: { applied?: boolean }[] } | undefined;
  if (p?.steps) return p.steps.some((s) => s.applied === true);
  const negated = r.intermediate.negatedIds;
  if (Array.isArray(negated)) return negated.length > 0;
  return undefined;
}

/** Robustness rows of the finished records that carry an answer label and a gold answer. */
export function robustnessRows(records: readonly RunRecord[]): RobustnessRow[] {
  const rows: RobustnessRow[] = [];
  for (const r of records) {
    const strength = strengthOf(r);
    const gold = r.itemMeta.referenceAnswer;
    if (strength === null || r.status !== "ok" || typeof gold !== "string") continue;
    const applied = perturbationApplied(r);
    const abstained = (r.intermediate.critic as { abstained?: boolean } | undefined)?.abstained === true;
    rows.push({
      item: r.itemId,
      model: r.model,
      workflow: workflowOf(r),
      strength,
      answer: r.labels?.answer_label_lexical ?? null,
      gold,
      ...(abstained ? { abstained } : {}),
      ...(applied !== undefined ? { applied } : {}),
    });
  }
  return rows;
}

async function curveChart(points: ReturnType<typeof robustnessCurve>): Promise<Chart | null> {
  if (points.length < 2) return null;
  const data = points.map((p) => ({ series: `${p.model} · ${p.workflow}`, strength: p.strength, accuracy: p.accuracy, lo: p.low, hi: p.high, n: p.n }));
  const x = { field: "strength", type: "quantitative" as const, title: "perturbation strength", scale: { padding: 12 } };
  const svg = await renderSvg({
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    width: 420,
    height: 240,
    data: { values: data },
    layer: [
      {
        mark: { type: "line", point: true },
        encoding: { x, y: { field: "accuracy", type: "quantitative", title: "answer accuracy", scale: { domain: [0, 1] } }, color: { field: "series", type: "nominal", title: null } },
      },
      { mark: { type: "errorbar", ticks: true }, encoding: { x, y: { field: "lo", type: "quantitative" }, y2: { field: "hi" }, color: { field: "series", type: "nominal" } } },
    ],
  });
  return { id: "robustness-curve", title: "Answer accuracy by perturbation strength (Wilson 95% CI)", svg, data };
}

/**
 * Build the section, or null when no record is perturbed or carries an answer label.
 */
export async function robustnessSection(records: readonly RunRecord[]): Promise<ReportSection | null> {
  const rows = robustnessRows(records);
  const perturbed = records.filter((r) => (strengthOf(r) ?? 0) > 0 && r.status === "ok");
  if (perturbed.length === 0) return null;
  const tables: ReportTable[] = [];
  const curve = robustnessCurve(rows);
  if (curve.length)
    tables.push({
      id: "robustness-curve",
      title: "Robustness curve: answer accuracy by strength",
      caption:
        "n = cells of the group with an answer label; accuracy = share whose label equals the gold answer (Wilson 95% CI). Strength: share of passages perturbed (negate, numeric, conflict, swap, retracted mark), or distractors per passage (distract); 0 = clean evidence; Golden-RAG is the clean reference.",
      header: ["model", "workflow", "strength", "n", "accuracy", "95% CI"],
      rows: curve.map((p) => [p.model, p.workflow, String(p.strength), String(p.n), fmt(p.accuracy), `${fmt(p.low)}–${fmt(p.high)}`]),
    });
  const mis = misleadingRate(rows);
  if (mis.length) {
    tables.push({
      id: "misleading-rate",
      title: "Misleading rate: of items answered correctly on clean evidence, share answered wrongly under perturbation",
      caption:
        "eligible = items the model × workflow answered correctly on clean evidence (its own strength-0 cell, else Golden-RAG's) that have a cell at this strength; perturbed = of those, cells whose evidence the perturbation actually changed (the rest had nothing it could change, see the next table); misled = answered wrongly; rate = misled / eligible with a Wilson 95% CI; followed = switched to exactly the flipped direction (higher ↔ lower); abstained = the workflow declined to conclude (Critic-RAG), counted as eligible but not as misled.",
      header: ["model", "workflow", "strength", "eligible", "perturbed", "misled", "rate", "95% CI", "followed", "abstained"],
      rows: mis.map((m) => [
        m.model,
        m.workflow,
        String(m.strength),
        String(m.eligible),
        String(m.applied),
        String(m.misled),
        fmt(m.rate),
        `${fmt(m.low)}–${fmt(m.high)}`,
        String(m.followedCorruption),
        String(m.abstained),
      ]),
    });
  }
  // Cells whose perturbation changed nothing, with the most frequent reason recorded.
  const notApplied: string[][] = [];
  for (const [k, rs] of groupBy(perturbed, (r) => `${r.model}\u0000${workflowOf(r)}\u0000${strengthOf(r)}`)) {
    const none = rs.filter((r) => perturbationApplied(r) === false);
    if (!none.length) continue;
    const reasons = new Map<string, number>();
    for (const r of none) {
      const steps = (r.intermediate.perturbation as { steps?: { reason?: string }[] } | undefined)?.steps ?? [];
      const why = (steps.map((st) => st.reason).find(Boolean) ?? "no abstract had a finding the rules could negate").replace(/\b\d{5,}(?:~\w+)?(?:, \d{5,}(?:~\w+)?)*/g, "<ids>");
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    const top = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0];
    notApplied.push([...k.split("\u0000"), String(rs.length), String(none.length), `${top[0]} (${top[1]})`]);
  }
  if (notApplied.length)
    tables.push({
      id: "perturbation-not-applied",
      title: "Perturbed cells whose evidence was left unchanged",
      caption:
        "Such cells are still counted at their strength above (the dose was asked for, nothing could be changed); the reason is the operator's own record, the most frequent one shown with its count.",
      header: ["model", "workflow", "strength", "cells", "unchanged", "most frequent reason"],
      rows: notApplied,
    });
  // Lexical baseline always; the LLM judge's columns when grounding:llm ran on any perturbed cell.
  const llmCols = ["perturbation_uptake_llm", "grounding_supported_llm"].filter((c) => perturbed.some((r) => recordValues(r)[c] !== undefined));
  const groundingCols = ["perturbation_uptake", "grounding_supported", "numeric_fidelity", ...llmCols];
  const gRows: string[][] = [];
  for (const [k, rs] of groupBy(perturbed, (r) => `${r.model}\u0000${workflowOf(r)}`)) {
    const cells = groundingCols.map((c) => meanCi(rs.map((r) => recordValues(r)[c]).filter((x): x is number => x !== undefined)));
    if (cells.every((c) => !c)) continue;
    gRows.push([...k.split("\u0000"), ...cells.map((c) => (c ? `${fmt(c.mean)} (n ${c.n})` : "–"))]);
  }
  if (gRows.length)
    tables.push({
      id: "perturbation-uptake",
      title: `Perturbation uptake and grounding, perturbed cells (lexical baseline${llmCols.length ? " and LLM judge" : ""})`,
      caption:
        "Means over the perturbed cells (strength > 0) with a value (n). perturbation_uptake: share of output sentences supported by an evidence sentence that carries a perturbed span and closer to the perturbed than to the original text (lexical; every sentence of an inserted distractor or a retracted study counts as perturbed); grounding_supported: share of output sentences whose content words are ≥ 50 % in one evidence sentence; numeric_fidelity: share of output numbers equal to, or rounded from, a number of the evidence the workflow saw with every changed span put back (inserted abstracts included)." +
        (llmCols.length
          ? " _llm columns: the same shares from the LLM grounding judge (grounding:llm), which attributes each output sentence to cited evidence sentences; uptake = supported and citing a perturbed sentence; cells whose judge answer was missing are left out of n."
          : ""),
      header: ["model", "workflow", ...groundingCols],
      rows: gRows,
    });
  const gap = oracleGap(records.filter((r) => r.status === "ok").map((r) => ({ item: r.itemId, model: r.model, workflow: r.workflow, value: recordValues(r).answer_correct_lexical ?? null })));
  if (gap.length)
    tables.push({
      id: "oracle-gap",
      title: "Oracle gap on answer accuracy: Golden-RAG − Standard-RAG (paired by item)",
      caption: "n = items with both a Golden-RAG and a Standard-RAG answer; columns are mean answer_correct_lexical over those items; gap = mean of the per-item differences.",
      header: ["model", "n", "Golden-RAG", "Standard-RAG", "gap"],
      rows: gap.map((g) => [g.model, String(g.n), fmt(g.golden), fmt(g.standard), fmt(g.gap)]),
    });
  if (!tables.length) return null;
  const chart = await curveChart(curve);
  const noGrounding = [...new Set(perturbed.filter((r) => !r.intermediate.perturbation).map((r) => r.workflow))];
  return {
    heading: "Robustness to corrupted evidence",
    text:
      "Answers are the offline lexical direction classifier's label of each output (answer_label_lexical) against the item's gold answer (MedEvidence: higher / lower / no difference / uncertain effect / insufficient data). Perturbations are recorded per cell (what changed, before/after, and why an operator could not apply); see graphs/perturb/." +
      (noGrounding.length
        ? ` Grounding and uptake need the evidence text on the record; ${noGrounding.join(", ")} record(s) only the changed sentences, so they are absent from the uptake table (run the same operator as perturbed-rag op: negate for it).`
        : ""),
    tables,
    charts: chart ? [chart] : [],
  };
}
