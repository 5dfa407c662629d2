/**
 * `medsynth datasets list [--json] [--no-counts]`,
 * `medsynth datasets pull [names…|--all] [--mirror m…] [--no-progress]` and
 * `medsynth datasets show <name> [--limit n] [--json] [--path file] [--kind k]`.
 *
 * `list` prints name, task kind, item count, where its files are (cache / mirror / missing /
 * shipped / user file), licence and description of every registered dataset, then the download
 * datasets (groups of registry files) with size, location, licence and upstream; `pull` downloads
 * (or copies from a mirror) every file of the named datasets into the data cache, verified by
 * sha256, with a progress bar, and prints what it got;
 * `show` loads one dataset and prints its counts, warnings, skipped records and the first
 * `--limit` items (one-line summaries, or the items as JSON with `--json`). `--path`/`--kind` are
 * checked against the loader's options first (one line per problem, naming the option). For
 * `jsonl`, the file may be `.jsonl.gz` and may hold PubmedRecord lines from `corpus ingest`.
 *
 * `medsynth datasets prepare medmeta [--noise n] [--seed s] [--rows 1,2] [--min-year y --max-year y]
 * [--out-dir d] [--base-url u] [--json]` fetches the included studies' abstracts and a seeded
 * noise sample from PubMed (corpus/medmeta-prepare.ts) and prints what it found and missed;
 * `--medmeta <file>` prepares the rows of another MedMeta.csv (e.g. one from build-medmeta).
 *
 * `medsynth datasets build-medmeta --review <PMID…> | --reviews-file f [--out f.csv] [--cache-dir d]
 * [--min-refs 7 --max-refs 25 --max-unresolved 0 --no-require-table] [--sample n --seed s
 * --stratify year,topic --topic mesh|journal] [--refresh] [--base-url u --idconv-url u --email e]
 * [--prepare [--noise n --prepare-out-dir d]] [--json]` builds MedMeta rows from any reviews in
 * PMC's open-access subset (corpus/medmeta-build/build.ts) and lists every review as kept,
 * dropped, skipped or failed with the reason.
 */
import { getDataset, listDatasets, listDownloads, resolveDownloadNames, type DatasetEntry, type DatasetInfo } from "../../corpus/datasets/registry.ts";
import { dataCacheDir, dataMirrors, humanBytes, locateDataFile, probeUrlMirrors, pullCommand, pullDatasets, type DataAccessOptions, type PullResult } from "../../corpus/datasets/files.ts";
import { dataFileSources, dataFilesOf, downloadDatasetNames } from "../../corpus/datasets/sources.ts";
import { formatZodIssues, valueAt } from "./zod-format.ts";
import type { LoadedDataset } from "../../corpus/datasets/loaded-dataset.ts";
import type { MedMetaPrepareReport } from "../../corpus/medmeta-prepare.ts";
import type { BuildMedMetaReport } from "../../corpus/medmeta-build/build.ts";

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
  lines.push(
    `skipped: ${d.skipped.count}${
      d.skipped.count
        ? ` (${Object.entries(d.skipped.reasons)
            .map(([r, n]) => `${r}: ${n}`)
            .join("; ")})`
        : ""
    }`,
  );
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

/** Mirror settings from repeated `--mirror` options (else the environment defaults). */
function accessFrom(mirror: string[] | undefined): DataAccessOptions {
  return mirror?.length ? { mirrors: dataMirrors(mirror) } : {};
}

/**
 * Pull download datasets into the cache with a progress bar (stderr, when a TTY and `progress`),
 * printing one line per dataset: what it got, from where, and the cache folder.
 * @param names download dataset or loader names; empty with `all` = every download dataset.
 * @returns the per-file results.
 * @throws Error on an unknown name (before any transfer); DatasetUnavailableError / CacheWriteError.
 */
