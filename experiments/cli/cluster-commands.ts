/**
 * `medsynth cluster slurm|k8s <config>`: resolve the config's output folder and paths, build the
 * scheduler files (experiments/cluster-slurm.ts, experiments/cluster-k8s.ts) and write them to
 * `--out` (scripts executable) or print them.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { readConfigFile } from "../config.ts";
import { dryRunCommand } from "./run-commands.ts";
import { buildSlurmScripts, shellQuote } from "../cluster-slurm.ts";
import { buildK8sManifests } from "../cluster-k8s.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** Options of `medsynth cluster slurm` (commander's strings). */
export interface SlurmCommandOptions {
  shards: string;
  out?: string;
  partition?: string;
  time?: string;
  account?: string;
  cpusPerTask?: string;
  mem?: string;
  maxParallel?: string;
  jobName?: string;
  logDir?: string;
  medsynth?: string;
  setup?: string[];
  /** false (`--no-check`): skip {@link checkRunnable}. */
  check?: boolean;
}

/** Options of `medsynth cluster k8s` (commander's strings). */
export interface K8sCommandOptions {
  shards: string;
  image: string;
  pvc: string;
  out?: string;
  mountPath: string;
  namespace?: string;
  parallelism?: string;
  secret?: string;
  cpu?: string;
  memory?: string;
  jobName?: string;
  medsynth: string;
  /** false (`--no-check`): skip {@link checkRunnable}. */
  check?: boolean;
}

/** A positive integer option, or an error naming it. */
function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1) throw new Error(`${name}: expected a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The config's absolute path and its `output` folder resolved as `medsynth run` does (against the config's folder). */
function configPaths(file: string): { config: string; output: string; name: string } {
  const config = resolve(file);
  const raw = readConfigFile(config) as { output?: unknown; name?: unknown };
  if (typeof raw !== "object" || raw === null || typeof raw.output !== "string" || raw.output.length === 0) {
    throw new Error(`${file}: field output: the config needs an output folder for the shards and the merged run`);
  }
  const output = isAbsolute(raw.output) ? raw.output : resolve(dirname(config), raw.output);
  const name = typeof raw.name === "string" && raw.name ? raw.name : basename(config, extname(config));
  return { config, output, name };
}

/** `medsynth-<name>` reduced to the characters a scheduler's job name allows. */
function defaultJobName(name: string, dns: boolean): string {
  const base = `medsynth-${name}`.toLowerCase();
  return dns
    ? base
        .replace(/[^a-z0-9-]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 52)
        .replace(/-+$/, "")
    : base.replace(/[^a-z0-9._-]+/g, "-");
}

/** Writes files into `dir` (scripts made executable) or prints them with a header each. */
function emit(files: Record<string, string>, dir: string | undefined, print: (l: string) => void): void {
  if (!dir) {
    for (const [name, text] of Object.entries(files)) print(`# ===== ${name} =====\n${text}`);
    return;
  }
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    writeFileSync(path, text);
    if (name.endsWith(".sh") || name.endsWith(".sbatch")) chmodSync(path, 0o755);
  }
  print(
    `wrote ${Object.keys(files)
      .map((f) => join(dir, f))
      .join(", ")}`,
  );
  print(`submit with: bash ${join(dir, "submit.sh")}`);
}

/**
 * The command that runs this very CLI on another node of a shared filesystem: this Node binary by
 * absolute path, or `node` from the node's PATH when `--setup` lines are given (they are there to
 * choose the environment, e.g. `module load nodejs/20`, which an absolute path would bypass).
 */
function thisCli(setup: readonly string[] = []): string {
  // experiments/cli/ in a checkout run from source, dist/experiments/cli/ when compiled: walk up to the package root.
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "bin", "medsynth.js")) && dirname(dir) !== dir) dir = dirname(dir);
  return `${setup.length ? "node" : shellQuote(process.execPath)} ${shellQuote(join(dir, "bin", "medsynth.js"))}`;
}

/**
 * The check before scheduler files are written: the config must pass the validation of
 * `medsynth run --dry-run` (ids, parameters, data, endpoints and their API keys, panel), and
 * `--shards` must not exceed its cells (a shard past the last cell would run nothing). Skipped
 * when `check` is false (`--no-check`: e.g. API keys that only the cluster's nodes or Secret hold).
 * @throws the dry run's error, its message led by what failed and how to skip the check; Error
 *   naming the cells and the largest useful `--shards` when there are more shards than cells.
 */
