/**
 * Store rows of an ingest and PubMed's update semantics over them (pure functions, no I/O).
 *
 * Every entry a file yields becomes one row keyed by its position `rowKey` = fileIndex·2²⁴ + seq
 * (input file order, then position in the file), so rows written by parallel workers still have one
 * global order:
 * - `record`: a record that passed the per-record cleaning rules (or every record without cleaning),
 *   with its JSON, its small dedup keys (lower-cased DOI, a hash of the normalised title) and the
 *   keyword counts its cleaning dropped;
 * - `dropped`: a record that failed a per-record rule (`dropReason`), keys only — it still
 *   replaces an earlier version of its PMID;
 * - `delete`: one PMID of a `<DeleteCitation>`.
 *
 * {@link resolveRows} then applies the files in order (see its doc) and yields the same kept set
 * and counts as {@link cleanRecords} over the concatenated stream.
 *
 * @see MedConclusion §3.1.1; NLM, "MEDLINE/PubMed baseline and update files" (DeleteCitation,
 *   revised citations in later update files).
 */
import { createHash } from "node:crypto";
import type { PubmedRecord } from "../types.ts";
import { cleanKeywords, DROP_REASONS, emptyUpdateReport, normalizeTitle, recordDropReason, type CleanOptionsSchema, type CleanResult, type DropReason, type UpdateReport } from "../clean.ts";
import type { z } from "zod";
import { yearOf } from "../conclusion-task.ts";

/** Parsed clean options (or null: no cleaning, only update semantics). */
export type ParsedCleanOptions = z.output<typeof CleanOptionsSchema> | null;

/** Largest position of an entry inside one file (2²⁴ − 1 entries per file). */
export const MAX_SEQ = 2 ** 24 - 1;

/** Kind of a store row. */
export type RowKind = "record" | "dropped" | "delete";

/** One row of the records table (see the module comment). */
export interface RecordRow {
  rowKey: number;
  fileIndex: number;
  pmid: string;
  /** Numeric `Version` (non-numeric → 0). */
  version: number;
  kind: RowKind;
  dropReason: DropReason | null;
  /** Lower-cased trimmed DOI (cleaning only), else null. */
  doiKey: string | null;
  /** 16-hex-character SHA-1 prefix of {@link normalizeTitle} (cleaning only), else null. */
  titleKey: string | null;
  kwEmpty: number;
  kwOverlong: number;
  kwNonAscii: number;
  kwDuplicate: number;
  /** Base name of the input file. */
  sourceFile: string;
  title: string;
  year: number | null;
  /** The record as JSON (keywords cleaned when cleaning); "" for `dropped` and `delete` rows. */
  record: string;
}

/** Global position of entry `seq` of file `fileIndex`. */
export function rowKeyOf(fileIndex: number, seq: number): number {
  if (seq > MAX_SEQ) throw new Error(`more than ${MAX_SEQ + 1} entries in one input file (file #${fileIndex})`);
  return fileIndex * 2 ** 24 + seq;
}

/** Small key of a title for duplicate detection: 16 hex chars of SHA-1 of {@link normalizeTitle}. */
export function titleKeyOf(title: string): string {
  return createHash("sha1").update(normalizeTitle(title)).digest("hex").slice(0, 16);
}

