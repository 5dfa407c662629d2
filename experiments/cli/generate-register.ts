/**
 * Definitions (names, options, help) of `medsynth generate`. Only commander and plain id lists (help-ids.ts) is loaded here; each action
 * imports generate-commands.ts when the command runs, so `--help` does not load LangGraph, LangChain or the retrievers.
 */
import type { Command } from "commander";
import type { GenerateOptions } from "./generate-commands.ts";
import { HELP_RETRIEVAL_MODES, HELP_WORKFLOW_IDS } from "./help-ids.ts";

/** Register `generate` on the program. */
export function registerGenerateCommands(program: Command): void {
  program
    .command("generate")
    .description("Run a workflow on the first items of a dataset and print outputs, intermediate steps and token usage")
    .requiredOption("--workflow <id>", `workflow id (${HELP_WORKFLOW_IDS.join(", ")})`)
    .requiredOption("--dataset <name>", "dataset name (see `medsynth datasets list`)")
    .option("--path <file>", "dataset file (required for jsonl: a task JSONL or `corpus ingest` output; .jsonl.gz ok)")
    .requiredOption("--model <id>", "generator: openai:<model> or extractive:mmr / extractive:lead")
    .option("--limit <n>", "number of items", "5")
    .option("--k <n>", "documents per query (standard-rag)")
    .option("--config <json>", "workflow config as JSON, e.g. '{\"fraction\":0.5}'")
    .option("--repeat <n>", "repeat index (separate cache entries)", "0")
    .option("--retrieval <mode>", `retrieval mode for standard-rag (${HELP_RETRIEVAL_MODES.join(", ")})`, "hybrid")
    .option("--corpus <corpus>", "standard-rag corpus: bundled (default, as `medsynth run`) | dataset (the dataset's own docs) | corpus JSONL path")
    .option("--reranker <id>", "reranker for standard-rag (e.g. none, cross-encoder, llm-pointwise)")
    .option("--prompt-dir <dir>", "folder of prompt templates overriding the bundled ones")
    .option("--json", "print one JSON line per item")
    .action(async (opts: GenerateOptions) => (await import("./generate-commands.ts")).generateCommand(opts));
}
