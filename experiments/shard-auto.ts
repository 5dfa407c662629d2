/**
 * `medsynth run <config> --shard auto`: take this process's shard i/n from the cluster scheduler
 * that started it, so one array job runs the whole matrix without a per-task command line.
 *
 * - **Slurm job arrays** (`sbatch --array=…`): `SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_MIN`,
 *   `SLURM_ARRAY_TASK_STEP` (default 1) and `SLURM_ARRAY_TASK_COUNT` (or `_MAX`). The task's
 *   position in the array is its shard: `--array=0-3` and `--array=1-4` both give shards 1..4 of 4,
 *   `--array=1-7:2` gives tasks 1, 3, 5, 7 → shards 1..4 of 4. With `--shard-count n` (the scripts of
 *   `medsynth cluster slurm` pass it) a resubmitted part of the array, e.g. `sbatch --array=3`, runs
 *   shard 3 of n: the task id is the shard index (see {@link fromSlurm}).
 * - **Kubernetes Indexed Jobs** (`completionMode: Indexed`): `JOB_COMPLETION_INDEX` (0-based) is
 *   shard index + 1; the count is not in the pod's environment, so `--shard-count n` (the Job's
 *   `completions`) is required.
 *
 * The partition itself is {@link selectShard}'s (positions p with p mod n = i − 1), so an array
 * task and a hand-started `--shard i/n` run the same cells.
 *
 * @see https://slurm.schedmd.com/job_array.html (array environment variables)
 * @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode
 */
import { parseShard, type ShardSpec } from "./shards.ts";
import { medsynthCommand } from "../corpus/paths.ts";

/** Where a run's shard came from, with the words to print. */
export interface ResolvedShard {
  shard: ShardSpec;
  /** `explicit` (`--shard i/n`), `slurm` (array task) or `kubernetes` (Indexed Job). */
  source: "explicit" | "slurm" | "kubernetes";
  /** One line naming the scheduler and the variables read, e.g. `shard 2/4 from Slurm array task 2 (…)`. */
  detail: string;
}

/** Reads one environment variable as a non-negative integer; undefined when unset or empty. */
function intVar(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  if (!/^\s*\d+\s*$/.test(raw)) throw new Error(`--shard auto: ${name}=${JSON.stringify(raw)} is not a non-negative integer`);
  return Number(raw);
}

/**
 * Shard from a Slurm array task's variables.
 *
 * - The whole array (`SLURM_ARRAY_TASK_COUNT` = n, or no `--shard-count`): the task's position in
 *   the array, so `--array=0-3`, `--array=1-4` and `--array=1-7:2` all give shards 1..4 of 4.
 * - A partial array with `--shard-count n` (fewer than n tasks: a resubmission such as
 *   `sbatch --array=3 array.sbatch` or `--array=2,4`): the task id itself is the shard index 1..n,
 *   as in the `--array=1-n` of the scripts `medsynth cluster slurm` writes, so task 3 reruns shard
 *   3/n into `shard-3-of-n/` whichever tasks are resubmitted with it. (A hand-written 0-based array
 *   resubmits shard i as task i, not i − 1.)
 * - A one-task array without `--shard-count` whose id is not 0 or 1 is refused: it is almost surely a
 *   resubmitted task of a larger array, which would otherwise silently run every cell as shard 1/1.
 */
