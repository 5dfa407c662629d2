/**
 * MSLR2022 (MS² subtask) test-summary loader → {@link SynthesisTask}s: background = the
 * review's preface, reference = its target conclusion, golden docs = the included studies'
 * title + abstract. Text is de-tokenised and PICO tags removed ({@link cleanMslrText}).
 *
 * File: a JSONL in the MSLR2022 format (per line: docid, preface, target, references[] with
 * title_abstract). medsynth ships and registers none: the MSLR2022 data come as one archive from
 * AI2, not from a repository at a pinned commit, so pass `path` (or a `dataDir` holding
 * `mslr/mslr-test-summaries.jsonl`). MSLR gives no review title and identifies
 * studies by Semantic Scholar id only, so: `question` = the preface's OBJECTIVE/PURPOSE sentence
 * when it has one, else the whole preface; `goldenPmids` = [] and golden doc ids are "s2:<s2id>".
 */
import { resolve } from "node:path";
import { z } from "zod";
import { SynthesisTaskSchema, type CorpusDoc, type SynthesisTask } from "../types.ts";
import { cleanMslrText, splitTitleAbstract, stripSectionHeadings } from "../text-cleanup.ts";
import { createSkipCounter, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const MSLR_DATASET = "mslr";

/** Options of {@link loadMslr}. */
export const MslrOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of the JSONL file (required unless `dataDir` is given: then `<dataDir>/mslr/mslr-test-summaries.jsonl`). */
    path: z.string().optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadMslr}. */
export type MslrOptions = z.input<typeof MslrOptionsSchema>;

/**
 * The objective of a review from its cleaned preface: the text after an OBJECTIVE(S)/PURPOSE/AIM
 * heading up to the end of that sentence; null when there is no such heading.
 */
export function objectiveFromPreface(preface: string): string | null {
  const m = /(?:^|[.!?]\s+)(?:OBJECTIVES?|PURPOSE|AIMS?)\s*:?\s+(.+?[.!?])(?=\s|$)/.exec(preface);
  return m ? m[1].trim() : null;
}

/**
 * Load MSLR test summaries as SynthesisTasks.
 *
 * Item: `id` "mslr:<docid>", `question` (see module doc), `referenceConclusion` = cleaned target
 * with section headings removed, `background` = cleaned preface (headings removed),
 * `goldenPmids` [], `goldenDocs` = references (id "s2:<s2id>", `source` "mslr"), `meta` =
 * {docid, references}. Malformed lines are skipped and counted with "file:line" warnings.
 * @throws Error naming the file when it is missing; Error when neither `path` nor `dataDir` is given.
 */
export async function loadMslr(options: MslrOptions = {}): Promise<LoadedDataset<SynthesisTask>> {
  const opts = MslrOptionsSchema.parse(options);
  if (!opts.path && !opts.dataDir) {
    throw new Error(
      `dataset "${MSLR_DATASET}": medsynth ships no MSLR2022 file (the data are an AI2 archive, not a pinned repository file); pass {path: "<file.jsonl>"} (datasets show mslr --path <file.jsonl>)`,
    );
  }
  const path = opts.path ?? resolve(opts.dataDir as string, "mslr/mslr-test-summaries.jsonl");
  const lines = readDataFile(path, MSLR_DATASET).split("\n");
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: SynthesisTask[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const where = `${path}:${i + 1}`;
    let raw: { docid?: unknown; preface?: unknown; target?: unknown; references?: unknown };
    try {
      raw = JSON.parse(line);
    } catch {
      skipped.add("invalid JSON");
      warnings.push(`${where}: invalid JSON; skipped`);
      continue;
    }
    const preface = stripSectionHeadings(cleanMslrText(typeof raw.preface === "string" ? raw.preface : ""));
    const refs = Array.isArray(raw.references) ? (raw.references as { title_abstract?: unknown; s2id?: unknown }[]) : [];
    const goldenDocs: CorpusDoc[] = [];
    refs.forEach((r, j) => {
      if (typeof r?.title_abstract !== "string" || r.s2id === undefined || r.s2id === null) {
        warnings.push(`${where}: reference ${j} lacks title_abstract or s2id; left out`);
        return;
      }
      const { title, abstract } = splitTitleAbstract(r.title_abstract);
      goldenDocs.push({ id: `s2:${String(r.s2id)}`, title, text: abstract, year: null, source: MSLR_DATASET });
    });
    const rawPreface = cleanMslrText(typeof raw.preface === "string" ? raw.preface : "");
    const candidate = {
      id: `mslr:${String(raw.docid ?? "")}`,
      dataset: MSLR_DATASET,
      question: objectiveFromPreface(rawPreface) ?? preface,
      referenceConclusion: stripSectionHeadings(cleanMslrText(typeof raw.target === "string" ? raw.target : "")) || null,
      referenceAnswer: null,
      evidenceCertainty: null,
      goldenPmids: [],
      goldenDocs,
      background: preface || null,
      meta: { docid: raw.docid === undefined ? null : String(raw.docid), references: goldenDocs.length },
    };
    const v = validateItem(SynthesisTaskSchema, candidate);
    if (raw.docid === undefined || !v.ok) {
      const reason = raw.docid === undefined ? "docid: missing" : (v as { reason: string }).reason;
      skipped.add(`invalid ${reason.split(":")[0]}`);
      warnings.push(`${where}: ${reason}; skipped`);
      continue;
    }
    items.push(v.value);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  return { name: MSLR_DATASET, taskKind: "synthesis", items, warnings, skipped: skippedOf(skipped) };
}
