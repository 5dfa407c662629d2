/**
 * Definitions (names, options, help) of `medsynth datasets list|pull|show|prepare|build-medmeta`. Only commander
 * is loaded here; each action imports datasets-commands.ts when the command runs.
 */
import type { Command } from "commander";
import type { BuildMedMetaCliOptions } from "./datasets-commands.ts";

const impl = () => import("./datasets-commands.ts");

/** Register `datasets list`, `datasets pull`, `datasets show`, `datasets prepare` and `datasets build-medmeta` on the program. */
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
    .option("--medmeta <file>", "MedMeta.csv whose rows to prepare (default the bundled file; e.g. the output of build-medmeta)")
    .option("--base-url <url>", "E-utilities base URL")
    .option("--json", "print the report as JSON")
    .action(
      async (
        name: string,
        opts: { noise: string; seed: string; rows?: string; noiseTerm: string; minYear?: string; maxYear?: string; outDir?: string; medmeta?: string; baseUrl?: string; json?: boolean },
      ) => (await impl()).datasetsPrepareCommand(name, opts),
    );
  datasets
    .command("build-medmeta")
    .description("Build MedMeta rows from any reviews (PMIDs): PMC ID converter → PMC open-access JATS → conclusion, year, included studies; feasibility filter and stratified sampling (MedMeta §3.1)")
    .option("--review <pmid...>", "review PMIDs")
    .option("--reviews-file <file>", "file with one review PMID per line (# comments allowed)")
    .option("--out <file>", "output MedMeta.csv (default <cache>/prepared/medmeta-build/MedMeta.csv); the report goes beside it (.report.json)")
    .option("--cache-dir <dir>", "per-review cache (default <folder of --out>/cache); a re-run fetches only what is missing")
    .option("--refresh", "ignore the cache and fetch every review again")
    .option("--min-refs <n>", "fewest included-study PMIDs (MedMeta: 7)", "7")
    .option("--max-refs <n>", "most included-study PMIDs (MedMeta: 25)", "25")
    .option("--max-unresolved <n>", "most included studies without a PMID (MedMeta: all in PubMed = 0)", "0")
    .option("--no-require-table", "keep reviews without an included-studies table (their whole reference list counts as included)")
    .option("--sample <n>", "stratified sample of this many feasible reviews (default: keep all)")
    .option("--seed <seed>", "seed of the sample", "medmeta-build-v1")
    .option("--stratify <levels>", "year,topic | year | topic | topic,year | none", "year,topic")
    .option("--topic <source>", "topic of a review: mesh (first MeSH major heading, else journal) | journal", "mesh")
    .option("--base-url <url>", "E-utilities base URL")
    .option("--idconv-url <url>", "PMC ID converter URL")
    .option("--email <address>", "contact e-mail sent to NCBI with tool=medsynth")
    .option("--prepare", "then run `datasets prepare medmeta` on the built rows (golden abstracts + noise)")
    .option("--noise <n>", "with --prepare: noise abstracts to sample", "22750")
    .option("--prepare-out-dir <dir>", "with --prepare: output folder (default <cache>/prepared/medmeta, where the loader looks)")
    .option("--json", "print the report as JSON")
    .action(async (opts: BuildMedMetaCliOptions) => (await impl()).datasetsBuildMedMetaCommand(opts));
}
