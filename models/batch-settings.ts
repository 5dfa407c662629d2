/**
 * Settings of batch execution (`medsynth run --batch`, endpoint option `batch: true`): poll
 * interval, the quiet time that closes a wave, the completion window, lines per batch, and what a
 * failed, expired or cancelled line becomes. Defaults suit a provider's Batch API (answers within
 * hours); environment variables override them for a local server (`MEDSYNTH_BATCH_POLL_MS`,
 * `MEDSYNTH_BATCH_IDLE_MS`).
 */
import { z } from "zod";

/** Settings of batch execution (endpoint option `batch`, or `run --batch`). */
export const BatchSettingsSchema = z
  .object({
    /** Poll interval of a batch's state, in ms. */
    pollMs: z.number().int().min(10).default(30_000),
    /** Quiet time after the last queued request before a wave is submitted, in ms. */
    idleMs: z.number().int().min(0).default(2_000),
    /** The Batch API's completion window. */
    completionWindow: z.string().default("24h"),
    /** Requests per batch file at most (OpenAI: 50,000). */
    maxLines: z.number().int().min(1).max(50_000).default(50_000),
    /** A line that failed (5xx/429), expired or was cancelled: retried `online` or in a new `batch`. */
    onFailedLine: z.enum(["online", "batch"]).default("online"),
    /** New batches tried for one line before it goes online (with `onFailedLine: batch`). */
    maxBatchRetries: z.number().int().min(0).max(10).default(2),
    /**
     * Request files only (`batch export`): a failed, missing or unanswered line always goes into the
     * next wave, however often, and never online (there may be no online endpoint at all).
     */
    batchOnly: z.boolean().default(false),
  })
  .strict();
/** {@link BatchSettingsSchema} after parsing. */
export type BatchSettings = z.infer<typeof BatchSettingsSchema>;

/**
 * Batch settings from explicit values over `MEDSYNTH_BATCH_POLL_MS` / `MEDSYNTH_BATCH_IDLE_MS` over the defaults.
 * @throws ZodError naming the field on an invalid value.
 */
export function resolveBatchSettings(input: Partial<BatchSettings> = {}, env: NodeJS.ProcessEnv = process.env): BatchSettings {
  const num = (v: string | undefined) => (v !== undefined && v.trim() !== "" ? Number(v) : undefined);
  const fromEnv = {
    ...(num(env.MEDSYNTH_BATCH_POLL_MS) !== undefined ? { pollMs: num(env.MEDSYNTH_BATCH_POLL_MS) } : {}),
    ...(num(env.MEDSYNTH_BATCH_IDLE_MS) !== undefined ? { idleMs: num(env.MEDSYNTH_BATCH_IDLE_MS) } : {}),
  };
  return BatchSettingsSchema.parse({ ...fromEnv, ...input });
}
