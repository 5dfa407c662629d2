/**
 * `medsynth cluster slurm|k8s` check the config as `run --dry-run` does before writing scheduler
 * files, and refuse more shards than cells (a shard past the last cell would run nothing);
 * `--no-check` skips both.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import YAML from "yaml";
import { clusterK8sCommand, clusterSlurmCommand } from "../../experiments/cli/cluster-commands.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** 2 medevidence items × (golden-rag + negated-rag at 2 fractions) × 1 model = 6 cells. */
function config(workflows: unknown[], inCwd = false): string {
  // k8s maps paths under the current folder only: that config goes to a .tmp-* folder of the checkout (git-ignored)
  const dir = inCwd ? mkdtempSync(join(process.cwd(), ".tmp-cluster-check-")) : mkdtempSync(join(tmpdir(), "medsynth-cluster-check-"));
  const file = join(dir, "exp.yaml");
  writeFileSync(file, YAML.stringify({ name: "check", output: "runs/x", datasets: [{ name: "medevidence", sample: 2 }], models: [{ id: "extractive:mmr" }], workflows }));
  return file;
}
const WORKFLOWS = [{ id: "golden-rag" }, { id: "negated-rag", params: { fraction: [0, 1] } }];
const slurm = (file: string, shards: number, check?: boolean) => {
  const out: string[] = [];
  return clusterSlurmCommand(file, { shards: String(shards), medsynth: "medsynth", ...(check === false ? { check } : {}) }, (l) => out.push(l)).then(() => out.join("\n"));
};

describe("cluster commands check the config first", () => {
  it("more shards than cells is an error naming both and the largest useful --shards", async () => {
    const file = config(WORKFLOWS);
    await expect(slurm(file, 7)).rejects.toThrow(`cluster: --shards 7 exceeds the 6 cells of ${file}: shards 7–7 would have nothing to run; use --shards 6 or fewer`);
    expect(await slurm(file, 6)).toContain("--array=1-6");
    expect(await slurm(file, 7, false)).toContain("--array=1-7");
  });

  it("a config that cannot run is refused with the dry run's error (slurm and k8s)", async () => {
    const file = config([{ id: "golden-rag" }, { id: "golden-reg" }], true);
    onTestFinished(() => rmSync(dirname(file), { recursive: true, force: true }));
    await expect(slurm(file, 2)).rejects.toThrow(
      /cluster: .*exp\.yaml cannot run as it is \(the check of `[^`]*`; --no-check skips it[^\n]*\n[\s\S]*workflows\[1\]\.id: unknown workflow "golden-reg"/,
    );
    await expect(slurm(file, 2)).rejects.toThrow(`(the check of \`${medsynthCommand()} run --dry-run\`;`);
    await expect(clusterK8sCommand(file, { shards: "2", image: "i", pvc: "p", mountPath: "/work", medsynth: "medsynth" }, () => {})).rejects.toThrow(/cannot run as it is[\s\S]*workflows\[1\]\.id/);
    expect(await slurm(file, 2, false)).toContain("--array=1-2");
  });
});
