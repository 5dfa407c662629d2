/**
 * Cohen et al. 2006 drug-class systematic-review screening sets (via asreview) → qrels: one
 * {@link QrelsTopic} per review topic (query = the topic name from `index.csv`, e.g. "Urinary
 * Incontinence"; relevant = records with `label_included` 1), plus the records that have an
 * abstract as {@link CorpusDoc}s (id = PMID, unique across topics).
 *
 * Files: `cohen2006/<Topic>.csv` (record_id, pubmedID, title, authors, abstract, year,
 * label_included, label_abstract_screening), `cohen2006/<Topic>.json`, `cohen2006/index.csv`.
 * @see Cohen AM et al., JAMIA 2006, doi:10.1197/jamia.M1929.
 */
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { parse } from "csv-parse/sync";
import { CorpusDocSchema, type CorpusDoc } from "../types.ts";
import { QrelsTopicSchema, qrelsFromTopics, type QrelsTopic } from "../qrels.ts";
import { createSkipCounter, dataFolderPath, parseYear, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const COHEN2006_DATASET = "cohen2006";

/** Options of {@link loadCohen2006}. */
export const Cohen2006OptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Folder holding the topic CSVs and index.csv (default `<dataDir>/cohen2006`). */
    dir: z.string().optional(),
    /** Topic file stems to load (e.g. ["ADHD"]); default all CSVs except index.csv. */
    topics: z.array(z.string()).optional(),
    /** Relevance label: final inclusion (default) or title/abstract screening inclusion. */
    relevance: z.enum(["label_included", "label_abstract_screening"]).default("label_included"),
  })
  .strict();
/** Options of {@link loadCohen2006}. */
export type Cohen2006Options = z.input<typeof Cohen2006OptionsSchema>;

/**
 * Load the Cohen 2006 topics as qrels.
 *
 * Item (QrelsTopic): `id` "cohen2006:<Topic>", `query` = index.csv `topic` (falls back to the
 * file stem), `relevant` = PMIDs with the relevance label 1, `judged` = all PMIDs of the topic,
 * `meta` = {records, withAbstract, included, abstractScreeningIncluded, datasetId}.
 * Result: `docs` = records with a non-empty abstract, deduplicated by PMID (first topic wins,
 * `source` "cohen2006:<Topic>"); `qrels` = topic id → PMID → 1.
 * A record without a numeric PMID is skipped and counted.
 * @throws Error naming the folder/file when missing or when a CSV lacks a required column.
 */
export async function loadCohen2006(options: Cohen2006Options = {}): Promise<LoadedDataset<QrelsTopic>> {
  const opts = Cohen2006OptionsSchema.parse(options);
  const dir = opts.dir ?? (await dataFolderPath(opts.dataDir, "cohen2006"));
  const indexRows = parse(readDataFile(join(dir, "index.csv"), COHEN2006_DATASET), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const topicNames = new Map(indexRows.map((r) => [r.dataset_id, r.topic]));
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".csv") && f !== "index.csv")
      .sort();
  } catch {
    throw new Error(`dataset "cohen2006": cannot read folder ${dir}`);
  }
  const stems = files.map((f) => basename(f, ".csv"));
  if (opts.topics) {
    const unknown = opts.topics.filter((t) => !stems.includes(t));
    if (unknown.length) throw new Error(`dataset "cohen2006": unknown topic(s) ${unknown.join(", ")}; valid: ${stems.join(", ")}`);
  }
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: QrelsTopic[] = [];
  const docs = new Map<string, CorpusDoc>();
  for (const stem of stems) {
    if (opts.topics && !opts.topics.includes(stem)) continue;
    const file = join(dir, `${stem}.csv`);
    const rows = parse(readDataFile(file, COHEN2006_DATASET), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    const missing = ["pubmedID", "title", "abstract", opts.relevance].filter((c) => rows.length > 0 && !(c in rows[0]));
    if (missing.length) throw new Error(`dataset "cohen2006": ${file} lacks column(s) ${missing.join(", ")}`);
    const relevant: string[] = [];
    const judged: string[] = [];
    let withAbstract = 0;
    let screening = 0;
    let included = 0;
    rows.forEach((r, i) => {
      const pmid = (r.pubmedID ?? "").trim();
      if (!/^\d+$/.test(pmid)) {
        skipped.add("missing or non-numeric pubmedID");
        warnings.push(`${file} row ${i + 2}: missing or non-numeric pubmedID "${pmid}"; skipped`);
        return;
      }
      judged.push(pmid);
      if (r.label_included === "1") included += 1;
      if (r.label_abstract_screening === "1") screening += 1;
      if (r[opts.relevance] === "1") relevant.push(pmid);
      const abstract = (r.abstract ?? "").trim();
      if (!abstract) return;
      withAbstract += 1;
      if (docs.has(pmid)) return;
      const v = validateItem(CorpusDocSchema, { id: pmid, title: (r.title ?? "").trim(), text: abstract, year: parseYear(r.year), source: `${COHEN2006_DATASET}:${stem}` });
      if (v.ok) docs.set(pmid, v.value);
    });
    const datasetId = `Cohen_2006_${stem}`;
    const topic = {
      id: `${COHEN2006_DATASET}:${stem}`,
      dataset: COHEN2006_DATASET,
      query: topicNames.get(datasetId) ?? stem,
      relevant,
      judged,
      meta: { records: rows.length, withAbstract, included, abstractScreeningIncluded: screening, datasetId },
    };
    if (!topicNames.has(datasetId)) warnings.push(`${file}: topic ${datasetId} not in index.csv; query = file name "${stem}"`);
    const v = validateItem(QrelsTopicSchema, topic);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${file}: ${v.reason}; topic skipped`);
      continue;
    }
    items.push(v.value);
  }
  return {
    name: COHEN2006_DATASET,
    taskKind: "qrels",
    items,
    warnings,
    skipped: skippedOf(skipped),
    docs: [...docs.values()],
    qrels: qrelsFromTopics(items),
  };
}
