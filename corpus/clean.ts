/**
 * Rule-based cleaning of parsed PubMed records, per MedConclusion §3.1.1.
 *
 * Steps, in order, each dropped record counted under one reason ({@link DropReason}):
 * 1. Deletions and versions, in stream order (PubMed's update semantics: files applied in order): a
 *    `deleted` entry (DeleteCitation) is an instruction, not a record (counted in
 *    {@link UpdateReport.deleteEntries}): it removes the PMID's record seen so far ("deleted", one
 *    per record removed) or, when the PMID has no record at that point, is a delete of an unknown
 *    PMID ({@link UpdateReport.deleteOfUnknown}, not a drop); a record with that PMID met later
 *    comes back (a re-issued PMID). Of several records with the same PMID only the latest version
 *    (highest `version`, later wins ties) is kept; the others are "superseded".
 * 2. Per-record rules: "retracted" (option, default on — an addition to §3.1.1: a retracted paper's
 *    conclusion is no reference), "retraction-notice" (option, default on: a notice is not a study),
 *    "not-english" (no "eng" in `languages`), "missing-core-fields"
 *    (empty title, journal title or publication year), "no-abstract", "unstructured" (no segment
 *    has a label), "malformed-labels" (a segment
 *    without a label, or a label with no letter, longer than {@link MAX_LABEL_LENGTH} characters,
 *    holding markup, or "UNLABELLED" — §3.1.1 "records with missing abstract labels are filtered out"),
 *    "too-few-segments" (< {@link MIN_SEGMENTS}), "no-conclusion" (no segment passes
 *    {@link isConclusionSegment}).
 * 3. Duplicates among the kept, first kept wins: "duplicate-doi" (case-insensitive DOI) and
 *    "duplicate-title" ({@link normalizeTitle}).
 * Keywords of kept records are cleaned (empty, longer than {@link MAX_KEYWORD_LENGTH}, non-ASCII
 * dropped, exact duplicates removed) and counted in `keywordsDropped`.
 * Before the per-record rules, an abstract whose segment list is its first half twice (a known
 * PubMed/Hugging Face artefact) is cut to that half ({@link repairDuplicatedSegments}), counted in
 * `duplicatedSegmentsRepaired`.
 *
 * The cleaner keeps every surviving input record in memory (a Map by PMID, whole records, before the
 * per-record rules run) until {@link RecordCleaner.finish}: memory grows with the number of distinct
 * PMIDs in the input — about the input size — not with the kept records. For corpora beyond memory
 * use the streaming ingest (`corpus/ingest/`), which applies the per-record rules while streaming,
 * keeps only small keys and resolves versions and duplicates over the store
 * (`corpus/ingest/rows.ts`, same counts).
 *
 * @see MedConclusion §3.1.1 (paper 000).
 */
import { z } from "zod";
import type { PubmedRecord } from "./types.ts";
import { isConclusionSegment } from "./conclusion-labels.ts";

/** Minimum abstract segments of a kept record (§3.1.1: "at least three abstract segments"). */
export const MIN_SEGMENTS = 3;
/** Longest keyword kept, in characters (§3.1.1 drops "overlong" keywords; our threshold). */
export const MAX_KEYWORD_LENGTH = 100;
/** Longest well-formed abstract label, in characters. */
export const MAX_LABEL_LENGTH = 80;

/** Reasons a record is dropped, in the order they are checked. */
export const DROP_REASONS = [
  "deleted",
  "superseded",
  "retracted",
  "retraction-notice",
  "not-english",
  "missing-core-fields",
  "no-abstract",
  "unstructured",
  "malformed-labels",
  "too-few-segments",
  "no-conclusion",
  "duplicate-doi",
  "duplicate-title",
] as const;
/** One of {@link DROP_REASONS}. */
export type DropReason = (typeof DROP_REASONS)[number];

/** Options of the cleaner (zod-checked; unknown keys rejected). */
export const CleanOptionsSchema = z
  .object({
    /** Drop records flagged retracted (default true; not in §3.1.1). */
    dropRetracted: z.boolean().default(true),
    /** Drop retraction notices (`flags.retractionNotice`; default true; not in §3.1.1). */
    dropRetractionNotices: z.boolean().default(true),
    /** Minimum number of abstract segments. */
    minSegments: z.number().int().min(1).default(MIN_SEGMENTS),
    /** Require at least one conclusion segment. */
    requireConclusion: z.boolean().default(true),
    /** Keep only records whose languages include this ISO 639-2 code; null keeps all. */
    language: z.string().nullable().default("eng"),
    maxKeywordLength: z.number().int().min(1).default(MAX_KEYWORD_LENGTH),
  })
  .strict();
