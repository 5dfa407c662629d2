/**
 * A single-node Slurm cluster for tests: munged, slurmctld and slurmd from Debian's `munge`,
 * `slurmctld`, `slurmd` and `slurm-client` packages, started as root with a config, sockets, state
 * and logs in a temporary folder and ports of their own (no system service is touched).
 * `.ci/run` installs the packages; elsewhere the test is skipped with the reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** A started cluster: the environment that points Slurm's commands at it, and a stop function. */
export interface LocalSlurm {
  env: Record<string, string>;
  dir: string;
  stop(): void;
}

const BINARIES = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/squeue", "/usr/bin/sinfo"];

/** Why a local Slurm cannot be started here, or null when it can. */
export function slurmSkipReason(): string | null {
  if (process.platform !== "linux") return "Slurm test needs Linux";
  if (process.getuid?.() !== 0) return "Slurm test needs root (it starts munged, slurmctld and slurmd)";
  const missing = BINARIES.filter((b) => !existsSync(b));
  if (missing.length) return `Slurm test needs Debian's munge, slurmctld, slurmd and slurm-client (missing ${missing.join(", ")}; .ci/run installs them)`;
  if (!existsSync("/etc/munge/munge.key")) return "Slurm test needs /etc/munge/munge.key (made by the munge package)";
  return null;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", timeout: 20_000 });
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/**
 * Start munged + slurmctld + slurmd on this host with one partition `debug` of 2 CPUs.
 * @param dir an empty folder for the cluster's files (short path: unix sockets allow ~100 bytes).
 * @throws Error with the daemons' log tails when the node does not come up within 20 s.
 */
export async function startLocalSlurm(dir: string): Promise<LocalSlurm> {
  for (const d of ["spool", "state", "log", "munge"]) mkdirSync(join(dir, d), { recursive: true });
  const socket = join(dir, "munge", "munge.socket");
  const host = hostname();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const m = run("/usr/sbin/munged", [
    `--socket=${socket}`,
    `--pid-file=${join(dir, "munge", "munged.pid")}`,
    `--log-file=${join(dir, "munge", "munged.log")}`,
    `--seed-file=${join(dir, "munge", "seed")}`,
    "-f",
  ]);
  if (m.status !== 0) throw new Error(`munged did not start: ${m.out}`);
  const conf = join(dir, "slurm.conf");
  writeFileSync(
    conf,
    [
      "ClusterName=medsynthtest",
      `SlurmctldHost=${host}`,
      "AuthType=auth/munge",
      `AuthInfo=socket=${socket}`,
      "CredType=cred/munge",
      "ProctrackType=proctrack/linuxproc",
      "TaskPlugin=task/none",
      "SelectType=select/cons_tres",
      "SelectTypeParameters=CR_Core",
      `SlurmctldPidFile=${join(dir, "slurmctld.pid")}`,
      `SlurmdPidFile=${join(dir, "slurmd.pid")}`,
      `SlurmdSpoolDir=${join(dir, "spool")}`,
      `StateSaveLocation=${join(dir, "state")}`,
      `SlurmctldLogFile=${join(dir, "log", "slurmctld.log")}`,
      `SlurmdLogFile=${join(dir, "log", "slurmd.log")}`,
      "SlurmUser=root",
      "SlurmdUser=root",
      `SlurmctldPort=${port}`,
      `SlurmdPort=${port + 1}`,
      "ReturnToService=2",
      "MpiDefault=none",
      "SchedulerType=sched/backfill",
      "JobCompType=jobcomp/none",
      "JobAcctGatherType=jobacct_gather/none",
      "AccountingStorageType=accounting_storage/none",
      `NodeName=${host} CPUs=2 RealMemory=2000 State=UNKNOWN`,
      `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
      "",
    ].join("\n"),
  );
  const env = { SLURM_CONF: conf };
  const fullEnv = { ...process.env, ...env };
  const stop = () => {
    for (const pidFile of [join(dir, "slurmd.pid"), join(dir, "slurmctld.pid"), join(dir, "munge", "munged.pid")]) {
      try {
        process.kill(Number(readFileSync(pidFile, "utf8").trim()), "SIGTERM");
      } catch {
        /* not running */
      }
    }
  };
  for (const [bin, args] of [
    ["/usr/sbin/slurmctld", ["-f", conf]],
    ["/usr/sbin/slurmd", ["-f", conf]],
  ] as const) {
    const r = run(bin, [...args], fullEnv);
    if (r.status !== 0) {
      stop();
      throw new Error(`${bin} did not start: ${r.out}`);
    }
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const s = run("/usr/bin/sinfo", ["-h", "-o", "%t"], fullEnv);
    if (s.status === 0 && /^idle/m.test(s.out)) return { env, dir, stop };
    await new Promise((r) => setTimeout(r, 300));
  }
  const logs = ["slurmctld.log", "slurmd.log"].map((f) =>
    existsSync(join(dir, "log", f))
      ? readFileSync(join(dir, "log", f), "utf8")
          .split("\n")
          .slice(-8)
          .join("\n")
      : `(${f} missing)`,
  );
  stop();
  throw new Error(`local Slurm node did not become idle in 20 s:\n${logs.join("\n")}`);
}
