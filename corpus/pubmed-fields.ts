/**
 * Field rules shared by both PubMed record readers — the fast-xml-parser reference in
 * `pubmed-xml.ts` and the purpose-built scanner in `pubmed-scan.ts` — so that the two give
 * identical records: byte-string decoding, leaf-value normalisation, dates, ORCID iDs, the
 * retraction/erratum flags and the empty record.
 *
 * Record XML is held as latin1 strings (one char per byte of the UTF-8 stream; see
 * `RecordSplitter`); a field is decoded to UTF-8 only when it is read.
 *
 * @see PubMed DTD 2025 (pubmed_250101.dtd): PubDate, MedlineDate, Identifier, CommentsCorrections,
 *   PublicationType; NLM's retraction policy (publication types "Retracted Publication" and
 *   "Retraction of Publication").
 */
import type { PubmedRecord } from "./types.ts";
import { decodeEntities } from "./markup.ts";

/** Elements kept as raw inner XML (inline markup) and flattened by `flattenInlineMarkup` (both readers). */
export const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(["AbstractText", "ArticleTitle", "VernacularTitle", "Keyword", "CollectiveName", "Affiliation", "CopyrightInformation"]);

/**
 * Subtrees and leaves never read. `reduceRecordXml` cuts them out before fast-xml-parser sees
 * the record (the parser's cost is per tag, and these are most of a record's tags), and the
 * scanner (`pubmed-scan.ts`) jumps over them: one list, so the two readers cannot drift apart.
 */
export const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set([
  "ReferenceList",
  "GrantList",
  "ChemicalList",
  "InvestigatorList",
  "History",
  "SupplMeshList",
  "GeneSymbolList",
  "PersonalNameSubjectList",
  "DataBankList",
  "Pagination",
  "DateCreated",
  "DateCompleted",
  "DateRevised",
  "GeneralNote",
  "OtherID",
  "CitationSubset",
  "NumberOfReferences",
  "SpaceFlightMission",
  "CoiStatement",
  "QualifierName",
  "Country",
  "MedlineTA",
  "Volume",
  "Issue",
  "PublicationStatus",
  "ObjectList",
  "AccessionNumberList",
  "RefSource",
  "Note",
]);

const NON_ASCII_RE = /[\x80-\xff]/;
/**
 * Decode a latin1-held UTF-8 byte string (see `RecordSplitter`) to a JS string.
 * @param s - one character per byte.
 * @returns the UTF-8 decoding (the same string when it is pure ASCII).
 */
export function utf8FromLatin1(s: string): string {
  return NON_ASCII_RE.test(s) ? Buffer.from(s, "latin1").toString("utf8") : s;
}

/**
 * The value of a leaf element as both readers give it: latin1-held bytes → UTF-8 decoded →
 * entities decoded → trimmed. Trimming comes last, so no byte of a multi-byte character is lost
 * (trimming the byte string would drop the 0xA0 ending a UTF-8 "à", "Š" or "†").
 * @param raw - the element's text content, one char per byte.
 */
export function leafText(raw: string): string {
  return decodeEntities(utf8FromLatin1(raw)).trim();
}

/** The parts of a `PubDate` / `ArticleDate` element, each the element's raw text (latin1-held). */
export interface DateParts {
  Year?: string;
  Month?: string;
  Day?: string;
  Season?: string;
  MedlineDate?: string;
}

/** A date part: a latin1-held leaf string, or an fast-xml-parser node with "#text", as {@link leafText}. */
function partOf(v: unknown): string {
  if (typeof v === "string") return leafText(v);
  if (typeof v === "number") return String(v);
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const t = (v as Record<string, unknown>)["#text"];
    if (typeof t === "string") return leafText(t);
  }
  return "";
}

const MONTHS: Record<string, string> = {
  jan: "01",
  feb: "02",
  mar: "03",
  apr: "04",
  may: "05",
  jun: "06",
  jul: "07",
  aug: "08",
  sep: "09",
  oct: "10",
  nov: "11",
  dec: "12",
};
/**
 * Season → month used for `PubDate/Season` and seasons in `MedlineDate`: the season's first month
 * in the northern hemisphere, except Winter → 01 (a "Winter 2019" issue opens year 2019).
 */
export const SEASON_MONTHS: Readonly<Record<string, string>> = Object.freeze({
  spring: "03",
  summer: "06",
  fall: "09",
  autumn: "09",
  winter: "01",
});

function monthOf(token: string | undefined): string | null {
  if (!token) return null;
  const t = token.trim().toLowerCase();
  if (/^\d{1,2}$/.test(t)) {
    const n = Number(t);
    return n >= 1 && n <= 12 ? String(n).padStart(2, "0") : null;
  }
  return MONTHS[t.slice(0, 3)] ?? SEASON_MONTHS[t] ?? null;
}

/**
 * Normalise a PubMed `PubDate` to ISO: "YYYY", "YYYY-MM" or "YYYY-MM-DD".
 * Handles Year/Month/Day (month as "Sep", "09" or "9"), Season ("Spring" → "-03", see
 * {@link SEASON_MONTHS}) and free-text MedlineDate ("1998 Dec-1999 Jan" → "1998-12",
 * "2000 Spring" → "2000-03", "1975-1976" → "1975", "1999 Nov 3-9" → "1999-11-03"); the start of a
 * range is kept.
 * @param pubDate - the `PubDate` element as an object of raw leaf strings ({@link DateParts}) or of
 *   fast-xml-parser nodes, or undefined.
 * @returns the ISO date, or null when no year can be found.
 */
