/**
 * Definitions (names, options, help) of `medsynth validate`. Only commander is loaded here; each action
 * imports validate-commands.ts (or viewer-commands.ts for `--human`) when the command runs, so `--help` does not load the metrics, embedders or judge models.
 */
import type { Command } from "commander";

/** Register `validate` on the program. */
export function registerValidateCommands(program: Command): void {
  program
    .command("validate")
    .description("Align reference metrics, the direction classifier and an optional judge panel with MSLR expert ratings (Pearson, Spearman, Bland–Altman, paired t, d_z, κ)")
    .argument("[config]", "validation config (.yaml/.json), e.g. experiments/configs/judge-validation.yaml")
    .option("--json", "print the full report as JSON")
    .option("--out <dir>", "output folder (default: the config's `output`)")
    .option("--human <study-dir>", "instead: align a rating study's human ratings (rater agreement, human vs LLM panel, preferences)")
    .action(async (config: string | undefined, o: { json?: boolean; out?: string; human?: string }) => {
      if (o.human) {
        const { validateHumanCommand } = await import("./viewer-commands.ts");
        await validateHumanCommand(o.human, { json: o.json });
        return;
      }
      if (!config) throw new Error("validate: give a validation config, or --human <study-dir>");
      await (await import("./validate-commands.ts")).validateCommand(config, { json: o.json, out: o.out });
    });
}
