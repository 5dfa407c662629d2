/**
 * Definitions (names, options, help) of `medsynth corpus ingest|export|stats|fetch`. Light on
 * purpose: only commander is loaded here; each action imports corpus-commands.ts (PubMed parser,
 * LanceDB store, E-utilities client) when the command runs, so `--help` stays fast.
 */
import type { Command } from "commander";
import type { IngestCliOptions, RagExportCliOptions } from "./corpus-commands.ts";

/** commander collector for repeatable `key=value` options (`--storage-option`). @throws Error naming the option on a value without `=`. */
export function collectKeyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new Error(`--storage-option expects key=value, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

const impl = () => import("./corpus-commands.ts");

/** Register `corpus ingest|export|rag-export|stats|fetch`. */
export function registerCorpusCommands(program: Command): void {
  const corpus = program.command("corpus").description("PubMed XML ingest, corpus statistics and E-utilities fetch");

  corpus
    .command("ingest")
    .description("Parse PubMed XML (.xml, .xml.gz, folders) into a Lance corpus store (--store: parallel, resumable, update files applied in order) or a JSONL file (--out)")
    .argument("<inputs...>", "XML files, .xml.gz files or folders (baseline and update files, applied in sorted order)")
    .option("--store <uri>", "Lance corpus store: a folder or an object-storage URI (s3://, gs://, az://)")
    .option("--storage-option <key=value>", "LanceDB storage option for --store (repeatable), e.g. aws_endpoint=http://127.0.0.1:9000", collectKeyValue, {} as Record<string, string>)
    .option("--jobs <n>", "worker threads for --store (default: number of cores)")
    .option("--compression <c>", "page compression of a new --store's records: none (default, fastest ingest), lz4 or zstd (~2.4× smaller), lance-default")
    .option(
      "--version-retention <duration>",
      "with --store: keep superseded table versions this long after finalisation (seconds or 30m, 2h, 7d; default 0: only the final version stays, disk ≈ data)",
    )
    .option("--out <file>", "output JSONL (.jsonl or .jsonl.gz), one thread, kept records held until the end with --clean")
    .option("--clean", "apply MedConclusion §3.1.1 cleaning (English, ≥3 segments, a conclusion, dedupe; retracted papers and retraction notices dropped) and print drop counts", false)
    .option("--keep-retracted", "with --clean: keep retracted papers and retraction notices", false)
    .option("--json", "print the report as JSON", false)
    .option("--no-progress", "no progress bar")
    .action(async (inputs: string[], opts: IngestCliOptions) => (await impl()).corpusIngestCommand(inputs, opts));

  corpus
    .command("export")
    .description("Write the records of a Lance corpus store as JSONL (one PubmedRecord per line)")
    .requiredOption("--store <uri>", "Lance corpus store (folder or object-storage URI)")
    .option("--storage-option <key=value>", "LanceDB storage option (repeatable)", collectKeyValue, {} as Record<string, string>)
    .requiredOption("--out <file>", "output JSONL (.jsonl or .jsonl.gz)")
    .action(async (opts: { store: string; storageOption: Record<string, string>; out: string }) => (await impl()).corpusExportCommand(opts));

  corpus
    .command("rag-export")
    .description(
      "Write the lean RAG corpus of a store — one snippet per PMID, title + abstract, MedRAG's fields id, title, content, contents — as the store's rag table (indexes then build from it) and/or JSONL",
    )
    .requiredOption("--store <uri>", "Lance corpus store (folder or object-storage URI)")
    .option("--storage-option <key=value>", "LanceDB storage option (repeatable)", collectKeyValue, {} as Record<string, string>)
    .option("--out <file>", "also write MedRAG JSONL (.jsonl or .jsonl.gz)")
    .option("--no-table", "do not write the rag table into the store (JSONL only)")
    .option("--version-retention <duration>", "keep superseded versions of the rag table this long (default 0)")
    .option("--json", "print the report as JSON", false)
    .action(async (opts: RagExportCliOptions) => (await impl()).corpusRagExportCommand(opts));

  corpus
    .command("stats")
    .description("Counts of a JSONL corpus of PubMed records")
    .argument("<corpus>", "corpus JSONL written by `corpus ingest`")
    .option("--json", "print JSON", false)
    .action(async (path: string, opts: { json: boolean }) => (await impl()).corpusStatsCommand(path, opts));

  corpus
    .command("fetch")
    .description("Fetch PubMed records with NCBI E-utilities (needs network; API key from $NCBI_API_KEY)")
    .requiredOption("--term <query>", "PubMed query")
    .requiredOption("--out <file>", "output JSONL")
    .option("--structured", "only structured abstracts (hasstructuredabstract)", false)
    .option("--min-date <date>", "publication date from (YYYY/MM/DD)")
    .option("--max-date <date>", "publication date to (YYYY/MM/DD)")
    .option("--max <n>", "at most this many records", "1000")
    .option("--base-url <url>", "E-utilities base URL")
    .action(async (opts: { term: string; out: string; structured: boolean; minDate?: string; maxDate?: string; max: string; baseUrl?: string }) => (await impl()).corpusFetchCommand(opts));
}
