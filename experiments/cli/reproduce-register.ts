/**
 * Definitions (names, options, help) of `medsynth reproduce`. Only commander is loaded here; the
 * action imports reproduce-commands.ts when the command runs.
 */
import type { Command } from "commander";

const impl = () => import("./reproduce-commands.ts");

const collect = (v: string, prev: string[]) => [...prev, v];

/** Register `reproduce` on the program. */
export function registerReproduceCommands(program: Command): void {
  program
    .command("reproduce")
    .description('the papers\' published tables beside a run ("Paper vs this run": values, 95 % CIs, headline claims with verdicts), or --list-published')
    .argument("[run-dir]", "run folder (results.jsonl, spec.json): writes paper-vs-run.md and paper-vs-run.json there")
    .option("--list-published", "print every published number of MedMeta Tables 2–5, MedConclusion Tables 2–5, RWESummary Table 1 and Figure 2")
    .option("--json", "JSON: one object per line for --list-published, the whole comparison otherwise")
    .option("--paper <id>", "only this paper: medmeta, medconclusion or rwesummary (repeatable)", collect, [] as string[])
    .option("--as <model=paperModel>", "treat a run's model (label or id) as the paper's row, e.g. --as \"openai:gemma-3-27b-it=Gemma 27B\" (repeatable)", collect, [] as string[])
    .action(async (dir: string | undefined, o: { listPublished?: boolean; json?: boolean; paper: string[]; as: string[] }) => {
      const m = await impl();
      if (o.listPublished) {
        if (dir) throw new Error("reproduce: give a run folder or --list-published, not both");
        m.listPublishedCommand({ json: o.json, papers: o.paper });
        return;
      }
      if (!dir) throw new Error("reproduce: give a run folder, or --list-published");
      m.reproduceCommand(dir, { json: o.json, papers: o.paper, as: o.as });
    });
}
