/**
 * Purpose-built scanner for the PubMed record fields medsynth reads: the default record reader of
 * `parsePubmedFile` (issue 10 item 4). fast-xml-parser (`parseRecordXml` with `parser: "fxp"`)
 * stays as the reference that builds a full tree; on DTD-valid records the two give identical
 * records (a test checks every bundled XML file and the edge-case fixtures).
 *
 * Why: CPU profiles of the parser over the 2016 MEDLINE slice put ~42 % of the time in
 * fast-xml-parser's generic tree building (tag and attribute objects, a path matcher, node → JSON
 * compaction) plus most of the ~10 % spent in garbage collection, for ~20 fields per record.
 *
 * How: one left-to-right walk over the record's text (latin1-held bytes, see `RecordSplitter`)
 * with `indexOf`, keeping only a stack of open element names:
 * - subtrees never read (reference, grant, chemical lists, history …: `SKIPPED_ELEMENTS`) are
 *   jumped over to their closing tag;
 * - inline-markup elements (`RAW_TEXT_ELEMENTS`: AbstractText, ArticleTitle, Keyword, Affiliation …)
 *   are taken as raw inner XML up to their closing tag and flattened by `flattenInlineMarkup`;
 * - leaf elements read as text (PMID, Title, Year, Language, DescriptorName, ArticleId …) are
 *   taken up to their closing tag and decoded by `leafText`, the same function the reference
 *   uses; which field a leaf fills is decided by its parent element (e.g. `PMID` under
 *   `MedlineCitation` vs under `CommentsCorrections`);
 * - attributes are read only on the elements that need them.
 * Tags are checked for balance as in `reduceRecordXml` (same error messages), so a broken record
 * is reported by both readers alike.
 *
 * @see PubMed DTD 2025 (pubmed_250101.dtd) for the element paths.
 */
import type { AbstractSegment, Author, PubmedRecord } from "./types.ts";
import { flattenInlineMarkup } from "./markup.ts";
import { applyRetractionFields, emptyPubmedRecord, leafText, normalizeOrcid, normalizePubDate, RAW_TEXT_ELEMENTS, SKIPPED_ELEMENTS, utf8FromLatin1, type DateParts } from "./pubmed-fields.ts";
import { decodeEntities } from "./markup.ts";

/** Leaf elements read as text; which field each fills depends on its parent element (see `onLeaf`). */
const LEAF: ReadonlySet<string> = new Set([
  "PMID",
  "Title",
  "ISOAbbreviation",
  "ISSN",
  "ISSNLinking",
  "NlmUniqueID",
  "Year",
  "Month",
  "Day",
  "Season",
  "MedlineDate",
  "Language",
  "PublicationType",
  "DescriptorName",
  "ArticleId",
  "ELocationID",
  "LastName",
  "ForeName",
  "Initials",
  "Identifier",
]);

/**
 * Value of attribute `name` in a start tag's attribute text, entities and UTF-8 decoded; null
 * when absent. The name must follow whitespace and be followed by optional whitespace, `=`,
 * optional whitespace and a quoted value (as fast-xml-parser reads attributes).
 */
function attrIn(attrs: string, name: string): string | null {
  let i = attrs.indexOf(name);
  while (i >= 0) {
    const before = attrs.charCodeAt(i - 1);
    if (i > 0 && (before === 32 || before === 10 || before === 9 || before === 13)) {
      let j = i + name.length;
      let c = attrs.charCodeAt(j);
      while (c === 32 || c === 10 || c === 9 || c === 13) c = attrs.charCodeAt(++j);
      if (c === 61 /* = */) {
        c = attrs.charCodeAt(++j);
        while (c === 32 || c === 10 || c === 9 || c === 13) c = attrs.charCodeAt(++j);
        if (c === 34 || c === 39) {
          const end = attrs.indexOf(c === 34 ? '"' : "'", j + 1);
          if (end >= 0) {
            const v = attrs.slice(j + 1, end);
            if (v.indexOf("&") < 0 && (asciiRecord || !NON_ASCII_RE.test(v))) return v;
            return decodeEntities(asciiRecord ? v : utf8FromLatin1(v));
          }
        }
      }
    }
    i = attrs.indexOf(name, i + 1);
  }
  return null;
}
const NON_ASCII_RE = /[\x80-\xff]/;

