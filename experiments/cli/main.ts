/**
 * The `medsynth` command line: one commander program; each area registers its own commands
 * from a file of its own (corpus, datasets, retrieval, generate, judge/metrics, run/report,
 * validate, viewer, reproduce).
 *
 * Start-up stays light: the `*-register.ts` files hold only the commander definitions (names,
 * options, help text); each action imports its `*-commands.ts` implementation — and with it
 * LangChain, LanceDB, transformers.js, Vega, the viewer server — only when that command runs.
 * `--help`, `<command> --help` and `--version` load none of them
 * (tests/experiments/cli-lazy-start.test.ts checks this).
 */
import { Command } from "commander";
import { registerCorpusCommands } from "./corpus-register.ts";
import { registerDatasetsCommands } from "./datasets-register.ts";
import { registerRetrievalCommands } from "./retrieval-register.ts";
import { registerGenerateCommands } from "./generate-register.ts";
import { registerJudgeCommands } from "./judge-register.ts";
import { registerRunCommands } from "./run-register.ts";
import { registerValidateCommands } from "./validate-register.ts";
import { registerViewerCommands } from "./viewer-register.ts";
import { registerReproduceCommands } from "./reproduce-register.ts";
import { registerClusterCommands } from "./cluster-register.ts";
import { describeOsError } from "./os-errors.ts";

/** Build the commander program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("medsynth")
    .description("Research workbench for retrieval-augmented synthesis of medical evidence")
    .version("0.2.0")
    .option("--verbose", "let native libraries (LanceDB) print their own log lines (also MEDSYNTH_VERBOSE=1)");
  registerCorpusCommands(program);
  registerDatasetsCommands(program);
  registerRetrievalCommands(program);
  registerGenerateCommands(program);
  registerJudgeCommands(program);
  registerRunCommands(program);
  registerValidateCommands(program);
  registerViewerCommands(program);
  registerReproduceCommands(program);
  registerClusterCommands(program);
  return program;
}

/**
 * One readable message for a thrown error: zod validation errors become one line per issue
 * (`path: message`); operating-system errors name the file and the cause in words
 * ({@link describeOsError}); everything else its message.
 */
export function formatError(err: unknown): string {
  // Recognised by shape, not `instanceof ZodError`: importing zod here would load it for `--help`.
  if (isZodError(err)) {
    return "invalid options:\n" + err.issues.map((i) => `  - ${i.path.length ? i.path.join(".") : "(value)"}: ${i.message}`).join("\n");
  }
  const os = describeOsError(err);
  if (os) return os;
  return err instanceof Error ? err.message : String(err);
}

/** A zod validation error (zod 4 `ZodError`: name "ZodError" and an `issues` array). */
function isZodError(err: unknown): err is Error & { issues: { path: PropertyKey[]; message: string }[] } {
  return err instanceof Error && err.name === "ZodError" && Array.isArray((err as { issues?: unknown }).issues);
}

/**
 * Keep native libraries' own log lines (LanceDB's Rust `WARN … No existing dataset`) off the
 * user's terminal unless `--verbose` or `MEDSYNTH_VERBOSE` is set: sets `LANCEDB_LOG=error` when
 * the user did not choose a level. Must run before LanceDB loads.
 * @returns true when native logs were quietened.
 */
export function quietNativeLogs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.LANCEDB_LOG !== undefined) return false;
  if (argv.includes("--verbose") || (env.MEDSYNTH_VERBOSE && env.MEDSYNTH_VERBOSE !== "0")) {
    env.LANCEDB_LOG = "warn"; // explicit, so the store's own "error unless set" default leaves it
    return false;
  }
  env.LANCEDB_LOG = "error";
  return true;
}

/** Parse argv and run; exits non-zero with a one-line message on a thrown error. */
export async function main(argv: string[]): Promise<void> {
  quietNativeLogs(argv);
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    console.error(`medsynth: ${formatError(err)}`);
    if (process.env.MEDSYNTH_DEBUG && err instanceof Error) console.error(err.stack);
    process.exitCode = 1;
  }
}
