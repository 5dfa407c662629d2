/**
 * Definitions (names, options, help) of `medsynth run`, `merge`, `report` and `compare`. Only commander and the exit-code table is loaded here; each action
 * imports run-commands.ts when the command runs, so `--help` does not load the runner, LangChain, LanceDB or Vega.
 */
import type { Command } from "commander";
import { EXIT_CODES_HELP } from "../exit-codes.ts";
import type { RunCommandOptions } from "./run-commands.ts";

const impl = () => import("./run-commands.ts");

/** Register `run`, `merge`, `report` and `compare`. */
export function registerRunCommands(program: Command): void {
  program
    .command("run")
    .description("run (or resume) an experiment config: generation, metrics, judges, retrieval evaluation, report")
    .argument("<config>", "experiment YAML/JSON (see experiments/configs/)")
    .option("--retry-failed", "re-run only the cells whose last record failed")
    .option(
      "--reuse-changed-settings",
      "reuse the output folder's finished cells even when they were computed with other retrieval settings, seed or promptDir (not part of the cell keys; default: refuse)",
    )
    .option("--no-report", "do not write the report at the end")
    .option("--no-progress", "no progress bar")
    .option("--json", "print the run summary as JSON")
    .option(
      "--shard <i/n|auto>",
      "run only shard i of n (a deterministic 1/n of the cells) into <output>/shard-i-of-n; combine with `medsynth merge`. `auto`: i/n from a Slurm array task (SLURM_ARRAY_TASK_*) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX + --shard-count)",
    )
    .option(
      "--shard-count <n>",
      "with --shard auto: the number of shards (required under Kubernetes: the Indexed Job's completions; under Slurm the full array's size, so that a resubmitted task k, e.g. `sbatch --array=k`, reruns shard k/n)",
    )
    .option(
      "--batch",
      "send every chat call (generation steps, judge verdicts, LLM metrics) through the endpoints' Batch APIs in waves, at the batch price; resumable (batch ids in <output>/batches.jsonl)",
    )
    .option("--batch-retry <how>", "with --batch: retry a failed, expired or cancelled line `online` (default) or in a new `batch`")
    .option("--cancel-batches", "with --batch: on exit or Ctrl-C cancel the run's batches still in flight (default: leave them running; a re-run re-attaches)")
    .option("--dry-run", "check everything and print the estimate (cells, calls per cell, tokens, cost); run nothing")
    .addHelpText("after", `\n${EXIT_CODES_HELP}`)
    .action(async (file: string, opts: RunCommandOptions) => {
      const m = await impl();
      if (opts.dryRun) await m.dryRunCommand(file, opts);
      else await m.runCommand(file, opts);
    });
  const batch = program.command("batch").description("batch runs through request files, for servers that run OpenAI-format batch files offline (vllm run-batch)");
  batch
    .command("export")
    .description(
      "run the config in batch mode writing each wave's requests to <output>/batch-files/*.jsonl (OpenAI batch format), then stop; after `batch import`, export again for the next wave (the run finishes when no call is left)",
    )
    .argument("<config>")
    .option("--no-report", "do not write the report when the run finishes")
    .action(async (file: string, opts: { report?: boolean }) => {
      await (await import("./batch-commands.ts")).batchExportCommand(file, opts);
    });
  batch
    .command("import")
    .description("store results files (OpenAI batch output format, e.g. from `vllm run-batch -o`) beside the request files they answer, matched by custom_id")
    .argument("<config>")
    .argument("<results...>", "results JSONL files")
    .action(async (file: string, results: string[]) => {
      await (await import("./batch-commands.ts")).batchImportCommand(file, results);
    });
  program
    .command("merge")
    .description("combine the shard folders of one sharded run into one run folder (refuses shards of different configs), then write its report")
    .argument("<shard-dirs...>", "folders written by `medsynth run --shard i/n`")
    .option("-o, --output <dir>", "merged run folder (default: the folder holding the first shard folder)")
    .option("--allow-missing", "merge even when some shard is absent (its cells stay unrun)")
    .option("--no-report", "do not write the report")
    .action(async (dirs: string[], opts: { output?: string; allowMissing?: boolean; report?: boolean }) => {
      await (await impl()).mergeCommand(dirs, opts);
    });
  program
    .command("report")
    .description("write report.md, report.html (standalone) and charts/ for a run folder")
    .argument("<run-dir>", "folder holding results.jsonl and spec.json")
    .option("--scimago <file>", "SCImago journal file (its semicolon-separated CSV export) for the MedConclusion journal subgroups (overrides report.scimago)")
    .action(async (dir: string, opts: { scimago?: string }) => {
      await (await impl()).reportCommand(dir, opts);
    });
  program
    .command("compare")
    .description("per-metric deltas between two runs, paired by item, with paired t and Wilcoxon tests")
    .argument("<runA>")
    .argument("<runB>")
    .option("--json", "print JSON")
    .action(async (a: string, b: string, opts: { json?: boolean }) => {
      await (await impl()).compareCommand(a, b, opts);
    });
}
