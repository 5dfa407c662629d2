/**
 * `medsynth generate --workflow <id> --dataset <name> [--path file] --model <id> [--limit 5] [--k 10]
 *   [--config '<json>'] [--repeat 0] [--retrieval hybrid] [--corpus bundled|dataset|<file.jsonl>]
 *   [--reranker <id>] [--prompt-dir dir] [--json]`
 *
 * Runs one workflow on the first `--limit` items of a dataset and prints, per item, the status,
 * the output, the intermediate steps and the token usage; a total line ends the run. Model
 * endpoint settings (base URL, API-key env var name, …) come from the environment as read by the
 * model layer. Standard-RAG retrieves with `createRetriever({mode: --retrieval})` from `--corpus`:
 * `bundled` (default; the same ~3.3k-abstract corpus `medsynth run` uses), `dataset` (the
 * dataset's own `docs`, else the union of the items' golden abstracts) or a corpus JSONL of
 * CorpusDoc or PubmedRecord lines. `--path` names the file of the `jsonl` dataset (or overrides
 * a file-based loader's bundled file). The command exits 1 when no item succeeded and at least
 * one failed. Bad options and `--config` fields give one line per problem naming them.
 */
import type { CorpusDoc } from "../../corpus/types.ts";
import { getDataset } from "../../corpus/datasets/registry.ts";
import type { LoadedDataset } from "../../corpus/datasets/loaded-dataset.ts";
import { JSONL_DATASET, JSONL_TASK_KINDS } from "../../corpus/datasets/jsonl.ts";
import { formatZodIssues, valueAt } from "./zod-format.ts";
import { openRetrievalCorpus } from "../../corpus/corpus-file.ts";
import { medsynthCommand } from "../../corpus/paths.ts";
import type { DocumentSource } from "../../corpus/store/types.ts";
import { checkDatasetOptions } from "./datasets-commands.ts";
import { createGeneratorModel, isChatModel } from "../../models/registry.ts";
import { summarizeUsage } from "../../models/usage.ts";
import { createRetriever, RETRIEVAL_MODES, type RetrievalMode } from "../../retrieval/registry.ts";
import { createReranker } from "../../retrieval/rerankers/registry.ts";
import { getWorkflow } from "../../graphs/registry.ts";
import type { WorkflowDeps, WorkflowRunResult } from "../../graphs/types.ts";

/** Parsed options of `generate`. */
export interface GenerateOptions {
  workflow: string;
  dataset: string;
  model: string;
  limit: string;
  k?: string;
  config?: string;
  repeat: string;
  retrieval: string;
  /** standard-rag corpus: "bundled" (default), "dataset" or a corpus JSONL path. */
  corpus?: string;
  /** File of the `jsonl` dataset (or an override of a file-based loader's file). */
  path?: string;
  reranker?: string;
  promptDir?: string;
  json?: boolean;
}

