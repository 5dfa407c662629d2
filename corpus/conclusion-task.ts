/**
 * Task views of a parsed PubMed record: the MedConclusion task and a retrieval-corpus document.
 *
 * @see MedConclusion §3.2 (input x = the abstract's remaining sections, reference y* = its
 *   conclusion).
 */
import type { ConclusionTask, CorpusDoc, PubmedRecord } from "./types.ts";
import { ConclusionTaskSchema, CorpusDocSchema } from "./types.ts";
import { isConclusionSegment } from "./conclusion-labels.ts";

/** Year of an ISO date "YYYY[-MM[-DD]]", or null. */
export function yearOf(pubDate: string | null): number | null {
  if (!pubDate) return null;
  const y = Number(pubDate.slice(0, 4));
  return Number.isInteger(y) && y > 0 ? y : null;
}

/**
 * Build the MedConclusion task of a record: every non-conclusion segment (in order) is input, and
 * the conclusion segments' texts (joined by one space, in order) are the reference. Conclusion
 * segments are recognised by {@link isConclusionSegment}.
 * @param record - a parsed (ideally cleaned) record.
 * @param dataset - dataset name stored on the task; the task id is `${dataset}:${pmid}`.
 * @returns a zod-validated {@link ConclusionTask} with `meta` {doi, language, pubDate}.
 * @throws Error naming the PMID when the record has no conclusion segment or no other segment.
 */
export function recordToConclusionTask(record: PubmedRecord, dataset: string): ConclusionTask {
  const sections = record.abstract.filter((s) => !isConclusionSegment(s));
  const conclusions = record.abstract.filter(isConclusionSegment);
  if (conclusions.length === 0) throw new Error(`PMID ${record.pmid}: no conclusion segment in the abstract (labels: ${record.abstract.map((s) => s.label ?? "∅").join(", ") || "none"})`);
  if (sections.length === 0) throw new Error(`PMID ${record.pmid}: the abstract has only conclusion segments`);
  return ConclusionTaskSchema.parse({
    id: `${dataset}:${record.pmid}`,
    dataset,
    pmid: record.pmid,
    title: record.title || null,
    sections: sections.map((s) => ({ ...s })),
    referenceConclusion: conclusions.map((s) => s.text).join(" "),
    journal: { ...record.journal },
    year: yearOf(record.pubDate),
    meshHeadings: [...record.meshHeadings],
    meta: { doi: record.doi, language: record.languages.join(",") || null, pubDate: record.pubDate },
  });
}

/**
 * Build a retrieval-corpus document of a record: id = PMID, text = segments joined by "\n", a
 * labelled segment written "LABEL: text"; `retraction` = "retracted" for a retracted paper,
 * "notice" for a retraction notice, absent otherwise.
 * @param record - a parsed record.
 * @returns a zod-validated {@link CorpusDoc} (`source: "pubmed"`).
 */
export function recordToCorpusDoc(record: PubmedRecord): CorpusDoc {
  return CorpusDocSchema.parse({
    id: record.pmid,
    title: record.title,
    text: record.abstract.map((s) => (s.label ? `${s.label}: ${s.text}` : s.text)).join("\n"),
    year: yearOf(record.pubDate),
    source: "pubmed",
    ...(record.flags.retracted ? { retraction: "retracted" } : record.flags.retractionNotice === true ? { retraction: "notice" } : {}),
  });
}
