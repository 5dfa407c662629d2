/**
 * `medsynth compare <runA> <runB>`: per-metric deltas between two runs with paired tests.
 * Records are paired by cell identity (dataset, item, model, workflow + params, repeat), so two
 * runs of the same config with e.g. another prompt version or endpoint line up item by item.
 */
import { join } from "node:path";
import { existsSync } from "node:fs";
import { readReportRecords, skippedLinesNote } from "./read-records.ts";
import type { RunRecord } from "../types.ts";
import { columnsOf, differencesVary, recordValues, variantLabel } from "./columns.ts";
import { pairedTTest, wilcoxonSignedRank, mean, cohenDz } from "../../judges/stats/index.ts";
import { fmt, type ReportTable } from "./tables.ts";

/** Identity of a cell independent of the run folder. */
export function cellIdentity(r: RunRecord): string {
  return [r.dataset, r.itemId, r.model, variantLabel(r, { configured: true }), r.repeat].join("\u0000");
}

/** Identity of a cell ignoring the model (to compare two models' runs item by item). */
export function cellIdentityWithoutModel(r: RunRecord): string {
  return [r.dataset, r.itemId, variantLabel(r, { configured: true }), r.repeat].join("\u0000");
}

/** One metric's comparison between run A and run B. */
export interface RunDelta {
  column: string;
  /** The workflow variant (workflow + parameters; with the model when pairs share it) these pairs belong to: each is tested on its own. */
  variant: string;
  n: number;
  meanA: number;
  meanB: number;
  /** meanB − meanA. */
  delta: number;
  t: number | null;
  p: number | null;
  dz: number | null;
  wilcoxonP: number | null;
}

/**
 * Compare two record sets column by column over the cells both scored, each workflow variant
 * (workflow + parameters, and model when pairing by cell) tested on its own: pooling six variants
 * × ten items into one test of 60 "pairs" would treat dependent, differently distributed pairs as
 * one sample. Means and Δ are always shown; tests need ≥ 2 pairs with some variation in the
 * differences, otherwise they are null.
 * @param groupOf the variant a record of run A belongs to (default: model + workflow variant).
 */
export function compareRecords(
  a: RunRecord[],
  b: RunRecord[],
  identity: (r: RunRecord) => string = cellIdentity,
  groupOf: (r: RunRecord) => string = (r) => `${r.model} · ${variantLabel(r, { configured: true })}`,
): RunDelta[] {
  const A = new Map(a.map((r) => [identity(r), { v: recordValues(r), g: groupOf(r) }]));
  const B = new Map(b.map((r) => [identity(r), recordValues(r)]));
  const cols = columnsOf([...a, ...b]).filter((c) => !c.includes("@"));
  const groups = [...new Set(a.map(groupOf))];
  const out: RunDelta[] = [];
  for (const c of cols) {
    for (const g of groups) {
      const xa: number[] = [];
      const xb: number[] = [];
      for (const [k, ra] of A) {
        if (ra.g !== g) continue;
        const vb = B.get(k);
        if (vb && ra.v[c] !== undefined && vb[c] !== undefined) {
          xa.push(ra.v[c]);
          xb.push(vb[c]);
        }
      }
      if (!xa.length) continue;
      const d = xb.map((v, i) => v - xa[i]);
      const testable = differencesVary(d);
      let w: number | null = null;
      if (testable) {
        try {
          w = wilcoxonSignedRank(xb, xa).p;
        } catch {
          w = null;
        }
      }
      const t = testable ? pairedTTest(xb, xa) : null;
      out.push({
        column: c,
        variant: g,
        n: xa.length,
        meanA: mean(xa),
        meanB: mean(xb),
        delta: mean(xb) - mean(xa),
        t: t?.t ?? null,
        p: t?.p ?? null,
        dz: testable ? cohenDz(xb, xa) : null,
        wilcoxonP: w,
      });
    }
  }
  return out;
}

/**
 * A note when some records of either run have no partner under `identity` (the runs' matrices
 * differ): how many pairs were compared and how many records of each run were left out; null when
 * every record pairs up.
 */
function unpairedNote(a: readonly RunRecord[], b: readonly RunRecord[], dirA: string, dirB: string, identity: (r: RunRecord) => string): string | null {
  const ka = new Set(a.map(identity));
  const kb = new Set(b.map(identity));
  let both = 0;
  for (const k of ka) if (kb.has(k)) both++;
  const onlyA = ka.size - both;
  const onlyB = kb.size - both;
  if (onlyA === 0 && onlyB === 0) return null;
  return `${both} record pair(s) compared; left out, without a partner: ${onlyA} of ${ka.size} in ${dirA}, ${onlyB} of ${kb.size} in ${dirB}`;
}

/**
 * Compare two run folders. `warnings` names each results file that had malformed lines or a torn
 * last line (skipped; `skippedLinesNote` of read-records.ts); empty when none.
 * @throws when a folder has no results.jsonl records.
 */
export function compareRuns(dirA: string, dirB: string): { deltas: RunDelta[]; table: ReportTable; pairing: "cell" | "item"; warnings: string[] } {
  const warnings: string[] = [];
  const load = (d: string) => {
    if (!existsSync(d)) throw new Error(`${d}: no such folder`);
    if (!existsSync(join(d, "results.jsonl"))) throw new Error(`${d}: not a run folder (no results.jsonl)`);
    const read = readReportRecords(join(d, "results.jsonl"), null);
    const note = skippedLinesNote(join(d, "results.jsonl"), read);
    if (note) warnings.push(note);
    const recs = read.records;
    if (!recs.length) throw new Error(`${d}: no records in results.jsonl`);
    return recs;
  };
  const a = load(dirA);
  const b = load(dirB);
  let deltas = compareRecords(a, b);
  let pairing: "cell" | "item" = "cell";
  if (!deltas.length) {
    // No cell in common (e.g. two runs of different models): pair by item, workflow and parameters.
    deltas = compareRecords(a, b, cellIdentityWithoutModel, variantLabel);
    pairing = "item";
  }
  const unpaired = unpairedNote(a, b, dirA, dirB, pairing === "cell" ? cellIdentity : cellIdentityWithoutModel);
  if (unpaired) warnings.push(unpaired);
  return {
    deltas,
    table: {
      id: "compare",
      title: `Run B (${dirB}) minus run A (${dirA})`,
      caption: `Paired by dataset, item, ${pairing === "cell" ? "model, " : ""}workflow + parameters and repeat${pairing === "item" ? " (the runs share no model, so records are paired across models)" : ""}; each variant tested on its own (paired t-test and Wilcoxon signed-rank on B − A; d_z = mean(B − A)/SD(B − A)); '–' = fewer than 2 pairs or constant differences (the means and Δ still hold).${deltas.length ? "" : " No record pairs up: the runs share no item × workflow × parameters."}`,
      header: ["metric", "variant", "pairs", "mean A", "mean B", "Δ (B − A)", "t", "p", "d_z", "Wilcoxon p"],
      rows: deltas.map((d) => [d.column, d.variant, String(d.n), fmt(d.meanA), fmt(d.meanB), fmt(d.delta), fmt(d.t, 2), fmt(d.p, 4), fmt(d.dz, 2), fmt(d.wilcoxonP, 4)]),
      values: deltas as unknown as Record<string, unknown>[],
    },
    pairing,
    warnings,
  };
}
