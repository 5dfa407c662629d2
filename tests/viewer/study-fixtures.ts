/**
 * A synthetic judged run for rating-study tests: items in two datasets (dsA, dsB), each with
 * three configurations (golden-rag, standard-rag k=5, pzs of model "model-x") and a MedMeta panel
 * aggregate on every cell. Outputs are neutral texts that name no configuration, so a blinding
 * check can search the rater payload for configuration names.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord } from "../../experiments/types.ts";

/** Configurations of the synthetic run. */
export const CONFIGS = [
  { workflow: "golden-rag", params: {} },
  { workflow: "pzs", params: {} },
  { workflow: "standard-rag", params: { k: 5 } },
] as const;

/** One judged cell. */
export function studyRecord(itemId: string, dataset: string, c: number, panel: number): RunRecord {
  const cfg = CONFIGS[c];
  return {
    key: `cell-${itemId}-${c}`,
    itemId,
    dataset,
    taskKind: "synthesis",
    model: "model-x",
    workflow: cfg.workflow,
    params: { ...cfg.params },
    repeat: 0,
    status: "ok",
    output: `Conclusion text number ${c} about ${itemId}.`,
    reference: `Reference conclusion of ${itemId}.`,
    itemMeta: { question: `Question of ${itemId}?` },
    intermediate: {},
    generator: { calls: 1, inputTokens: 10, outputTokens: 5, latencyMs: 10, cached: false },
    panel: { aggregation: "mean", scores: { "medmeta-semantic-equivalence": { semantic_equivalence: { value: panel, nPresent: 2, nJudges: 2 } } } },
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:00:01.000Z",
  };
}

/** Items of the synthetic run: 4 in dsA, 2 in dsB. */
export const ITEMS = [
  ["a1", "dsA"],
  ["a2", "dsA"],
  ["a3", "dsA"],
  ["a4", "dsA"],
  ["b1", "dsB"],
  ["b2", "dsB"],
] as const;

/**
 * Write the run folder (panel value = (item index + config) mod 6).
 * @param noReference item ids whose cells carry no reference text (`reference: null`)
 */
export function makeStudyRun(noReference: readonly string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-study-run-"));
  const lines: string[] = [];
  ITEMS.forEach(([id, ds], i) => CONFIGS.forEach((_, c) => lines.push(JSON.stringify({ ...studyRecord(id, ds, c, (i + c) % 6), ...(noReference.includes(id) ? { reference: null } : {}) }))));
  writeFileSync(join(dir, "results.jsonl"), lines.join("\n") + "\n");
  return dir;
}

/** Append a newer record for `key` with a different output (the run's cell changed). */
export function changeCell(runDir: string, itemIndex: number, config: number): void {
  const [id, ds] = ITEMS[itemIndex];
  appendFileSync(join(runDir, "results.jsonl"), JSON.stringify({ ...studyRecord(id, ds, config, 1), output: "rewritten" }) + "\n");
}
