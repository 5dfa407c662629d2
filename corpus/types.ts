/**
 * Shared record and task types of the corpus layer. Every other layer reads these.
 *
 * Shapes follow the PubMed DTD (2025) for records and the three benchmark papers for tasks:
 * MedConclusion §3 (ConclusionTask), MedMeta §3 / MedEvidence / MS² (SynthesisTask),
 * RWESummary §2 (RweStudy).
 */
import { z } from "zod";

/** One segment of an abstract: a labelled section (`AbstractText` element). */
export const AbstractSegmentSchema = z
  .object({
    /** Author-given label, e.g. "RESULTS"; null for an unstructured abstract. */
    label: z.string().nullable(),
    /** NLM category: BACKGROUND | OBJECTIVE | METHODS | RESULTS | CONCLUSIONS | UNASSIGNED, or null. */
    nlmCategory: z.string().nullable(),
    /** Plain text, inline markup flattened, entities decoded. */
    text: z.string(),
  })
  .strict();
/** {@link AbstractSegmentSchema} after parsing (defaults applied). */
export type AbstractSegment = z.infer<typeof AbstractSegmentSchema>;

/** Journal of a record. */
export const JournalSchema = z
  .object({
    title: z.string().nullable(),
    isoAbbreviation: z.string().nullable(),
    issn: z.string().nullable(),
    nlmUniqueId: z.string().nullable(),
  })
  .strict();
/** {@link JournalSchema} after parsing (defaults applied). */
export type Journal = z.infer<typeof JournalSchema>;

/**
 * One author of a record's `AuthorList` (authors marked `ValidYN="N"` are left out).
 * A person has `lastName` (and usually `foreName`/`initials`); a group author has
 * `collectiveName` and null name parts: a group is an author, not an empty one.
 */
export const AuthorSchema = z
  .object({
    lastName: z.string().nullable(),
    foreName: z.string().nullable(),
    initials: z.string().nullable(),
    /** Name of a group author (`CollectiveName`), inline markup flattened. */
    collectiveName: z.string().nullable(),
    /** `AffiliationInfo/Affiliation` texts (and a bare `Affiliation`), in order. */
    affiliations: z.array(z.string()),
    /** ORCID iD as `0000-0000-0000-000X` (from `Identifier Source="ORCID"`, URL prefix removed), or null. */
    orcid: z.string().nullable(),
  })
  .strict();
/** {@link AuthorSchema} after parsing. */
export type Author = z.infer<typeof AuthorSchema>;

/** One PubMed/MEDLINE citation, as parsed from efetch or baseline XML. */
export const PubmedRecordSchema = z
  .object({
    pmid: z.string().regex(/^\d+$/),
    version: z.string().default("1"),
    doi: z.string().nullable(),
    title: z.string(),
    vernacularTitle: z.string().nullable(),
    journal: JournalSchema,
    /** ISO date: "YYYY", "YYYY-MM" or "YYYY-MM-DD" (season and MedlineDate forms normalised). */
    pubDate: z.string().nullable(),
    languages: z.array(z.string()),
    publicationTypes: z.array(z.string()),
    meshHeadings: z.array(z.string()),
    keywords: z.array(z.string()),
    abstract: z.array(AbstractSegmentSchema),
    otherAbstracts: z.array(z.object({ type: z.string().nullable(), language: z.string().nullable(), segments: z.array(AbstractSegmentSchema) }).strict()),
    flags: z
      .object({
        deleted: z.boolean(),
        /** The record has been retracted (`CommentsCorrections RefType="RetractionIn"` or publication type "Retracted Publication"). */
        retracted: z.boolean(),
        /** The record is a published erratum (publication type "Published Erratum"); not a retraction. */
        erratum: z.boolean(),
        /**
         * The record is a retraction notice (publication type "Retraction of Publication", or a
         * `CommentsCorrections RefType="RetractionOf"`). The parser sets it (true) on notices only
         * and leaves it out elsewhere, so other records keep the shape they had before it existed.
         */
        retractionNotice: z.boolean().optional(),
      })
      .strict(),
    /**
     * Fields below were added after the first corpus files were written: optional so those files
     * still validate (absent = not parsed, which differs from empty); the parser always sets them.
     */
    /** Authors in `AuthorList` order. */
    authors: z.array(AuthorSchema).optional(),
    /** The abstract's `CopyrightInformation` line (flattened), kept apart from the segments; null when absent. */
    copyright: z.string().nullable().optional(),
    /** PMIDs this record retracts (`CommentsCorrections RefType="RetractionOf"`), for a retraction notice. */
    retractionOf: z.array(z.string()).optional(),
    /** PMIDs of the notices retracting this record (`CommentsCorrections RefType="RetractionIn"`). */
    retractionIn: z.array(z.string()).optional(),
  })
  .strict();
/** {@link PubmedRecordSchema} after parsing (defaults applied). */
export type PubmedRecord = z.infer<typeof PubmedRecordSchema>;