/**
 * True while scanning a record whose bytes are all ASCII (`RawRecord.ascii`): its fields need no
 * UTF-8 decoding, so the per-field test for bytes ≥ 0x80 is skipped. Set by `scanRecordXml`, which
 * runs synchronously (never re-entered), and read by the helpers below.
 */
let asciiRecord = false;

/** {@link leafText} of the current record (no UTF-8 test when it is all ASCII). */
function leaf(raw: string): string {
  return asciiRecord ? decodeEntities(raw).trim() : leafText(raw);
}

function nonEmpty(s: string): string | null {
  const t = s.trim();
  return t.length > 0 ? t : null;
}

const WALK_KIND = 0;
const SKIP_KIND = 1;
const RAW_KIND = 2;
const LEAF_KIND = 3;

/** How the scanner treats an element, and its closing tag. */
interface TagInfo {
  /** The element name — one string per name, from the lists below: compared by pointer. */
  readonly name: string;
  readonly kind: number;
  /** `</name>`, made once. */
  readonly close: string;
  /** {@link nameHash} of the name. */
  readonly hash: number;
}

/** Elements walked into whose names the handlers compare (as parents or in `onOpen`). */
const WALKED: readonly string[] = [
  "MedlineCitation",
  "PubmedArticle",
  "PubmedData",
  "DeleteCitation",
  "Article",
  "Journal",
  "JournalIssue",
  "MedlineJournalInfo",
  "Author",
  "AuthorList",
  "AffiliationInfo",
  "Abstract",
  "OtherAbstract",
  "PubDate",
  "ArticleDate",
  "PublicationTypeList",
  "MeshHeadingList",
  "MeshHeading",
  "KeywordList",
  "ArticleIdList",
  "CommentsCorrectionsList",
  "CommentsCorrections",
];

/** Hash step of an element name, char by char (the scanner computes it while finding the name's end). */
function hashStep(h: number, c: number): number {
  return (Math.imul(h, 31) + c) | 0;
}
function nameHash(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = hashStep(h, name.charCodeAt(i));
  return h;
}

/**
 * Element name → {@link TagInfo}, an open-addressing table probed with the name's hash and checked
 * in place (`startsWith`), so the scanner neither cuts each name out of the record nor hashes it
 * again. Names in no list are walked into; they are added as met (up to {@link MAX_EXTRA_TAGS}),
 * so every name on the scanner's stack is a table string.
 */
const TABLE_BITS = 12;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const TABLE: (TagInfo | undefined)[] = new Array<TagInfo | undefined>(1 << TABLE_BITS).fill(undefined);
/** Unknown names added to {@link TABLE} at most (a fresh entry per occurrence beyond). */
const MAX_EXTRA_TAGS = 1024;
let extraTags = 0;

function addTag(name: string, kind: number): TagInfo {
  const t: TagInfo = { name, kind, close: `</${name}>`, hash: nameHash(name) };
  let i = t.hash & TABLE_MASK;
  while (TABLE[i] !== undefined) i = (i + 1) & TABLE_MASK;
  TABLE[i] = t;
  return t;
}
for (const n of WALKED) addTag(n, WALK_KIND);
for (const n of SKIPPED_ELEMENTS) addTag(n, SKIP_KIND);
for (const n of RAW_TEXT_ELEMENTS) addTag(n, RAW_KIND);
for (const n of LEAF) addTag(n, LEAF_KIND);

/** The {@link TagInfo} of the name `xml.slice(start, end)`, whose hash is `h`. */
function tagAt(xml: string, start: number, end: number, h: number): TagInfo {
  const len = end - start;
  let i = h & TABLE_MASK;
  for (;;) {
    const t = TABLE[i];
    if (t === undefined) break;
    if (t.hash === h && t.name.length === len && xml.startsWith(t.name, start)) return t;
    i = (i + 1) & TABLE_MASK;
  }
  const name = xml.slice(start, end);
  if (extraTags < MAX_EXTRA_TAGS) {
    extraTags++;
    return addTag(name, WALK_KIND);
  }
  return { name, kind: WALK_KIND, close: `</${name}>`, hash: h };
}

