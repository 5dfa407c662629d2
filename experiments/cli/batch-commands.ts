/**
 * `medsynth batch export <config>` / `medsynth batch import <config> <results…>`: batch runs through
 * files, for servers that process OpenAI-format batch files offline (`vllm run-batch`).
 *
 * `export` runs the config in batch mode with request files in place of a Batch API: each wave's
 * requests are written to `<output>/batch-files/<id>.jsonl` and the run stops. `import` puts a
 * results file's lines beside the request file they answer (matched by `custom_id`), and the next
 * `export` continues the run from there (finished calls come from the cache, answered ones from the
 * imported results) — writing the next wave, or finishing the run when no call is left.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadExperimentConfig } from "../config.ts";
import { BatchJournal } from "../../models/batch-journal.ts";
import { parseBatchResults, type BatchResultLine } from "../../models/batch-api.ts";
import { batchOutputFile } from "../../models/batch-file-api.ts";
import { runCommand, type RunCommandOptions } from "./run-commands.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** `batch export`: the next wave's request files (or the finished run). */
export async function batchExportCommand(file: string, opts: Pick<RunCommandOptions, "report" | "progress">): Promise<void> {
  await runCommand(file, { ...opts, exportBatches: true, progress: false });
}

/** What {@link importBatchResults} did. */
export interface BatchImportSummary {
  /** Result lines stored, by batch id. */
  byBatch: Record<string, number>;
  /** Requests of the touched batches still without a result line. */
  unanswered: number;
}

/**
 * Store results lines (OpenAI batch output format) beside the request files they answer.
 * @param runDir the run folder holding `batches.jsonl` and `batch-files/`.
 * @param resultFiles output files of `vllm run-batch` (or any OpenAI-format batch output).
 * @throws Error naming the file and line for a line that is not a result line, or whose custom_id
 *   is not a request of this run's exported batches.
 */
export function importBatchResults(runDir: string, resultFiles: readonly string[]): BatchImportSummary {
  const journalPath = join(runDir, "batches.jsonl");
  if (!existsSync(journalPath)) throw new Error(`batch import: ${journalPath} does not exist; run \`${medsynthCommand()} batch export <config>\` first`);
  const journal = BatchJournal.open(journalPath);
  const batchOf = new Map<string, string>();
  for (const s of journal.submissions) if (s.batchId) for (const id of s.customIds) batchOf.set(id, s.batchId);
  const lines = new Map<string, Map<string, BatchResultLine>>();
  for (const f of resultFiles) {
    const parsed = parseBatchResults(readFileSync(f, "utf8"), f);
    parsed.forEach((l, i) => {
      const b = batchOf.get(l.custom_id);
      if (!b) throw new Error(`${f}: result ${i + 1}: custom_id ${l.custom_id.slice(0, 24)}… is not a request of this run's exported batches (${journalPath})`);
      if (!lines.has(b)) lines.set(b, new Map());
      lines.get(b)!.set(l.custom_id, l);
    });
  }
  const byBatch: Record<string, number> = {};
  let unanswered = 0;
  for (const [b, got] of lines) {
    const out = batchOutputFile(runDir, b);
    if (existsSync(out)) for (const l of parseBatchResults(readFileSync(out, "utf8"), out)) if (!got.has(l.custom_id)) got.set(l.custom_id, l);
    writeFileSync(out, [...got.values()].map((l) => JSON.stringify(l)).join("\n") + "\n");
    byBatch[b] = got.size;
    const sub = journal.submissions.find((s) => s.batchId === b)!;
    unanswered += sub.customIds.filter((id) => !got.has(id)).length;
  }
  return { byBatch, unanswered };
}

/** `batch import`: store the results files of a run's exported batches. */
export async function batchImportCommand(file: string, results: string[]): Promise<void> {
  const config = loadExperimentConfig(file);
  const s = importBatchResults(config.output, results);
  const total = Object.values(s.byBatch).reduce((a, b) => a + b, 0);
  console.log(
    `imported ${total} result line(s) into ${Object.keys(s.byBatch).length} batch(es) of ${config.output}${s.unanswered ? `; ${s.unanswered} request(s) of those batches have no result yet (the next \`batch export\` puts them in a new wave)` : ""}`,
  );
  console.log(`continue with: ${medsynthCommand()} batch export ${file}`);
}
