/** Run the real `medsynth` CLI (bin/medsynth.js) in a child process and capture its output and exit status. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/medsynth.js", import.meta.url));

/** Output and exit status of one CLI run. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `node bin/medsynth.js ...args`.
 * @param args command-line arguments.
 * @param opts cwd (default the current one) and extra environment variables.
 */
export function runCli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
