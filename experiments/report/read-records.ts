/**
 * How the report reads a results file: one streamed pass keeping a slim projection of each record
 * (what the report's sections read), never the whole file in one string. Used by `medsynth report`
 * and `medsynth compare`.
 */
import { newScanStats, resultRecords } from "../../results/results-file.ts";
import type { RunRecord } from "../types.ts";

/**
 * The slim form of a record the report keeps in memory: everything its sections read, without the
 * bulk they never read — `intermediate` reduced to the fields the sections use (goldenRecall,
 * perturbation, negatedIds, critic), judge answers' raw text and the record's raw answer dropped,
 * a judge verdict's call info reduced to its model id (what the panel section reads);
 * repeated reference texts and item metadata values shared through `pool` (one string per item,
 * not one per cell).
 */
export function reportProjection(r: RunRecord, pool: Map<string, string> = new Map()): RunRecord {
  const intern = (v: string): string => {
    const had = pool.get(v);
    if (had !== undefined) return had;
    pool.set(v, v);
    return v;
  };
  const inter = (r.intermediate ?? {}) as Record<string, unknown>;
  const keptInter: Record<string, unknown> = {};
  for (const k of REPORT_INTERMEDIATE_FIELDS) if (inter[k] !== undefined) keptInter[k] = inter[k];
  const itemMeta: RunRecord["itemMeta"] = {};
  for (const [k, v] of Object.entries(r.itemMeta ?? {})) itemMeta[k] = typeof v === "string" ? intern(v) : v;
  const { raw: _raw, ...rest } = r;
  return {
    ...rest,
    reference: typeof r.reference === "string" ? intern(r.reference) : r.reference,
    itemMeta,
    intermediate: keptInter,
    ...(r.judgeScores ? { judgeScores: r.judgeScores.map(({ raw: _r, call, ...e }) => (call ? { ...e, call: { modelId: call.modelId } as typeof call } : e)) } : {}),
  };
}

/** The `intermediate` fields report sections read (columns.ts, robustness-section.ts). */
export const REPORT_INTERMEDIATE_FIELDS = ["goldenRecall", "perturbation", "negatedIds", "critic"] as const;

/**
 * Read a results file for the report in one streamed pass: the latest record per key (in order of
 * first appearance) and every record including superseded attempts (`spent`, for the tokens spent),
 * each in its {@link reportProjection}; a record appearing once is one object in both lists. With
 * `keys`, records of other cells (earlier configs in the same folder) are counted and left out.
 */
export function readReportRecords(resultsPath: string, keys: ReadonlySet<string> | null): { records: RunRecord[]; spent: RunRecord[]; otherRecords: number } {
  const latest = new Map<string, RunRecord>();
  const superseded: RunRecord[] = [];
  const pool = new Map<string, string>();
  const others = new Set<string>();
  for (const { record } of resultRecords(resultsPath, newScanStats())) {
    if (keys && !keys.has(record.key)) {
      others.add(record.key);
      continue;
    }
    const slim = reportProjection(record, pool);
    const prev = latest.get(record.key);
    if (prev) superseded.push(prev);
    latest.set(record.key, slim);
  }
  const records = [...latest.values()];
  return { records, spent: superseded.length ? [...records, ...superseded] : records, otherRecords: others.size };
}

