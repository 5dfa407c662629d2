/**
 * `medsynth cluster slurm`: the sbatch scripts that run one experiment config as a Slurm job array
 * (one array task per shard, each `medsynth run <config> --shard auto`) plus a merge job that runs
 * after every task succeeded (`--dependency=afterok:<array job>`), and a `submit.sh` that submits
 * both. Slurm stays the scheduler: the scripts are plain text a user can read and edit.
 *
 * Paths in the scripts are absolute (the usual cluster has one shared filesystem); tasks start in
 * the folder the command was run from (`#SBATCH --chdir`), and inherit the submitting shell's
 * environment (sbatch's default `--export=ALL`), so endpoint variables set at submission reach them.
 *
 * @see https://slurm.schedmd.com/sbatch.html (--array, --dependency=afterok, --chdir)
 */
import { z } from "zod";
import { shardDir } from "./shards.ts";

/** Options of the Slurm scripts (`medsynth cluster slurm`). */
export const SlurmScriptOptionsSchema = z
  .object({
    /** Absolute path of the experiment config. */
    config: z.string().min(1),
    /** Absolute path of the run's output folder (the config's `output`). */
    output: z.string().min(1),
    /** Number of shards = array tasks. */
    shards: z.number().int().min(1).max(100_000),
    /** Job name (default `medsynth-<config name>`). */
    jobName: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, . _ - only")
      .default("medsynth"),
    /** Folder the tasks start in (`--chdir`). */
    workdir: z.string().min(1),
    /** Folder for the tasks' log files (`%x-%A_%a.out`). */
    logDir: z.string().min(1),
    /** The command that runs medsynth on a node, e.g. `medsynth` or `node /path/bin/medsynth.js`. */
    medsynth: z.string().min(1),
    partition: z.string().optional(),
    /** Slurm time limit per task (`--time`), e.g. `02:00:00`. */
    time: z.string().optional(),
    account: z.string().optional(),
    cpusPerTask: z.number().int().min(1).optional(),
    /** Memory per task (`--mem`), e.g. `8G`. */
    mem: z.string().optional(),
    /** At most this many tasks at once (`--array=1-n%k`). */
    maxParallel: z.number().int().min(1).optional(),
    /** Shell lines run before medsynth in every job (module loads, venv activation). */
    setup: z.array(z.string()).default([]),
  })
  .strict();

/** Options of {@link buildSlurmScripts}. */
export type SlurmScriptOptions = z.input<typeof SlurmScriptOptionsSchema>;

/** The three files of a Slurm submission. */
export interface SlurmScripts {
  /** `array.sbatch`: one task per shard. */
  array: string;
  /** `merge.sbatch`: `medsynth merge` of every shard folder into the run folder, then its report. */
  merge: string;
  /** `submit.sh`: submits the array, then the merge with `--dependency=afterok`. */
  submit: string;
}

/** Quotes one word for bash (single quotes; a single quote inside becomes `'\''`). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `#SBATCH` lines shared by the array and the merge job. */
function commonDirectives(o: z.infer<typeof SlurmScriptOptionsSchema>, jobName: string, logPattern: string): string[] {
  const lines = [`#SBATCH --job-name=${jobName}`, `#SBATCH --chdir=${shellQuote(o.workdir)}`, `#SBATCH --output=${shellQuote(`${o.logDir}/${logPattern}`)}`];
  if (o.partition) lines.push(`#SBATCH --partition=${shellQuote(o.partition)}`);
  if (o.time) lines.push(`#SBATCH --time=${shellQuote(o.time)}`);
  if (o.account) lines.push(`#SBATCH --account=${shellQuote(o.account)}`);
  return lines;
}

/**
 * The sbatch array script, the merge script and the submit script for one config.
 * @returns the files' texts (bash, LF line ends).
 * @throws ZodError on invalid options (e.g. 0 shards, a job name with spaces).
 */
export function buildSlurmScripts(options: SlurmScriptOptions): SlurmScripts {
  const o = SlurmScriptOptionsSchema.parse(options);
  const header = (what: string) => ["#!/bin/bash", `# medsynth ${what} for ${o.config}`, "# written by `medsynth cluster slurm`; edit freely (see docs/clusters.md)."];
  const setup = o.setup.length ? ["", ...o.setup] : [];
  const arraySpec = `1-${o.shards}${o.maxParallel ? `%${o.maxParallel}` : ""}`;
  const array = [
    ...header(`job array: ${o.shards} shard(s), one per task`),
    ...commonDirectives(o, o.jobName, "%x-%A_%a.out"),
    `#SBATCH --array=${arraySpec}`,
    ...(o.cpusPerTask ? [`#SBATCH --cpus-per-task=${o.cpusPerTask}`] : []),
    ...(o.mem ? [`#SBATCH --mem=${shellQuote(o.mem)}`] : []),
    "set -euo pipefail",
    ...setup,
    "",
    `# --shard auto reads SLURM_ARRAY_TASK_ID: task k runs shard k of ${o.shards}, also when resubmitted alone`,
    "# (sbatch --array=k array.sbatch). Arguments after the script's name are passed on to `run`, e.g.",
    "# sbatch --array=k array.sbatch --retry-failed (re-runs the shard's failed cells).",
    `exec ${o.medsynth} run ${shellQuote(o.config)} --shard auto --shard-count ${o.shards} --no-progress "$@"`,
    "",
  ].join("\n");
  const shardFolders = Array.from({ length: o.shards }, (_, i) => shellQuote(shardDir(o.output, { index: i + 1, count: o.shards })));
  const merge = [
    ...header(`merge of the ${o.shards} shard folder(s) (runs after every array task succeeded)`),
    ...commonDirectives(o, `${o.jobName}-merge`, "%x-%j.out"),
    "set -euo pipefail",
    ...setup,
    "",
    `exec ${o.medsynth} merge \\`,
    ...shardFolders.map((f) => `  ${f} \\`),
    `  -o ${shellQuote(o.output)}`,
    "",
  ].join("\n");
  const submit = [
    "#!/bin/bash",
    `# Submits the ${o.shards}-task array for ${o.config}, then its merge job (afterok: only when every task exited 0).`,
    "# A task that ended with failed cells exits non-zero and holds the merge back: resume that shard",
    "# (sbatch --array=<k> array.sbatch --retry-failed), then submit merge.sbatch by hand.",
    "set -euo pipefail",
    'cd "$(dirname "$0")"',
    `mkdir -p ${shellQuote(o.logDir)}`,
    "array=$(sbatch --parsable array.sbatch)",
    "array=${array%%;*}",
    'merge=$(sbatch --parsable --dependency=afterok:"$array" merge.sbatch)',
    "merge=${merge%%;*}",
    `echo "submitted array job $array (${o.shards} tasks) and merge job $merge (after every task succeeded); logs in ${o.logDir.replace(/"/g, '\\"')}"`,
    "",
  ].join("\n");
  return { array, merge, submit };
}