/** What a caller may pass for {@link CleanOptionsSchema} (keys with defaults are optional). */
export type CleanOptions = z.input<typeof CleanOptionsSchema>;

/**
 * What PubMed's update semantics did to a stream of entries, PMIDs named (one list element per
 * event, in stream order). `kept + Σ dropped + deleteEntries = seen` for every resolver.
 */
export interface UpdateReport {
  /** DeleteCitation entries read. */
  deleteEntries: number;
  /** PMIDs whose record a DeleteCitation removed (= `dropped.deleted`). */
  deleted: string[];
  /** PMIDs of DeleteCitation entries that found no record of theirs (never seen, or already deleted). */
  deleteOfUnknown: string[];
  /** PMIDs of entries replaced by another entry of the same PMID (later file or higher Version; = `dropped.superseded`). */
  superseded: string[];
}

/** An empty {@link UpdateReport}. */
export function emptyUpdateReport(): UpdateReport {
  return { deleteEntries: 0, deleted: [], deleteOfUnknown: [], superseded: [] };
}

/** Result of cleaning. */
export interface CleanResult {
  /** Kept records, in first-seen order, keywords cleaned. */
  kept: PubmedRecord[];
  /** Dropped records per reason (every reason present, zero when none). */
  dropped: Record<DropReason, number>;
  /** Keywords removed from kept records, per reason. */
  keywordsDropped: { empty: number; overlong: number; nonAscii: number; duplicate: number };
  /** Records whose abstract was its first half twice and was cut to that half (before the rules ran). */
  duplicatedSegmentsRepaired: number;
  /** Entries seen (including deletion entries): `kept + Σ dropped + updates.deleteEntries`. */
  seen: number;
  /** What the update semantics did (deletes, deletes of unknown PMIDs, superseded entries), PMIDs named. */
  updates: UpdateReport;
}

/**
 * Repair an abstract whose segment list is its first half repeated (same labels and texts twice in
 * a row: [B, M, R, C, B, M, R, C] → [B, M, R, C]), a known PubMed/Hugging Face artefact.
 * @returns the segments (the first half when repaired, else the input) and whether it was repaired.
 */
export function repairDuplicatedSegments<T extends { label: string | null; text: string }>(segments: readonly T[]): { segments: T[]; repaired: boolean } {
  const n = segments.length;
  if (n < 2 || n % 2 !== 0) return { segments: [...segments], repaired: false };
  const half = n / 2;
  for (let i = 0; i < half; i++) {
    const a = segments[i];
    const b = segments[i + half];
    if (a.label !== b.label || a.text.trim() !== b.text.trim()) return { segments: [...segments], repaired: false };
  }
  return { segments: segments.slice(0, half), repaired: true };
}

/**
 * Normalise a title for duplicate detection: NFKD without diacritics, lower case, letters and
 * digits only (single spaces), trailing period ignored.
 */
export function normalizeTitle(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * Whether an abstract label is malformed: missing, no letter, too long, holding markup, or NLM's
 * placeholder "UNLABELLED" (an unlabelled paragraph inside a structured abstract).
 * @param label - the segment label.
 */
export function isMalformedLabel(label: string | null): boolean {
  if (label === null) return true;
  const t = label.trim();
  return t.length === 0 || t.length > MAX_LABEL_LENGTH || !/[A-Za-z]/.test(t) || /[<>]/.test(t) || /^unlabel+ed$/i.test(t);
}

/**
 * Clean a record's keywords (trim; drop empty, overlong, non-ASCII, duplicates).
 * @returns the kept keywords and the per-reason counts of the dropped ones.
 */
export function cleanKeywords(keywords: readonly string[], maxLength = MAX_KEYWORD_LENGTH): { keywords: string[]; dropped: CleanResult["keywordsDropped"] } {
  const dropped = { empty: 0, overlong: 0, nonAscii: 0, duplicate: 0 };
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of keywords) {
    const t = k.trim();
    if (t.length === 0) dropped.empty++;
    else if (t.length > maxLength) dropped.overlong++;
    else if (/[^\x20-\x7e]/.test(t)) dropped.nonAscii++;
    else if (seen.has(t)) dropped.duplicate++;
    else {
      seen.add(t);
      out.push(t);
    }
  }
  return { keywords: out, dropped };
}

/** Incremental cleaner: `add` records in stream order, then `finish`. */
export interface RecordCleaner {
  add(record: PubmedRecord): void;
  /** Apply the per-record rules and DOI/title de-duplication; returns the result. Call once. */
  finish(): CleanResult;
}

