/**
 * `medsynth datasets list [--json] [--no-counts]` and
 * `medsynth datasets show <name> [--limit n] [--json] [--path file] [--kind k]`.
 *
 * `list` prints name, task kind, item count and description of every registered dataset;
 * `show` loads one dataset and prints its counts, warnings, skipped records and the first
 * `--limit` items (one-line summaries, or the items as JSON with `--json`). `--path`/`--kind` are
 * checked against the loader's options first (one line per problem, naming the option). For
 * `jsonl`, the file may be `.jsonl.gz` and may hold PubmedRecord lines from `corpus ingest`.
 *
 * `medsynth datasets prepare medmeta [--noise n] [--seed s] [--rows 1,2] [--min-year y --max-year y]
 * [--out-dir d] [--base-url u] [--json]` fetches the included studies' abstracts and a seeded
 * noise sample from PubMed (corpus/medmeta-prepare.ts) and prints what it found and missed.
 */
import type { Command } from "commander";
import { getDataset, listDatasets, type DatasetEntry, type DatasetInfo } from "../../corpus/datasets/registry.ts";
import { formatZodIssues, valueAt } from "./retrieval-commands.ts";
import type { LoadedDataset } from "../../corpus/datasets/loaded-dataset.ts";
import type { MedMetaPrepareReport } from "../../corpus/medmeta-prepare.ts";

/** Render rows as a left-aligned text table (header + rows, columns separated by two spaces). */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** One-line summary of a dataset item of any task kind (id + the most telling field, ≤ 120 chars). */
export function summarizeItem(item: unknown): string {
  const it = item as Record<string, unknown>;
  const text =
    (typeof it.question === "string" && it.question) ||
    (typeof it.query === "string" && it.query) ||
    (typeof it.referenceConclusion === "string" && it.referenceConclusion) ||
    (typeof it.targetSummary === "string" && it.targetSummary) ||
    "";
  const extra: string[] = [];
  if (Array.isArray(it.goldenPmids) && it.goldenPmids.length) extra.push(`${it.goldenPmids.length} golden PMIDs`);
  if (Array.isArray(it.goldenDocs) && it.goldenDocs.length) extra.push(`${it.goldenDocs.length} golden docs`);
  if (Array.isArray(it.sections)) extra.push(`${it.sections.length} sections`);
  if (Array.isArray(it.relevant)) extra.push(`${it.relevant.length}/${Array.isArray(it.judged) ? it.judged.length : "?"} relevant`);
  if (Array.isArray(it.outcomes)) extra.push(`${it.outcomes.length} outcomes`);
  if (typeof it.referenceAnswer === "string") extra.push(`answer: ${it.referenceAnswer}`);
  const short = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return `${String(it.id ?? "?")}  ${short}${extra.length ? `  [${extra.join(", ")}]` : ""}`;
}

/** Text report of a loaded dataset for `datasets show`. */
export function formatLoadedDataset(d: LoadedDataset, limit: number): string {
  const lines = [`dataset: ${d.name}`, `task kind: ${d.taskKind}`, `items: ${d.items.length}`];
  if (d.docs) lines.push(`docs: ${d.docs.length}`);
  if (d.qrels) lines.push(`qrels queries: ${Object.keys(d.qrels).length}`);
  lines.push(`skipped: ${d.skipped.count}${d.skipped.count ? ` (${Object.entries(d.skipped.reasons).map(([r, n]) => `${r}: ${n}`).join("; ")})` : ""}`);
  lines.push(`warnings: ${d.warnings.length}`);
  for (const w of d.warnings) lines.push(`  ! ${w}`);
  lines.push("", `first ${Math.min(limit, d.items.length)} item(s):`);
  for (const item of d.items.slice(0, limit)) lines.push(`  ${summarizeItem(item)}`);
  return lines.join("\n");
}

/**
 * Validate CLI-given loader options against the dataset's zod schema before loading.
 * @throws Error with one line per problem naming the option, e.g.
 *   `--kind: expected one of conclusion, synthesis, rwe (got "bogus")`,
 *   `--kind: not an option of dataset "pubmedqa"`.
 */
export function checkDatasetOptions(entry: DatasetEntry, options: Record<string, unknown>): void {
  const r = entry.optionsSchema.safeParse(options);
  if (r.success) return;
  const flag = (p: PropertyKey[]) => `--${String(p[0] ?? "options").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${p.length > 1 ? `.${p.slice(1).map(String).join(".")}` : ""}`;
  throw new Error(formatZodIssues(r.error.issues, flag, (p) => valueAt(options, p), `not an option of dataset "${entry.name}"`));
}

/** Datasets that `datasets prepare` builds. */
export const PREPARABLE_DATASETS = ["medmeta"] as const;

/** Parse `--rows 1,2,5` (or "1 2 5") into row numbers. @throws Error naming the option on a non-integer. */
export function parseRowList(value: string): number[] {
  const parts = value.split(/[\s,]+/).filter(Boolean);
  const rows = parts.map(Number);
  const bad = parts.filter((_, i) => !Number.isInteger(rows[i]) || rows[i] < 1);
  if (bad.length || rows.length === 0) throw new Error(`--rows: expected row numbers such as 1,2,5 (got "${value}")`);
  return rows;
}

