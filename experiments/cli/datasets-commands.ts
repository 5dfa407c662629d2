/**
 * `medsynth datasets list [--json] [--no-counts]` and
 * `medsynth datasets show <name> [--limit n] [--json] [--path file] [--kind k]`.
 *
 * `list` prints name, task kind, item count and description of every registered dataset;
 * `show` loads one dataset and prints its counts, warnings, skipped records and the first
 * `--limit` items (one-line summaries, or the items as JSON with `--json`). `--path`/`--kind` are
 * checked against the loader's options first (one line per problem, naming the option). For
 * `jsonl`, the file may be `.jsonl.gz` and may hold PubmedRecord lines from `corpus ingest`.
 */
import type { Command } from "commander";
import { getDataset, listDatasets, type DatasetEntry, type DatasetInfo } from "../../corpus/datasets/registry.ts";
import { formatZodIssues, valueAt } from "./retrieval-commands.ts";
import type { LoadedDataset } from "../../corpus/datasets/loaded-dataset.ts";

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

/** Register `datasets list` and `datasets show` on the program. */
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
}