function versionNumber(v: string): number {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * The per-record rule a record fails, or null when it passes (step 2 of the module comment).
 * @param record - a parsed record.
 * @param options - parsed clean options.
 */
export function recordDropReason(record: PubmedRecord, options: z.output<typeof CleanOptionsSchema> = CleanOptionsSchema.parse({})): DropReason | null {
  if (options.dropRetracted && record.flags.retracted) return "retracted";
  if (options.dropRetractionNotices && record.flags.retractionNotice === true) return "retraction-notice";
  if (options.language !== null && !record.languages.includes(options.language)) return "not-english";
  if (record.title.trim().length === 0 || !record.journal.title || !record.pubDate) return "missing-core-fields";
  if (record.abstract.length === 0) return "no-abstract";
  if (record.abstract.every((s) => s.label === null)) return "unstructured";
  if (record.abstract.some((s) => isMalformedLabel(s.label))) return "malformed-labels";
  if (record.abstract.length < options.minSegments) return "too-few-segments";
  if (options.requireConclusion && !record.abstract.some(isConclusionSegment)) return "no-conclusion";
  return null;
}

/**
 * Create an incremental cleaner (see the module comment for the rules).
 * @param options - {@link CleanOptionsSchema}.
 * @throws ZodError on an unknown or ill-typed option.
 */
export function createRecordCleaner(options: CleanOptions = {}): RecordCleaner {
  const opts = CleanOptionsSchema.parse(options);
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const byPmid = new Map<string, PubmedRecord>();
  const updates = emptyUpdateReport();
  let seen = 0;
  let finished = false;
  return {
    add(record) {
      if (finished) throw new Error("RecordCleaner.add called after finish()");
      seen++;
      if (record.flags.deleted) {
        updates.deleteEntries++;
        if (byPmid.delete(record.pmid)) {
          dropped.deleted++;
          updates.deleted.push(record.pmid);
        } else updates.deleteOfUnknown.push(record.pmid);
        return;
      }
      const prev = byPmid.get(record.pmid);
      if (prev) {
        dropped.superseded++;
        updates.superseded.push(record.pmid);
        if (versionNumber(record.version) >= versionNumber(prev.version)) {
          byPmid.delete(record.pmid); // re-insert: keep latest version, in its own position
          byPmid.set(record.pmid, record);
        }
        return;
      }
      byPmid.set(record.pmid, record);
    },
    finish() {
      if (finished) throw new Error("RecordCleaner.finish called twice");
      finished = true;
      const kept: PubmedRecord[] = [];
      const dois = new Set<string>();
      const titles = new Set<string>();
      const keywordsDropped = { empty: 0, overlong: 0, nonAscii: 0, duplicate: 0 };
      let duplicatedSegmentsRepaired = 0;
      for (const original of byPmid.values()) {
        const fix = repairDuplicatedSegments(original.abstract);
        if (fix.repaired) duplicatedSegmentsRepaired++;
        const rec = fix.repaired ? { ...original, abstract: fix.segments } : original;
        const reason = recordDropReason(rec, opts);
        if (reason) {
          dropped[reason]++;
          continue;
        }
        const doi = rec.doi?.trim().toLowerCase();
        if (doi && dois.has(doi)) {
          dropped["duplicate-doi"]++;
          continue;
        }
        const title = normalizeTitle(rec.title);
        if (titles.has(title)) {
          dropped["duplicate-title"]++;
          continue;
        }
        if (doi) dois.add(doi);
        titles.add(title);
        const kw = cleanKeywords(rec.keywords, opts.maxKeywordLength);
        for (const k of Object.keys(keywordsDropped) as (keyof typeof keywordsDropped)[]) keywordsDropped[k] += kw.dropped[k];
        kept.push({ ...rec, keywords: kw.keywords });
      }
      byPmid.clear();
      return { kept, dropped, keywordsDropped, duplicatedSegmentsRepaired, seen, updates };
    },
  };
}

/**
 * Clean a collection of records (see the module comment).
 * @param records - parsed records, in stream order (deleted entries included).
 * @param options - {@link CleanOptionsSchema}.
 * @returns `{kept, dropped: Record<DropReason, number>, keywordsDropped, seen, updates}`; `seen` =
 *   `kept.length` + the sum of `dropped` + `updates.deleteEntries`.
 */
export function cleanRecords(records: Iterable<PubmedRecord>, options: CleanOptions = {}): CleanResult {
  const cleaner = createRecordCleaner(options);
  for (const r of records) cleaner.add(r);
  return cleaner.finish();
}
