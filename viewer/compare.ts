/**
 * Compare mode: two loaded runs, cells matched on (item, model, workflow, parameters, repeat);
 * per pair, whether the outputs differ and by how much (word-level bag-of-words overlap), the
 * status change and the change of every score column both cells have.
 */
import { naturalCompare } from "./natural-order.ts";
import type { CellRow, RunIndex } from "./run-index.ts";

/** One matched pair of cells (or a cell present in one run only). */
export interface ComparePair {
  itemId: string;
  model: string;
  workflow: string;
  params: string;
  repeat: number;
  /** Row ids in run A and run B (null when the cell is missing from that run). */
  a: number | null;
  b: number | null;
  statusA: string | null;
  statusB: string | null;
  /** True when both cells exist with the same status and outputs equal after whitespace normalisation (or both without output). */
  identical: boolean;
  /**
   * 1 − multiset overlap of the lower-cased words: |A ∩ B| / max(|A|, |B|) (0 = same words, 1 = no
   * word in common); null when either output is missing.
   */
  difference: number | null;
  /** Score column → B − A, for columns with a number on both sides. */
  deltas: Record<string, number>;
}

/** What the compare route returns: a page of pairs and counts over all pairs. */
export interface ComparePage {
  runA: string;
  runB: string;
  total: number;
  counts: { matched: number; identical: number; differing: number; onlyA: number; onlyB: number };
  page: number;
  size: number;
  pairs: ComparePair[];
}

const words = (s: string): string[] => s.toLowerCase().split(/[^\p{L}\p{N}.%]+/u).filter(Boolean);

/**
 * Word-multiset difference of two texts: 1 − Σ_w min(cA(w), cB(w)) / max(|A|, |B|).
 * Two empty texts differ by 0.
 */
export function wordDifference(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      common++;
      counts.set(w, c - 1);
    }
  }
  return 1 - common / Math.max(wa.length, wb.length);
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim();
const cellKey = (r: CellRow) => JSON.stringify([r.itemId, r.model, r.workflow, r.params, r.repeat]);

/**
 * Match the cells of runs `a` and `b` and describe each pair; pairs come in natural item-id order
 * (`medevidence:13` before `medevidence:125`).
 * @param opts.onlyDiffering keep only pairs whose outputs differ or that exist in one run only
 * @throws Error when a run index is out of range
 */
export function compareRuns(index: RunIndex, a: number, b: number, opts: { onlyDiffering?: boolean; page?: number; size?: number } = {}): ComparePage {
  for (const r of [a, b]) if (!index.runs[r]) throw new Error(`no run ${r}: ${index.runs.length} run(s) loaded (0-based)`);
  const byKey = new Map<string, { a: CellRow | null; b: CellRow | null }>();
  for (const row of index.rows) {
    if (row.run !== a && row.run !== b) continue;
    const k = cellKey(row);
    const e = byKey.get(k) ?? { a: null, b: null };
    if (row.run === a) e.a = row;
    else e.b = row;
    byKey.set(k, e);
  }
  const all: ComparePair[] = [];
  for (const { a: ra, b: rb } of byKey.values()) {
    const any = (ra ?? rb) as CellRow;
    const oa = ra ? index.records[ra.id].output : null;
    const ob = rb ? index.records[rb.id].output : null;
    const both = typeof oa === "string" && typeof ob === "string";
    const deltas: Record<string, number> = {};
    if (ra && rb) {
      for (const [c, va] of Object.entries(ra.scores)) {
        const vb = rb.scores[c];
        if (typeof va === "number" && typeof vb === "number") deltas[c] = vb - va;
      }
    }
    all.push({
      itemId: any.itemId,
      model: any.model,
      workflow: any.workflow,
      params: any.params,
      repeat: any.repeat,
      a: ra?.id ?? null,
      b: rb?.id ?? null,
      statusA: ra?.status ?? null,
      statusB: rb?.status ?? null,
      identical: !!ra && !!rb && ra.status === rb.status && (both ? norm(oa as string) === norm(ob as string) : oa === ob),
      difference: both ? wordDifference(oa as string, ob as string) : null,
      deltas,
    });
  }
  all.sort((x, y) => naturalCompare(x.itemId, y.itemId));
  const counts = {
    matched: all.filter((p) => p.a !== null && p.b !== null).length,
    identical: all.filter((p) => p.identical).length,
    differing: all.filter((p) => p.a !== null && p.b !== null && !p.identical).length,
    onlyA: all.filter((p) => p.b === null).length,
    onlyB: all.filter((p) => p.a === null).length,
  };
  const kept = opts.onlyDiffering ? all.filter((p) => !p.identical) : all;
  const size = Math.min(Math.max(opts.size ?? 50, 1), 500);
  const page = Math.max(opts.page ?? 0, 0);
  return { runA: index.runs[a].name, runB: index.runs[b].name, total: kept.length, counts, page, size, pairs: kept.slice(page * size, page * size + size) };
}