function positiveInt(name: string, v: string, min = 1): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min} (got '${v}')`);
  return n;
}

/** Text report of one item's result (output, intermediate steps as indented JSON, usage). */
export function formatRunResult(itemId: string, r: WorkflowRunResult): string {
  const u = summarizeUsage(r.calls);
  const lines = [`=== ${itemId}  [${r.status}]  ${(r.latencyMs / 1000).toFixed(2)} s`];
  if (r.error) lines.push(`${r.status === "skipped" ? "skipped" : "error"}: ${r.error}`);
  if (r.output !== null) lines.push("output:", r.output);
  if (Object.keys(r.intermediate).length) lines.push("intermediate:", JSON.stringify(r.intermediate, null, 2));
  lines.push(`usage: ${JSON.stringify(u)}`);
  return lines.join("\n");
}

/**
 * Run `generate` (exported for tests).
 * @param print line sink for results (default console.log)
 * @param log line sink for progress and data notes (default console.error)
 * @returns the per-item results
 * @throws Error on an unknown workflow/model/dataset id (listing valid ids), a task-kind mismatch
 *   or a bad option / `--config` field (one line per problem, naming it)
 */
export async function runGenerate(
  opts: GenerateOptions,
  print: (line: string) => void = console.log,
  log: (line: string) => void = (l) => console.error(l),
): Promise<{ itemId: string; result: WorkflowRunResult }[]> {
  const def = getWorkflow(opts.workflow);
  const limit = positiveInt("limit", opts.limit);
  const repeat = positiveInt("repeat", opts.repeat, 0);
  let config: Record<string, unknown> = {};
  if (opts.config) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(opts.config);
    } catch (err) {
      throw new Error(`--config is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`--config must be a JSON object, e.g. '{"k":10}' (got ${opts.config})`);
    config = parsed as Record<string, unknown>;
  }
  if (opts.k !== undefined) config.k = positiveInt("k", opts.k);
  const checked = def.configSchema.safeParse(config);
  if (!checked.success) {
    throw new Error(
      formatZodIssues(
        checked.error.issues,
        (p) => (p.length && p[0] === "k" && opts.k !== undefined ? "--k" : `--config ${p.map(String).join(".") || "(value)"}`),
        (p) => valueAt(config, p),
        `not a setting of workflow '${def.id}'`,
      ),
    );
  }
  const isRag = def.id === "standard-rag";
  if (opts.corpus !== undefined && !isRag) throw new Error(`--corpus: only standard-rag retrieves (workflow '${def.id}' takes no corpus)`);
  if (isRag && !(RETRIEVAL_MODES as readonly string[]).includes(opts.retrieval)) throw new Error(`--retrieval: expected one of ${RETRIEVAL_MODES.join(", ")} (got "${opts.retrieval}")`);
  const ds = await loadGenerateDataset(opts, def.taskKind, log);
  if (ds.taskKind !== def.taskKind) throw new Error(`workflow '${def.id}' needs ${def.taskKind} items but dataset '${opts.dataset}' has ${ds.taskKind} items`);
  const model = createGeneratorModel(opts.model);
  const deps: WorkflowDeps = { model, ...(opts.promptDir ? { promptDir: opts.promptDir } : {}) };
  const items = ds.items.slice(0, limit) as { id: string; goldenDocs?: CorpusDoc[] }[];
  if (isRag) {
    const corpus = opts.corpus ?? "bundled";
    let docs: CorpusDoc[] = [];
    let source: DocumentSource | undefined;
    if (corpus === "dataset") {
      const byId = new Map<string, CorpusDoc>();
      for (const d of ds.docs ?? (ds.items as { goldenDocs?: CorpusDoc[] }[]).flatMap((t) => t.goldenDocs ?? [])) if (!byId.has(d.id)) byId.set(d.id, d);
      if (byId.size === 0) throw new Error(`--corpus dataset: dataset '${opts.dataset}' has no documents to retrieve from`);
      docs = [...byId.values()];
      log(`# corpus: dataset ${opts.dataset}, ${docs.length} docs`);
    } else {
      // A corpus store stays on disk (streamed; hits come with their documents fetched by id).
      const opened = await openRetrievalCorpus(corpus, (l) => log(`# ${l}`));
      source = opened.source;
      docs = opened.docs ?? [];
    }
    const byId = new Map(docs.map((d) => [d.id, d]));
    deps.retriever = await createRetriever({ mode: opts.retrieval as RetrievalMode }, { ...(source ? { source } : { docs }), log: (l) => log(`# ${l}`) });
    if (!source) deps.getDoc = (id) => byId.get(id);
    if (opts.reranker) deps.reranker = await createReranker(opts.reranker, isChatModel(model) ? { chatModel: model } : {});
  }
  const wf = def.create(deps, config as never);
  const results: { itemId: string; result: WorkflowRunResult }[] = [];
  for (const item of items) {
    const result = await wf.run(item as never, { repeat });
    results.push({ itemId: item.id, result });
    print(opts.json ? JSON.stringify({ itemId: item.id, ...result }) : formatRunResult(item.id, result));
  }
  const total = summarizeUsage(results.flatMap((r) => r.result.calls));
  const counts = { ok: 0, failed: 0, skipped: 0 };
  for (const r of results) counts[r.result.status]++;
  print(
    opts.json
      ? JSON.stringify({ summary: { items: results.length, ...counts, usage: total } })
      : `--- ${results.length} items: ${counts.ok} ok, ${counts.failed} failed, ${counts.skipped} skipped; usage ${JSON.stringify(total)}`,
  );
  return results;
}

/**
 * Load the dataset of `generate`: `--path` is passed to the loader (required for `jsonl`, whose
 * kind option is the workflow's task kind); options are checked first (one line per problem);
 * skipped records are noted on `log`.
 * @throws Error when `jsonl` has no `--path`, on a bad option, or when no item could be loaded.
 */
async function loadGenerateDataset(opts: GenerateOptions, taskKind: string, log: (l: string) => void): Promise<LoadedDataset> {
  const entry = getDataset(opts.dataset);
  if (opts.dataset === JSONL_DATASET && !opts.path) throw new Error(`--dataset ${JSONL_DATASET} needs --path <tasks.jsonl> (a task file, or the output of \`${medsynthCommand()} corpus ingest\`)`);
  const loadOpts: Record<string, unknown> = {};
  if (opts.path) loadOpts.path = opts.path;
  if (opts.dataset === JSONL_DATASET && (JSONL_TASK_KINDS as readonly string[]).includes(taskKind)) loadOpts.kind = taskKind;
  checkDatasetOptions(entry, loadOpts);
  const ds = await entry.load(loadOpts);
  if (ds.skipped.count)
    log(
      `# dataset ${opts.dataset}: ${ds.items.length} items; skipped ${ds.skipped.count} (${Object.entries(ds.skipped.reasons)
        .map(([r, n]) => `${r}: ${n}`)
        .join("; ")}; first: ${ds.warnings[0] ?? "?"})`,
    );
  if (ds.items.length === 0) throw new Error(`dataset '${opts.dataset}'${opts.path ? ` (${opts.path})` : ""} has no usable ${taskKind} items`);
  return ds;
}

function firstError(results: readonly { result: WorkflowRunResult }[]): string | null {
  return results.find((r) => r.result.status === "failed")?.result.error ?? null;
}

/** Exit status of `generate`: 1 when no item succeeded and at least one failed, else 0. */
export function generateExitCode(results: readonly { result: WorkflowRunResult }[]): number {
  return results.some((r) => r.result.status === "failed") && !results.some((r) => r.result.status === "ok") ? 1 : 0;
}

/** `generate` (the action of the command registered in generate-register.ts): run, print, set the exit code. */
export async function generateCommand(opts: GenerateOptions): Promise<void> {
  const results = await runGenerate(opts);
  if (generateExitCode(results) !== 0) {
    console.error(
      `medsynth: generate: no item succeeded (${results.filter((r) => r.result.status === "failed").length} of ${results.length} failed)${firstError(results) ? ` (first error: ${firstError(results)})` : ""}`,
    );
    process.exitCode = 1;
  }
}