export async function runDatasetsPull(names: string[], opts: { all?: boolean; mirror?: string[]; progress?: boolean }, print: (line: string) => void = console.log): Promise<PullResult[]> {
  if (opts.all && names.length) throw new Error("datasets pull: give dataset names or --all, not both");
  if (!opts.all && names.length === 0) throw new Error(`datasets pull: name the datasets to pull or use --all; datasets: ${downloadDatasetNames().join(", ")}`);
  const targets = opts.all ? downloadDatasetNames() : resolveDownloadNames(names);
  const access = accessFrom(opts.mirror);
  const files = targets.flatMap((t) => dataFilesOf(t));
  const total = files.reduce((n, f) => n + f.bytes, 0);
  const showBar = opts.progress !== false && process.stderr.isTTY;
  let bar: { start(t: number, v: number, p?: object): void; update(v: number, p?: object): void; stop(): void } | null = null;
  if (showBar) {
    const { default: cliProgress } = await import("cli-progress");
    bar = new cliProgress.SingleBar({ format: "datasets |{bar}| {percentage}% {value}/{total} bytes | {file}", stream: process.stderr }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { file: "" });
  }
  let doneBefore = 0;
  const results: PullResult[] = [];
  try {
    for (const t of targets) {
      const got = await pullDatasets([t], { ...access, transfer: { onProgress: (done) => bar?.update(doneBefore + done) }, notice: (l) => (bar ? undefined : process.stderr.write(`${l}\n`)) }, (r) => {
        doneBefore += r.bytes;
        bar?.update(doneBefore, { file: r.rel });
      });
      results.push(...got);
      const by = (a: PullResult["action"]) => got.filter((r) => r.action === a).length;
      const sources = [
        ...new Set(got.filter((r) => r.action !== "present").map((r) => (r.action === "copied" ? r.from.slice(0, r.from.length - r.rel.length).replace(/\/$/, "") : new URL(r.from).origin))),
      ];
      bar?.stop();
      print(
        `${t}: ${got.length} file(s), ${humanBytes(got.reduce((n, r) => n + r.bytes, 0))} verified — ${by("downloaded")} downloaded, ${by("copied")} copied, ${by("present")} already cached${sources.length ? ` (from ${sources.join(", ")})` : ""}`,
      );
      if (bar && t !== targets[targets.length - 1]) bar.start(total, doneBefore, { file: "" });
    }
  } finally {
    bar?.stop();
  }
  print(`cache: ${access.cacheDir ?? dataCacheDir()}`);
  return results;
}

/**
 * An E-utilities call that never got an HTTP answer (offline, DNS, refused, timed out) as an error
 * that says so, keeps the cause, and names the way round: `--base-url` (an E-utilities mirror or
 * proxy). Any other error is returned as it is.
 * @param e - the error thrown.
 * @param command - the command, for the message (e.g. "datasets prepare medmeta").
 * @param baseUrl - the `--base-url` given, if any.
 */
export function unreachableEutilsAdvice(e: unknown, command: string, baseUrl?: string): unknown {
  if (!(e instanceof Error) || e.name !== "EutilsError" || (e as Error & { status?: number | null }).status !== null) return e;
  const where = baseUrl ?? "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/";
  return new Error(
    `${command}: NCBI E-utilities at ${where} could not be reached: ${e.message}. This command fetches PubMed abstracts: run it where ${new URL(where).host} is reachable (NCBI_API_KEY raises the rate limit), or point --base-url at an E-utilities mirror or proxy (e.g. --base-url http://proxy.example/entrez/eutils/).`,
  );
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
  const lines = [`rows: ${r.rows.length} (${r.rows.join(", ")})`, `golden abstracts: ${r.golden.found} of ${r.golden.requested} included-study PMIDs`];
  if (r.golden.missing.length) lines.push(`PMIDs PubMed no longer has (${r.golden.missing.length}):`, ...r.golden.missing.map((m) => `  ${m.pmid}  (row ${m.rows.join(", ")})`));
  if (r.golden.noAbstract.length) lines.push(`PMIDs without an abstract (left out): ${r.golden.noAbstract.join(", ")}`);
  lines.push(
    `noise abstracts: ${r.noise.sampled} of ${r.noise.requested} requested, seed "${r.seed}", from ${r.noise.poolSize.toLocaleString("en-US")} "${r.noise.term}" records of ${r.noise.minYear}–${r.noise.maxYear} (${r.noise.windows.windows} date window(s))`,
    `corpus: ${r.corpusDocs} documents → ${r.files.corpus}`,
    `manifest: ${r.files.manifest}`,
  );
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  lines.push("", 'MedMeta items now carry these golden abstracts; medmeta.yaml\'s retrieval corpus "prepared:medmeta" reads corpus.jsonl.');
  return lines.join("\n");
}

/**
 * `datasets list`: every registered dataset and download dataset with where its files are. With
 * `--mirror`, those mirrors are used for this process (the loaders that count items read them as
 * they read `$MEDSYNTH_DATA_MIRROR`); URL mirrors are asked by HEAD requests which files they hold
 * (rows say "url mirror"). Never downloads; a dataset that cannot be counted is named on stderr.
 */