/**
 * Text fields are kept as found (raw inner XML or raw leaf text, latin1-held) while the record is
 * walked and decoded only in `finish` — or not at all for a record the caller's screen rejects
 * (see `ScanOptions.screen`): flattening and decoding the texts is most of a record's cost after
 * the walk, and cleaning drops most PubMed records.
 */
interface AuthorDraft {
  valid: boolean;
  lastName: string;
  foreName: string;
  initials: string;
  /** Raw inner XML. */
  collectiveName: string;
  /** Raw inner XML of each affiliation (empty ones dropped once flattened). */
  direct: string[];
  viaInfo: string[];
  orcids: string[];
}

/** An abstract segment as found: attributes decoded, text still raw inner XML. */
interface RawSegment {
  label: string | null;
  nlmCategory: string | null;
  content: string;
}

/** State of one record's scan: the fields as found, turned into a record by `finish`. */
class Draft {
  pmid: string | null = null;
  pmidVersion: string | null = null;
  sawCitation = false;
  journalTitle = "";
  iso = "";
  issns: { type: string | null; value: string }[] = [];
  issnLinking = "";
  nlmUniqueId = "";
  pubDate: DateParts | null = null;
  articleDate: DateParts | null = null;
  articleDates = 0;
  title = "";
  /** Raw inner XML (flattened in `finish`), as are `keywords`, `copyright` and segment contents. */
  vernacular = "";
  languages: string[] = [];
  types: string[] = [];
  /** Raw DescriptorName texts (decoded in `finish`). */
  mesh: string[] = [];
  keywords: string[] = [];
  abstract: RawSegment[] = [];
  copyright = "";
  other: { type: string | null; language: string | null; segments: RawSegment[] }[] = [];
  articleIds: { type: string | null; value: string }[] = [];
  elocations: { type: string | null; valid: string | null; value: string }[] = [];
  refs: { refType: string | null; pmid: string | null }[] = [];
  refPmidSeen = false;
  authors: AuthorDraft[] = [];
  deletePmids: { value: string; version: string | null }[] = [];
}

/** The segments with a non-empty flattened text, flattened (as the reference reader's `segmentsOf`). */
function flatSegments(raw: readonly RawSegment[]): AbstractSegment[] {
  const out: AbstractSegment[] = [];
  for (const s of raw) {
    const text = s.content.length > 0 ? rawFlat(s.content) : "";
    if (text.length > 0) out.push({ label: s.label, nlmCategory: s.nlmCategory, text });
  }
  return out;
}

/** Flattened non-empty texts of raw inner XML contents, in order. */
function flatNonEmpty(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const c of raw) {
    const t = rawFlat(c);
    if (t) out.push(t);
  }
  return out;
}

/**
 * Whether raw inner XML flattens to a non-empty text, without flattening it when its first
 * character past ASCII whitespace is printable ASCII other than `<` and `&` (that character
 * survives every step of `flattenInlineMarkup`: it is in no tag, entity or whitespace run).
 */
function flattensNonEmpty(content: string): boolean {
  const n = content.length;
  for (let i = 0; i < n; i++) {
    const c = content.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c > 32 && c < 127 && c !== 60 && c !== 38) return true;
    break;
  }
  return n > 0 && rawFlat(content).length > 0;
}

/** The numeric PMID of a draft, or the reference reader's error. */
function draftPmid(d: Draft): string {
  const pmid = leaf(d.pmid ?? "");
  if (!/^\d+$/.test(pmid)) throw new Error(`MedlineCitation has no numeric PMID (got ${JSON.stringify(pmid)})`);
  return pmid;
}

/**
 * The core record of a draft, for `ScanOptions.screen`: PMID, version, title, journal title,
 * publication date, languages, publication types, retraction fields and flags as in the full
 * record; abstract segments with their labels and categories, only those whose text is non-empty,
 * with `text` left as raw inner XML (not flattened); every other field empty.
 */
