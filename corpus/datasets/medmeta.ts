/**
 * MedMeta loader (MedMeta benchmark, 20 meta-analyses) → {@link SynthesisTask}s: question = the
 * meta-analysis title, reference = its published conclusion, golden PMIDs = the included
 * studies' PMIDs. The file holds no abstracts: `goldenDocs` are the included studies' abstracts
 * fetched from PubMed by `medsynth datasets prepare medmeta` (corpus/medmeta-prepare.ts) when that
 * has run, else empty (Golden-/Negated-RAG then skip the item with a reason).
 *
 * Data-quality findings become warnings and `meta.qualityFlags`, never silent fixes:
 * - a conclusion that does not match its title (documented lexical check, see
 *   {@link titleConclusionOverlap});
 * - duplicate PMIDs in References;
 * - a "Number of refs" that differs from the PMIDs found.
 * @see ../../../shared/seeds/001_* (MedMeta §3).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { parse } from "csv-parse/sync";
import { PubmedRecordSchema, SynthesisTaskSchema, type CorpusDoc, type SynthesisTask } from "../types.ts";
import { recordToCorpusDoc } from "../conclusion-task.ts";
import { readJsonl } from "../jsonl.ts";
import { preparedDataDir } from "./files.ts";
import { medsynthCommand } from "../paths.ts";
import { createSkipCounter, dataFilePath, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const MEDMETA_DATASET = "medmeta";

/** Golden abstracts written by `medsynth datasets prepare medmeta`: `<data cache>/prepared/medmeta/golden.jsonl` (see {@link preparedDataDir}). */
export function medmetaGoldenPath(): string {
  return join(preparedDataDir(MEDMETA_DATASET), "golden.jsonl");
}

/** Options of {@link loadMedMeta}. */
export const MedMetaOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of MedMeta.csv (default `<dataDir>/medmeta/MedMeta.csv`). */
    path: z.string().optional(),
    /**
     * A row is flagged "title-conclusion-mismatch" when fewer than this fraction of the title's
     * content-word stems occur in the conclusion (see {@link titleConclusionOverlap}). On the
     * bundled file the flagged row scores 0.00; the next lowest scores 0.14 and the median 0.64.
     */
    minTitleConclusionOverlap: z.number().min(0).max(1).default(0.1),
    limit: z.number().int().positive().optional(),
    /**
     * PubmedRecord JSONL of the included studies' abstracts (default {@link medmetaGoldenPath}
     * when it exists); `false` = do not attach abstracts.
     */
    abstracts: z.union([z.string(), z.literal(false)]).optional(),
  })
  .strict();
/** Options of {@link loadMedMeta}. */
export type MedMetaOptions = z.input<typeof MedMetaOptionsSchema>;

/** Function words and generic review vocabulary ignored by {@link titleConclusionOverlap}. */
export const OVERLAP_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the of in on for with and or to by from at as is are was were be been this that these those vs versus " +
    "systematic review reviews meta analysis analyses randomized randomised controlled control trials trial study studies " +
    "patients effect effects comprehensive evaluation their its into does can may"
  ).split(" "),
);

/** Content-word stems of a text: lower-cased alphanumeric words of ≥ 3 characters, not stop words, cut to 5 characters. */
export function contentStems(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((w) => w.length >= 3 && !OVERLAP_STOPWORDS.has(w)).map((w) => w.slice(0, 5)));
}

/**
 * Fraction of the title's content-word stems ({@link contentStems}) that also occur in the
 * conclusion: 0 = no shared topic word, 1 = every title topic word appears. A crude prefix
 * stemmer (5 characters) lets "diabetes"/"diabetic" … match; abbreviations do not.
 * @returns a number in [0, 1]; 0 when the title has no content word.
 */
