/**
 * `medsynth datasets prepare medmeta`: MedMeta's retrieval corpus built from PubMed (MedMeta §3.2).
 *
 * Steps (each a function below):
 * 1. golden PMIDs — the included studies of every MedMeta row (the messy `References` column,
 *    parsed by the MedMeta loader), optionally only some rows;
 * 2. golden abstracts — efetch of those PMIDs through the E-utilities client; PMIDs PubMed does not
 *    return are reported (with the rows that cite them), as are records without an abstract;
 * 3. noise abstracts — a seeded random sample of `noiseCount` records matching `noiseTerm`
 *    (default `hasabstract`) published in the golden studies' years, drawn through the same date
 *    windows that take searches past NCBI's 10,000-record cap ({@link createWindowSampler});
 * 4. files — `golden.jsonl` and `noise.jsonl` (PubmedRecord lines), `corpus.jsonl` (both, in a
 *    seeded shuffled order: what `retrieval.corpus` reads) and `manifest.json` (what was asked,
 *    found, missed and sampled). `noise.jsonl` is also a pool for `retrieval.noise`
 *    (retrieval/noise-corpus.ts) with the MedMeta loader's golden abstracts.
 *
 * The MedMeta loader reads `golden.jsonl` from the same folder, so prepared MedMeta items carry
 * their golden abstracts (Golden-/Negated-RAG, feasibility, golden recall of Standard-RAG).
 *
 * @see MedMeta §3.2 (2,250 golden + 22,750 random PubMed abstracts = 25,000).
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import seedrandom from "seedrandom";
import { z } from "zod";
import type { EutilsClient } from "./eutils.ts";
import { createWindowSampler, emptyWindowStats, type WindowStats } from "./eutils-windows.ts";
import { writeJsonl } from "./jsonl.ts";
import type { PubmedRecord, SynthesisTask } from "./types.ts";
import { loadMedMeta, medmetaGoldenPath } from "./datasets/medmeta.ts";

/** MedMeta's noise abstracts (§3.2: 25,000 − 2,250 golden). */
export const MEDMETA_NOISE_COUNT = 22_750;

/** File names inside the prepared folder. */
export const MEDMETA_PREPARED_FILES = { golden: "golden.jsonl", noise: "noise.jsonl", corpus: "corpus.jsonl", manifest: "manifest.json" } as const;

/** Folder of the prepared MedMeta files: `<cacheDir()>/prepared/medmeta` (the loader reads `golden.jsonl` there). */
export function medmetaPreparedDir(): string {
  return dirname(medmetaGoldenPath());
}

/** Options of {@link prepareMedMeta}. */
export const PrepareMedMetaOptionsSchema = z
  .object({
    /** Noise abstracts to sample (MedMeta: 22,750). */
    noiseCount: z.number().int().min(0).default(MEDMETA_NOISE_COUNT),
    /** seedrandom seed of the noise draw and of the corpus order. */
    seed: z.string().default("medmeta-noise-v1"),
    /** MedMeta rows (the `Number` column) to prepare; default every row. */
    rows: z.array(z.number().int().positive()).min(1).optional(),
    /** PubMed query the noise is drawn from (a filter, not a topic). */
    noiseTerm: z.string().min(1).default("hasabstract"),
    /** Publication years of the noise; default the golden abstracts' span (first to last year). */
    minYear: z.number().int().min(1700).optional(),
    maxYear: z.number().int().min(1700).optional(),
    /** Output folder (default {@link medmetaPreparedDir}). */
    outDir: z.string().optional(),
    /** MedMeta.csv to read (default: the bundled file). */
    medmetaPath: z.string().optional(),
    /** Records per result set E-utilities serves (NCBI: 10,000); tests lower it. */
    cap: z.number().int().positive().optional(),
  })
  .strict();