async function checkRunnable(file: string, shards: number, check: boolean | undefined): Promise<void> {
  if (check === false) return;
  let cells: number;
  try {
    cells = (await dryRunCommand(file, {}, () => {})).cells;
  } catch (e) {
    if (e instanceof Error)
      e.message = `cluster: ${file} cannot run as it is (the check of \`${medsynthCommand()} run --dry-run\`; --no-check skips it, e.g. when the API keys are set only on the cluster):\n${e.message}`;
    throw e;
  }
  if (shards > cells)
    throw new Error(
      `cluster: --shards ${shards} exceeds the ${cells} cell${cells === 1 ? "" : "s"} of ${file}: shards ${cells + 1}–${shards} would have nothing to run; use --shards ${cells} or fewer`,
    );
}

/**
 * `medsynth cluster slurm`: array + merge + submit scripts for a config, once it passes
 * {@link checkRunnable}.
 * @throws Error naming the option or config field that is invalid, or what {@link checkRunnable} throws.
 */
export async function clusterSlurmCommand(file: string, opts: SlurmCommandOptions, print: (l: string) => void = console.log): Promise<void> {
  const { config, output, name } = configPaths(file);
  const shards = positiveInt("--shards", opts.shards)!;
  await checkRunnable(file, shards, opts.check);
  const out = opts.out ? resolve(opts.out) : undefined;
  const scripts = buildSlurmScripts({
    config,
    output,
    shards,
    jobName: opts.jobName ?? defaultJobName(name, false),
    workdir: process.cwd(),
    logDir: resolve(opts.logDir ?? (out ? join(out, "logs") : join(output, "slurm-logs"))),
    medsynth: opts.medsynth ?? thisCli(opts.setup),
    ...(opts.partition ? { partition: opts.partition } : {}),
    ...(opts.time ? { time: opts.time } : {}),
    ...(opts.account ? { account: opts.account } : {}),
    ...(opts.cpusPerTask ? { cpusPerTask: positiveInt("--cpus-per-task", opts.cpusPerTask) } : {}),
    ...(opts.mem ? { mem: opts.mem } : {}),
    ...(opts.maxParallel ? { maxParallel: positiveInt("--max-parallel", opts.maxParallel) } : {}),
    setup: opts.setup ?? [],
  });
  emit({ "array.sbatch": scripts.array, "merge.sbatch": scripts.merge, "submit.sh": scripts.submit }, out, print);
}

/** A local path inside the current folder as the pods see it under `mountPath`. */
function inContainer(local: string, mountPath: string, what: string): string {
  const rel = relative(process.cwd(), local);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(
      `cluster k8s: the ${what} ${local} is outside the current folder ${process.cwd()}, which the pods see at ${mountPath}; run the command from a folder that holds both the config and its output`,
    );
  }
  return rel === "" ? mountPath : `${mountPath.replace(/\/+$/, "")}/${rel.split(sep).join("/")}`;
}

/**
 * `medsynth cluster k8s`: Indexed Job + merge Job + submit script for a config, once it passes
 * {@link checkRunnable}.
 * @throws Error naming the option when a path lies outside the mounted folder or a value is
 *   invalid, or what {@link checkRunnable} throws.
 */
export async function clusterK8sCommand(file: string, opts: K8sCommandOptions, print: (l: string) => void = console.log): Promise<void> {
  const { config, output, name } = configPaths(file);
  const shards = positiveInt("--shards", opts.shards)!;
  const mapped = { config: inContainer(config, opts.mountPath, "config"), output: inContainer(output, opts.mountPath, "output folder") };
  await checkRunnable(file, shards, opts.check);
  const m = buildK8sManifests({
    ...mapped,
    shards,
    jobName: opts.jobName ?? defaultJobName(name, true),
    image: opts.image,
    pvc: opts.pvc,
    mountPath: opts.mountPath,
    medsynth: opts.medsynth,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.parallelism ? { parallelism: positiveInt("--parallelism", opts.parallelism) } : {}),
    ...(opts.secret ? { secret: opts.secret } : {}),
    ...(opts.cpu ? { cpu: opts.cpu } : {}),
    ...(opts.memory ? { memory: opts.memory } : {}),
  });
  emit({ "job.yaml": m.job, "merge-job.yaml": m.mergeJob, "submit.sh": m.submit }, opts.out ? resolve(opts.out) : undefined, print);
}
