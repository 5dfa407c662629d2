/**
 * Loader for medsynth's own JSONL task files: one task per line, each line a ConclusionTask,
 * SynthesisTask or RweStudy object with a `kind` field ("conclusion" | "synthesis" | "rwe"),
 * or without it when the file's kind is given in the options. PubmedRecord lines (the output of
 * `medsynth corpus ingest`) become MedConclusion tasks. Gzip files (`.jsonl.gz`) are
 * decompressed while streaming. Malformed lines are skipped and counted with "file:line"
 * warnings; the rest load.
 */
import { z } from "zod";
import { createReadStream, existsSync, openSync, readSync, closeSync } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { gzipReadPosition } from "../gzip-read-error.ts";
import { ConclusionTaskSchema, PubmedRecordSchema, RweStudySchema, SynthesisTaskSchema, type ConclusionTask, type Task } from "../types.ts";
import { recordToConclusionTask } from "../conclusion-task.ts";
import { isConclusionSegment } from "../conclusion-labels.ts";
import { createSkipCounter, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this loader. */
export const JSONL_DATASET = "jsonl";

/** Task kinds a JSONL line may hold. */
export const JSONL_TASK_KINDS = ["conclusion", "synthesis", "rwe"] as const;

const SCHEMAS = { conclusion: ConclusionTaskSchema, synthesis: SynthesisTaskSchema, rwe: RweStudySchema } as const;

/**
 * Values of the synthesis fields a line may leave out: only workflows that need them read them
 * (P-ZS needs a question; Golden-RAG skips items without golden abstracts; metrics without a
 * reference are not computed). `dataset` defaults to "jsonl".
 */
export function synthesisDefaults(): Record<string, unknown> {
  return { dataset: JSONL_DATASET, referenceConclusion: null, referenceAnswer: null, evidenceCertainty: null, goldenPmids: [], goldenDocs: [] };
}

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

/** Whether a parsed line looks like a {@link PubmedRecord} as written by `medsynth corpus ingest` (not a task). */
export function isPubmedRecordLine(raw: Record<string, unknown>): boolean {
  return typeof raw.pmid === "string" && Array.isArray(raw.abstract) && !("sections" in raw) && !("kind" in raw);
}

/** Whether the file starts with the gzip magic bytes 1f 8b. */
function isGzipFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Stream the lines of a text file, gunzipping it when it is gzip (by its magic bytes, so
 * `.jsonl.gz` and misnamed files both work); a leading BOM is removed.
 * @throws Error naming the file when it cannot be read to its end (e.g. a truncated .gz).
 */
export async function* readLines(path: string): AsyncGenerator<string> {
  const file = createReadStream(path);
  const input = isGzipFile(path) ? file.pipe(createGunzip()) : file;
  if (input !== file) file.on("error", (e) => input.destroy(e));
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of rl) {
      n++;
      yield n === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
    }
  } catch (err) {
    const gz = gzipReadPosition(input !== file, file.bytesRead, err);
    throw new Error(`dataset "${JSONL_DATASET}": ${path}: read failed after line ${n}${gz}: ${(err as Error).message}`, { cause: err });
  } finally {
    rl.close();
    file.destroy();
  }
}

/**
 * Load a JSONL file of tasks (`.jsonl`, or gzip-compressed `.jsonl.gz`; streamed).
 *
 * Items are {@link Task}s (`kind` + task fields). A line that is a {@link PubmedRecord} (as written
 * by `medsynth corpus ingest`: `pmid` + `abstract`, no `kind`) becomes a conclusion task through
 * {@link recordToConclusionTask} (id `jsonl:<pmid>`) when the kind option is "conclusion" or not
 * given; with another kind option it is a "kind mismatch".
 * `taskKind` of the result is the kind of the items when they all share one, else (mixed or empty
 * file) the `kind` option or "conclusion".
 * Synthesis lines may leave out the fields of {@link synthesisDefaults}. The line format is
 * documented in docs/datasets.md#your-own-tasks-jsonl.
 * Skip reasons: "invalid JSON", "missing kind", "unknown kind", "kind mismatch",
 * "invalid <field>" (first failing field of the task schema; the warning names every missing or
 * invalid field of the line, "file:line: field: message; field: message; skipped"), and for PubmedRecord lines
 * "invalid PubmedRecord <field>", "deleted citation", "no conclusion" (no conclusion segment),
 * "only conclusion" (no other segment).
 * @throws Error when the file is missing or cannot be read to its end, or `path` is not given.
 */
export async function loadJsonlTasks(options: JsonlOptions): Promise<LoadedDataset<Task>> {
  const opts = JsonlOptionsSchema.parse(options);
  if (!existsSync(opts.path)) readDataFile(opts.path, JSONL_DATASET); // throws the loaders' "file not found" error
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: Task[] = [];
  const kinds = new Set<string>();
  let i = -1;
  for await (const text of readLines(opts.path)) {
    i++;
    const line = text.trim();
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
    if (isPubmedRecordLine(raw as Record<string, unknown>)) {
      if (opts.kind !== undefined && opts.kind !== "conclusion") {
        skip("kind mismatch", `a PubmedRecord line (a conclusion task) but the file was loaded as "${opts.kind}"`);
        continue;
      }
      const rec = validateItem(PubmedRecordSchema, raw);
      if (!rec.ok) {
        skip(`invalid PubmedRecord ${rec.reason.split(":")[0]}`, `PubmedRecord ${rec.issues.join("; ")}`);
        continue;
      }
      if (rec.value.flags.deleted) {
        skip("deleted citation", `PMID ${rec.value.pmid} is a deleted citation`);
        continue;
      }
      const conclusions = rec.value.abstract.filter(isConclusionSegment).length;
      if (conclusions === 0 || conclusions === rec.value.abstract.length) {
        skip(
          conclusions === 0 ? "no conclusion" : "only conclusion",
          conclusions === 0 ? `PMID ${rec.value.pmid}: no conclusion segment in the abstract` : `PMID ${rec.value.pmid}: the abstract has only conclusion segments`,
        );
        continue;
      }
      let task: ConclusionTask;
      try {
        task = recordToConclusionTask(rec.value, JSONL_DATASET);
      } catch (err) {
        skip("invalid conclusion task", `PMID ${rec.value.pmid}: ${(err as Error).message.split("\n")[0]}`);
        continue;
      }
      kinds.add("conclusion");
      items.push({ kind: "conclusion", ...task } as Task);
      if (opts.limit !== undefined && items.length >= opts.limit) break;
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
    const v = validateItem(SCHEMAS[k], k === "synthesis" ? { ...synthesisDefaults(), ...rest } : rest);
    if (!v.ok) {
      skip(`invalid ${v.reason.split(":")[0]}`, v.issues.join("; "));
      continue;
    }
    kinds.add(k);
    items.push({ kind: k, ...v.value } as Task);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  const taskKind = kinds.size === 1 ? ([...kinds][0] as (typeof JSONL_TASK_KINDS)[number]) : (opts.kind ?? "conclusion");
  return { name: JSONL_DATASET, taskKind, items, warnings, skipped: skippedOf(skipped) };
}
