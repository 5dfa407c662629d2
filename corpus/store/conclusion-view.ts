/**
 * The MedConclusion task view of a record store, streamed: each record with a conclusion segment
 * and at least one other segment becomes a task (structured abstract minus conclusion → its
 * conclusion, {@link recordToConclusionTask}), read batch by batch from the store, so a corpus of
 * millions is never held in memory; a loader for the dataset registry takes the first `limit`.
 *
 * @see MedConclusion §3.2.
 */
import { z } from "zod";
import type { ConclusionTask } from "../types.ts";
import { recordToConclusionTask } from "../conclusion-task.ts";
import { isConclusionSegment } from "../conclusion-labels.ts";
import type { LoadedDataset } from "../datasets/loaded-dataset.ts";
import type { RecordStore } from "./types.ts";

/** Dataset name of tasks built from a corpus store. */
export const STORE_CONCLUSION_DATASET = "corpus-store";

/**
 * Stream the MedConclusion tasks of a store, in the store's order.
 * @param store - a record store (Lance or in-memory).
 * @param options - `dataset` (task id prefix, default "corpus-store"), `limit` (stop after this many tasks), `batchSize`.
 * @returns an async generator of zod-validated tasks; records without a conclusion or without
 *   another segment are skipped.
 */
export async function* conclusionTasksFromStore(store: RecordStore, options: { dataset?: string; limit?: number; batchSize?: number } = {}): AsyncGenerator<ConclusionTask> {
  const dataset = options.dataset ?? STORE_CONCLUSION_DATASET;
  const limit = options.limit ?? Infinity;
  if (limit <= 0) return;
  let n = 0;
  for await (const batch of store.scanRecords(Math.min(options.batchSize ?? 1000, Number.isFinite(limit) ? Math.max(1, limit) : Infinity))) {
    for (const { record } of batch) {
      const conc = record.abstract.filter(isConclusionSegment).length;
      if (conc === 0 || conc === record.abstract.length) continue;
      yield recordToConclusionTask(record, dataset);
      if (++n >= limit) return;
    }
  }
}

/** Options of {@link loadStoreConclusionTasks} (dataset registry entry "corpus-store"). */
export const StoreConclusionOptionsSchema = z
  .object({
    /** Store URI: a folder or `s3://…`, `gs://…`, `az://…`. */
    uri: z.string().min(1),
    /** LanceDB storage options, passed through. */
    storageOptions: z.record(z.string(), z.string()).optional(),
    /** First N tasks in store order (default 1,000). */
    limit: z.number().int().positive().default(1000),
  })
  .strict();
/** Input of {@link StoreConclusionOptionsSchema}. */
export type StoreConclusionOptions = z.input<typeof StoreConclusionOptionsSchema>;

/**
 * Load the first `limit` MedConclusion tasks of a Lance corpus store.
 * @throws Error naming the URI when there is no finalised store there; ZodError on bad options.
 */
export async function loadStoreConclusionTasks(options: StoreConclusionOptions): Promise<LoadedDataset<ConclusionTask>> {
  const opts = StoreConclusionOptionsSchema.parse(options);
  const { openLanceRecordStore } = await import("./lance-store.ts");
  const store = await openLanceRecordStore({ uri: opts.uri, ...(opts.storageOptions ? { storageOptions: opts.storageOptions } : {}) });
  const items: ConclusionTask[] = [];
  for await (const t of conclusionTasksFromStore(store, { limit: opts.limit })) items.push(t);
  return { name: STORE_CONCLUSION_DATASET, taskKind: "conclusion", items, warnings: [], skipped: { count: 0, reasons: {} } };
}
