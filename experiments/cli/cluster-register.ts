/**
 * Definitions (names, options, help) of `medsynth cluster slurm` and `medsynth cluster k8s`. Only
 * commander is loaded here; each action imports cluster-commands.ts when it runs.
 */
import type { Command } from "commander";
import type { K8sCommandOptions, SlurmCommandOptions } from "./cluster-commands.ts";

const impl = () => import("./cluster-commands.ts");

/** Register `cluster slurm` and `cluster k8s`. */
export function registerClusterCommands(program: Command): void {
  const cluster = program.command("cluster").description("scripts that run a config's shards on a cluster scheduler (Slurm job array, Kubernetes Indexed Job) and merge them");
  cluster
    .command("slurm")
    .description("write (or print) an sbatch array script (one task per shard, `run --shard auto`), a merge job (afterok) and submit.sh")
    .argument("<config>", "experiment YAML/JSON")
    .requiredOption("--shards <n>", "number of shards = array tasks")
    .option("-o, --out <dir>", "write array.sbatch, merge.sbatch and submit.sh here (default: print them)")
    .option("--partition <name>", "Slurm partition")
    .option("--time <limit>", "time limit per task, e.g. 02:00:00")
    .option("--account <name>", "Slurm account")
    .option("--cpus-per-task <n>", "CPUs per task")
    .option("--mem <size>", "memory per task, e.g. 8G")
    .option("--max-parallel <k>", "at most k tasks at once (--array=1-n%k)")
    .option("--job-name <name>", "job name (default medsynth-<config name>)")
    .option("--log-dir <dir>", "task logs (default <out>/logs, or <output>/slurm-logs)")
    .option("--medsynth <command>", "command that runs medsynth on a node (default: this checkout's CLI by absolute path, run by this node binary, or by `node` from PATH when --setup is given)")
    .option("--setup <line>", "shell line run before medsynth (repeatable: module load, venv…)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--no-check", "do not run the checks of `run --dry-run` and of --shards against the cells first (e.g. API keys set only on the cluster)")
    .action(async (file: string, opts: SlurmCommandOptions) => {
      await (await impl()).clusterSlurmCommand(file, opts);
    });
  cluster
    .command("k8s")
    .description("write (or print) a Kubernetes Indexed Job (one pod per shard, `run --shard auto --shard-count n`), a merge Job and submit.sh")
    .argument("<config>", "experiment YAML/JSON, inside the current folder (mounted in the pods at --mount-path)")
    .requiredOption("--shards <n>", "number of shards = completions")
    .requiredOption("--image <image>", "container image with medsynth installed")
    .requiredOption("--pvc <claim>", "PersistentVolumeClaim holding this folder (checkout + outputs)")
    .option("-o, --out <dir>", "write job.yaml, merge-job.yaml and submit.sh here (default: print them)")
    .option("--mount-path <path>", "where the claim is mounted in the pods (their working directory)", "/work")
    .option("--namespace <ns>", "namespace")
    .option("--parallelism <k>", "pods at once (default: all)")
    .option("--secret <name>", "Secret whose keys become environment variables (endpoint API keys)")
    .option("--cpu <q>", "CPU request per pod, e.g. 2")
    .option("--memory <q>", "memory request per pod, e.g. 8Gi")
    .option("--job-name <name>", "Job name (a DNS label; default medsynth-<config name>)")
    .option("--medsynth <command>", "command that runs medsynth in the image", "medsynth")
    .option("--no-check", "do not run the checks of `run --dry-run` and of --shards against the cells first (e.g. API keys only in the Secret)")
    .action(async (file: string, opts: K8sCommandOptions) => {
      await (await impl()).clusterK8sCommand(file, opts);
    });
}