export async function datasetsListCommand(opts: { json?: boolean; counts: boolean; mirror?: string[] }): Promise<void> {
  const access = accessFrom(opts.mirror);
  if (opts.mirror?.length) process.env.MEDSYNTH_DATA_MIRROR = opts.mirror.join(";");
  const mirrors = access.mirrors ?? dataMirrors();
  const remote = mirrors.some((m) => /^https?:\/\//i.test(m))
    ? await probeUrlMirrors(
        dataFileSources()
          .filter((f) => locateDataFile(f.path, access).where === "missing")
          .map((f) => f.path),
        access,
      )
    : new Map<string, string>();
  const infos: DatasetInfo[] = await listDatasets({ withCounts: opts.counts, access, remote });
  const downloads = listDownloads(access, remote);
  for (const i of infos) if (i.countError) process.stderr.write(`warning: could not count the items of ${i.name}: ${i.countError}\n`);
  if (opts.json) {
    console.log(JSON.stringify({ datasets: infos, downloads, cache: dataCacheDir(), mirrors }, null, 2));
    return;
  }
  console.log(
    formatTable(
      ["name", "kind", "items", "where", "licence", "description"],
      infos.map((i) => [i.name, i.taskKind, i.itemCount === null ? "-" : String(i.itemCount), i.where, i.licence, i.description]),
    ),
  );
  console.log("");
  console.log(
    formatTable(
      ["download", "files", "size", "where", "licence", "upstream"],
      downloads.map((d) => [d.name, String(d.files), humanBytes(d.bytes), d.where === "missing" ? `missing (${d.missing})` : d.where, d.licence, d.upstreams.join(", ")]),
    ),
  );
  console.log(
    `\ncache: ${dataCacheDir()}\nmirrors: ${mirrors.length ? mirrors.join(", ") : "(none)"}\nget missing ones with: ${pullCommand("<name…> | --all")}${remote.size ? ' ("url mirror": pulled from that mirror on first use)' : ""}`,
  );
}

/** `datasets show`: load one dataset and print counts, warnings, skipped records and the first items. */
export async function datasetsShowCommand(name: string, opts: { limit: string; json?: boolean; path?: string; kind?: string }): Promise<void> {
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
      JSON.stringify({ name: d.name, taskKind: d.taskKind, count: d.items.length, docs: d.docs?.length ?? null, warnings: d.warnings, skipped: d.skipped, items: d.items.slice(0, limit) }, null, 2),
    );
    return;
  }
  console.log(formatLoadedDataset(d, limit));
}

/** `datasets prepare`: build a dataset (medmeta) from PubMed. */
export async function datasetsPrepareCommand(
  name: string,
  opts: { noise: string; seed: string; rows?: string; noiseTerm: string; minYear?: string; maxYear?: string; outDir?: string; medmeta?: string; baseUrl?: string; json?: boolean },
): Promise<void> {
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
    {
      noiseCount: int("--noise", opts.noise),
      seed: opts.seed,
      noiseTerm: opts.noiseTerm,
      minYear: int("--min-year", opts.minYear),
      maxYear: int("--max-year", opts.maxYear),
      ...(opts.rows ? { rows: parseRowList(opts.rows) } : {}),
      ...(opts.outDir ? { outDir: opts.outDir } : {}),
      ...(opts.medmeta ? { medmetaPath: opts.medmeta } : {}),
    },
    (l) => process.stderr.write(`${l}\n`),
  ).catch((e: unknown) => {
    throw unreachableEutilsAdvice(e, `datasets prepare ${name}`, opts.baseUrl);
  });
  console.log(opts.json ? JSON.stringify(report, null, 2) : formatPrepareReport(report));
}

/** Options of `datasets build-medmeta` as commander gives them. */
export interface BuildMedMetaCliOptions {
  review?: string[];
  reviewsFile?: string;
  out?: string;
  cacheDir?: string;
  refresh?: boolean;
  minRefs: string;
  maxRefs: string;
  maxUnresolved: string;
  requireTable: boolean;
  sample?: string;
  seed: string;
  stratify: string;
  topic: string;
  baseUrl?: string;
  idconvUrl?: string;
  email?: string;
  prepare?: boolean;
  noise: string;
  prepareOutDir?: string;
  json?: boolean;
}

/** Parse `--stratify year,topic` ("none" = simple random sample). @throws Error naming the option. */
export function parseStratify(value: string): ("year" | "topic")[] {
  if (value.trim() === "none") return [];
  const parts = value.split(/[\s,]+/).filter(Boolean);
  const bad = parts.filter((p) => p !== "year" && p !== "topic");
  if (bad.length || new Set(parts).size !== parts.length) throw new Error(`--stratify: expected "year,topic", "year", "topic", "topic,year" or "none" (got "${value}")`);
  return parts as ("year" | "topic")[];
}