function fromSlurm(env: NodeJS.ProcessEnv, shardCount: number | undefined): ResolvedShard {
  const id = intVar(env, "SLURM_ARRAY_TASK_ID")!;
  const min = intVar(env, "SLURM_ARRAY_TASK_MIN") ?? 0;
  const step = intVar(env, "SLURM_ARRAY_TASK_STEP") ?? 1;
  const max = intVar(env, "SLURM_ARRAY_TASK_MAX");
  const countVar = intVar(env, "SLURM_ARRAY_TASK_COUNT");
  if (step < 1) throw new Error("--shard auto: SLURM_ARRAY_TASK_STEP must be ≥ 1");
  const count = countVar ?? (max !== undefined ? Math.floor((max - min) / step) + 1 : undefined);
  const vars = `SLURM_ARRAY_TASK_ID=${id}, ${countVar !== undefined ? `SLURM_ARRAY_TASK_COUNT=${countVar}` : `SLURM_ARRAY_TASK_MAX=${max}`}, MIN=${min}, STEP=${step}`;
  if (shardCount !== undefined && count !== undefined && count > shardCount) {
    throw new Error(`--shard auto: the Slurm array has ${count} tasks but --shard-count is ${shardCount}; the array's size and --shard-count must agree`);
  }
  if (shardCount !== undefined && count !== shardCount) {
    // a partial (resubmitted) array: the task id names the shard, as in the full --array=1-n
    if (id < 1 || id > shardCount) {
      throw new Error(
        `--shard auto: SLURM_ARRAY_TASK_ID=${id} in a partial array (${count ?? "?"} of --shard-count ${shardCount} tasks) must be the shard index 1..${shardCount}: resubmit shard k as \`sbatch --array=k array.sbatch\``,
      );
    }
    return {
      shard: { index: id, count: shardCount },
      source: "slurm",
      detail: `shard ${id}/${shardCount} from Slurm array task ${id} (a resubmitted part of the array: ${vars}, --shard-count ${shardCount})`,
    };
  }
  if (count === undefined) {
    throw new Error("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is; cannot tell how many shards the array has (pass --shard i/n)");
  }
  if (shardCount === undefined && count === 1 && id > 1) {
    throw new Error(
      `--shard auto: Slurm array task ${id} is the only task of its array (${vars}): a resubmitted task of a larger array? Pass --shard-count n (the full array's task count) so that task ${id} reruns shard ${id}/n; without it this would run every cell as shard 1/1`,
    );
  }
  if (id < min || (id - min) % step !== 0) {
    throw new Error(
      `--shard auto: SLURM_ARRAY_TASK_ID=${id} is not a task of the array (min ${min}, step ${step}); a sparse --array list (e.g. 1,5,9) cannot be mapped to shards: use a range such as --array=1-${count}`,
    );
  }
  const index = (id - min) / step + 1;
  if (index > count) throw new Error(`--shard auto: SLURM_ARRAY_TASK_ID=${id} gives shard ${index} but the array has ${count} tasks (SLURM_ARRAY_TASK_COUNT / _MAX disagree)`);
  return { shard: { index, count }, source: "slurm", detail: `shard ${index}/${count} from Slurm array task ${id} (${vars}${shardCount !== undefined ? `, --shard-count ${shardCount}` : ""})` };
}

/** Shard from a Kubernetes Indexed Job's completion index. */
function fromKubernetes(env: NodeJS.ProcessEnv, shardCount: number | undefined): ResolvedShard {
  const jci = intVar(env, "JOB_COMPLETION_INDEX")!;
  if (shardCount === undefined) {
    throw new Error(`--shard auto: JOB_COMPLETION_INDEX=${jci} (a Kubernetes Indexed Job) does not say how many shards there are; pass --shard-count n (the Job's completions)`);
  }
  if (jci >= shardCount) throw new Error(`--shard auto: JOB_COMPLETION_INDEX=${jci} is outside 0..${shardCount - 1} (--shard-count ${shardCount}); the Job's completions and --shard-count must agree`);
  return {
    shard: { index: jci + 1, count: shardCount },
    source: "kubernetes",
    detail: `shard ${jci + 1}/${shardCount} from Kubernetes Indexed Job (JOB_COMPLETION_INDEX=${jci}, --shard-count ${shardCount})`,
  };
}

/**
 * The shard of this process: `--shard i/n` as given, or with `auto` from Slurm (checked first) or a
 * Kubernetes Indexed Job.
 * @param option the `--shard` value: `i/n` or `auto`.
 * @param shardCount `--shard-count n` (required for Kubernetes; under Slurm the full array's task count,
 *   which lets a resubmitted part of the array keep its shard numbers).
 * @param env the process environment (a parameter for tests).
 * @throws Error naming the variable or option when nothing usable is found or values disagree.
 */
export function resolveShard(option: string, shardCount?: number, env: NodeJS.ProcessEnv = process.env): ResolvedShard {
  if (shardCount !== undefined && (!Number.isInteger(shardCount) || shardCount < 1)) throw new Error(`--shard-count: expected a positive integer, got ${shardCount}`);
  if (option.trim() !== "auto") {
    const shard = parseShard(option);
    if (shardCount !== undefined && shardCount !== shard.count) throw new Error(`--shard ${option} disagrees with --shard-count ${shardCount}`);
    return { shard, source: "explicit", detail: `shard ${shard.index}/${shard.count}` };
  }
  if (intVar(env, "SLURM_ARRAY_TASK_ID") !== undefined) return fromSlurm(env, shardCount);
  if (intVar(env, "JOB_COMPLETION_INDEX") !== undefined) return fromKubernetes(env, shardCount);
  throw new Error(
    `--shard auto: this process is neither a Slurm array task (SLURM_ARRAY_TASK_ID) nor a pod of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX); pass --shard i/n, or start it with \`${medsynthCommand()} cluster slurm|k8s\``,
  );
}

/** Parses the `--shard-count` option text; undefined when absent. @throws on a non-integer. */
export function parseShardCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(text) || Number(text) < 1) throw new Error(`--shard-count: expected a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}
