/**
 * The download registry: every public data file medsynth reads, with where it comes from.
 *
 * The facts live in `sources.tsv` next to this module (one row per file: registry path, byte size,
 * sha256, download dataset, licence, upstream repository, pinned commit, path in that repository).
 * Rows were taken from the data mirror's `SOURCES.tsv`; a test checks the two agree. The files
 * themselves are never part of the repository: they are downloaded from the upstream (raw GitHub
 * at the pinned commit) or copied from a mirror, and checked against the sha256 here.
 *
 * Files the mirror holds without an upstream (derived or generated: the MSLR test subset, the
 * parity expectations, the RWE GLP-1 fact sheet, notes) and files converted from `.rda` are not
 * in this registry; see `corpus/datasets/DATA-DECISIONS.md` for what became of each.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** One downloadable file. `path` is the registry path, also its relative path in a cache or mirror. */
export const DataFileSourceSchema = z
  .object({
    path: z.string().min(1),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    dataset: z.string().min(1),
    licence: z.string().min(1),
    upstreamRepo: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
    upstreamCommit: z.string().regex(/^[0-9a-f]{40}$/),
    upstreamPath: z.string().min(1),
  })
  .strict();
/** One downloadable file (see {@link DataFileSourceSchema}). */
export type DataFileSource = z.infer<typeof DataFileSourceSchema>;

/** Base of the upstream URLs (raw GitHub). */
export const DEFAULT_UPSTREAM_BASE = "https://raw.githubusercontent.com";

const TSV_PATH = fileURLToPath(new URL("./sources.tsv", import.meta.url));
const COLUMNS = ["path", "bytes", "sha256", "dataset", "licence", "upstream_repo", "upstream_commit", "upstream_path"];

/**
 * Parse registry TSV text (header + one row per file, tab-separated).
 * @throws Error naming the line and field of the first malformed row, or a duplicate path.
 */
export function parseSourcesTsv(text: string, file = "sources.tsv"): DataFileSource[] {
  const lines = text.split("\n").filter((l) => l.length > 0);
  if (lines[0] !== COLUMNS.join("\t")) throw new Error(`${file}: header must be "${COLUMNS.join("\\t")}"`);
  const seen = new Set<string>();
  return lines.slice(1).map((line, i) => {
    const c = line.split("\t");
    if (c.length !== COLUMNS.length) throw new Error(`${file} line ${i + 2}: expected ${COLUMNS.length} tab-separated fields, got ${c.length}`);
    const r = DataFileSourceSchema.safeParse({
      path: c[0],
      bytes: Number(c[1]),
      sha256: c[2],
      dataset: c[3],
      licence: c[4],
      upstreamRepo: c[5],
      upstreamCommit: c[6],
      upstreamPath: c[7],
    });
    if (!r.success) throw new Error(`${file} line ${i + 2}: ${r.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`);
    if (seen.has(r.data.path)) throw new Error(`${file} line ${i + 2}: duplicate path "${r.data.path}"`);
    seen.add(r.data.path);
    return r.data;
  });
}

let cached: readonly DataFileSource[] | null = null;

/** Every registered file, in registry order (read once from `sources.tsv`). */
export function dataFileSources(): readonly DataFileSource[] {
  cached ??= Object.freeze(parseSourcesTsv(readFileSync(TSV_PATH, "utf8"), TSV_PATH));
  return cached;
}

/** Names of the download datasets (groups of files pulled together), in registry order. */
export function downloadDatasetNames(): string[] {
  return [...new Set(dataFileSources().map((s) => s.dataset))];
}

/**
 * The registry entry of one file.
 * @param rel registry path, e.g. "pubmedqa/ori_pqal.json".
 * @throws Error naming the path and the datasets when the file is not registered.
 */
export function getDataFileSource(rel: string): DataFileSource {
  const s = dataFileSources().find((x) => x.path === rel);
  if (!s) throw new Error(`data file "${rel}" is not in the dataset registry (corpus/datasets/sources.tsv); datasets: ${downloadDatasetNames().join(", ")}`);
  return s;
}

/**
 * Files of a folder of the registry (every path starting with `prefix/`), in registry order.
 * @throws Error when no registered file lies under that folder.
 */
export function dataFilesUnder(prefix: string): DataFileSource[] {
  const p = prefix.replace(/\/+$/, "") + "/";
  const files = dataFileSources().filter((s) => s.path.startsWith(p));
  if (files.length === 0) throw new Error(`no registered data file under "${p}" (corpus/datasets/sources.tsv)`);
  return files;
}

/**
 * Files of one download dataset.
 * @throws Error listing valid names on an unknown dataset.
 */
export function dataFilesOf(dataset: string): DataFileSource[] {
  const files = dataFileSources().filter((s) => s.dataset === dataset);
  if (files.length === 0) throw new Error(`unknown download dataset "${dataset}"; valid: ${downloadDatasetNames().join(", ")}`);
  return files;
}

/** Licence(s) of a download dataset, joined with "; " when its files differ. */
export function datasetLicence(dataset: string): string {
  return [...new Set(dataFilesOf(dataset).map((s) => s.licence))].join("; ");
}

/** Percent-encode each segment of a slash-separated path (spaces, `+`, `#` and friends). */
export function encodePathSegments(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/**
 * The upstream URL of a file: `<base>/<repo>/<commit>/<url-encoded path>`.
 * @param base default {@link DEFAULT_UPSTREAM_BASE} (raw GitHub).
 */
export function upstreamUrl(s: DataFileSource, base = DEFAULT_UPSTREAM_BASE): string {
  return `${base.replace(/\/+$/, "")}/${s.upstreamRepo}/${s.upstreamCommit}/${encodePathSegments(s.upstreamPath)}`;
}

/** Short human name of a file's upstream: "owner/repo@commit7:path". */
export function upstreamLabel(s: DataFileSource): string {
  return `${s.upstreamRepo}@${s.upstreamCommit.slice(0, 7)}:${s.upstreamPath}`;
}
