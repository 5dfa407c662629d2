/**
 * `medsynth cluster k8s`: Kubernetes manifests that run one experiment config as an Indexed Job
 * (`completionMode: Indexed`, `completions` = shards; each pod runs `medsynth run <config>
 * --shard auto --shard-count n`, its shard from `JOB_COMPLETION_INDEX`) plus a merge Job, and a
 * `submit.sh` that applies the Indexed Job, waits until it is Complete (exits 1 when it is Failed) and
 * then applies the merge the same way. Running `submit.sh` again replaces both Jobs: the resume path.
 *
 * Pods share one PersistentVolumeClaim mounted at `mountPath`, which holds the checkout (config,
 * prompts) and the run's output folder; paths in the manifests are the container's. API keys come
 * from a Secret (`envFrom`), never from the manifest.
 *
 * @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode
 */
import { z } from "zod";
import YAML from "yaml";
import { shardDir } from "./shards.ts";

/** Options of the Kubernetes manifests (`medsynth cluster k8s`). */
export const K8sManifestOptionsSchema = z
  .object({
    /** Config path as the container sees it. */
    config: z.string().min(1),
    /** Output folder as the container sees it. */
    output: z.string().min(1),
    shards: z.number().int().min(1).max(100_000),
    /** Job name (a DNS label). */
    jobName: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/, "a DNS label: lower-case letters, digits and '-', at most 52 characters"),
    /** Container image with medsynth installed. */
    image: z.string().min(1),
    /** PersistentVolumeClaim holding the checkout and the outputs. */
    pvc: z.string().min(1),
    /** Where the claim is mounted; also the pods' working directory. */
    mountPath: z.string().startsWith("/").default("/work"),
    /** Command that runs medsynth in the image (split on spaces). */
    medsynth: z.string().min(1).default("medsynth"),
    namespace: z.string().optional(),
    /** Pods at once (default: all shards). */
    parallelism: z.number().int().min(1).optional(),
    /** Retries per index (`backoffLimitPerIndex`, Kubernetes ≥ 1.29). */
    backoffLimitPerIndex: z.number().int().min(0).default(2),
    /** Secret whose keys become environment variables (endpoint keys). */
    secret: z.string().optional(),
    cpu: z.string().optional(),
    memory: z.string().optional(),
  })
  .strict();

/** Options of {@link buildK8sManifests}. */
export type K8sManifestOptions = z.input<typeof K8sManifestOptionsSchema>;

/** The files of a Kubernetes submission. */
export interface K8sManifests {
  /** `job.yaml`: the Indexed Job, one pod per shard. */
  job: string;
  /** `merge-job.yaml`: one pod merging every shard folder into the run folder. */
  mergeJob: string;
  /** `submit.sh`: (re)apply, wait until Complete (exit 1 on Failed), apply the merge, wait likewise. */
  submit: string;
}

/** The pod template shared by both Jobs. */
function podSpec(o: z.infer<typeof K8sManifestOptionsSchema>, args: string[]): Record<string, unknown> {
  const resources = o.cpu || o.memory ? { resources: { requests: { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}) } } } : {};
  return {
    restartPolicy: "Never",
    containers: [
      {
        name: "medsynth",
        image: o.image,
        workingDir: o.mountPath,
        command: [...o.medsynth.split(/\s+/).filter(Boolean), ...args],
        ...(o.secret ? { envFrom: [{ secretRef: { name: o.secret } }] } : {}),
        volumeMounts: [{ name: "work", mountPath: o.mountPath }],
        ...resources,
      },
    ],
    volumes: [{ name: "work", persistentVolumeClaim: { claimName: o.pvc } }],
  };
}

/**
 * The Indexed Job, the merge Job and the submit script for one config.
 * @returns YAML manifests and a bash script.
 * @throws ZodError on invalid options (job name not a DNS label, relative mount path…).
 */
export function buildK8sManifests(options: K8sManifestOptions): K8sManifests {
  const o = K8sManifestOptionsSchema.parse(options);
  const meta = (name: string) => ({ name, ...(o.namespace ? { namespace: o.namespace } : {}), labels: { "app.kubernetes.io/name": "medsynth", "medsynth/job": o.jobName } });
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta(o.jobName),
    spec: {
      completionMode: "Indexed",
      completions: o.shards,
      parallelism: o.parallelism ?? o.shards,
      backoffLimitPerIndex: o.backoffLimitPerIndex,
      template: { spec: podSpec(o, ["run", o.config, "--shard", "auto", "--shard-count", String(o.shards), "--no-progress"]) },
    },
  };
  const shardFolders = Array.from({ length: o.shards }, (_, i) => shardDir(o.output, { index: i + 1, count: o.shards }));
  const mergeJob = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta(`${o.jobName}-merge`),
    spec: { backoffLimit: 1, template: { spec: podSpec(o, ["merge", ...shardFolders, "-o", o.output]) } },
  };
  const ns = o.namespace ? ` -n ${o.namespace}` : "";
  const submit = [
    "#!/bin/bash",
    `# Runs ${o.config} as a ${o.shards}-pod Indexed Job, then merges the shards (written by \`medsynth cluster k8s\`).`,
    "# Running it again resumes: it replaces the Jobs, every pod re-runs its shard and skips the cells",
    "# that already have a record (a finished shard does nothing); see docs/clusters.md.",
    "set -euo pipefail",
    'cd "$(dirname "$0")"',
    "# wait_job <job>: 0 once the Job is Complete, 1 once it is Failed (kubectl wait takes one condition only)",
    "wait_job() {",
    "  local state",
    "  while true; do",
    `    state=$(kubectl${ns} get "job/$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')`,
    '    case " $state " in',
    '      *" Complete "*) return 0 ;;',
    `      *" Failed "*) echo "job/$1 failed: see kubectl${ns} describe job/$1 and kubectl${ns} logs -l job-name=$1; fix the cause, then run this script again (finished cells are kept)" >&2; return 1 ;;`,
    "    esac",
    '    sleep "${MEDSYNTH_WAIT_SECONDS:-10}"',
    "  done",
    "}",
    `kubectl${ns} delete --ignore-not-found --cascade=foreground job/${o.jobName} job/${o.jobName}-merge`,
    `kubectl${ns} apply -f job.yaml`,
    `wait_job ${o.jobName}`,
    `kubectl${ns} apply -f merge-job.yaml`,
    `wait_job ${o.jobName}-merge`,
    `echo "merged ${o.shards} shards into ${o.output}"`,
    "",
  ].join("\n");
  const header = (what: string) => `# medsynth ${what} for ${o.config} (written by \`medsynth cluster k8s\`; edit freely)\n`;
  return { job: header("Indexed Job") + YAML.stringify(job), mergeJob: header("merge Job") + YAML.stringify(mergeJob), submit };
}
