/**
 * MS² sample loader (DeYoung et al. 2021, one systematic review and its 20 included studies) →
 * one {@link SynthesisTask}: question = review title, reference = the abstract's CONCLUSIONS
 * part, background = its BACKGROUND/OBJECTIVE part, golden docs = included studies' title +
 * abstract. Tokenised, PICO-tagged text is made readable with {@link cleanMslrText}.
 *
 * File: `mslr/ms2-sample.json`.
 */
import { z } from "zod";
import { SynthesisTaskSchema, type CorpusDoc, type SynthesisTask } from "../types.ts";
import { cleanMslrText, stripSectionHeadings } from "../text-cleanup.ts";
import { createSkipCounter, dataFilePath, parseYear, readJsonFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const MS2_DATASET = "ms2";

/** Options of {@link loadMs2}. */
export const Ms2OptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of an MS² review JSON object, or an array of them (default `<dataDir>/mslr/ms2-sample.json`). */
    path: z.string().optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadMs2}. */
export type Ms2Options = z.input<typeof Ms2OptionsSchema>;

interface Ms2Ref {
  pmid?: unknown;
  title?: unknown;
  abstract?: unknown;
  metadata?: { YEAR?: unknown };
}
interface Ms2Review {
  docid?: unknown;
  pmid?: unknown;
  title?: unknown;
  abstract?: unknown;
  structured_abstract?: unknown;
  included_studies?: { pmid?: unknown; references?: Ms2Ref[] }[];
}

/** Structured-abstract sentence labels of MS² that make up the background (not results or conclusions). */
const BACKGROUND_LABELS = new Set(["BACKGROUND", "GOAL"]);

/**
 * Split a cleaned review abstract at its CONCLUSION(S) heading.
 * @returns `{before, conclusion}`; `conclusion` null when there is no such heading.
 */
export function splitAtConclusions(abstract: string): { before: string; conclusion: string | null } {
  const m = /(?:^|[.!?]\s+)(?:AUTHORS['’] )?CONCLUSIONS?\s*:?\s+/.exec(abstract);
  if (!m) return { before: abstract, conclusion: null };
  const cut = m.index + (m[0].match(/^[.!?]/) ? 1 : 0);
  return { before: abstract.slice(0, cut).trim(), conclusion: abstract.slice(m.index + m[0].length).trim() };
}

/**
 * Load the MS² sample as SynthesisTasks (one per review).
 *
 * Item: `id` "ms2:<docid>", `question` = cleaned title, `referenceConclusion` = cleaned text
 * after the CONCLUSIONS heading of the review abstract, `background` = cleaned BACKGROUND/GOAL
 * sentences (headings removed), `goldenPmids` = included studies' PMIDs, `goldenDocs` = their
 * cleaned title + abstract (`source` "ms2"), `meta` = {review_pmid, included_studies}.
 * A review without a conclusion heading is skipped and counted.
 * @throws Error naming the file when it is missing or not JSON.
 */
export async function loadMs2(options: Ms2Options = {}): Promise<LoadedDataset<SynthesisTask>> {
  const opts = Ms2OptionsSchema.parse(options);
  const path = opts.path ?? (await dataFilePath(opts.dataDir, "mslr/ms2-sample.json"));
  const raw = readJsonFile(path, MS2_DATASET);
  const reviews = (Array.isArray(raw) ? raw : [raw]) as Ms2Review[];
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: SynthesisTask[] = [];
  for (const review of reviews) {
    const docid = String(review.docid ?? "");
    const where = `${path} review ${docid || "(no docid)"}`;
    const abstract = cleanMslrText(typeof review.abstract === "string" ? review.abstract : "");
    const { conclusion } = splitAtConclusions(abstract);
    if (!conclusion) {
      skipped.add("no CONCLUSIONS heading in review abstract");
      warnings.push(`${where}: no CONCLUSIONS heading in the abstract; skipped`);
      continue;
    }
    const structured = Array.isArray(review.structured_abstract) ? (review.structured_abstract as unknown[][]) : [];
    const background = stripSectionHeadings(
      cleanMslrText(
        structured
          .filter((s) => Array.isArray(s) && BACKGROUND_LABELS.has(String(s[0])))
          .map((s) => String(s[1]))
          .join(" "),
      ),
    );
    const goldenPmids: string[] = [];
    const goldenDocs: CorpusDoc[] = [];
    for (const study of review.included_studies ?? []) {
      const ref = study.references?.[0];
      const pmid = String(study.pmid ?? ref?.pmid ?? "");
      if (!pmid) {
        warnings.push(`${where}: an included study has no PMID; left out`);
        continue;
      }
      goldenPmids.push(pmid);
      const text = typeof ref?.abstract === "string" ? cleanMslrText(ref.abstract) : "";
      if (!text) {
        warnings.push(`${where}: included study ${pmid} has no abstract; PMID kept, no golden doc`);
        continue;
      }
      goldenDocs.push({
        id: pmid,
        title: typeof ref?.title === "string" ? cleanMslrText(ref.title) : "",
        text,
        year: parseYear(ref?.metadata?.YEAR),
        source: MS2_DATASET,
      });
    }
    const candidate = {
      id: `ms2:${docid}`,
      dataset: MS2_DATASET,
      question: cleanMslrText(typeof review.title === "string" ? review.title : ""),
      referenceConclusion: conclusion,
      referenceAnswer: null,
      evidenceCertainty: null,
      goldenPmids: [...new Set(goldenPmids)],
      goldenDocs,
      background: background || null,
      meta: { review_pmid: review.pmid === undefined || review.pmid === null ? null : String(review.pmid), included_studies: goldenPmids.length },
    };
    const v = validateItem(SynthesisTaskSchema, candidate);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${where}: ${v.reason}; skipped`);
      continue;
    }
    items.push(v.value);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  return { name: MS2_DATASET, taskKind: "synthesis", items, warnings, skipped: skippedOf(skipped) };
}