function coreRecord(d: Draft): PubmedRecord {
  const rec = emptyPubmedRecord(draftPmid(d), d.pmidVersion ?? "1");
  rec.journal.title = nonEmpty(leaf(d.journalTitle));
  rec.title = d.title;
  rec.pubDate = normalizePubDate(d.pubDate ?? undefined);
  if (rec.pubDate === null) rec.pubDate = normalizePubDate(d.articleDate ?? undefined);
  rec.languages = d.languages;
  rec.publicationTypes = d.types;
  for (const s of d.abstract) if (flattensNonEmpty(s.content)) rec.abstract.push({ label: s.label, nlmCategory: s.nlmCategory, text: s.content });
  applyRetractionFields(rec, d.refs);
  return rec;
}

/** The record of a finished scan (same rules as the reference reader's `citationToRecord`). */
function finish(d: Draft): PubmedRecord {
  const rec = emptyPubmedRecord(draftPmid(d), d.pmidVersion ?? "1");
  const issn = d.issns.find((i) => i.type === "Print") ?? d.issns[0];
  rec.journal = {
    title: nonEmpty(leaf(d.journalTitle)),
    isoAbbreviation: nonEmpty(leaf(d.iso)),
    issn: nonEmpty(issn ? leaf(issn.value) : "") ?? nonEmpty(leaf(d.issnLinking)),
    nlmUniqueId: nonEmpty(leaf(d.nlmUniqueId)),
  };
  rec.title = d.title;
  const vernacular = rawFlat(d.vernacular);
  rec.vernacularTitle = vernacular.length > 0 ? vernacular : null;
  rec.pubDate = normalizePubDate(d.pubDate ?? undefined);
  if (rec.pubDate === null) rec.pubDate = normalizePubDate(d.articleDate ?? undefined);
  rec.languages = d.languages;
  rec.publicationTypes = d.types;
  for (const m of d.mesh) {
    const t = leaf(m);
    if (t) rec.meshHeadings.push(t);
  }
  rec.keywords = d.keywords.map(rawFlat);
  rec.abstract = flatSegments(d.abstract);
  rec.copyright = nonEmpty(rawFlat(d.copyright));
  rec.otherAbstracts = d.other.map((o) => ({ type: o.type, language: o.language, segments: flatSegments(o.segments) }));
  rec.authors = [];
  for (const a of d.authors) {
    if (!a.valid) continue;
    let orcid: string | null = null;
    for (const o of a.orcids) {
      orcid = normalizeOrcid(leaf(o));
      if (orcid) break;
    }
    const author: Author = {
      lastName: nonEmpty(leaf(a.lastName)),
      foreName: nonEmpty(leaf(a.foreName)),
      initials: nonEmpty(leaf(a.initials)),
      collectiveName: nonEmpty(rawFlat(a.collectiveName)),
      affiliations: flatNonEmpty(a.direct).concat(flatNonEmpty(a.viaInfo)),
      orcid,
    };
    if (author.lastName === null && author.foreName === null && author.initials === null && author.collectiveName === null) continue;
    rec.authors.push(author);
  }
  let doi: string | null = null;
  for (const id of d.articleIds) {
    if (id.type === "doi") {
      doi = nonEmpty(leaf(id.value));
      if (doi) break;
    }
  }
  if (!doi) {
    for (const loc of d.elocations) {
      if (loc.type === "doi" && loc.valid !== "N") {
        doi = nonEmpty(leaf(loc.value));
        if (doi) break;
      }
    }
  }
  rec.doi = doi;
  applyRetractionFields(rec, d.refs);
  return rec;
}

/**
 * Early filter of citations for a consumer that discards some records whole (the ingest's
 * cleaning): it sees the record's core — PMID, version, title, journal title, publication date,
 * languages, publication types, retraction fields and flags exactly as in the full record, and the
 * abstract's segments (only those with a non-empty text, labels and categories as in the full
 * record) whose `text` is the raw inner XML, not flattened; every other field is empty. Returning
 * false keeps that core as the record (the consumer must only discard it); true decodes the full
 * record. A screen must decide on those fields alone.
 */
export type PubmedRecordScreen = (core: PubmedRecord) => boolean;