/** Text summary of a MedMeta preparation for `datasets prepare medmeta`. */
export function formatPrepareReport(r: MedMetaPrepareReport): string {
  const lines = [
    `rows: ${r.rows.length} (${r.rows.join(", ")})`,
    `golden abstracts: ${r.golden.found} of ${r.golden.requested} included-study PMIDs`,
  ];
  if (r.golden.missing.length) lines.push(`PMIDs PubMed no longer has (${r.golden.missing.length}):`, ...r.golden.missing.map((m) => `  ${m.pmid}  (row ${m.rows.join(", ")})`));
  if (r.golden.noAbstract.length) lines.push(`PMIDs without an abstract (left out): ${r.golden.noAbstract.join(", ")}`);
  lines.push(
    `noise abstracts: ${r.noise.sampled} of ${r.noise.requested} requested, seed "${r.seed}", from ${r.noise.poolSize.toLocaleString("en-US")} "${r.noise.term}" records of ${r.noise.minYear}–${r.noise.maxYear} (${r.noise.windows.windows} date window(s))`,
    `corpus: ${r.corpusDocs} documents → ${r.files.corpus}`,
    `manifest: ${r.files.manifest}`,
  );
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  lines.push("", "MedMeta items now carry these golden abstracts; medmeta.yaml's retrieval corpus \"prepared:medmeta\" reads corpus.jsonl.");
  return lines.join("\n");
}

/** Register `datasets list`, `datasets show` and `datasets prepare` on the program. */
export function registerDatasetsCommands(program: Command): void {
  const datasets = program.command("datasets").description("List and inspect the bundled datasets and task files");
  datasets
    .command("list")
    .description("List registered datasets with task kind and item count")
    .option("--json", "print JSON")
    .option("--no-counts", "do not load datasets to count items")
    .action(async (opts: { json?: boolean; counts: boolean }) => {
      const infos: DatasetInfo[] = await listDatasets({ withCounts: opts.counts });
      if (opts.json) {
        console.log(JSON.stringify(infos, null, 2));
        return;
      }
      console.log(
        formatTable(
          ["name", "kind", "items", "description"],
          infos.map((i) => [i.name, i.taskKind, i.itemCount === null ? "-" : String(i.itemCount), i.description]),
        ),
      );
    });
  datasets
    .command("show <name>")
    .description("Load one dataset and show counts, warnings, skipped records and the first items")
    .option("--limit <n>", "items to show", "5")
    .option("--json", "print JSON {name, taskKind, count, warnings, skipped, items (first --limit)}")
    .option("--path <file>", "file to load (required for jsonl; overrides the bundled file for file-based loaders)")
    .option("--kind <kind>", "jsonl only: task kind of lines without a kind field (conclusion | synthesis | rwe)")
    .action(async (name: string, opts: { limit: string; json?: boolean; path?: string; kind?: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 0) throw new Error(`--limit must be a non-negative integer, got "${opts.limit}"`);
      const entry = getDataset(name);
      const loadOpts: Record<string, unknown> = {};
      if (opts.path) loadOpts.path = opts.path;
      if (opts.kind) loadOpts.kind = opts.kind;
      if (name === "jsonl" && !opts.path) throw new Error("datasets show jsonl needs --path <file.jsonl>");
      checkDatasetOptions(entry, loadOpts);
      const d = await entry.load(loadOpts);
      if (opts.json) {
        console.log(
          JSON.stringify(
            { name: d.name, taskKind: d.taskKind, count: d.items.length, docs: d.docs?.length ?? null, warnings: d.warnings, skipped: d.skipped, items: d.items.slice(0, limit) },
            null,
            2,
          ),
        );
        return;
      }
      console.log(formatLoadedDataset(d, limit));
    });
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
    .action(async (name: string, opts: { noise: string; seed: string; rows?: string; noiseTerm: string; minYear?: string; maxYear?: string; outDir?: string; baseUrl?: string; json?: boolean }) => {
      if (!(PREPARABLE_DATASETS as readonly string[]).includes(name)) throw new Error(`datasets prepare: "${name}" is not built from PubMed; preparable: ${PREPARABLE_DATASETS.join(", ")}`);
      const int = (flag: string, v: string | undefined) => {
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: expected a non-negative integer (got "${v}")`);
        return n;
      };
      const { createEutilsClient } = await import("../../corpus/eutils.ts");
      const { prepareMedMeta } = await import("../../corpus/medmeta-prepare.ts");
      const client = createEutilsClient({ apiKey: process.env.NCBI_API_KEY || null, ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) });
      const report = await prepareMedMeta(
        client,
        { noiseCount: int("--noise", opts.noise), seed: opts.seed, noiseTerm: opts.noiseTerm, minYear: int("--min-year", opts.minYear), maxYear: int("--max-year", opts.maxYear), ...(opts.rows ? { rows: parseRowList(opts.rows) } : {}), ...(opts.outDir ? { outDir: opts.outDir } : {}) },
        (l) => process.stderr.write(`${l}\n`),
      );
      console.log(opts.json ? JSON.stringify(report, null, 2) : formatPrepareReport(report));
    });
}