/** A document of a retrieval corpus: one abstract, keyed by PMID (or another stable id). */
export const CorpusDocSchema = z
  .object({
    id: z.string().min(1),
    title: z.string(),
    /** Abstract as plain text (segments joined, labels kept as "LABEL: text"). */
    text: z.string(),
    year: z.number().int().nullable().optional(),
    source: z.string().optional(),
    /** Retraction status of the source record, when it has one: a retracted paper or a retraction notice. */
    retraction: z.enum(["retracted", "notice"]).optional(),
  })
  .strict();
/** {@link CorpusDocSchema} after parsing (defaults applied). */
export type CorpusDoc = z.infer<typeof CorpusDocSchema>;

/**
 * The mark shown before the title of a flagged document (`retrieval search`, workflow prompts):
 * "[RETRACTED] " for a retracted paper, "[RETRACTION NOTICE] " for a retraction notice, "" otherwise.
 * @param retraction - `CorpusDoc.retraction`.
 */
export function retractionTag(retraction: CorpusDoc["retraction"]): string {
  return retraction === "retracted" ? "[RETRACTED] " : retraction === "notice" ? "[RETRACTION NOTICE] " : "";
}

/** MedConclusion task: a structured abstract without its conclusion → reference conclusion. */
export const ConclusionTaskSchema = z
  .object({
    id: z.string(),
    dataset: z.string(),
    pmid: z.string().nullable(),
    title: z.string().nullable(),
    /** The abstract's non-conclusion segments, in order. */
    sections: z.array(AbstractSegmentSchema).min(1),
    referenceConclusion: z.string().min(1),
    journal: JournalSchema.nullable().optional(),
    year: z.number().int().nullable().optional(),
    meshHeadings: z.array(z.string()).optional(),
    /** Subgroup fields (journal category, SJR, specialty …). */
    meta: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .strict();
/** {@link ConclusionTaskSchema} after parsing (defaults applied). */
export type ConclusionTask = z.infer<typeof ConclusionTaskSchema>;

/** Categorical answers of MedEvidence (direction/certainty of effect). */
export const EVIDENCE_ANSWERS = ["higher", "lower", "no difference", "uncertain effect", "insufficient data"] as const;
/** One of {@link EVIDENCE_ANSWERS}. */
export type EvidenceAnswer = (typeof EVIDENCE_ANSWERS)[number];

/** MedMeta / MedEvidence / MS² synthesis task: question → conclusion from (golden) evidence. */
export const SynthesisTaskSchema = z
  .object({
    id: z.string(),
    dataset: z.string(),
    /** Meta-analysis title or clinical question. */
    question: z.string().min(1),
    referenceConclusion: z.string().nullable(),
    referenceAnswer: z.enum(EVIDENCE_ANSWERS).nullable(),
    evidenceCertainty: z.string().nullable(),
    /** Included studies' PMIDs (may be known without their abstracts). */
    goldenPmids: z.array(z.string()),
    /** Golden abstracts when known. */
    goldenDocs: z.array(CorpusDocSchema),
    background: z.string().nullable().optional(),
    meta: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .strict();
/** {@link SynthesisTaskSchema} after parsing (defaults applied). */
export type SynthesisTask = z.infer<typeof SynthesisTaskSchema>;

/** One effect estimate of an RWE study outcome (odds/hazard/risk ratio with CI and p). */
export const RweOutcomeSchema = z
  .object({
    name: z.string(),
    /** "OR" | "HR" | "RR" | "RD" | … */
    measure: z.string(),
    estimate: z.number(),
    ciLower: z.number().nullable(),
    ciUpper: z.number().nullable(),
    pValue: z.number().nullable(),
    /** Counts or rates per arm when reported. */
    exposedEvents: z.number().nullable().optional(),
    comparatorEvents: z.number().nullable().optional(),
    note: z.string().nullable().optional(),
  })
  .strict();
/** {@link RweOutcomeSchema} after parsing (defaults applied). */
export type RweOutcome = z.infer<typeof RweOutcomeSchema>;

/** RWESummary input: one structured real-world-evidence comparison. */
export const RweStudySchema = z
  .object({
    id: z.string(),
    dataset: z.string(),
    question: z.string(),
    /** "cohort" | "case series" | "cross-sectional". */
    design: z.enum(["cohort", "case series", "cross-sectional"]),
    picot: z
      .object({
        population: z.string(),
        intervention: z.string(),
        comparator: z.string().nullable(),
        outcomes: z.array(z.string()),
        time: z.string().nullable(),
      })
      .strict(),
    cohortSizes: z.object({ exposed: z.number().nullable(), comparator: z.number().nullable(), total: z.number().nullable().optional() }).strict(),
    propensityMatched: z.boolean(),
    baselineDifferences: z.array(z.object({ variable: z.string(), description: z.string() }).strict()),
    outcomes: z.array(RweOutcomeSchema).min(1),
    source: z.string().nullable().optional(),
  })
  .strict();
/** {@link RweStudySchema} after parsing (defaults applied). */
export type RweStudy = z.infer<typeof RweStudySchema>;

/** Any task the runner can schedule. */
export type Task = ({ kind: "conclusion" } & ConclusionTask) | ({ kind: "synthesis" } & SynthesisTask) | ({ kind: "rwe" } & RweStudy);