/** Text summary of a build for `datasets build-medmeta`: counts, then one line per review not kept. */
export function formatBuildReport(r: BuildMedMetaReport): string {
  const lines = [
    `reviews: ${r.requested} asked${r.duplicates.length ? ` (duplicates kept once: ${r.duplicates.join(", ")})` : ""}; ${r.fetched} fetched, ${r.fromCache} from the cache (${r.cacheDir})`,
    `kept ${r.counts.kept}, dropped ${r.counts.dropped}, skipped ${r.counts.skipped}, failed ${r.counts.failed}`,
    `feasibility: ${r.feasibility.minRefs}–${r.feasibility.maxRefs} included-study PMIDs, ≤ ${r.feasibility.maxUnresolved} without PMID, included-studies table ${r.feasibility.requireStudiesTable ? "required" : "optional"}`,
  ];
  if (r.sample.n !== null)
    lines.push(
      `sample: ${r.sample.n}, seed "${r.sample.seed}", stratified by ${r.sample.stratify.join(", ") || "nothing"} (topic: ${r.sample.topic}); strata: ${Object.entries(r.sample.strata)
        .map(([k, v]) => `${k} ${v}`)
        .join("; ")}`,
    );
  const rows = r.reviews.map((v) => [
    v.pmid,
    v.status,
    v.pmcid ?? "-",
    v.year === null ? "-" : String(v.year),
    v.topic ?? "-",
    v.includedPmids === null ? "-" : `${v.includedPmids}${v.unresolved ? ` (+${v.unresolved} unresolved)` : ""}`,
    v.reason ?? `row ${v.row}`,
  ]);
  lines.push("", formatTable(["PMID", "status", "PMCID", "year", "topic", "included", "reason"], rows), "", `rows: ${r.out}`, `report: ${r.reportPath}`);
  return lines.join("\n");
}

/** `datasets build-medmeta`: MedMeta rows from review PMIDs (corpus/medmeta-build/build.ts), optionally prepared. Sets exit code 1 when a review failed. */
export async function datasetsBuildMedMetaCommand(opts: BuildMedMetaCliOptions): Promise<void> {
  const int = (flag: string, v: string | undefined, min: number) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag}: expected an integer ≥ ${min} (got "${v}")`);
    return n;
  };
  if (opts.topic !== "mesh" && opts.topic !== "journal") throw new Error(`--topic: expected mesh or journal (got "${opts.topic}")`);
  const { buildMedMeta, readReviewsFile } = await import("../../corpus/medmeta-build/build.ts");
  const reviews = [...(opts.review ?? []), ...(opts.reviewsFile ? readReviewsFile(opts.reviewsFile) : [])];
  if (reviews.length === 0) throw new Error("datasets build-medmeta: give review PMIDs with --review <pmid…> or --reviews-file <file>");
  const badPmid = reviews.find((p) => !/^\d+$/.test(p));
  if (badPmid) throw new Error(`--review: "${badPmid}" is not a PMID (digits only)`);
  const { createEutilsClient } = await import("../../corpus/eutils.ts");
  const client = createEutilsClient({
    apiKey: process.env.NCBI_API_KEY || null,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    ...(opts.idconvUrl ? { idconvUrl: opts.idconvUrl } : {}),
    ...(opts.email ? { email: opts.email } : {}),
  });
  const report = await buildMedMeta(
    client,
    {
      reviews,
      ...(opts.out ? { out: opts.out } : {}),
      ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
      refresh: !!opts.refresh,
      feasibility: {
        minRefs: int("--min-refs", opts.minRefs, 1),
        maxRefs: int("--max-refs", opts.maxRefs, 1),
        maxUnresolved: int("--max-unresolved", opts.maxUnresolved, 0),
        requireStudiesTable: opts.requireTable,
      },
      sample: int("--sample", opts.sample, 1),
      seed: opts.seed,
      stratify: parseStratify(opts.stratify),
      topic: opts.topic,
    },
    (l) => process.stderr.write(`${l}\n`),
  );
  let prepared: MedMetaPrepareReport | null = null;
  if (opts.prepare) {
    if (report.counts.kept === 0) throw new Error(`datasets build-medmeta --prepare: no review was kept, nothing to prepare (see ${report.reportPath})`);
    const { prepareMedMeta } = await import("../../corpus/medmeta-prepare.ts");
    prepared = await prepareMedMeta(client, { medmetaPath: report.out, noiseCount: int("--noise", opts.noise, 0), ...(opts.prepareOutDir ? { outDir: opts.prepareOutDir } : {}) }, (l) =>
      process.stderr.write(`${l}\n`),
    );
  }
  if (opts.json) console.log(JSON.stringify(prepared ? { build: report, prepare: prepared } : report, null, 2));
  else console.log(prepared ? `${formatBuildReport(report)}\n\n${formatPrepareReport(prepared)}` : formatBuildReport(report));
  if (report.counts.failed) {
    process.stderr.write(`${report.counts.failed} review(s) failed (listed above); run the same command again to fetch only those (the cache keeps the rest)\n`);
    process.exitCode = 1;
  }
}
