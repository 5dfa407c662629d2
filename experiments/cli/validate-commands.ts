/**
 * `medsynth validate <config.yaml> [--json] [--out dir]` (or `validate --human <study>`, see
 * viewer-commands.ts): align reference metrics, the lexical
 * direction classifier and (when configured) an LLM judge panel with the MSLR experts' ratings;
 * writes `<out>/validation.json` and `<out>/validation.md` and prints the alignment table.
 */
import { ALIGNMENT_TABLE_HEADER, alignmentTableRows, formatTextTable, loadValidationConfig, runValidation, writeValidationOutputs, type ValidationDeps, type ValidationReport } from "../validation.ts";

/** Options of {@link validateCommand}. */
export interface ValidateCommandOptions {
  /** Print the whole report as JSON on stdout instead of the table. */
  json?: boolean;
  /** Output folder overriding the config's `output`. */
  out?: string;
  /** Dependencies for tests (embedder, judge model factory); default: the registries. */
  deps?: ValidationDeps;
}

/**
 * Run a validation config and write its outputs (exported for tests).
 * Judge models come from the model registry's `createChatModel(spec.model, {...endpoint, ...params})`.
 * @param print stdout printer; progress goes to stderr
 * @returns the report and the written paths
 * @throws ConfigError for an invalid config; Error for unknown metric/embedder ids or an invalid panel
 */
export async function validateCommand(file: string, opts: ValidateCommandOptions = {}, print: (l: string) => void = console.log): Promise<{ report: ValidationReport; json: string; md: string }> {
  const { config: cfg, baseDir } = loadValidationConfig(file);
  const log = (l: string) => console.error(l);
  // The model registry (LangChain) is loaded only when the config has a judge panel.
  const createChatModel = cfg.panel === undefined || cfg.panel === null ? null : (await import("../../models/registry.ts")).createChatModel;
  const report = await runValidation(cfg, {
    panelBaseDir: baseDir,
    ...(createChatModel ? { modelFor: (spec, endpoint) => createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }) } : {}),
    log,
    ...opts.deps,
  });
  const paths = writeValidationOutputs(report, opts.out ?? cfg.output);
  if (opts.json) print(JSON.stringify(report, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2));
  else {
    print(formatTextTable(ALIGNMENT_TABLE_HEADER, alignmentTableRows(report.alignment)));
    if (report.direction) {
      const d = report.direction;
      const f = (v: number | null) => (v === null ? "–" : v.toFixed(3));
      print(
        `\n${d.classifierId} vs experts (coarse direction): target acc ${f(d.target.accuracy)} κ ${f(d.target.kappa)} (n ${d.target.n}); generated acc ${f(d.generated.accuracy)} κ ${f(d.generated.kappa)} (n ${d.generated.n}); agreement κ ${f(d.agreementKappa.kappa)} (n ${d.agreementKappa.n})`,
      );
    }
    for (const n of report.notes) print(`note: ${n}`);
    print(`\nwrote ${paths.json} and ${paths.md} (${report.dataset.rowsUsed} rows, ${(report.timing.totalMs / 1000).toFixed(1)} s)`);
  }
  return { report, ...paths };
}