export function normalizePubDate(pubDate: unknown): string | null {
  if (pubDate === null || typeof pubDate !== "object" || Array.isArray(pubDate)) return null;
  const n = pubDate as Record<string, unknown>;
  const textOf = (v: unknown) => partOf(v);
  const year = textOf(n.Year).trim();
  if (/^\d{4}$/.test(year)) {
    const month = monthOf(textOf(n.Month)) ?? monthOf(textOf(n.Season));
    if (!month) return year;
    const day = textOf(n.Day).trim();
    if (textOf(n.Month) && /^\d{1,2}$/.test(day) && Number(day) >= 1 && Number(day) <= 31) return `${year}-${month}-${day.padStart(2, "0")}`;
    return `${year}-${month}`;
  }
  return normalizeMedlineDate(textOf(n.MedlineDate));
}

/**
 * Normalise a free-text `MedlineDate` (see {@link normalizePubDate}).
 * @param text - e.g. "1998 Dec-1999 Jan".
 * @returns ISO date of the range start, or null when no 4-digit year leads the text.
 */
export function normalizeMedlineDate(text: string): string | null {
  const m = /^\s*(\d{4})(?:[\s-]+([A-Za-z]+)(?:\s+(\d{1,2}))?)?/.exec(text);
  if (!m) return null;
  const month = monthOf(m[2]);
  if (!month) return m[1];
  if (m[3] && MONTHS[m[2].slice(0, 3).toLowerCase()] && Number(m[3]) >= 1 && Number(m[3]) <= 31) return `${m[1]}-${month}-${m[3].padStart(2, "0")}`;
  return `${m[1]}-${month}`;
}

const ORCID_RE = /^(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dXx])$/;
/**
 * Normalise an ORCID iD as PubMed writes it (`0000-0002-1825-0097`, `https://orcid.org/0000-…`,
 * `http://orcid.org/…`, or the 16 characters without hyphens) to `0000-0002-1825-0097`.
 * @param raw - the `Identifier Source="ORCID"` value (decoded, trimmed).
 * @returns the hyphenated iD (check character upper-case), the trimmed input when it does not
 *   have the 16-character shape, or null when empty.
 */
export function normalizeOrcid(raw: string): string | null {
  const t = raw
    .trim()
    .replace(/^https?:\/\/(?:www\.)?orcid\.org\//i, "")
    .replace(/\/$/, "");
  if (t.length === 0) return null;
  const m = ORCID_RE.exec(t);
  return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4].toUpperCase()}` : t;
}

/** Publication type of a retracted paper (MeSH D016441). */
export const RETRACTED_PUBLICATION_TYPE = "Retracted Publication";
/** Publication type of a retraction notice (MeSH D016440). */
export const RETRACTION_NOTICE_TYPE = "Retraction of Publication";
/** Publication type of an erratum (not a retraction). */
export const ERRATUM_TYPE = "Published Erratum";

/**
 * Set a record's retraction and erratum fields from its publication types and the
 * `(RefType, PMID)` pairs of its `CommentsCorrectionsList`:
 * - `retractionIn` = PMIDs of `RetractionIn` entries (the notices retracting it); `retractionOf` =
 *   PMIDs of `RetractionOf` entries (what a notice retracts); each in document order, repeats removed;
 * - `flags.retracted` = a `RetractionIn` entry or publication type "Retracted Publication";
 * - `flags.retractionNotice` = true for a `RetractionOf` entry or publication type "Retraction of
 *   Publication", absent otherwise (so the flags of every other record keep their earlier shape);
 * - `flags.erratum` = publication type "Published Erratum".
 * Errata (`ErratumIn`/`ErratumFor`), comments, expressions of concern and partial retractions
 * (`PartialRetractionIn/Of`) set no retraction flag.
 * @param rec - the record (mutated); its `publicationTypes` must be set.
 * @param refs - the CommentsCorrections entries, `pmid` null when the entry has none.
 */
export function applyRetractionFields(rec: PubmedRecord, refs: readonly { refType: string | null; pmid: string | null }[]): void {
  const of: string[] = [];
  const inn: string[] = [];
  let hasOf = false;
  let hasIn = false;
  for (const r of refs) {
    if (r.refType === "RetractionOf") {
      hasOf = true;
      if (r.pmid && !of.includes(r.pmid)) of.push(r.pmid);
    } else if (r.refType === "RetractionIn") {
      hasIn = true;
      if (r.pmid && !inn.includes(r.pmid)) inn.push(r.pmid);
    }
  }
  const types = rec.publicationTypes;
  rec.retractionOf = of;
  rec.retractionIn = inn;
  rec.flags = {
    deleted: false,
    retracted: hasIn || types.includes(RETRACTED_PUBLICATION_TYPE),
    erratum: types.includes(ERRATUM_TYPE),
  };
  if (hasOf || types.includes(RETRACTION_NOTICE_TYPE)) rec.flags.retractionNotice = true;
}

/**
 * A record with the given PMID and version and every other field empty (the shape of a
 * deleted-citation entry, and the start of every parsed record).
 */
export function emptyPubmedRecord(pmid: string, version: string): PubmedRecord {
  return {
    pmid,
    version,
    doi: null,
    title: "",
    vernacularTitle: null,
    journal: { title: null, isoAbbreviation: null, issn: null, nlmUniqueId: null },
    pubDate: null,
    languages: [],
    publicationTypes: [],
    meshHeadings: [],
    keywords: [],
    abstract: [],
    otherAbstracts: [],
    flags: { deleted: false, retracted: false, erratum: false },
    authors: [],
    copyright: null,
    retractionOf: [],
    retractionIn: [],
  };
}