/** Input of {@link PrepareMedMetaOptionsSchema}. */
export type PrepareMedMetaOptions = z.input<typeof PrepareMedMetaOptionsSchema>;

/** What {@link prepareMedMeta} did (also written as manifest.json). */
export interface MedMetaPrepareReport {
  outDir: string;
  seed: string;
  rows: number[];
  golden: {
    /** Unique PMIDs cited by the rows. */
    requested: number;
    /** Records returned with an abstract (the golden documents). */
    found: number;
    /** PMIDs PubMed did not return, with the rows citing them. */
    missing: { pmid: string; rows: number[] }[];
    /** PMIDs returned without an abstract (or as deleted citations): left out of the corpus. */
    noAbstract: string[];
    /** Per row: PMIDs cited and golden abstracts found. */
    perRow: { row: number; cited: number; found: number }[];
  };
  noise: {
    term: string;
    minYear: number;
    maxYear: number;
    requested: number;
    sampled: number;
    /** Records the noise search matches over the years. */
    poolSize: number;
    /** Positions drawn (accepted or not). */
    drawn: number;
    /** Drawn records left out: golden ids, not returned by efetch, no abstract/deleted. */
    rejected: { golden: number; notReturned: number; noAbstract: number };
    windows: WindowStats;
  };
  corpusDocs: number;
  files: Record<keyof typeof MEDMETA_PREPARED_FILES, string>;
  warnings: string[];
}

const hasAbstract = (r: PubmedRecord) => !r.flags.deleted && r.abstract.some((s) => s.text.trim().length > 0);

/** MedMeta row number (`Number` column) of a loaded item. */
const rowOf = (t: SynthesisTask): number => Number(t.meta?.row);

/** Step 1: the rows to prepare and their unique golden PMIDs (first-cited order). */
export function goldenPmidsOf(items: readonly SynthesisTask[], rows?: readonly number[]): { items: SynthesisTask[]; pmids: string[]; rowsOf: Map<string, number[]> } {
  const chosen = rows ? items.filter((t) => rows.includes(rowOf(t))) : [...items];
  if (rows) {
    const have = new Set(chosen.map((t) => rowOf(t)));
    const unknown = rows.filter((r) => !have.has(r));
    if (unknown.length) throw new Error(`prepare medmeta: row(s) ${unknown.join(", ")} not in MedMeta.csv (rows are 1–${items.length})`);
  }
  const rowsOf = new Map<string, number[]>();
  for (const t of chosen) for (const p of t.goldenPmids) rowsOf.set(p, [...(rowsOf.get(p) ?? []), rowOf(t)]);
  return { items: chosen, pmids: [...rowsOf.keys()], rowsOf };
}

/** Step 2: efetch the golden PMIDs; split into found (with abstract), missing and abstract-less. */
export async function fetchGolden(client: EutilsClient, pmids: readonly string[]): Promise<{ records: PubmedRecord[]; missing: string[]; noAbstract: string[] }> {
  const got = new Map<string, PubmedRecord>();
  for await (const r of client.fetchRecords({ ids: pmids })) if (!got.has(r.pmid)) got.set(r.pmid, r);
  const records: PubmedRecord[] = [];
  const missing: string[] = [];
  const noAbstract: string[] = [];
  for (const p of pmids) {
    const r = got.get(p);
    if (!r) missing.push(p);
    else if (!hasAbstract(r)) noAbstract.push(p);
    else records.push(r);
  }
  return { records, missing, noAbstract };
}

/** Publication year of a record, or null. */
function yearOf(r: PubmedRecord): number | null {
  const y = r.pubDate ? Number(r.pubDate.slice(0, 4)) : NaN;
  return Number.isFinite(y) ? y : null;
}

/**
 * Step 3: a seeded random sample of `n` records with an abstract, matching `term` in the given
 * years, none of them in `exclude`. Positions in the search's result list are drawn without
 * replacement with seedrandom(`seed`); drawn records that are excluded, not returned or lack an
 * abstract are replaced by further draws. The sample depends only on (seed, PubMed's answers).
 * @returns the records in draw order, and the counts of what was drawn and left out.
 */
