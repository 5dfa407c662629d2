/**
 * Loader for medsynth's own JSONL task files: one task per line, each line a ConclusionTask,
 * SynthesisTask or RweStudy object with a `kind` field ("conclusion" | "synthesis" | "rwe"),
 * or without it when the file's kind is given in the options. Malformed lines are skipped and
 * counted with "file:line" warnings; the rest load.
 */
import { z } from "zod";
import { ConclusionTaskSchema, RweStudySchema, SynthesisTaskSchema, type Task } from "../types.ts";
import { createSkipCounter, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this loader. */
export const JSONL_DATASET = "jsonl";

/** Task kinds a JSONL line may hold. */
export const JSONL_TASK_KINDS = ["conclusion", "synthesis", "rwe"] as const;

const SCHEMAS = { conclusion: ConclusionTaskSchema, synthesis: SynthesisTaskSchema, rwe: RweStudySchema } as const;

/** Options of {@link loadJsonlTasks}. */
export const JsonlOptionsSchema = z
  .object({
    /** Path of the JSONL file (required). */
    path: z.string().min(1),
    /** Kind for lines without a `kind` field; lines with one must agree. */
    kind: z.enum(JSONL_TASK_KINDS).optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadJsonlTasks}. */
export type JsonlOptions = z.input<typeof JsonlOptionsSchema>;

/**
 * Load a JSONL file of tasks.
 *
 * Items are {@link Task}s (`kind` + task fields). `taskKind` of the result is the kind of the
 * items when they all share one, else (mixed or empty file) the `kind` option or "conclusion".
 * Skip reasons: "invalid JSON", "missing kind", "unknown kind", "kind mismatch",
 * "invalid <field>" (first failing field of the task schema).
 * @throws Error when the file is missing, or `path` is not given.
 */
export async function loadJsonlTasks(options: JsonlOptions): Promise<LoadedDataset<Task>> {
  const opts = JsonlOptionsSchema.parse(options);
  const lines = readDataFile(opts.path, JSONL_DATASET).split("\n");
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: Task[] = [];
  const kinds = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const where = `${opts.path}:${i + 1}`;
    const skip = (reason: string, detail: string) => {
      skipped.add(reason);
      warnings.push(`${where}: ${detail}; skipped`);
    };
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      skip("invalid JSON", `invalid JSON (${(err as Error).message})`);
      continue;
    }
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      skip("invalid JSON", "not a JSON object");
      continue;
    }
    const { kind: lineKind, ...rest } = raw as Record<string, unknown>;
    const kind = lineKind ?? opts.kind;
    if (kind === undefined) {
      skip("missing kind", `no "kind" field and no kind option`);
      continue;
    }
    if (!JSONL_TASK_KINDS.includes(kind as (typeof JSONL_TASK_KINDS)[number])) {
      skip("unknown kind", `unknown kind "${String(kind)}" (valid: ${JSONL_TASK_KINDS.join(", ")})`);
      continue;
    }
    if (opts.kind && lineKind !== undefined && lineKind !== opts.kind) {
      skip("kind mismatch", `kind "${String(lineKind)}" but the file was loaded as "${opts.kind}"`);
      continue;
    }
    const k = kind as (typeof JSONL_TASK_KINDS)[number];
    const v = validateItem(SCHEMAS[k], rest);
    if (!v.ok) {
      skip(`invalid ${v.reason.split(":")[0]}`, v.reason);
      continue;
    }
    kinds.add(k);
    items.push({ kind: k, ...v.value } as Task);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  const taskKind = kinds.size === 1 ? ([...kinds][0] as (typeof JSONL_TASK_KINDS)[number]) : (opts.kind ?? "conclusion");
  return { name: JSONL_DATASET, taskKind, items, warnings, skipped: skippedOf(skipped) };
}