export function titleConclusionOverlap(title: string, conclusion: string): number {
  const t = contentStems(title);
  if (t.size === 0) return 0;
  const c = contentStems(conclusion);
  let shared = 0;
  for (const s of t) if (c.has(s)) shared += 1;
  return shared / t.size;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "November 30, 2024" → "2024-11-30"; null when not of that form. */
export function parseLongDate(text: string): string | null {
  const m = /^\s*([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[1].toLowerCase());
  if (month < 0) return null;
  return `${m[3]}-${String(month + 1).padStart(2, "0")}-${m[2].padStart(2, "0")}`;
}

/** Split a messy References cell (commas, spaces, newlines, trailing separators) into PMIDs in order, duplicates kept. */
export function parsePmidList(cell: string): string[] {
  return cell.match(/\d+/g) ?? [];
}

/** Golden abstracts by PMID from a PubmedRecord JSONL (records without abstract text left out). */
async function readGoldenAbstracts(path: string): Promise<Map<string, CorpusDoc>> {
  const out = new Map<string, CorpusDoc>();
  for await (const r of readJsonl(path, { schema: PubmedRecordSchema })) {
    if (r.flags.deleted || !r.abstract.some((s) => s.text.trim())) continue;
    if (!out.has(r.pmid)) out.set(r.pmid, recordToCorpusDoc(r));
  }
  return out;
}

/**
 * Load MedMeta.csv as SynthesisTasks.
 *
 * Item: `id` "medmeta:<Number>", `question` = Meta Analysis Name, `referenceConclusion` =
 * Conclusion, `referenceAnswer`/`evidenceCertainty` null, `goldenPmids` = unique reference PMIDs
 * in order, `goldenDocs` = the prepared abstracts of those PMIDs (see `abstracts`; [] when not
 * prepared), `meta` = {row, pmid, url, date (ISO), declaredRefs, titleConclusionOverlap,
 * qualityFlags (comma-separated, "" when none), goldenAbstracts (count attached)}. When abstracts
 * are prepared, a warning names the rows whose PMIDs PubMed did not return.
 * @throws Error naming the file when it is missing or lacks a required column.
 */
export async function loadMedMeta(options: MedMetaOptions = {}): Promise<LoadedDataset<SynthesisTask>> {
  const opts = MedMetaOptionsSchema.parse(options);
  const path = opts.path ?? (await dataFilePath(opts.dataDir, "medmeta/MedMeta.csv"));
  const rows = parse(readDataFile(path, MEDMETA_DATASET), { columns: true, skip_empty_lines: true, trim: true }) as Record<string, string>[];
  const required = ["Number", "Meta Analysis Name", "Conclusion", "References"];
  const missing = required.filter((c) => rows.length > 0 && !(c in rows[0]));
  if (missing.length > 0) throw new Error(`dataset "medmeta": ${path} lacks column(s) ${missing.join(", ")}`);
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const abstractsPath = opts.abstracts === false ? null : (opts.abstracts ?? (existsSync(medmetaGoldenPath()) ? medmetaGoldenPath() : null));
  if (opts.abstracts && !existsSync(opts.abstracts)) throw new Error(`dataset "medmeta": abstracts file ${opts.abstracts} does not exist (run \`${medsynthCommand()} datasets prepare medmeta\`)`);
  const abstracts = abstractsPath ? await readGoldenAbstracts(abstractsPath) : null;
  const noAbstracts: string[] = [];
  const partialAbstracts: string[] = [];
  const overlaps = rows.map((r) => titleConclusionOverlap(r["Meta Analysis Name"] ?? "", r["Conclusion"] ?? ""));
  const sorted = [...overlaps].sort((a, b) => a - b);
  const median = sorted.length ? (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2 : 0;
  const items: SynthesisTask[] = [];
  rows.forEach((r, i) => {
    const rowNo = r["Number"] || String(i + 1);
    const where = `${path} row ${rowNo}`;
    const flags: string[] = [];
    const all = parsePmidList(r["References"] ?? "");
    const unique = [...new Set(all)];
    if (unique.length < all.length) {
      const dups = [...new Set(all.filter((p, j) => all.indexOf(p) !== j))];
      flags.push("duplicate-reference-pmid");
      warnings.push(`${where}: duplicate reference PMID(s) ${dups.join(", ")} (kept once)`);
    }
    const declared = Number(r["Number of refs"]);
    if (Number.isFinite(declared) && r["Number of refs"] !== "" && declared !== unique.length) {
      flags.push("reference-count-mismatch");
      warnings.push(`${where}: "Number of refs" says ${declared} but References holds ${unique.length} unique PMID(s)`);
    }
    const overlap = overlaps[i];
    if (overlap < opts.minTitleConclusionOverlap) {
      flags.push("title-conclusion-mismatch");
      warnings.push(
        `${where}: conclusion does not match the title (title/conclusion content-word overlap ${overlap.toFixed(2)} < ${opts.minTitleConclusionOverlap}; dataset median ${median.toFixed(2)}); kept as is — check the source`,
      );
    }
    const candidate = {
      id: `medmeta:${rowNo}`,
      dataset: MEDMETA_DATASET,
      question: r["Meta Analysis Name"] ?? "",
      referenceConclusion: r["Conclusion"] || null,
      referenceAnswer: null,
      evidenceCertainty: null,
      goldenPmids: unique,
      goldenDocs: abstracts ? unique.flatMap((p) => abstracts.get(p) ?? []) : [],
      meta: {
        row: Number(rowNo),
        pmid: r["PMID"] || null,
        url: r["URL"] || null,
        date: parseLongDate(r["Date"] ?? "") ?? (r["Date"] || null),
        declaredRefs: Number.isFinite(declared) ? declared : null,
        titleConclusionOverlap: Math.round(overlap * 1000) / 1000,
        qualityFlags: flags.join(","),
        goldenAbstracts: abstracts ? unique.filter((p) => abstracts.has(p)).length : 0,
      },
    };
    if (abstracts && candidate.goldenDocs.length === 0) noAbstracts.push(rowNo);
    else if (abstracts && candidate.goldenDocs.length < unique.length) partialAbstracts.push(`row ${rowNo}: ${unique.filter((p) => !abstracts.has(p)).join(", ")}`);
    const v = validateItem(SynthesisTaskSchema, candidate);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${where}: ${v.reason}; skipped`);
      return;
    }
    if (opts.limit === undefined || items.length < opts.limit) items.push(v.value);
  });
  if (noAbstracts.length)
    warnings.push(
      `${abstractsPath}: no prepared golden abstract for row(s) ${noAbstracts.join(", ")} (Golden-/Negated-RAG skip them; run \`${medsynthCommand()} datasets prepare medmeta\` for every row)`,
    );
  if (partialAbstracts.length) warnings.push(`${abstractsPath}: included-study PMID(s) without a prepared abstract (PubMed did not return them or they have none): ${partialAbstracts.join("; ")}`);
  return { name: MEDMETA_DATASET, taskKind: "synthesis", items, warnings, skipped: skippedOf(skipped) };
}
