/**
 * PubMedQA PQA-L loader (Jin et al. 2019; 1,000 expert-labelled items) → MedConclusion-style
 * {@link ConclusionTask}s: input = the abstract's labelled non-conclusion sections (CONTEXTS +
 * LABELS), reference = LONG_ANSWER (the abstract's conclusion).
 *
 * Files: `pubmedqa/ori_pqal.json` (PMID → record) and `pubmedqa/test_ground_truth.json` (the
 * official 500-item test split, PMID → yes/no/maybe).
 * @see ../../../shared/seeds/000_* (MedConclusion §3) for the task definition.
 */
import { z } from "zod";
import { ConclusionTaskSchema, type ConclusionTask, type CorpusDoc } from "../types.ts";
import { createSkipCounter, dataFilePath, parseYear, readJsonFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const PUBMEDQA_DATASET = "pubmedqa";

/** Options of {@link loadPubmedqa}. */
export const PubmedqaOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of ori_pqal.json (default `<dataDir>/pubmedqa/ori_pqal.json`). */
    path: z.string().optional(),
    /** Path of the official test split (default `<dataDir>/pubmedqa/test_ground_truth.json`). */
    testSplitPath: z.string().optional(),
    /** Keep only the official test split ("test"), only the rest ("train-dev"), or all. */
    split: z.enum(["all", "test", "train-dev"]).default("all"),
    /** Keep at most this many items (after the split filter). */
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadPubmedqa}. */
export type PubmedqaOptions = z.input<typeof PubmedqaOptionsSchema>;

interface RawPqaItem {
  QUESTION?: unknown;
  CONTEXTS?: unknown;
  LABELS?: unknown;
  MESHES?: unknown;
  YEAR?: unknown;
  final_decision?: unknown;
  LONG_ANSWER?: unknown;
}

/**
 * Load PubMedQA PQA-L as ConclusionTasks.
 *
 * Item: `id` "pubmedqa:<PMID>", `pmid`, `title` null (the file holds no article title),
 * `sections` = CONTEXTS labelled by LABELS (`nlmCategory` null: PubMedQA keeps only author
 * labels), `referenceConclusion` = LONG_ANSWER, `year` from YEAR (null for the 58 items without),
 * `meshHeadings` = MESHES, `meta` = {question, final_decision, split: "test" | "train-dev"}.
 * Items come in ascending numeric PMID order (JavaScript enumerates integer-like JSON keys
 * numerically, so the file's own order is not observable); `limit` takes the first ones.
 * A record with missing/mismatched CONTEXTS and LABELS or an empty LONG_ANSWER is skipped and counted.
 * @throws Error naming the file when a file is missing or not JSON / not an object.
 */
export async function loadPubmedqa(options: PubmedqaOptions = {}): Promise<LoadedDataset<ConclusionTask>> {
  const opts = PubmedqaOptionsSchema.parse(options);
  const path = opts.path ?? (await dataFilePath(opts.dataDir, "pubmedqa/ori_pqal.json"));
  const testPath = opts.testSplitPath ?? (await dataFilePath(opts.dataDir, "pubmedqa/test_ground_truth.json"));
  const raw = readJsonFile(path, PUBMEDQA_DATASET);
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`dataset "pubmedqa": ${path} must hold an object PMID → record`);
  const testRaw = readJsonFile(testPath, PUBMEDQA_DATASET);
  const testIds = new Set(testRaw && typeof testRaw === "object" ? Object.keys(testRaw) : []);
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: ConclusionTask[] = [];
  for (const [pmid, value] of Object.entries(raw as Record<string, RawPqaItem>)) {
    const split = testIds.has(pmid) ? "test" : "train-dev";
    if (opts.split !== "all" && opts.split !== split) continue;
    const contexts = value?.CONTEXTS;
    const labels = value?.LABELS;
    if (!Array.isArray(contexts) || !Array.isArray(labels) || contexts.length !== labels.length || contexts.length === 0) {
      skipped.add("CONTEXTS/LABELS missing or of different lengths");
      warnings.push(`${path} PMID ${pmid}: CONTEXTS/LABELS missing or of different lengths; skipped`);
      continue;
    }
    const candidate = {
      id: `pubmedqa:${pmid}`,
      dataset: PUBMEDQA_DATASET,
      pmid,
      title: null,
      sections: contexts.map((text, i) => ({ label: String(labels[i] ?? "") || null, nlmCategory: null, text: String(text) })),
      referenceConclusion: typeof value.LONG_ANSWER === "string" ? value.LONG_ANSWER.trim() : "",
      year: parseYear(value.YEAR),
      meshHeadings: Array.isArray(value.MESHES) ? value.MESHES.map(String) : [],
      meta: {
        question: typeof value.QUESTION === "string" ? value.QUESTION : null,
        final_decision: typeof value.final_decision === "string" ? value.final_decision : null,
        split,
      },
    };
    const v = validateItem(ConclusionTaskSchema, candidate);
    if (!v.ok) {
      skipped.add(`invalid ${v.reason.split(":")[0]}`);
      warnings.push(`${path} PMID ${pmid}: ${v.reason}; skipped`);
      continue;
    }
    items.push(v.value);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  return { name: PUBMEDQA_DATASET, taskKind: "conclusion", items, warnings, skipped: skippedOf(skipped) };
}

/**
 * A PubMedQA item as a retrieval document: `id` = PMID; `title` = the PubMedQA QUESTION (the
 * dataset has no article title; its questions were written from the titles, so this is the
 * closest honest stand-in — documented, not a real title); `text` = "LABEL: text" sections
 * joined by newlines, followed by "CONCLUSIONS: <LONG_ANSWER>" when `includeConclusion`.
 */
export function pubmedqaTaskToDoc(task: ConclusionTask, includeConclusion = true): CorpusDoc {
  const parts = task.sections.map((s) => (s.label ? `${s.label}: ${s.text}` : s.text));
  if (includeConclusion) parts.push(`CONCLUSIONS: ${task.referenceConclusion}`);
  const question = task.meta?.question;
  return {
    id: task.pmid ?? task.id,
    title: typeof question === "string" ? question : "",
    text: parts.join("\n"),
    year: task.year ?? null,
    source: PUBMEDQA_DATASET,
  };
}