export async function sampleNoise(
  client: EutilsClient,
  opts: { term: string; minYear: number; maxYear: number; n: number; seed: string; exclude: ReadonlySet<string>; cap?: number },
): Promise<{ records: PubmedRecord[]; poolSize: number; drawn: number; rejected: MedMetaPrepareReport["noise"]["rejected"]; windows: WindowStats }> {
  const windows = emptyWindowStats();
  const sampler = await createWindowSampler(client, { term: opts.term }, { minDate: `${opts.minYear}/01/01`, maxDate: `${opts.maxYear}/12/31` }, { cap: opts.cap, stats: windows });
  const rng = seedrandom(opts.seed);
  const drawn = new Set<number>();
  const taken = new Set<string>();
  const records: PubmedRecord[] = [];
  const rejected = { golden: 0, notReturned: 0, noAbstract: 0 };
  while (records.length < opts.n && drawn.size < sampler.total) {
    const need = opts.n - records.length;
    const batch = Math.min(sampler.total - drawn.size, Math.ceil(need * 1.1) + 5);
    const positions: number[] = [];
    while (positions.length < batch) {
      const p = Math.floor(rng() * sampler.total);
      if (!drawn.has(p)) {
        drawn.add(p);
        positions.push(p);
      }
    }
    const idAt = await sampler.idsAt(positions);
    const ids: string[] = [];
    for (const p of positions) {
      const id = idAt.get(p);
      if (id === undefined) rejected.notReturned++;
      else if (opts.exclude.has(id)) rejected.golden++;
      else if (!taken.has(id)) {
        taken.add(id);
        ids.push(id);
      }
    }
    const got = new Map<string, PubmedRecord>();
    if (ids.length) for await (const r of client.fetchRecords({ ids })) got.set(r.pmid, r);
    for (const id of ids) {
      if (records.length >= opts.n) break;
      const r = got.get(id);
      if (!r) rejected.notReturned++;
      else if (!hasAbstract(r)) rejected.noAbstract++;
      else records.push(r);
    }
  }
  return { records, poolSize: sampler.total, drawn: drawn.size, rejected, windows };
}

/** Seeded Fisher–Yates shuffle (a copy). */
function shuffled<T>(xs: readonly T[], seed: string): T[] {
  const out = [...xs];
  const rng = seedrandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Write a file under a temporary name, then rename (never a half-written file under the final name). */
async function writeAtomically(path: string, write: (tmp: string) => Promise<unknown> | unknown): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await write(tmp);
  renameSync(tmp, path);
}

/**
 * Build MedMeta's retrieval corpus from PubMed (steps in the file header).
 * @param client an E-utilities client (its base URL may point to a local fake in tests).
 * @param options {@link PrepareMedMetaOptionsSchema}.
 * @param log progress lines (default: none).
 * @returns the report, also written to `manifest.json`.
 * @throws Error on unknown rows, when no golden abstract is found and no years are given, or on
 *   E-utilities failures (EutilsError after retries).
 */