function versionNumber(v: string): number {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Turn one parsed entry into its row (per-record cleaning rules applied here, while streaming).
 * @param rec - a parsed record (deleted-citation entries included).
 * @param at - file index, position in the file and the file's base name.
 * @param clean - parsed clean options, or null for no cleaning.
 */
export function recordToRow(rec: PubmedRecord, at: { fileIndex: number; seq: number; sourceFile: string }, clean: ParsedCleanOptions): RecordRow {
  const row: RecordRow = {
    rowKey: rowKeyOf(at.fileIndex, at.seq),
    fileIndex: at.fileIndex,
    pmid: rec.pmid,
    version: versionNumber(rec.version),
    kind: "record",
    dropReason: null,
    doiKey: null,
    titleKey: null,
    kwEmpty: 0,
    kwOverlong: 0,
    kwNonAscii: 0,
    kwDuplicate: 0,
    sourceFile: at.sourceFile,
    title: "",
    year: null,
    record: "",
  };
  if (rec.flags.deleted) {
    row.kind = "delete";
    return row;
  }
  let out = rec;
  if (clean) {
    const reason = recordDropReason(rec, clean);
    if (reason) {
      row.kind = "dropped";
      row.dropReason = reason;
      return row;
    }
    const doi = rec.doi?.trim().toLowerCase();
    row.doiKey = doi ? doi : null;
    row.titleKey = titleKeyOf(rec.title);
    const kw = cleanKeywords(rec.keywords, clean.maxKeywordLength);
    row.kwEmpty = kw.dropped.empty;
    row.kwOverlong = kw.dropped.overlong;
    row.kwNonAscii = kw.dropped.nonAscii;
    row.kwDuplicate = kw.dropped.duplicate;
    out = { ...rec, keywords: kw.keywords };
  }
  row.title = out.title;
  row.year = yearOf(out.pubDate);
  row.record = JSON.stringify(out);
  return row;
}

/** The columns of a row that {@link resolveRows} reads. */
export type RowKeys = Pick<RecordRow, "rowKey" | "pmid" | "version" | "kind" | "dropReason" | "doiKey" | "titleKey" | "kwEmpty" | "kwOverlong" | "kwNonAscii" | "kwDuplicate">;

/** Result of {@link resolveRows}. */
export interface Resolution {
  /** Indexes (into the input array) of the rows that make up the final corpus, in rowKey order. */
  kept: number[];
  /** Same meaning as {@link CleanResult}: per-reason drops, keyword drops of kept records, entries seen. */
  dropped: Record<DropReason, number>;
  keywordsDropped: CleanResult["keywordsDropped"];
  seen: number;
  /** What the update semantics did, PMIDs named (as {@link CleanResult.updates}). */
  updates: UpdateReport;
}

/**
 * Apply PubMed's update semantics, then (when cleaning) the kept-set rules, over all rows.
 *
 * Rows are taken in `rowKey` order (files in order, then position). A `delete` row removes the
 * PMID's current record (counted "deleted", once per record removed; a delete that finds no record
 * is a delete of an unknown PMID, `updates.deleteOfUnknown`); a record met later comes back (a PMID
 * deleted then re-issued). Of two entries of one PMID the one with the higher version wins, a later
 * one wins a tie (the other is counted "superseded").
 * Then, over the winners in position order: a `dropped` winner is counted under its reason; with
 * `clean`, a DOI or title key already kept drops the record ("duplicate-doi"/"duplicate-title",
 * first kept wins) and the keyword counts of kept rows are summed.
 * @param rows - row keys, any order (sorted here by `rowKey`; the array is not modified).
 * @param clean - whether DOI/title de-duplication applies (the store's cleaning option).
 * @returns kept row indexes and counts equal to {@link cleanRecords} over the same stream.
 */
export function resolveRows(rows: readonly RowKeys[], clean: boolean): Resolution {
  const order = rows.map((_, i) => i).sort((a, b) => rows[a].rowKey - rows[b].rowKey);
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const current = new Map<string, number>();
  const updates = emptyUpdateReport();
  for (const i of order) {
    const r = rows[i];
    if (r.kind === "delete") {
      updates.deleteEntries++;
      if (current.delete(r.pmid)) {
        dropped.deleted++;
        updates.deleted.push(r.pmid);
      } else updates.deleteOfUnknown.push(r.pmid);
      continue;
    }
    const prev = current.get(r.pmid);
    if (prev === undefined) {
      current.set(r.pmid, i);
      continue;
    }
    dropped.superseded++;
    updates.superseded.push(r.pmid);
    if (r.version >= rows[prev].version) current.set(r.pmid, i);
  }
  const winners = [...current.values()].sort((a, b) => rows[a].rowKey - rows[b].rowKey);
  const kept: number[] = [];
  const dois = new Set<string>();
  const titles = new Set<string>();
  const keywordsDropped = { empty: 0, overlong: 0, nonAscii: 0, duplicate: 0 };
  for (const i of winners) {
    const r = rows[i];
    if (r.kind === "dropped") {
      dropped[r.dropReason ?? "missing-core-fields"]++;
      continue;
    }
    if (clean) {
      if (r.doiKey && dois.has(r.doiKey)) {
        dropped["duplicate-doi"]++;
        continue;
      }
      if (r.titleKey !== null && titles.has(r.titleKey)) {
        dropped["duplicate-title"]++;
        continue;
      }
      if (r.doiKey) dois.add(r.doiKey);
      if (r.titleKey !== null) titles.add(r.titleKey);
      keywordsDropped.empty += r.kwEmpty;
      keywordsDropped.overlong += r.kwOverlong;
      keywordsDropped.nonAscii += r.kwNonAscii;
      keywordsDropped.duplicate += r.kwDuplicate;
    }
    kept.push(i);
  }
  return { kept, dropped, keywordsDropped, seen: rows.length, updates };
}
