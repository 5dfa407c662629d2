/**
 * Expansion of an experiment into cells: items × models × workflows × parameter values × repeats.
 * Each cell has a stable key so finished cells are recognised on re-runs.
 */
import { createHash } from "node:crypto";
import stringify from "safe-stable-stringify";
import type { WorkflowSelection } from "./config.ts";

/** Scalar workflow parameter value. */
export type ParamValue = string | number | boolean | null;

/** One unit of work. */
export interface Cell {
  key: string;
  itemId: string;
  dataset: string;
  model: string;
  workflow: string;
  params: Record<string, ParamValue>;
  repeat: number;
}

/**
 * Cartesian product of a parameter map whose values may be lists.
 * `{k: [5, 10], reranker: "none"}` → `[{k: 5, reranker: "none"}, {k: 10, reranker: "none"}]`.
 * Keys are visited in sorted order so the result does not depend on key order in the file.
 */
export function expandParams(params: Record<string, ParamValue | ParamValue[]>): Record<string, ParamValue>[] {
  let out: Record<string, ParamValue>[] = [{}];
  for (const key of Object.keys(params).sort()) {
    const v = params[key];
    const values = Array.isArray(v) ? v : [v];
    out = out.flatMap((p) => values.map((x) => ({ ...p, [key]: x })));
  }
  return out;
}

/**
 * Stable key of a cell: first 24 hex chars of sha256 over the canonical JSON of
 * (dataset, item id, model, workflow, params, repeat).
 */
export function cellKey(c: Omit<Cell, "key">): string {
  const s = stringify({ d: c.dataset, i: c.itemId, m: c.model, w: c.workflow, p: c.params, r: c.repeat }) ?? "";
  return createHash("sha256").update(s).digest("hex").slice(0, 24);
}

/** Items of one dataset as the runner sees them. */
export interface CellItems {
  dataset: string;
  taskKind: string;
  itemIds: string[];
}

/**
 * Expand the matrix. A workflow only meets datasets whose task kind it consumes (and, when it
 * lists `datasets`, only those).
 * @param workflowKind maps a workflow id to its task kind ("synthesis" | "conclusion" | "rwe").
 * @returns cells in a deterministic order (dataset, item, model, workflow, params, repeat).
 */
export function expandCells(items: CellItems[], models: string[], workflows: WorkflowSelection[], repeats: number, workflowKind: (id: string) => string): Cell[] {
  const cells: Cell[] = [];
  for (const ds of items) {
    for (const itemId of ds.itemIds) {
      for (const model of models) {
        for (const wf of workflows) {
          if (workflowKind(wf.id) !== ds.taskKind) continue;
          if (wf.datasets && !wf.datasets.includes(ds.dataset)) continue;
          for (const params of expandParams(wf.params as Record<string, ParamValue | ParamValue[]>)) {
            for (let repeat = 0; repeat < repeats; repeat++) {
              const c = { itemId, dataset: ds.dataset, model, workflow: wf.id, params, repeat };
              cells.push({ ...c, key: cellKey(c) });
            }
          }
        }
      }
    }
  }
  return cells;
}
