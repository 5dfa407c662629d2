/**
 * The `medsynth` command line: one commander program; each area registers its own commands
 * from a file of its own (corpus, datasets, retrieval, generate, judge/metrics, run/report).
 */
import { Command } from "commander";
import { ZodError } from "zod";
import { registerCorpusCommands } from "./corpus-commands.ts";
import { registerDatasetsCommands } from "./datasets-commands.ts";
import { registerRetrievalCommands } from "./retrieval-commands.ts";
import { registerGenerateCommands } from "./generate-commands.ts";
import { registerJudgeCommands } from "./judge-commands.ts";
import { registerRunCommands } from "./run-commands.ts";
import { registerValidateCommands } from "./validate-commands.ts";
import { registerViewerCommands } from "./viewer-commands.ts";

/** Build the commander program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("medsynth")
    .description("Research workbench for retrieval-augmented synthesis of medical evidence")
    .version("0.1.0");
  registerCorpusCommands(program);
  registerDatasetsCommands(program);
  registerRetrievalCommands(program);
  registerGenerateCommands(program);
  registerJudgeCommands(program);
  registerRunCommands(program);
  registerValidateCommands(program);
  registerViewerCommands(program);
  return program;
}

/**
 * One readable message for a thrown error: zod validation errors become one line per issue
 * (`path: message`), everything else its message.
 */
export function formatError(err: unknown): string {
  if (err instanceof ZodError) {
    return "invalid options:\n" + err.issues.map((i) => `  - ${i.path.length ? i.path.join(".") : "(value)"}: ${i.message}`).join("\n");
  }
  return err instanceof Error ? err.message : String(err);
}

/** Parse argv and run; exits non-zero with a one-line message on a thrown error. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    console.error(`medsynth: ${formatError(err)}`);
    if (process.env.MEDSYNTH_DEBUG && err instanceof Error) console.error(err.stack);
    process.exitCode = 1;
  }
}