export async function prepareMedMeta(client: EutilsClient, options: PrepareMedMetaOptions = {}, log: (line: string) => void = () => {}): Promise<MedMetaPrepareReport> {
  const opts = PrepareMedMetaOptionsSchema.parse(options);
  const outDir = opts.outDir ?? medmetaPreparedDir();
  const ds = await loadMedMeta({ ...(opts.medmetaPath ? { path: opts.medmetaPath } : {}), abstracts: false });
  const { items, pmids, rowsOf } = goldenPmidsOf(ds.items, opts.rows);
  log(`medmeta: ${items.length} row(s), ${pmids.length} unique included-study PMIDs`);

  const golden = await fetchGolden(client, pmids);
  log(`golden abstracts: ${golden.records.length} found, ${golden.missing.length} PMID(s) PubMed did not return, ${golden.noAbstract.length} without an abstract`);
  const warnings: string[] = [];
  if (golden.missing.length) warnings.push(`PubMed did not return ${golden.missing.length} golden PMID(s): ${golden.missing.map((p) => `${p} (row ${rowsOf.get(p)!.join(", ")})`).join("; ")}`);
  if (golden.noAbstract.length) warnings.push(`${golden.noAbstract.length} golden PMID(s) have no abstract and are left out: ${golden.noAbstract.join(", ")}`);

  const years = golden.records.map(yearOf).filter((y): y is number => y !== null);
  const minYear = opts.minYear ?? (years.length ? Math.min(...years) : null);
  const maxYear = opts.maxYear ?? (years.length ? Math.max(...years) : null);
  if (minYear === null || maxYear === null) throw new Error("prepare medmeta: no golden abstract with a publication year was found, so the noise years are unknown; give --min-year and --max-year");
  if (maxYear < minYear) throw new Error(`prepare medmeta: --max-year ${maxYear} is before --min-year ${minYear}`);

  const exclude = new Set(pmids);
  const noise = await sampleNoise(client, { term: opts.noiseTerm, minYear, maxYear, n: opts.noiseCount, seed: opts.seed, exclude, cap: opts.cap });
  log(
    `noise abstracts: ${noise.records.length} of ${opts.noiseCount} sampled from ${noise.poolSize.toLocaleString("en-US")} "${opts.noiseTerm}" records of ${minYear}–${maxYear} (${noise.drawn} drawn)`,
  );
  if (noise.records.length < opts.noiseCount)
    warnings.push(`only ${noise.records.length} of ${opts.noiseCount} noise abstracts could be sampled (${noise.poolSize} records match "${opts.noiseTerm}" in ${minYear}–${maxYear})`);
  if (noise.windows.overflow.length)
    warnings.push(
      `${noise.windows.overflow.length} single day(s) exceed the ${opts.cap ?? 10_000}-record cap; records past it could not be drawn (first: ${noise.windows.overflow[0].minDate}, ${noise.windows.overflow[0].count} records)`,
    );

  mkdirSync(outDir, { recursive: true });
  const files = Object.fromEntries(Object.entries(MEDMETA_PREPARED_FILES).map(([k, f]) => [k, join(outDir, f)])) as MedMetaPrepareReport["files"];
  const corpus = shuffled([...golden.records, ...noise.records], `${opts.seed}/order`);
  await writeAtomically(files.golden, (tmp) => writeJsonl(tmp, golden.records));
  await writeAtomically(files.noise, (tmp) => writeJsonl(tmp, noise.records));
  await writeAtomically(files.corpus, (tmp) => writeJsonl(tmp, corpus));
  const foundIds = new Set(golden.records.map((r) => r.pmid));
  const report: MedMetaPrepareReport = {
    outDir,
    seed: opts.seed,
    rows: items.map((t) => rowOf(t)),
    golden: {
      requested: pmids.length,
      found: golden.records.length,
      missing: golden.missing.map((pmid) => ({ pmid, rows: rowsOf.get(pmid)! })),
      noAbstract: golden.noAbstract,
      perRow: items.map((t) => ({ row: rowOf(t), cited: t.goldenPmids.length, found: t.goldenPmids.filter((p) => foundIds.has(p)).length })),
    },
    noise: {
      term: opts.noiseTerm,
      minYear,
      maxYear,
      requested: opts.noiseCount,
      sampled: noise.records.length,
      poolSize: noise.poolSize,
      drawn: noise.drawn,
      rejected: noise.rejected,
      windows: noise.windows,
    },
    corpusDocs: corpus.length,
    files,
    warnings,
  };
  await writeAtomically(files.manifest, (tmp) => writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`));
  return report;
}
