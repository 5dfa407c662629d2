/**
 * Definitions (names, options, help) of `medsynth judge` and `medsynth metrics`. Only commander is loaded here; each action
 * imports judge-commands.ts when the command runs, so `--help` does not load LangChain or the metric models.
 */
import type { Command } from "commander";

const impl = () => import("./judge-commands.ts");

/** Register `judge` and `metrics` on the program. */
export function registerJudgeCommands(program: Command): void {
  program
    .command("judge")
    .description("Add judge-panel verdicts (judgeScores) to every finished record of a results.jsonl; resumable")
    .argument("<results>", "results.jsonl written by `medsynth run`")
    .requiredOption("--panel <file>", "panel.yaml: judges, rubric(s), aggregation, repeats, endpoints")
    .option("--out <file>", "output JSONL (default <results>.judged.jsonl)")
    .option("--retry-missing", "ask again for verdicts stored as missing", false)
    .option("--concurrency <n>", "records judged at once", (v) => Number.parseInt(v, 10), 2)
    .action(async (results: string, o: { panel: string; out?: string; retryMissing: boolean; concurrency: number }) => {
      if (!Number.isInteger(o.concurrency) || o.concurrency < 1) throw new Error(`judge: --concurrency must be a positive integer`);
      await (await impl()).runJudgeCommand(results, { panel: o.panel, out: o.out, retryMissing: o.retryMissing, concurrency: o.concurrency });
    });
  program
    .command("metrics")
    .description("Compute reference metrics (output vs reference) for the records of a results.jsonl")
    .argument("<results>", "results.jsonl")
    .option("--metrics <ids>", "comma-separated metric ids: rouge, bleu, count-ratios (counts), embedding-cosine[@embedder], bertscore, perplexity", "rouge,bleu,count-ratios")
    .option("--out <file>", "output JSONL (default <results>.metrics.jsonl)")
    .action(async (results: string, o: { metrics: string; out?: string }) => {
      await (await impl()).runMetricsCommand(results, {
        metrics: o.metrics
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        out: o.out,
      });
    });
}
