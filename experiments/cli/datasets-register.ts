/**
 * Definitions (names, options, help) of `medsynth datasets list|pull|show|prepare`. Only commander
 * is loaded here; each action imports datasets-commands.ts when the command runs.
 */
import type { Command } from "commander";

const impl = () => import("./datasets-commands.ts");

/** Register `datasets list`, `datasets pull`, `datasets show` and `datasets prepare` on the program. */
export function registerDatasetsCommands(program: Command): void {
  const datasets = program.command("datasets").description("List, download and inspect the datasets and task files");
  datasets
    .command("list")
    .description("List registered datasets: task kind, item count, where the files are (cache / mirror / missing), licence")
    .option("--json", "print JSON {datasets, downloads, cache, mirrors}")
    .option("--no-counts", "do not load datasets to count items")
    .option("--mirror <folder|url...>", "mirror(s) to consider (default $MEDSYNTH_DATA_MIRROR, then ../shared/data beside the checkout)")
    .action(async (opts: { json?: boolean; counts: boolean; mirror?: string[] }) => (await impl()).datasetsListCommand(opts));
  datasets
    .command("pull [names...]")
    .description("Download datasets into the data cache ($MEDSYNTH_DATA_DIR, else ~/.cache/medsynth/data), verified by sha256")
    .option("--all", "every download dataset")
    .option("--mirror <folder|url...>", "try these mirrors first (default $MEDSYNTH_DATA_MIRROR, then ../shared/data beside the checkout)")
    .option("--no-progress", "no progress bar")
    .action(async (names: string[], opts: { all?: boolean; mirror?: string[]; progress: boolean }) => {
      await (await impl()).runDatasetsPull(names, opts);
    });
  datasets
    .command("show <name>")
    .description("Load one dataset and show counts, warnings, skipped records and the first items")
    .option("--limit <n>", "items to show", "5")
    .option("--json", "print JSON {name, taskKind, count, warnings, skipped, items (first --limit)}")
    .option("--path <file>", "file to load (required for jsonl; overrides the bundled file for file-based loaders)")
    .option("--kind <kind>", "jsonl only: task kind of lines without a kind field (conclusion | synthesis | rwe)")
    .action(async (name: string, opts: { limit: string; json?: boolean; path?: string; kind?: string }) => (await impl()).datasetsShowCommand(name, opts));
  datasets
    .command("prepare <name>")
    .description("Build a dataset from PubMed (needs network or a --base-url): medmeta = the included studies' abstracts + a seeded sample of noise abstracts (MedMeta §3.2)")
    .option("--noise <n>", "noise abstracts to sample (MedMeta: 22,750)", "22750")
    .option("--seed <seed>", "seed of the noise draw and corpus order", "medmeta-noise-v1")
    .option("--rows <list>", "only these MedMeta rows (Number column), e.g. 1,2,5")
    .option("--noise-term <term>", "PubMed query the noise is drawn from", "hasabstract")
    .option("--min-year <year>", "noise publication years from (default: the golden abstracts' first year)")
    .option("--max-year <year>", "noise publication years to (default: the golden abstracts' last year)")
    .option("--out-dir <dir>", "output folder (default <cache>/prepared/medmeta, where the loader looks)")
    .option("--base-url <url>", "E-utilities base URL")
    .option("--json", "print the report as JSON")
    .action(async (name: string, opts: { noise: string; seed: string; rows?: string; noiseTerm: string; minYear?: string; maxYear?: string; outDir?: string; baseUrl?: string; json?: boolean }) => (await impl()).datasetsPrepareCommand(name, opts));
}