/** Flattened text of a raw element's inner XML (as the reference's `rawText`). */
function rawFlat(content: string): string {
  return flattenInlineMarkup(asciiRecord ? content : utf8FromLatin1(content));
}

/**
 * Scan one record's XML (as cut by `RecordSplitter`, latin1-held) into records: a `PubmedArticle`
 * or `MedlineCitation` gives one record, a `DeleteCitation` one `deleted` record per PMID, other
 * tags none. Same contract as `parseRecordXml` (see the module comment for how).
 * @param tag - the record's element name.
 * @param xml - the record's XML.
 * @param ascii - true only when every char of `xml` is ASCII (`RawRecord.ascii`): skips the
 *   per-field UTF-8 test (same records; a wrong `true` would leave UTF-8 undecoded).
 * @param screen - optional early filter of a citation (not of deletions): called with the
 *   record's core (see {@link PubmedRecordScreen}); when it returns false the core is returned as
 *   the record and the other text fields are never decoded.
 * @throws Error when tags are unbalanced, the record has no MedlineCitation, or a PMID is not numeric.
 */
export function scanRecordXml(tag: string, xml: string, ascii = false, screen?: PubmedRecordScreen): PubmedRecord[] {
  if (tag === "PubmedBookArticle" || tag === "DeleteDocument") return [];
  asciiRecord = ascii;
  const d = new Draft();
  const stack: string[] = [];
  const n = xml.length;
  let author: AuthorDraft | null = null;
  let segments: RawSegment[] | null = null;
  let date: DateParts | null = null;
  /** Attribute text of the current leaf element: `xml.slice(attrFrom, attrTo)`, cut only when read. */
  let attrFrom = 0;
  let attrTo = 0;
  const leafAttrs = () => xml.slice(attrFrom, attrTo);
  let pos = xml.indexOf("<");
  while (pos >= 0) {
    let e = pos + 1;
    const c0 = xml.charCodeAt(e);
    if (c0 === 63 /* ? */ || c0 === 33 /* ! */) {
      pos = xml.indexOf("<", e);
      continue;
    }
    const closing = c0 === 47; /* / */
    if (closing) {
      // Fast path: the expected closing tag of the innermost open element.
      const open = stack.length > 0 ? stack[stack.length - 1] : "";
      const after = pos + 2 + open.length;
      if (open.length > 0 && xml.charCodeAt(after) === 62 && xml.startsWith(open, pos + 2)) {
        stack.pop();
        if (open === "Author") author = null;
        else if (open === "Abstract" || open === "OtherAbstract") segments = null;
        else if (open === "PubDate" || open === "ArticleDate") date = null;
        pos = xml.indexOf("<", after + 1);
        continue;
      }
      e++;
    }
    const nameStart = e;
    let h = 0;
    while (e < n) {
      const c = xml.charCodeAt(e);
      if (c === 32 || c === 62 || c === 47 || c === 10 || c === 9 || c === 13) break;
      h = hashStep(h, c);
      e++;
    }
    const gt = xml.indexOf(">", e);
    if (gt < 0) throw new Error(`unterminated tag <${closing ? "/" : ""}${xml.slice(nameStart, e)} at char ${pos}`);
    if (closing) {
      const name = xml.slice(nameStart, e);
      const open = stack.pop();
      if (open !== name) throw new Error(open === undefined ? `unexpected </${name}> at char ${pos}` : `</${name}> at char ${pos} closes <${open}>`);
      if (name === "Author") author = null;
      else if (name === "Abstract" || name === "OtherAbstract") segments = null;
      else if (name === "PubDate" || name === "ArticleDate") date = null;
      pos = xml.indexOf("<", gt + 1);
      continue;
    }
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const parent = stack.length > 0 ? stack[stack.length - 1] : "";
    const info = tagAt(xml, nameStart, e, h);
    const name = info.name;
    const kind = info.kind;
    if (kind === SKIP_KIND) {
      if (selfClosing) {
        pos = xml.indexOf("<", gt + 1);
        continue;
      }
      const close = info.close;
      const j = xml.indexOf(close, gt + 1);
      if (j < 0) throw new Error(`<${name}> at char ${pos} is never closed`);
      pos = xml.indexOf("<", j + close.length);
      continue;
    }
    if (kind === RAW_KIND) {
      let content = "";
      let after = gt + 1;
      if (!selfClosing) {
        const close = info.close;
        const j = xml.indexOf(close, gt + 1);
        if (j < 0) throw new Error(`<${name}> at char ${pos} is never closed`);
        content = xml.slice(gt + 1, j);
        after = j + close.length;
      }
      onRaw(name, parent, name === "AbstractText" && !selfClosing ? xml.slice(e, gt) : "", content);
      pos = xml.indexOf("<", after);
      continue;
    }
    if (kind === LEAF_KIND) {
      // Text up to the closing tag when the element holds text only; a leaf with child elements
      // (not in valid records) is walked like any element and read as its first text run.
      attrFrom = e;
      attrTo = selfClosing ? gt - 1 : gt;
      if (selfClosing) {
        onLeaf(name, parent, "");
        pos = xml.indexOf("<", gt + 1);
        continue;
      }
      const lt = xml.indexOf("<", gt + 1);
      const text = lt < 0 ? xml.slice(gt + 1) : xml.slice(gt + 1, lt);
      onLeaf(name, parent, text);
      if (lt >= 0 && xml.charCodeAt(lt + 1) === 47 && xml.startsWith(name, lt + 2) && xml.charCodeAt(lt + 2 + name.length) === 62) {
        pos = xml.indexOf("<", lt + 3 + name.length);
        continue;
      }
      stack.push(name);
      pos = lt;
      continue;
    }
    onOpen(name, parent, xml, e, gt, selfClosing);
    if (!selfClosing) stack.push(name);
    pos = xml.indexOf("<", gt + 1);
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]}> is never closed`);

  if (tag === "DeleteCitation") {
    return d.deletePmids.map((p) => {
      const pmid = leaf(p.value);
      if (!/^\d+$/.test(pmid)) throw new Error(`DeleteCitation has a non-numeric PMID ${JSON.stringify(pmid)}`);
      const rec = emptyPubmedRecord(pmid, p.version ?? "1");
      rec.flags.deleted = true;
      return rec;
    });
  }
  if (!d.sawCitation) throw new Error(tag === "PubmedArticle" ? "PubmedArticle without MedlineCitation" : "empty MedlineCitation");
  if (screen !== undefined) {
    const core = coreRecord(d);
    if (!screen(core)) return [core];
  }
  return [finish(d)];

  function onOpen(name: string, parent: string, src: string, attrStart: number, gt: number, selfClosing: boolean): void {
    switch (name) {
      case "MedlineCitation":
        if (parent === "" || parent === "PubmedArticle") d.sawCitation = true;
        return;
      case "Author":
        if (parent === "AuthorList") {
          const valid = attrIn(src.slice(attrStart, gt), "ValidYN") !== "N";
          author = { valid, lastName: "", foreName: "", initials: "", collectiveName: "", direct: [], viaInfo: [], orcids: [] };
          d.authors.push(author);
          if (selfClosing) author = null;
        }
        return;
      case "Abstract":
        if (parent === "Article") segments = selfClosing ? null : d.abstract;
        return;
      case "OtherAbstract":
        if (parent === "MedlineCitation") {
          const attrs = src.slice(attrStart, gt);
          const oa = { type: attrIn(attrs, "Type"), language: attrIn(attrs, "Language"), segments: [] as RawSegment[] };
          d.other.push(oa);
          segments = selfClosing ? null : oa.segments;
        }
        return;
      case "PubDate":
        if (parent === "JournalIssue" && d.pubDate === null) {
          d.pubDate = {};
          date = selfClosing ? null : d.pubDate;
        }
        return;
      case "ArticleDate":
        if (parent === "Article" && d.articleDates++ === 0) {
          d.articleDate = {};
          date = selfClosing ? null : d.articleDate;
        }
        return;
      case "CommentsCorrections":
        if (parent === "CommentsCorrectionsList") {
          d.refs.push({ refType: attrIn(src.slice(attrStart, gt), "RefType"), pmid: null });
          d.refPmidSeen = false;
        }
        return;
      default:
    }
  }

  function onRaw(name: string, parent: string, attrs: string, content: string): void {
    switch (name) {
      case "AbstractText": {
        if (segments === null || (parent !== "Abstract" && parent !== "OtherAbstract") || content.length === 0) return;
        const label = attrIn(attrs, "Label");
        const cat = attrIn(attrs, "NlmCategory");
        segments.push({ label: label !== null ? nonEmpty(label) : null, nlmCategory: cat !== null ? nonEmpty(cat) : null, content });
        return;
      }
      case "ArticleTitle":
        if (parent === "Article") d.title = rawFlat(content);
        return;
      case "VernacularTitle":
        if (parent === "Article") d.vernacular = content;
        return;
      case "Keyword":
        if (parent === "KeywordList" && stack.length >= 2 && stack[stack.length - 2] === "MedlineCitation") d.keywords.push(content);
        return;
      case "CopyrightInformation":
        if (parent === "Abstract" && segments === d.abstract) d.copyright = content;
        return;
      case "CollectiveName":
        if (author && parent === "Author") author.collectiveName = content;
        return;
      case "Affiliation":
        if (!author) return;
        if (parent === "Author") author.direct.push(content);
        else if (parent === "AffiliationInfo") author.viaInfo.push(content);
        return;
      default:
    }
  }

  function onLeaf(name: string, parent: string, text: string): void {
    switch (name) {
      case "PMID":
        if (parent === "MedlineCitation") {
          if (d.pmid === null) {
            d.pmid = text;
            d.pmidVersion = attrIn(leafAttrs(), "Version");
          }
        } else if (parent === "CommentsCorrections") {
          const last = d.refs[d.refs.length - 1];
          if (last && !d.refPmidSeen) {
            last.pmid = nonEmpty(leaf(text));
            d.refPmidSeen = true;
          }
        } else if (parent === "DeleteCitation") d.deletePmids.push({ value: text, version: attrIn(leafAttrs(), "Version") });
        return;
      case "Title":
        if (parent === "Journal") d.journalTitle = text;
        return;
      case "ISOAbbreviation":
        if (parent === "Journal") d.iso = text;
        return;
      case "ISSN":
        if (parent === "Journal") d.issns.push({ type: attrIn(leafAttrs(), "IssnType"), value: text });
        return;
      case "ISSNLinking":
        if (parent === "MedlineJournalInfo") d.issnLinking = text;
        return;
      case "NlmUniqueID":
        if (parent === "MedlineJournalInfo") d.nlmUniqueId = text;
        return;
      case "Year":
      case "Month":
      case "Day":
      case "Season":
      case "MedlineDate":
        if (date !== null && (parent === "PubDate" || parent === "ArticleDate")) date[name] = text;
        return;
      case "Language":
        if (parent === "Article") {
          const l = leaf(text);
          if (l.length > 0) d.languages.push(l);
        }
        return;
      case "PublicationType":
        if (parent === "PublicationTypeList") {
          const t = leaf(text);
          if (t) d.types.push(t);
        }
        return;
      case "DescriptorName":
        if (parent === "MeshHeading") d.mesh.push(text);
        return;
      case "ArticleId":
        if (parent === "ArticleIdList" && stack.length >= 2 && stack[stack.length - 2] === "PubmedData") d.articleIds.push({ type: attrIn(leafAttrs(), "IdType"), value: text });
        return;
      case "ELocationID":
        if (parent === "Article") {
          const attrs = leafAttrs();
          d.elocations.push({ type: attrIn(attrs, "EIdType"), valid: attrIn(attrs, "ValidYN"), value: text });
        }
        return;
      case "LastName":
        if (author && parent === "Author") author.lastName = text;
        return;
      case "ForeName":
        if (author && parent === "Author") author.foreName = text;
        return;
      case "Initials":
        if (author && parent === "Author") author.initials = text;
        return;
      case "Identifier":
        if (author && parent === "Author" && attrIn(leafAttrs(), "Source") === "ORCID") author.orcids.push(text);
        return;
      default:
    }
  }
}
