/**
 * The report's robustness section (issue 15): for runs with perturbed evidence (Negated-RAG's
 * `fraction`, Perturbed-/Critic-RAG's `strength`), the robustness curve (answer accuracy by
 * strength with Wilson 95% CIs, per model × workflow × operator, as a table and a chart), the
 * misleading-rate table, perturbation uptake and grounding per model × workflow, and the oracle
 * gap (Golden-RAG − Standard-RAG) on answer accuracy.
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

/** Robustness rows of the finished records that carry an answer label and a gold answer. */
export function robustnessRows(records: readonly RunRecord[]): RobustnessRow[] {
  const rows: RobustnessRow[] = [];
  for (const r of records) {
    const strength = strengthOf(r);
    const gold = r.itemMeta.referenceAnswer;
    if (strength === null || r.status !== "ok" || typeof gold !== "string") continue;
    rows.push({ item: r.itemId, model: r.model, workflow: workflowOf(r), strength, answer: r.labels?.answer_label_lexical ?? null, gold });
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
      { mark: { type: "line", point: true }, encoding: { x, y: { field: "accuracy", type: "quantitative", title: "answer accuracy", scale: { domain: [0, 1] } }, color: { field: "series", type: "nominal", title: null } } },
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
  if (curve.length) tables.push({ id: "robustness-curve", title: "Robustness curve: answer accuracy by strength", header: ["model", "workflow", "strength", "n", "accuracy", "95% CI"], rows: curve.map((p) => [p.model, p.workflow, String(p.strength), String(p.n), fmt(p.accuracy), `${fmt(p.low)}–${fmt(p.high)}`]) });
  const mis = misleadingRate(rows);
  if (mis.length) {
    tables.push({
      id: "misleading-rate",
      title: "Misleading rate: of items answered correctly on clean evidence, share answered wrongly under perturbation",
      caption: "“followed” = switched to exactly the flipped direction (higher ↔ lower).",
      header: ["model", "workflow", "strength", "eligible", "misled", "rate", "95% CI", "followed"],
      rows: mis.map((m) => [m.model, m.workflow, String(m.strength), String(m.eligible), String(m.misled), fmt(m.rate), `${fmt(m.low)}–${fmt(m.high)}`, String(m.followedCorruption)]),
    });
  }
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
        "Means over the perturbed cells (strength > 0) with a value (n). perturbation_uptake: share of output sentences supported by an evidence sentence that carries a perturbed span and closer to the perturbed than to the original text (lexical); grounding_supported: share of output sentences whose content words are ≥ 50 % in one evidence sentence; numeric_fidelity: share of output numbers equal to, or rounded from, a number of the unperturbed evidence." +
        (llmCols.length ? " _llm columns: the same shares from the LLM grounding judge (grounding:llm), which attributes each output sentence to cited evidence sentences; uptake = supported and citing a perturbed sentence; cells whose judge answer was missing are left out of n." : ""),
      header: ["model", "workflow", ...groundingCols],
      rows: gRows,
    });
  const gap = oracleGap(records.filter((r) => r.status === "ok").map((r) => ({ item: r.itemId, model: r.model, workflow: r.workflow, value: recordValues(r).answer_correct_lexical ?? null })));
  if (gap.length) tables.push({ id: "oracle-gap", title: "Oracle gap on answer accuracy: Golden-RAG − Standard-RAG (paired by item)", header: ["model", "n", "Golden-RAG", "Standard-RAG", "gap"], rows: gap.map((g) => [g.model, String(g.n), fmt(g.golden), fmt(g.standard), fmt(g.gap)]) });
  if (!tables.length) return null;
  const chart = await curveChart(curve);
  return { heading: "Robustness to corrupted evidence", text: "Perturbations are recorded per cell (what changed, before/after); see graphs/perturb/.", tables, charts: chart ? [chart] : [] };
}
