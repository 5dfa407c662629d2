/**
 * Cluster schedulers: `--shard auto` from Slurm / Kubernetes variables, the sbatch and Indexed Job
 * files, and a real single-node Slurm running a 4-task array + merge job whose merged run equals a
 * one-machine run of the same config (skipped, with the reason printed, where Slurm cannot start).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { resolveShard } from "../../experiments/shard-auto.ts";
import { buildSlurmScripts, shellQuote } from "../../experiments/cluster-slurm.ts";
import { buildK8sManifests } from "../../experiments/cluster-k8s.ts";
import { clusterSlurmCommand } from "../../experiments/cli/cluster-commands.ts";
import { slurmSkipReason, startLocalSlurm, type LocalSlurm } from "../helpers/slurm-local.ts";

const BIN = resolve("bin/medsynth.js");
const cli = (args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", cwd: opts.cwd, env: { ...process.env, NO_COLOR: "1", ...opts.env }, timeout: 120_000 });

describe("--shard auto", () => {
  it("maps Slurm array tasks to shards 1..n for 0-based, 1-based and stepped arrays", () => {
    const slurm = (id: number, min: number, max: number, step = 1) => ({
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_MIN: String(min),
      SLURM_ARRAY_TASK_MAX: String(max),
      SLURM_ARRAY_TASK_STEP: String(step),
      SLURM_ARRAY_TASK_COUNT: String(Math.floor((max - min) / step) + 1),
    });
    expect(resolveShard("auto", undefined, slurm(0, 0, 3)).shard).toEqual({ index: 1, count: 4 });
    expect(resolveShard("auto", undefined, slurm(3, 0, 3)).shard).toEqual({ index: 4, count: 4 });
    expect(resolveShard("auto", undefined, slurm(2, 1, 4)).shard).toEqual({ index: 2, count: 4 });
    // --array=1-7:2 → tasks 1, 3, 5, 7 → shards 1..4
    expect([1, 3, 5, 7].map((id) => resolveShard("auto", undefined, slurm(id, 1, 7, 2)).shard.index)).toEqual([1, 2, 3, 4]);
    // COUNT missing: from MIN/MAX
    const r = resolveShard("auto", undefined, { SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_MIN: "5", SLURM_ARRAY_TASK_MAX: "9" });
    expect(r).toMatchObject({ shard: { index: 1, count: 5 }, source: "slurm" });
    expect(r.detail).toMatch(/Slurm array task 5/);
  });

  it("with --shard-count n, a resubmitted one-task array `sbatch --array=k` keeps shard k/n; a full array keeps its positions", () => {
    // what Slurm sets for `sbatch --array=3 array.sbatch`
    const resumed = { SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_MIN: "3", SLURM_ARRAY_TASK_MAX: "3", SLURM_ARRAY_TASK_STEP: "1", SLURM_ARRAY_TASK_COUNT: "1" };
    const r = resolveShard("auto", 4, resumed);
    expect(r).toMatchObject({ shard: { index: 3, count: 4 }, source: "slurm" });
    expect(r.detail).toMatch(/^shard 3\/4 from Slurm array task 3/);
    // --array=2,4 (COUNT 2 of 4): task ids are shard indexes
    const part = (id: number) => ({ SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_MIN: "2", SLURM_ARRAY_TASK_MAX: "4", SLURM_ARRAY_TASK_COUNT: "2" });
    expect([2, 4].map((id) => resolveShard("auto", 4, part(id)).shard)).toEqual([
      { index: 2, count: 4 },
      { index: 4, count: 4 },
    ]);
    // full arrays with --shard-count: position in the array, as without it (0-based, 1-based)
    const full = (id: number, min: number) => ({ SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_MIN: String(min), SLURM_ARRAY_TASK_MAX: String(min + 3), SLURM_ARRAY_TASK_COUNT: "4" });
    expect([0, 1, 2, 3].map((id) => resolveShard("auto", 4, full(id, 0)).shard.index)).toEqual([1, 2, 3, 4]);
    expect([1, 2, 3, 4].map((id) => resolveShard("auto", 4, full(id, 1)).shard.index)).toEqual([1, 2, 3, 4]);
    // a partial array's id must be a shard index 1..n
    expect(() => resolveShard("auto", 4, { ...resumed, SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_MIN: "5", SLURM_ARRAY_TASK_MAX: "5" })).toThrow(/must be the shard index 1\.\.4/);
    expect(() => resolveShard("auto", 4, { ...resumed, SLURM_ARRAY_TASK_ID: "0", SLURM_ARRAY_TASK_MIN: "0", SLURM_ARRAY_TASK_MAX: "0" })).toThrow(/must be the shard index 1\.\.4/);
    // without --shard-count, a one-task array with id 3 is refused instead of running every cell as 1/1
    expect(() => resolveShard("auto", undefined, resumed)).toThrow(/only task of its array.*Pass --shard-count n/);
    // a genuine one-task array (--array=1 or --array=0) is shard 1/1
    expect(resolveShard("auto", undefined, { ...resumed, SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_MAX: "1" }).shard).toEqual({ index: 1, count: 1 });
    expect(resolveShard("auto", undefined, { ...resumed, SLURM_ARRAY_TASK_ID: "0", SLURM_ARRAY_TASK_MIN: "0", SLURM_ARRAY_TASK_MAX: "0" }).shard).toEqual({ index: 1, count: 1 });
  });

  it("maps a Kubernetes completion index (0-based) with --shard-count", () => {
    expect(resolveShard("auto", 4, { JOB_COMPLETION_INDEX: "0" })).toMatchObject({ shard: { index: 1, count: 4 }, source: "kubernetes" });
    expect(resolveShard("auto", 4, { JOB_COMPLETION_INDEX: "3" }).shard).toEqual({ index: 4, count: 4 });
  });

  it("refuses what does not give a shard, naming the variable or option", () => {
    expect(() => resolveShard("auto", undefined, {})).toThrow(/neither a Slurm array task \(SLURM_ARRAY_TASK_ID\) nor .*JOB_COMPLETION_INDEX/);
    expect(() => resolveShard("auto", undefined, { JOB_COMPLETION_INDEX: "1" })).toThrow(/--shard-count/);
    expect(() => resolveShard("auto", 2, { JOB_COMPLETION_INDEX: "2" })).toThrow(/outside 0\.\.1/);
    expect(() => resolveShard("auto", undefined, { SLURM_ARRAY_TASK_ID: "3" })).toThrow(/SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX/);
    expect(() => resolveShard("auto", 3, { SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_COUNT: "4" })).toThrow(/array has 4 tasks but --shard-count is 3/);
    expect(() => resolveShard("auto", undefined, { SLURM_ARRAY_TASK_ID: "x" })).toThrow(/SLURM_ARRAY_TASK_ID="x"/);
    expect(() => resolveShard("2/4", 3)).toThrow(/disagrees with --shard-count 3/);
    expect(resolveShard("2/4")).toMatchObject({ shard: { index: 2, count: 4 }, source: "explicit" });
  });
});

describe("scheduler files", () => {
  it("sbatch scripts: array 1-n, --shard auto, merge of every shard folder, afterok submit; valid bash", () => {
    const s = buildSlurmScripts({
      config: "/data/my exp.yaml",
      output: "/data/out",
      shards: 3,
      jobName: "medsynth-x",
      workdir: "/data",
      logDir: "/data/logs",
      medsynth: "medsynth",
      partition: "gpu",
      time: "01:00:00",
      maxParallel: 2,
      setup: ["module load node"],
    });
    expect(s.array).toContain("#SBATCH --array=1-3%2");
    expect(s.array).toContain("#SBATCH --partition=gpu");
    expect(s.array).toContain(`exec medsynth run '/data/my exp.yaml' --shard auto --shard-count 3 --no-progress "$@"\n`);
    expect(s.array.indexOf("module load node")).toBeLessThan(s.array.indexOf("exec medsynth"));
    for (const i of [1, 2, 3]) expect(s.merge).toContain(`/data/out/shard-${i}-of-3 \\`);
    expect(s.merge).toContain("-o /data/out");
    expect(s.submit).toMatch(/sbatch --parsable --dependency=afterok:"\$array" merge\.sbatch/);
    for (const text of [s.array, s.merge, s.submit]) expect(spawnSync("bash", ["-n"], { input: text }).status).toBe(0);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(() => buildSlurmScripts({ config: "/c", output: "/o", shards: 0, workdir: "/", logDir: "/l", medsynth: "m" })).toThrow();
  });

  it("Kubernetes: an Indexed Job with completions = shards running --shard auto --shard-count n, a merge Job, a submit script", () => {
    const m = buildK8sManifests({
      config: "/work/exp.yaml",
      output: "/work/runs/x",
      shards: 5,
      jobName: "medsynth-x",
      image: "ghcr.io/me/medsynth:0.2",
      pvc: "work",
      secret: "llm-keys",
      parallelism: 2,
    });
    const job = YAML.parse(m.job);
    expect(job.spec).toMatchObject({ completionMode: "Indexed", completions: 5, parallelism: 2 });
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(["medsynth", "run", "/work/exp.yaml", "--shard", "auto", "--shard-count", "5", "--no-progress"]);
    expect(c.envFrom).toEqual([{ secretRef: { name: "llm-keys" } }]);
    expect(job.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe("work");
    const merge = YAML.parse(m.mergeJob);
    expect(merge.spec.template.spec.containers[0].command).toEqual(["medsynth", "merge", ...[1, 2, 3, 4, 5].map((i) => `/work/runs/x/shard-${i}-of-5`), "-o", "/work/runs/x"]);
    expect(m.submit).not.toContain("--for=condition=complete");
    expect(spawnSync("bash", ["-n"], { input: m.submit }).status).toBe(0);
    expect(() => buildK8sManifests({ config: "/c", output: "/o", shards: 2, jobName: "Bad Name", image: "i", pvc: "p" })).toThrow(/DNS label/);
  });

  it("Kubernetes submit.sh: merges after a Complete Job, exits 1 without merging after a Failed one, polls until either", () => {
    const m = buildK8sManifests({ config: "/work/exp.yaml", output: "/work/runs/x", shards: 2, jobName: "medsynth-x", image: "img", pvc: "work", namespace: "lab" });
    // a fake kubectl: logs its arguments; `get` answers the next line of $STATES for the Job
    const dir = mkdtempSync(join(tmpdir(), "medsynth-kubectl-"));
    writeFileSync(join(dir, "submit.sh"), m.submit);
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "kubectl"), `#!/bin/bash\necho "$*" >> "$LOG"\nif [ "$3" = get ]; then n=$(grep -c ' get ' "$LOG"); sed -n "\${n}p" "$STATES"; fi\n`);
    chmodSync(join(bin, "kubectl"), 0o755);
    const submit = (states: string[]) => {
      const log = join(dir, `log-${states.join("-").replace(/\W/g, "_")}`);
      writeFileSync(join(dir, "states"), `${states.join("\n")}\n`);
      const r = spawnSync("bash", [join(dir, "submit.sh")], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, LOG: log, STATES: join(dir, "states"), MEDSYNTH_WAIT_SECONDS: "0" },
        timeout: 20_000,
      });
      return { ...r, calls: readFileSync(log, "utf8").trim().split("\n") };
    };
    const ok = submit(["", "SuccessCriteriaMet Complete ", "Complete "]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.calls).toEqual([
      "-n lab delete --ignore-not-found --cascade=foreground job/medsynth-x job/medsynth-x-merge",
      "-n lab apply -f job.yaml",
      `-n lab get job/medsynth-x -o jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}`,
      `-n lab get job/medsynth-x -o jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}`,
      "-n lab apply -f merge-job.yaml",
      `-n lab get job/medsynth-x-merge -o jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}`,
    ]);
    expect(ok.stdout).toContain("merged 2 shards into /work/runs/x");
    const failed = submit(["", "FailureTarget Failed "]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/job\/medsynth-x failed: .*run this script again/);
    expect(failed.calls.some((c) => c.includes("merge-job.yaml"))).toBe(false);
  });

  it("`medsynth cluster slurm --setup` runs `node` from the node's PATH (after the setup lines), else this Node binary", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-slurm-"));
    writeFileSync(join(dir, "exp.yaml"), YAML.stringify({ name: "x", output: "runs/x", datasets: [], models: [], workflows: [] }));
    const script = async (setup: string[], medsynth?: string) => {
      const lines: string[] = [];
      await clusterSlurmCommand(join(dir, "exp.yaml"), { shards: "2", setup, check: false, ...(medsynth ? { medsynth } : {}) }, (l) => lines.push(l));
      return lines.join("\n");
    };
    const cliPath = resolve("bin/medsynth.js");
    const withSetup = await script(["module load nodejs/20"]);
    expect(withSetup).toContain(`module load nodejs/20\n\n`);
    expect(withSetup).toContain(`exec node ${shellQuote(cliPath)} run ${shellQuote(join(dir, "exp.yaml"))} --shard auto --shard-count 2`);
    expect(withSetup).toContain(`exec node ${shellQuote(cliPath)} merge`);
    expect(withSetup.indexOf("module load nodejs/20")).toBeLessThan(withSetup.indexOf("exec node"));
    const plain = await script([]);
    expect(plain).toContain(`exec ${shellQuote(process.execPath)} ${shellQuote(cliPath)} run`);
    expect(await script(["module load x"], "medsynth")).toContain("exec medsynth run");
  });

  it("`medsynth cluster k8s` maps paths under the current folder to the mount path and refuses paths outside it", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-k8s-"));
    writeFileSync(join(dir, "exp.yaml"), YAML.stringify({ name: "My Exp", output: "runs/x", datasets: [], models: [], workflows: [] }));
    const ok = cli(["cluster", "k8s", "exp.yaml", "--shards", "2", "--image", "img", "--pvc", "work", "-o", "k8s", "--no-check"], { cwd: dir });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    const job = YAML.parse(readFileSync(join(dir, "k8s", "job.yaml"), "utf8"));
    expect(job.metadata.name).toBe("medsynth-my-exp");
    expect(job.spec.template.spec.containers[0].command.slice(0, 3)).toEqual(["medsynth", "run", "/work/exp.yaml"]);
    expect(YAML.parse(readFileSync(join(dir, "k8s", "merge-job.yaml"), "utf8")).spec.template.spec.containers[0].command.at(-1)).toBe("/work/runs/x");
    const outside = cli(["cluster", "k8s", join(dir, "exp.yaml"), "--shards", "2", "--image", "img", "--pvc", "work", "--no-check"], { cwd: mkdtempSync(join(tmpdir(), "medsynth-k8s-other-")) });
    expect(outside.status).toBe(1);
    expect(outside.stderr).toMatch(/outside the current folder/);
    const noOutput = join(dir, "bad.yaml");
    writeFileSync(noOutput, "name: x\n");
    const bad = cli(["cluster", "slurm", noOutput, "--shards", "2"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/bad\.yaml: field output/);
  });
});

const skip = slurmSkipReason();
if (skip) console.log(`skipped: Slurm job array end to end — ${skip}`);

describe.skipIf(skip !== null)("a Slurm job array on a local single-node cluster", () => {
  let slurm: LocalSlurm | undefined;
  const root = mkdtempSync(join(tmpdir(), "ms-slurm-"));
  beforeAll(async () => {
    slurm = await startLocalSlurm(join(root, "c"));
  }, 30_000);
  afterAll(() => slurm?.stop());

  it("4 array tasks + the afterok merge job give the same run as one machine (same cell keys, same outputs)", async () => {
    const cfg = (out: string) => ({
      name: "slurm-mini",
      output: out,
      datasets: [{ name: "medevidence", sample: 5 }],
      models: [{ id: "extractive:mmr" }],
      workflows: [{ id: "golden-rag" }, { id: "negated-rag", params: { fraction: [0, 1] } }],
      metrics: ["rouge"],
    });
    writeFileSync(join(root, "whole.yaml"), YAML.stringify(cfg("whole")));
    writeFileSync(join(root, "array.yaml"), YAML.stringify(cfg("array")));
    const whole = cli(["run", join(root, "whole.yaml"), "--no-progress", "--no-report"]);
    expect(whole.status, whole.stderr).toBe(0);
    const gen = cli(["cluster", "slurm", join(root, "array.yaml"), "--shards", "4", "-o", join(root, "sbatch")], { cwd: root });
    expect(gen.status, gen.stderr).toBe(0);
    const env = { ...process.env, ...slurm!.env };
    const submit = spawnSync("bash", [join(root, "sbatch", "submit.sh")], { encoding: "utf8", env });
    expect(submit.status, submit.stderr).toBe(0);
    expect(submit.stdout).toMatch(/submitted array job \d+ \(4 tasks\) and merge job \d+/);
    const merged = join(root, "array", "results.jsonl");
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      const q = spawnSync("/usr/bin/squeue", ["-h"], { encoding: "utf8", env });
      if (q.stdout.trim() === "" && existsSync(merged)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const logs = join(root, "sbatch", "logs");
    const taskLog = readFileSync(
      join(
        logs,
        spawnSync("ls", [logs], { encoding: "utf8" })
          .stdout.split("\n")
          .find((f) => /_2\.out$/.test(f)) ?? "",
      ),
      "utf8",
    );
    expect(taskLog).toMatch(/shard 2\/4 from Slurm array task 2/);
    expect(existsSync(merged), `no merged results; logs: ${spawnSync("sh", ["-c", `tail -n 5 ${logs}/*`], { encoding: "utf8" }).stdout}`).toBe(true);
    const read = (dir: string) =>
      readFileSync(join(root, dir, "results.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
    const a = read("whole");
    const b = read("array");
    expect(a.length).toBe(15); // 5 items × (golden + negated 0 / 1)
    const keyed = (rs: any[]) => rs.map((r) => [r.key, r.output, r.metrics]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(keyed(b)).toEqual(keyed(a));
    const cells = (dir: string) => JSON.parse(readFileSync(join(root, dir, "cells.json"), "utf8")).keys;
    expect(cells("array")).toEqual(cells("whole"));
    // the documented resume: `sbatch --array=2 array.sbatch` is a one-task array (MIN=MAX=2, COUNT=1)
    // that must rerun shard 2/4 (nothing left to do) into shard-2-of-4/, not every cell as shard 1/1
    const resub = spawnSync("/usr/bin/sbatch", ["--parsable", "--array=2", join(root, "sbatch", "array.sbatch")], { encoding: "utf8", env });
    expect(resub.status, resub.stderr).toBe(0);
    const resubId = resub.stdout.trim().split(";")[0];
    const resubLog = join(logs, `medsynth-slurm-mini-${resubId}_2.out`);
    const until = Date.now() + 60_000;
    while (Date.now() < until && !(spawnSync("/usr/bin/squeue", ["-h"], { encoding: "utf8", env }).stdout.trim() === "" && existsSync(resubLog))) await new Promise((r) => setTimeout(r, 500));
    const resumed = readFileSync(resubLog, "utf8");
    expect(resumed).toMatch(/shard 2\/4 from Slurm array task 2/);
    expect(resumed).toMatch(/\b0 run now\b/);
    expect(existsSync(join(root, "array", "shard-1-of-1"))).toBe(false);
  }, 200_000);
});
