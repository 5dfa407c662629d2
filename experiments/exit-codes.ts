/**
 * Exit codes of `medsynth run` (documented in docs/llm-endpoints.md and in `medsynth run --help`).
 */

/** Every cell ran (or was already finished) and no cell is failed; judges, when configured, gave verdicts. */
export const EXIT_OK = 0;
/** The run could not start or stopped on an error (invalid config, unreadable file, …). */
export const EXIT_ERROR = 1;
/** The run finished but some cells are failed (see the failure summary; re-run with --retry-failed). */
export const EXIT_CELLS_FAILED = 2;
/** Judges were configured but every judge verdict of this run is missing (no score at all). */
export const EXIT_ALL_VERDICTS_MISSING = 3;
/** Interrupted (Ctrl-C / SIGTERM); finished records are kept. */
export const EXIT_INTERRUPTED = 130;

/** Help text listing the codes. */
export const EXIT_CODES_HELP = `Exit codes: ${EXIT_OK} all cells ok; ${EXIT_ERROR} error (config, files); ${EXIT_CELLS_FAILED} some cells failed; ${EXIT_ALL_VERDICTS_MISSING} every judge verdict missing; ${EXIT_INTERRUPTED} interrupted.`;

/**
 * Exit code of a finished run.
 * @param s `aborted`; `failedCells`: cells whose latest record is failed; `verdicts`: judge verdicts
 *   given in this invocation (`total`) and how many are missing.
 */
export function runExitCode(s: { aborted: boolean; failedCells: number; verdicts: { total: number; missing: number } }): number {
  if (s.aborted) return EXIT_INTERRUPTED;
  if (s.failedCells > 0) return EXIT_CELLS_FAILED;
  if (s.verdicts.total > 0 && s.verdicts.missing === s.verdicts.total) return EXIT_ALL_VERDICTS_MISSING;
  return EXIT_OK;
}
