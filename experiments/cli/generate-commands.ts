/**
 * `medsynth generate --workflow <id> --dataset <name> --model <id> [--limit 5] [--k 10]
 *   [--config '<json>'] [--repeat 0] [--retrieval hybrid] [--reranker <id>] [--prompt-dir dir] [--json]`
 *
 * Runs one workflow on the first `--limit` items of a dataset and prints, per item, the status,
 * the output, the intermediate steps and the token usage; a total line ends the run. Model
 * endpoint settings (base URL, API-key env var name, …) come from the environment as read by the
 * model layer. Standard-RAG retrieves from the dataset's corpus (its `docs`, else the union of the
 * items' golden abstracts) with `createRetriever({mode: --retrieval})`.
 */
import type { Command } from "commander";
import type { CorpusDoc } from "../../corpus/types.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import { createGeneratorModel, isChatModel } from "../../models/registry.ts";
import { summarizeUsage } from "../../models/usage.ts";
import { createRetriever, RETRIEVAL_MODES, type RetrievalMode } from "../../retrieval/registry.ts";
import { createReranker } from "../../retrieval/rerankers/registry.ts";
import { getWorkflow, listWorkflowIds } from "../../graphs/registry.ts";
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
 * @param print line sink (default console.log)
 * @returns the per-item results
 * @throws Error on an unknown workflow/model/dataset id (listing valid ids), a task-kind mismatch or a bad option
 */
export async function runGenerate(opts: GenerateOptions, print: (line: string) => void = console.log): Promise<{ itemId: string; result: WorkflowRunResult }[]> {
  const def = getWorkflow(opts.workflow);
  const limit = positiveInt("limit", opts.limit);
  const repeat = positiveInt("repeat", opts.repeat, 0);
  let config: Record<string, unknown> = {};
  if (opts.config) {
    try {
      config = JSON.parse(opts.config);
    } catch (err) {
      throw new Error(`--config is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (opts.k !== undefined) config.k = positiveInt("k", opts.k);
  const ds = await loadDataset(opts.dataset);
  if (ds.taskKind !== def.taskKind) throw new Error(`workflow '${def.id}' needs ${def.taskKind} items but dataset '${opts.dataset}' has ${ds.taskKind} items`);
  const model = createGeneratorModel(opts.model);
  const deps: WorkflowDeps = { model, ...(opts.promptDir ? { promptDir: opts.promptDir } : {}) };
  const items = ds.items.slice(0, limit) as { id: string; goldenDocs?: CorpusDoc[] }[];
  if (def.id === "standard-rag") {
    if (!(RETRIEVAL_MODES as readonly string[]).includes(opts.retrieval)) throw new Error(`unknown --retrieval '${opts.retrieval}'; valid: ${RETRIEVAL_MODES.join(", ")}`);
    const byId = new Map<string, CorpusDoc>();
    for (const d of ds.docs ?? (ds.items as { goldenDocs?: CorpusDoc[] }[]).flatMap((t) => t.goldenDocs ?? [])) byId.set(d.id, d);
    if (byId.size === 0) throw new Error(`dataset '${opts.dataset}' has no documents to retrieve from`);
    deps.retriever = await createRetriever({ mode: opts.retrieval as RetrievalMode }, { docs: [...byId.values()], log: (l) => print(`# ${l}`) });
    deps.getDoc = (id) => byId.get(id);
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
  print(opts.json ? JSON.stringify({ summary: { items: results.length, ...counts, usage: total } }) : `--- ${results.length} items: ${counts.ok} ok, ${counts.failed} failed, ${counts.skipped} skipped; usage ${JSON.stringify(total)}`);
  return results;
}

/** Register `generate` on the program. */
export function registerGenerateCommands(program: Command): void {
  program
    .command("generate")
    .description("Run a workflow on the first items of a dataset and print outputs, intermediate steps and token usage")
    .requiredOption("--workflow <id>", `workflow id (${listWorkflowIds().join(", ")})`)
    .requiredOption("--dataset <name>", "dataset name (see `medsynth datasets list`)")
    .requiredOption("--model <id>", "generator: openai:<model> or extractive:mmr / extractive:lead")
    .option("--limit <n>", "number of items", "5")
    .option("--k <n>", "documents per query (standard-rag)")
    .option("--config <json>", "workflow config as JSON, e.g. '{\"fraction\":0.5}'")
    .option("--repeat <n>", "repeat index (separate cache entries)", "0")
    .option("--retrieval <mode>", `retrieval mode for standard-rag (${RETRIEVAL_MODES.join(", ")})`, "hybrid")
    .option("--reranker <id>", "reranker for standard-rag (e.g. none, cross-encoder, llm-pointwise)")
    .option("--prompt-dir <dir>", "folder of prompt templates overriding the bundled ones")
    .option("--json", "print one JSON line per item")
    .action(async (opts: GenerateOptions) => {
      await runGenerate(opts);
    });
}
