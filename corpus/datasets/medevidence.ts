/**
 * MedEvidence loader (284 questions from 100 Cochrane reviews over 329 unique study abstracts)
 * → {@link SynthesisTask}s with a categorical answer, GRADE certainty and golden abstracts.
 *
 * File: `medevidence/med-evidence-abstract.jsonl`, one question per line. Also returns the
 * deduplicated source abstracts as `docs` and `qrels` (task id → relevant_sources).
 */
import { z } from "zod";
import { EVIDENCE_ANSWERS, SynthesisTaskSchema, type CorpusDoc, type SynthesisTask } from "../types.ts";
import { buildSynthesisQrels } from "../qrels.ts";
import { createSkipCounter, dataFilePath, parseYear, readDataFile, skippedOf, validateItem, type LoadedDataset } from "./loaded-dataset.ts";

/** Registry name of this dataset. */
export const MEDEVIDENCE_DATASET = "medevidence";

/** Options of {@link loadMedEvidence}. */
export const MedEvidenceOptionsSchema = z
  .object({
    /** A folder laid out like the dataset registry (e.g. a mirror); default: the registry's verified copies, pulled on first use. */
    dataDir: z.string().optional(),
    /** Path of the JSONL file (default `<dataDir>/medevidence/med-evidence-abstract.jsonl`). */
    path: z.string().optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
/** Options of {@link loadMedEvidence}. */
export type MedEvidenceOptions = z.input<typeof MedEvidenceOptionsSchema>;

interface RawSource {
  article_id?: unknown;
  title?: unknown;
  content?: unknown;
  date?: unknown;
}

/** A MedEvidence source abstract as a CorpusDoc (`id` = PMID, `source` "medevidence"). */
export function medEvidenceSourceToDoc(pmid: string, s: RawSource): CorpusDoc {
  return {
    id: pmid,
    title: typeof s.title === "string" ? s.title.trim() : "",
    text: typeof s.content === "string" ? s.content.trim() : "",
    year: parseYear(s.date),
    source: MEDEVIDENCE_DATASET,
  };
}

/**
 * Load MedEvidence as SynthesisTasks.
 *
 * Item: `id` "medevidence:<question_id>", `question`, `referenceConclusion` null,
 * `referenceAnswer` = answer (one of {@link EVIDENCE_ANSWERS}), `evidenceCertainty` = GRADE
 * level ("high" | "moderate" | "low" | "very low"; null where the file has ""),
 * `goldenPmids` = relevant_sources (a repeated PMID kept once, with a warning), `goldenDocs` = their abstracts from `sources`, `meta` =
 * {medical_specialty, review_year, source_concordance, original_review, fulltext_required}.
 * Result also carries `docs` (unique source abstracts by PMID) and `qrels`.
 * A line that is not JSON or fails the schema is skipped and counted, with a warning "file:line".
 * @throws Error naming the file when it is missing.
 */
export async function loadMedEvidence(options: MedEvidenceOptions = {}): Promise<LoadedDataset<SynthesisTask>> {
  const opts = MedEvidenceOptionsSchema.parse(options);
  const path = opts.path ?? (await dataFilePath(opts.dataDir, "medevidence/med-evidence-abstract.jsonl"));
  const lines = readDataFile(path, MEDEVIDENCE_DATASET).split("\n");
  const skipped = createSkipCounter();
  const warnings: string[] = [];
  const items: SynthesisTask[] = [];
  const docs = new Map<string, CorpusDoc>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const where = `${path}:${i + 1}`;
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skipped.add("invalid JSON");
      warnings.push(`${where}: invalid JSON; skipped`);
      continue;
    }
    const sources = (raw.sources && typeof raw.sources === "object" ? raw.sources : {}) as Record<string, RawSource>;
    const listed = Array.isArray(raw.relevant_sources) ? raw.relevant_sources.map(String) : [];
    const relevant = [...new Set(listed)];
    if (relevant.length < listed.length) {
      const dups = [...new Set(listed.filter((p, j) => listed.indexOf(p) !== j))];
      warnings.push(`${where}: relevant_sources lists PMID(s) ${dups.join(", ")} more than once (kept once)`);
    }
    const goldenDocs: CorpusDoc[] = [];
    for (const pmid of relevant) {
      const s = sources[pmid];
      if (!s) {
        warnings.push(`${where}: relevant source ${pmid} has no abstract in "sources"`);
        continue;
      }
      goldenDocs.push(medEvidenceSourceToDoc(pmid, s));
    }
    const answer = typeof raw.answer === "string" ? raw.answer.trim().toLowerCase() : null;
    const certainty = typeof raw.evidence_certainty === "string" && raw.evidence_certainty.trim() ? raw.evidence_certainty.trim() : null;
    const candidate = {
      id: `medevidence:${String(raw.question_id)}`,
      dataset: MEDEVIDENCE_DATASET,
      question: typeof raw.question === "string" ? raw.question : "",
      referenceConclusion: null,
      referenceAnswer: answer,
      evidenceCertainty: certainty,
      goldenPmids: relevant,
      goldenDocs,
      meta: {
        medical_specialty: typeof raw.medical_specialty === "string" ? raw.medical_specialty : null,
        review_year: typeof raw.review_year === "number" ? raw.review_year : parseYear(raw.review_year),
        source_concordance: typeof raw.source_concordance === "number" ? raw.source_concordance : null,
        original_review: raw.original_review === undefined || raw.original_review === null ? null : String(raw.original_review),
        fulltext_required: typeof raw.fulltext_required === "string" ? raw.fulltext_required : null,
      },
    };
    const v = validateItem(SynthesisTaskSchema, candidate);
    if (raw.question_id === undefined || !v.ok) {
      const reason = raw.question_id === undefined ? "question_id: missing" : (v as { reason: string }).reason;
      skipped.add(`invalid ${reason.split(":")[0]}`);
      warnings.push(`${where}: ${reason}; skipped`);
      continue;
    }
    for (const [pmid, s] of Object.entries(sources)) if (!docs.has(pmid)) docs.set(pmid, medEvidenceSourceToDoc(pmid, s));
    items.push(v.value);
    if (opts.limit !== undefined && items.length >= opts.limit) break;
  }
  return {
    name: MEDEVIDENCE_DATASET,
    taskKind: "synthesis",
    items,
    warnings,
    skipped: skippedOf(skipped),
    docs: [...docs.values()],
    qrels: buildSynthesisQrels(items),
  };
}

/** The categorical answers MedEvidence uses (re-exported for convenience). */
export const MEDEVIDENCE_ANSWERS = EVIDENCE_ANSWERS;
