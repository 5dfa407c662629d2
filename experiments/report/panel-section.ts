/**
 * Report section on the judge panel itself (issue 5, panel diagnostics): inter-judge agreement
 * (Krippendorff's alpha, ICC(2,1) and ICC(2,k)), each judge's missing rate, mean offset from the
 * panel (calibration shift), leave-one-judge-out panel means, ranking stability of systems across
 * judges (Kendall's tau-b), length bias (score vs output words) and judges that share a model
 * family with a generator.
 */
import { panelDiagnostics, familyOverlapFlags, type PanelDiagnostics } from "../../judges/diagnostics.ts";
import { missingRates } from "../../judges/panel.ts";
import type { RunRecord } from "../types.ts";
import { variantLabel } from "./columns.ts";
import { fmt, type ReportTable } from "./tables.ts";
import type { ReportSection } from "./render.ts";

function val<T>(m: { ok: true; value: T } | { ok: false; reason: string }, f: (v: T) => string): string {
  return m.ok ? f(m.value) : `– (${m.reason})`;
}

/** Rubric id → dimensions scored in the records, with the judges that scored them. */
function rubricDimensions(records: RunRecord[]): Map<string, { dims: Set<string>; judges: Set<string> }> {
  const out = new Map<string, { dims: Set<string>; judges: Set<string> }>();
  for (const r of records)
    for (const e of r.judgeScores ?? []) {
      const entry = out.get(e.rubricId) ?? { dims: new Set<string>(), judges: new Set<string>() };
      for (const d of Object.keys(e.scores)) entry.dims.add(d);
      entry.judges.add(e.judgeId);
      out.set(e.rubricId, entry);
    }
  return out;
}

/** One diagnostics table for a rubric dimension. */
export function diagnosticsTable(d: PanelDiagnostics): ReportTable {
  const rows: string[][] = [
    ["Krippendorff's alpha", "panel", val(d.krippendorffAlpha, (v) => `${fmt(v.alpha)} (${v.level}, ${v.nPairable} pairable values)`)],
    ["ICC(2,1) / ICC(2,k)", "panel", val(d.icc, (v) => `${fmt(v.icc21)} / ${fmt(v.icc2k)} (n=${v.n}, k=${v.k}, ${v.droppedUnits} units without every judge left out)`)],
    ["panel mean", "panel", `${fmt(d.panelMean)} over ${d.nUnits} records`],
  ];
  for (const c of d.calibration) rows.push(["mean offset from panel", c.judgeId, `${fmt(c.meanOffset)} (judge mean ${fmt(c.meanScore)}, n=${c.n})`]);
  for (const l of d.leaveOneOut) rows.push(["panel mean without this judge", l.judgeId, `${fmt(l.meanScore)} (shift ${fmt(l.shift)})`]);
  for (const a of d.rankingAgreement) rows.push(["Kendall tau-b of system rankings", `${a.judgeA} vs ${a.judgeB}`, val(a.tau, (v) => `${fmt(v.tau)} (p ${fmt(v.p, 4)}, ${a.nSystems} systems)`)]);
  for (const b of d.lengthBias)
    rows.push([
      "length bias: score vs words (Pearson / Spearman)",
      b.scorer,
      `${val(b.pearson, (v) => `${fmt(v.r)} (p ${fmt(v.p, 4)})`)} / ${val(b.spearman, (v) => `${fmt(v.rho)} (p ${fmt(v.p, 4)})`)}, n=${b.n}`,
    ]);
  return {
    id: `panel-${d.rubricId}-${d.dimension}`,
    title: `Panel diagnostics: ${d.rubricId}.${d.dimension}`,
    header: ["statistic", "judge", "value"],
    rows,
    values: [d as unknown as Record<string, unknown>],
  };
}

/**
 * The panel section, or null when no record carries judge scores.
 * Statistics that cannot be computed (one judge, constant scores) show their reason instead.
 */
export function panelSection(records: RunRecord[]): ReportSection | null {
  const withScores = records.filter((r) => r.judgeScores?.length);
  if (!withScores.length) return null;
  const tables: ReportTable[] = [];
  const rates = missingRates(withScores.flatMap((r) => r.judgeScores ?? []));
  tables.push({
    id: "panel-missing",
    title: "Judge answers: missing rates",
    caption:
      "A missing verdict is an answer that could not be parsed after bounded retries (raw text kept in the record) or a record lacking an input the rubric needs (no call made); it is left out of every mean, never scored 0. Failed-answer rate = (missing − no input) / (verdicts − no input).",
    header: ["judge", "verdicts", "missing", "of which no input", "failed-answer rate"],
    rows: rates.map((r) => [r.judgeId, String(r.total), String(r.missing), String(r.noInput), fmt(r.total - r.noInput ? (r.missing - r.noInput) / (r.total - r.noInput) : null)]),
    values: rates as unknown as Record<string, unknown>[],
  });
  for (const [rubricId, { dims, judges }] of rubricDimensions(withScores)) {
    if (judges.size < 2) continue;
    for (const dimension of dims) {
      try {
        const level = withScores.some((r) => r.judgeScores?.some((e) => e.rubricId === rubricId && Object.values(e.scores).some((v) => v !== null && v !== 0 && v !== 1))) ? "interval" : "nominal";
        tables.push(
          diagnosticsTable(
            panelDiagnostics(
              withScores,
              { rubricId, dimension, level },
              (r) => `${r.model} | ${variantLabel({ workflow: r.workflow, params: r.params ?? {}, intermediate: (r as { intermediate?: Record<string, unknown> }).intermediate })}`,
            ),
          ),
        );
      } catch (e) {
        tables.push({ id: `panel-${rubricId}-${dimension}`, title: `Panel diagnostics: ${rubricId}.${dimension}`, header: ["note"], rows: [[e instanceof Error ? e.message : String(e)]] });
      }
    }
  }
  const judgeModels: Record<string, string> = {};
  for (const r of withScores)
    for (const e of r.judgeScores ?? []) {
      const m = (e as { modelId?: string }).modelId ?? e.call?.modelId;
      if (m) judgeModels[e.judgeId] = m;
    }
  const flags = familyOverlapFlags(
    judgeModels,
    records.map((r) => r.model),
  );
  if (flags.length)
    tables.push({
      id: "panel-family",
      title: "Judges sharing a model family with a generator (self-preference risk)",
      header: ["judge", "judge model", "family", "generators"],
      rows: flags.map((f) => [f.judgeId, f.judgeModel, f.family, f.generators.join(", ")]),
      values: flags as unknown as Record<string, unknown>[],
    });
  return { heading: "Judge panel diagnostics", tables, charts: [] };
}
