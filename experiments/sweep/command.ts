/**
 * The action of `medsynth retrieval sweep <config.yaml> [--out dir]`: check the config (every bad
 * grid entry at once, naming its key), run the sweep, write the results folder, print the
 * protocol line and the table of the last scope (test, cv or all).
 */
import { resolve } from "node:path";
import { fmt } from "../report/tables.ts";
import { loadSweepConfig } from "./config.ts";
import { mainMetrics, protocolStatement, writeSweepResults } from "./report.ts";
import { runSweep, type SweepResult } from "./run.ts";

/** Options of `retrieval sweep`. */
export interface SweepCliOptions {
  /** Results folder (default: the config's `output`, else `sweep-<name>` in the current folder). */
  out?: string;
}

/**
 * Run `retrieval sweep` (exported for tests).
 * @param out stdout line sink; @param err stderr line sink (progress, warnings).
 * @returns the result and the folder written.
 * @throws SweepConfigError listing every problem; dataset, corpus and index errors.
 */
export async function runSweepCommand(
  configPath: string,
  o: SweepCliOptions = {},
  out: (l: string) => void = (l) => console.log(l),
  err: (l: string) => void = (l) => console.error(l),
): Promise<{ result: SweepResult; dir: string }> {
  const plan = loadSweepConfig(configPath);
  const dir = resolve(o.out ?? plan.output ?? `sweep-${plan.name}`);
  const result = await runSweep(plan, { log: err });
  await writeSweepResults(result, dir);
  out(protocolStatement(result));
  const sc = result.analysis.scopes[result.analysis.scopes.length - 1];
  const metrics = mainMetrics(plan.k);
  const header = ["setting", ...metrics];
  const rows = sc.rows.map((r) => [r.setting, ...metrics.map((m) => fmt(r.metrics[m].mean, 4))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  out(`${sc.id}: ${sc.queries} questions`);
  for (const row of [header, ...rows])
    out(
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
  out(`wrote ${dir} (results.tsv, curves.tsv, comparisons.tsv, results.json, report.md, report.html)`);
  return { result, dir };
}
