/**
 * Record-by-record streaming parser for PubMed / MEDLINE XML.
 *
 * Reads efetch output (`<PubmedArticleSet>` of `<PubmedArticle>`) and baseline/update files
 * (`<MedlineCitationSet>` of top-level `<MedlineCitation>`, or `<PubmedArticleSet>` in the
 * 2019+ baseline), plain `.xml` or gzip-compressed `.xml.gz` (detected by the gzip magic bytes).
 *
 * Memory stays flat whatever the file size: the file is streamed (fs stream → zlib gunzip), the
 * bytes are cut at record boundaries (`</PubmedArticle>`, a top-level `</MedlineCitation>`,
 * `</DeleteCitation>`, `</PubmedBookArticle>`) by {@link RecordSplitter}, each record is held as
 * a latin1 string (one char per byte; only the fields we read are decoded as UTF-8, see
 * {@link utf8FromLatin1}), and each record is read on
 * its own, by default with the purpose-built scanner of `pubmed-scan.ts` (`reader: "scan"`), or
 * with fast-xml-parser (`reader: "fxp"`, settings in {@link PUBMED_PARSER_OPTIONS}), the full-tree
 * reference: subtrees we never read (reference, grant, chemical, investigator lists and the PubMed
 * history) are cut out before it sees the record. Both readers give identical records.
 *
 * Encodings: the file's bytes are decoded as its BOM or XML declaration says (UTF-8 by default,
 * see `xml-encoding.ts`); bytes invalid in that encoding are counted and reported once per file
 * as a warning of kind `"encoding"` (the records are kept, with U+FFFD in their place).
 *
 * Deleted citations: every PMID of a `<DeleteCitation>` becomes one {@link PubmedRecord} with
 * `flags.deleted = true`, empty title and empty lists (so a consumer applying an update file sees
 * the deletion in stream order). Cleaning drops them and the records they delete.
 *
 * `<PubmedBookArticle>` (NCBI Bookshelf) records are skipped and reported as warnings of kind
 * `"book"` (they have no MedlineCitation).
 *
 * @see MedConclusion §3.1.1 (parse each record into metadata, keywords and (label, nlm_category,
 *   text) segments); PubMed DTD 2025 (pubmed_250101.dtd) and the 2016 MEDLINE DTD.
 */
import { isAscii } from "node:buffer";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import { createRequire } from "node:module";
import type { XMLParser } from "fast-xml-parser";
import { XmlByteDecoder } from "./xml-encoding.ts";
import { scanRecordXml, type PubmedRecordScreen } from "./pubmed-scan.ts";
import type { AbstractSegment, Author, Journal, PubmedRecord } from "./types.ts";
import { PubmedRecordSchema } from "./types.ts";
import { decodeEntities, flattenInlineMarkup } from "./markup.ts";
import { applyRetractionFields, emptyPubmedRecord, leafText, normalizeOrcid, normalizePubDate, RAW_TEXT_ELEMENTS, SKIPPED_ELEMENTS, utf8FromLatin1 } from "./pubmed-fields.ts";

export { leafText, normalizeMedlineDate, normalizeOrcid, normalizePubDate, RAW_TEXT_ELEMENTS, SEASON_MONTHS, SKIPPED_ELEMENTS, utf8FromLatin1 } from "./pubmed-fields.ts";

/** Elements that may repeat and must always come back as arrays from the parser. */
export const REPEATABLE_ELEMENTS: ReadonlySet<string> = new Set([
  "AbstractText",
  "MeshHeading",
  "QualifierName",
  "Keyword",
  "KeywordList",
  "PublicationType",
  "Language",
  "ELocationID",
  "ArticleId",
  "OtherAbstract",
  "CommentsCorrections",
  "PMID",
  "ISSN",
  "OtherID",
  "ArticleDate",
  "Author",
  "AffiliationInfo",
  "Affiliation",
  "Identifier",
]);

/**
 * fast-xml-parser options used for one (reduced) record (see ../shared/STACK.md, fast-xml-parser):
 * attributes kept, values kept as strings (PMIDs, versions), repeatable elements always arrays.
 * Entities are decoded by our own code ({@link decodeEntities}), only in the fields we read, which
 * is much cheaper than the parser's per-value entity pass; inline-markup elements never reach the
 * parser (see {@link reduceRecordXml}), which replaces the `stopNodes` approach at lower cost.
 */
export const PUBMED_PARSER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  // Values are trimmed by our code after UTF-8 decoding: the parser's trim runs on latin1-held
  // bytes, where it removes the 0xA0 of a UTF-8 "à" (C3 A0), "Š", "†" … at the end of a value.
  trimValues: false,
  htmlEntities: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  jPath: false,
  isArray: (name: string): boolean => REPEATABLE_ELEMENTS.has(name),
};

/** A record with unneeded subtrees removed and raw-text element contents moved to a side table. */
export interface ReducedRecord {
  /** The reduced XML; a raw-text element's content is replaced by `@<index into raw>`. */
  xml: string;
  /** Raw inner XML of each raw-text element, in document order. */
  raw: string[];
}

/**
 * Prepare one record for fast-xml-parser in a single left-to-right scan: cut out the elements of
 * {@link SKIPPED_ELEMENTS}, and replace the content of each {@link RAW_TEXT_ELEMENTS} element
 * (inline markup, MathML) by a reference into a side table, so the parser neither builds nodes
 * for unneeded subtrees nor walks inline tags. Elements not named in either set pass through.
 * The same scan checks that the tags it walks are balanced (fast-xml-parser itself accepts
 * mismatched closing tags silently), so a broken record is reported rather than half-read.
 * @param xml - one record as cut by {@link RecordSplitter}.
 * @returns the reduced XML and the side table.
 * @throws Error on a mismatched, unexpected or missing closing tag (message gives the char offset).
 */
export function reduceRecordXml(xml: string): ReducedRecord {
  const raw: string[] = [];
  const stack: string[] = [];
  let out = "";
  let copyFrom = 0;
  const n = xml.length;
  let pos = xml.indexOf("<");
  while (pos >= 0) {
    let e = pos + 1;
    const c0 = xml.charCodeAt(e);
    if (c0 === 63 /* ? */ || c0 === 33 /* ! */) {
      pos = xml.indexOf("<", e);
      continue;
    }
    const closing = c0 === 47; /* / */
    if (closing) e++;
    const nameStart = e;
    while (e < n) {
      const c = xml.charCodeAt(e);
      if (c === 32 || c === 62 || c === 47 || c === 10 || c === 9 || c === 13) break;
      e++;
    }
    const name = xml.slice(nameStart, e);
    const gt = xml.indexOf(">", e);
    if (gt < 0) throw new Error(`unterminated tag <${closing ? "/" : ""}${name} at char ${pos}`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(open === undefined ? `unexpected </${name}> at char ${pos}` : `</${name}> at char ${pos} closes <${open}>`);
      pos = xml.indexOf("<", gt + 1);
      continue;
    }
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const skip = SKIPPED_ELEMENTS.has(name);
    if (!skip && !RAW_TEXT_ELEMENTS.has(name)) {
      if (!selfClosing) stack.push(name);
      pos = xml.indexOf("<", gt + 1);
      continue;
    }
    if (selfClosing) {
      if (skip) {
        out += xml.slice(copyFrom, pos);
        copyFrom = gt + 1;
      }
      pos = xml.indexOf("<", gt + 1);
      continue;
    }
    const close = `</${name}>`;
    const j = xml.indexOf(close, gt + 1);
    if (j < 0) throw new Error(`<${name}> at char ${pos} is never closed`);
    if (skip) {
      out += xml.slice(copyFrom, pos);
      copyFrom = j + close.length;
    } else {
      out += `${xml.slice(copyFrom, gt + 1)}@${raw.length}`;
      raw.push(xml.slice(gt + 1, j));
      copyFrom = j;
    }
    pos = xml.indexOf("<", j + close.length);
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]}> is never closed`);
  return { xml: copyFrom === 0 ? xml : out + xml.slice(copyFrom), raw };
}

/** A problem met while reading a file; the record is skipped (or the file ends early). */
export interface PubmedWarning {
  /** File path (or `"<string>"` for in-memory XML). */
  file: string;
  /** PMID of the record when it could be found, else null. */
  pmid: string | null;
  /** Byte offset of the record's start in the (decompressed) XML. */
  byteOffset: number;
  /**
   * `"malformed"` (record skipped), `"truncated"` (unfinished record at end), `"book"` (a
   * `PubmedBookArticle`, skipped; `pmid` is its PMID), `"encoding"` (once per file, at its end:
   * `invalidBytes` sequences were invalid in the file's encoding and became U+FFFD; no record is
   * skipped; `byteOffset` is the first one's, or 0 when unknown).
   */
  kind: "malformed" | "truncated" | "book" | "encoding";
  message: string;
  /** For `"encoding"`: ill-formed byte sequences in the file (each decoded as U+FFFD). */
  invalidBytes?: number;
  /** For `"encoding"`: the encoding the file was decoded with (as declared, e.g. "ISO-8859-1"; "UTF-8" by default). */
  encoding?: string;
}

/** Options of {@link parsePubmedFile} and {@link parsePubmedXmlString}. */
export interface ParsePubmedOptions {
  /** Called for each skipped record; default: ignore. */
  onWarning?: (warning: PubmedWarning) => void;
  /** Called after each raw chunk read, with the bytes read from disk so far (compressed bytes for .gz). */
  onProgress?: (bytesRead: number) => void;
  /**
   * Called with each chunk of the file's bytes as read from disk (compressed for .gz), in order,
   * before it is decompressed: e.g. to hash the file in the same read pass. The chunks cover the
   * whole file only when the file is read to its end.
   */
  onFileChunk?: (chunk: Buffer) => void;
  /** Validate each record with the zod {@link PubmedRecordSchema} (default false: the parser builds the shape itself; tests validate). */
  validate?: boolean;
  /** Record reader (default `"scan"`; `"fxp"` = the fast-xml-parser reference), see {@link PubmedRecordReader}. */
  reader?: PubmedRecordReader;
  /**
   * Early filter (scanner only; see {@link PubmedRecordScreen}): a citation it rejects is yielded
   * as its core record, its other text fields never decoded — for consumers that drop such records
   * (the ingest's cleaning). Ignored by the `"fxp"` reader (full records).
   */
  screen?: PubmedRecordScreen;
}

/** Error raised when a file cannot be read to its end (e.g. a truncated .gz). Records before the break were already yielded. */
export class PubmedFileError extends Error {
  /** @param file - the file; @param recordsBefore - records yielded before the break; @param cause - the underlying error. */
  constructor(
    readonly file: string,
    readonly recordsBefore: number,
    cause: unknown,
  ) {
    super(`${file}: read failed after ${recordsBefore} records: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "PubmedFileError";
  }
}

/** One record's raw XML cut from the stream. */
export interface RawRecord {
  /** Element name: PubmedArticle | MedlineCitation | DeleteCitation | PubmedBookArticle | DeleteDocument. */
  tag: string;
  xml: string;
  /** Byte offset of the record's start tag in the decompressed stream. */
  byteOffset: number;
  /**
   * True when every byte of the record is ASCII (checked natively on the bytes by
   * {@link RecordSplitter}): readers then skip the per-field UTF-8 decoding test. Absent: unknown.
   */
  ascii?: boolean;
}

/** Names of the top-level record elements, by first letter. */
const RECORD_TAGS_BY_INITIAL: ReadonlyMap<number, readonly string[]> = new Map([
  [0x50 /* P */, ["PubmedArticle", "PubmedBookArticle"]],
  [0x4d /* M */, ["MedlineCitation"]],
  [0x44 /* D */, ["DeleteCitation", "DeleteDocument"]],
]);
const CLOSE_TAGS: ReadonlyMap<string, Buffer> = new Map(
  ["PubmedArticle", "PubmedBookArticle", "MedlineCitation", "DeleteCitation", "DeleteDocument"].map((t) => [t, Buffer.from(`</${t}>`, "latin1")]),
);
/** Longest partial start tag that may hang at a chunk's end and must be kept. */
const KEEP_TAIL = 24;
const EMPTY: Buffer = Buffer.alloc(0);

/** The record element whose name starts at `b[p]` (followed by whitespace, `>` or `/`), or null. */
function recordTagAt(b: Buffer, p: number): string | null {
  const names = RECORD_TAGS_BY_INITIAL.get(b[p]);
  if (!names) return null;
  for (const name of names) {
    const end = p + name.length;
    if (end >= b.length) continue;
    const c = b[end];
    if (c !== 0x20 && c !== 0x3e && c !== 0x2f && c !== 0x0a && c !== 0x09 && c !== 0x0d) continue;
    let k = 1;
    while (k < name.length && b[p + k] === name.charCodeAt(k)) k++;
    if (k === name.length) return name;
  }
  return null;
}

/**
 * Incremental splitter: feed the decompressed bytes (UTF-8; see `xml-encoding.ts` for other
 * encodings) and get each complete record's XML back as a latin1 ("binary") string — one
 * character per byte, so string indexes are byte offsets and no UTF-8 decoding is spent on the
 * parts never read (UTF-8 multi-byte sequences never contain `<` or `>`, so cutting at tags is
 * safe); see {@link utf8FromLatin1}. Record boundaries are found in the bytes (native
 * `Buffer.indexOf`), so only records are turned into strings.
 * Works on the top level: once a `<PubmedArticle>` starts, everything up to its `</PubmedArticle>`
 * (including its nested `<MedlineCitation>`) is one record.
 */
export class RecordSplitter {
  private buf: Buffer = EMPTY;
  /** Byte offset (in the decompressed stream) of `buf[0]`. */
  private bufOffset = 0;
  /** Pending record start found in buf (index), its tag, and where to resume the end-tag search. */
  private pendingStart = -1;
  private pendingTag = "";
  private endSearchFrom = 0;

  /**
   * Add text held as a latin1 string (one char per byte) and return the records completed by it.
   * @param text - the next piece of the XML bytes, as latin1.
   */
  push(text: string): RawRecord[] {
    return this.pushBytes(Buffer.from(text, "latin1"));
  }

  /**
   * Add bytes and return the records completed by them.
   * @param chunk - the next piece of the (decompressed, UTF-8) XML.
   */
  pushBytes(chunk: Buffer): RawRecord[] {
    const out: RawRecord[] = [];
    let pos = 0;
    if (this.buf.length > 0 && this.pendingStart >= 0) {
      // A record began in an earlier chunk: find its end here without copying the whole chunk.
      const endAt = this.closeEndIn(chunk);
      if (endAt < 0) {
        this.buf = Buffer.concat([this.buf, chunk]);
        this.endSearchFrom = Math.max(0, this.buf.length - CLOSE_TAGS.get(this.pendingTag)!.length);
        return out;
      }
      const record = Buffer.concat([this.buf.subarray(this.pendingStart), chunk.subarray(0, endAt)]);
      out.push({ tag: this.pendingTag, xml: record.toString("latin1"), byteOffset: this.bufOffset + this.pendingStart, ascii: isAscii(record) });
      this.bufOffset += this.buf.length;
      this.buf = chunk;
      this.pendingStart = -1;
      pos = endAt;
    } else {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    }
    const buf = this.buf;
    for (;;) {
      let start: number;
      let tag: string;
      if (this.pendingStart >= 0) {
        start = this.pendingStart;
        tag = this.pendingTag;
      } else {
        let found: string | null = null;
        let i = buf.indexOf(0x3c, pos);
        while (i >= 0) {
          found = recordTagAt(buf, i + 1);
          if (found) break;
          i = buf.indexOf(0x3c, i + 1);
        }
        if (!found) {
          // Keep what may be the start of a record tag cut by the chunk's end: from the last "<"
          // when it lies in the last KEEP_TAIL bytes.
          const lt = buf.lastIndexOf(0x3c);
          this.drop(lt >= Math.max(pos, buf.length - KEEP_TAIL) ? lt : buf.length);
          return out;
        }
        start = i;
        tag = found;
        this.endSearchFrom = start;
      }
      const close = CLOSE_TAGS.get(tag)!;
      const end = buf.indexOf(close, this.endSearchFrom);
      if (end < 0) {
        // Unfinished: keep from the start tag, remember where to resume.
        this.drop(start);
        this.pendingStart = 0;
        this.pendingTag = tag;
        this.endSearchFrom = Math.max(0, this.buf.length - close.length);
        return out;
      }
      const stop = end + close.length;
      out.push({ tag, xml: buf.toString("latin1", start, stop), byteOffset: this.bufOffset + start, ascii: isAscii(buf.subarray(start, stop)) });
      this.pendingStart = -1;
      pos = stop;
    }
  }

  /**
   * Index in `chunk` just past the closing tag of the pending record, looking first for a tag cut
   * by the chunk boundary (the buffer was already searched up to its last bytes); -1 when absent.
   */
  private closeEndIn(chunk: Buffer): number {
    const close = CLOSE_TAGS.get(this.pendingTag)!;
    const l = close.length;
    const tail = Math.min(l - 1, this.buf.length - this.pendingStart);
    if (tail > 0) {
      const bridge = Buffer.concat([this.buf.subarray(this.buf.length - tail), chunk.subarray(0, l - 1)]);
      const k = bridge.indexOf(close);
      if (k >= 0) return k + l - tail;
    }
    const k = chunk.indexOf(close);
    return k >= 0 ? k + l : -1;
  }

  /** The unfinished record left in the buffer at end of input, if any. */
  leftover(): RawRecord | null {
    if (this.pendingStart < 0) return null;
    return { tag: this.pendingTag, xml: this.buf.toString("latin1"), byteOffset: this.bufOffset };
  }

  private drop(upTo: number): void {
    if (upTo <= 0) return;
    this.bufOffset += upTo;
    this.buf = upTo >= this.buf.length ? EMPTY : this.buf.subarray(upTo);
  }
}

// ---------------------------------------------------------------------------------------------
// Field extraction

type Node = Record<string, unknown>;
/**
 * The reference reader's fast-xml-parser, loaded on first use: the default reader (the scanner)
 * never needs it, and loading it costs every ingest worker ~0.1 s of start-up.
 */
let fxpParser: XMLParser | null = null;
function parser(): XMLParser {
  if (fxpParser === null) {
    const { XMLParser: Parser } = createRequire(import.meta.url)("fast-xml-parser") as typeof import("fast-xml-parser");
    fxpParser = new Parser(PUBMED_PARSER_OPTIONS);
  }
  return fxpParser;
}

function asNode(v: unknown): Node | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Node) : undefined;
}
function asArray(v: unknown): unknown[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
}
/** Text content of a parsed element (string, or object with "#text"), UTF-8 and entities decoded, then trimmed. */
function textOf(v: unknown): string {
  if (typeof v === "string") return leafText(v);
  if (typeof v === "number") return String(v);
  const n = asNode(v);
  if (n && typeof n["#text"] === "string") return leafText(n["#text"] as string);
  return "";
}
/** Side table of the record being converted (see {@link reduceRecordXml}). */
let currentRaw: string[] = [];
/** Plain text of a raw-text element: its content from the side table, flattened. */
function rawText(v: unknown): string {
  let t: unknown = v;
  const n = asNode(v);
  if (n) t = n["#text"];
  if (typeof t !== "string") return "";
  if (t.charCodeAt(0) === 64 /* @ */) {
    const content = currentRaw[Number(t.slice(1))];
    if (content !== undefined) return flattenInlineMarkup(utf8FromLatin1(content));
  }
  return flattenInlineMarkup(utf8FromLatin1(t));
}
function attr(v: unknown, name: string): string | null {
  const n = asNode(v);
  const a = n?.[`@_${name}`];
  return typeof a === "string" ? decodeEntities(utf8FromLatin1(a)) : null;
}
function nonEmpty(s: string): string | null {
  const t = s.trim();
  return t.length > 0 ? t : null;
}

function segmentsOf(abstractNode: unknown): AbstractSegment[] {
  const n = asNode(abstractNode);
  if (!n) return [];
  const out: AbstractSegment[] = [];
  for (const seg of asArray(n.AbstractText)) {
    const text = rawText(seg);
    if (text.length === 0) continue;
    const label = attr(seg, "Label");
    const cat = attr(seg, "NlmCategory");
    out.push({ label: label !== null ? nonEmpty(label) : null, nlmCategory: cat !== null ? nonEmpty(cat) : null, text });
  }
  return out;
}

function authorsOf(authorList: unknown): Author[] {
  const out: Author[] = [];
  for (const a of asArray(asNode(authorList)?.Author)) {
    const n = asNode(a);
    if (!n || attr(a, "ValidYN") === "N") continue;
    const affiliations: string[] = [];
    for (const aff of asArray(n.Affiliation)) {
      const t = rawText(aff);
      if (t) affiliations.push(t);
    }
    for (const info of asArray(n.AffiliationInfo)) {
      for (const aff of asArray(asNode(info)?.Affiliation)) {
        const t = rawText(aff);
        if (t) affiliations.push(t);
      }
    }
    let orcid: string | null = null;
    for (const id of asArray(n.Identifier)) {
      if (attr(id, "Source") === "ORCID") {
        orcid = normalizeOrcid(textOf(id));
        if (orcid) break;
      }
    }
    const author: Author = {
      lastName: nonEmpty(textOf(n.LastName)),
      foreName: nonEmpty(textOf(n.ForeName)),
      initials: nonEmpty(textOf(n.Initials)),
      collectiveName: nonEmpty(rawText(n.CollectiveName)),
      affiliations,
      orcid,
    };
    if (author.lastName === null && author.foreName === null && author.initials === null && author.collectiveName === null) continue;
    out.push(author);
  }
  return out;
}

/**
 * Build a {@link PubmedRecord} from a parsed `MedlineCitation` (and the sibling `PubmedData` of a
 * `PubmedArticle`, when present). `retractionIn` = true marks the record retracted even without a
 * `RetractionIn` entry in its (parsed) CommentsCorrectionsList.
 * @throws Error when the citation has no numeric PMID.
 */
export function citationToRecord(citation: Node, pubmedData?: Node, retractionIn = false): PubmedRecord {
  const pmidNode = asArray(citation.PMID)[0];
  const pmid = textOf(pmidNode).trim();
  if (!/^\d+$/.test(pmid)) throw new Error(`MedlineCitation has no numeric PMID (got ${JSON.stringify(pmid)})`);
  const rec = emptyPubmedRecord(pmid, attr(pmidNode, "Version") ?? "1");
  const article = asNode(citation.Article) ?? {};
  const journalNode = asNode(article.Journal) ?? {};
  const issns = asArray(journalNode.ISSN);
  const info = asNode(citation.MedlineJournalInfo) ?? {};
  const issnPreferred = issns.find((i) => attr(i, "IssnType") === "Print") ?? issns[0];
  const journal: Journal = {
    title: nonEmpty(textOf(journalNode.Title)),
    isoAbbreviation: nonEmpty(textOf(journalNode.ISOAbbreviation)),
    issn: nonEmpty(textOf(issnPreferred)) ?? nonEmpty(textOf(info.ISSNLinking)),
    nlmUniqueId: nonEmpty(textOf(info.NlmUniqueID)),
  };
  rec.journal = journal;
  rec.title = rawText(article.ArticleTitle);
  const vt = rawText(article.VernacularTitle);
  rec.vernacularTitle = vt.length > 0 ? vt : null;
  const issue = asNode(journalNode.JournalIssue);
  rec.pubDate = normalizePubDate(issue?.PubDate);
  if (rec.pubDate === null) {
    const ad = asArray(article.ArticleDate)[0];
    rec.pubDate = normalizePubDate(ad);
  }
  rec.languages = asArray(article.Language)
    .map((l) => textOf(l).trim())
    .filter((l) => l.length > 0);
  rec.publicationTypes = asArray(asNode(article.PublicationTypeList)?.PublicationType)
    .map((p) => textOf(p).trim())
    .filter(Boolean);
  rec.meshHeadings = asArray(asNode(citation.MeshHeadingList)?.MeshHeading)
    .map((h) => textOf(asNode(h)?.DescriptorName).trim())
    .filter(Boolean);
  for (const list of asArray(citation.KeywordList)) {
    for (const k of asArray(asNode(list)?.Keyword)) rec.keywords.push(rawText(k));
  }
  rec.abstract = segmentsOf(article.Abstract);
  rec.copyright = nonEmpty(rawText(asNode(article.Abstract)?.CopyrightInformation));
  rec.authors = authorsOf(article.AuthorList);
  for (const oa of asArray(citation.OtherAbstract)) {
    rec.otherAbstracts.push({ type: attr(oa, "Type"), language: attr(oa, "Language"), segments: segmentsOf(oa) });
  }
  // DOI: PubmedData/ArticleIdList first, else a valid ELocationID.
  let doi: string | null = null;
  for (const id of asArray(asNode(pubmedData?.ArticleIdList)?.ArticleId)) {
    if (attr(id, "IdType") === "doi") {
      doi = nonEmpty(textOf(id));
      if (doi) break;
    }
  }
  if (!doi) {
    for (const loc of asArray(article.ELocationID)) {
      if (attr(loc, "EIdType") === "doi" && attr(loc, "ValidYN") !== "N") {
        doi = nonEmpty(textOf(loc));
        if (doi) break;
      }
    }
  }
  rec.doi = doi;
  const refs = asArray(asNode(citation.CommentsCorrectionsList)?.CommentsCorrections).map((c) => ({
    refType: attr(c, "RefType"),
    pmid: nonEmpty(textOf(asArray(asNode(c)?.PMID)[0])),
  }));
  if (retractionIn && !refs.some((r) => r.refType === "RetractionIn")) refs.push({ refType: "RetractionIn", pmid: null });
  applyRetractionFields(rec, refs);
  return rec;
}

/**
 * Record readers: `"scan"` — the purpose-built scanner of `pubmed-scan.ts` (default, fast);
 * `"fxp"` — fast-xml-parser on the reduced record (the full-tree reference). Both give identical
 * records on DTD-valid input.
 */
export type PubmedRecordReader = "scan" | "fxp";

/**
 * Parse one record's XML (as cut by {@link RecordSplitter}) into records.
 * A `PubmedArticle` or `MedlineCitation` gives one record; a `DeleteCitation` gives one
 * `deleted` record per PMID; other tags give none.
 * @param raw - the record.
 * @param reader - {@link PubmedRecordReader} (default `"scan"`).
 * @param screen - optional early filter (scanner only, see {@link PubmedRecordScreen}).
 * @throws Error when the XML is malformed or lacks a PMID.
 */
export function parseRecordXml(raw: RawRecord, reader: PubmedRecordReader = "scan", screen?: PubmedRecordScreen): PubmedRecord[] {
  return reader === "scan" ? scanRecordXml(raw.tag, raw.xml, raw.ascii === true, screen) : parseRecordXmlFxp(raw);
}

/**
 * {@link parseRecordXml} with fast-xml-parser: the record is reduced ({@link reduceRecordXml}),
 * parsed into a tree, and the fields are read from the tree ({@link citationToRecord}).
 * @throws Error when the XML is malformed or lacks a PMID.
 */
export function parseRecordXmlFxp(raw: RawRecord): PubmedRecord[] {
  if (raw.tag === "PubmedBookArticle" || raw.tag === "DeleteDocument") return [];
  const reduced = reduceRecordXml(raw.xml);
  const doc = parser().parse(reduced.xml) as Node;
  currentRaw = reduced.raw;
  try {
    if (raw.tag === "PubmedArticle") {
      const art = asNode(doc.PubmedArticle);
      const citation = asNode(art?.MedlineCitation);
      if (!citation) throw new Error("PubmedArticle without MedlineCitation");
      return [citationToRecord(citation, asNode(art?.PubmedData))];
    }
    if (raw.tag === "MedlineCitation") {
      const citation = asNode(doc.MedlineCitation);
      if (!citation) throw new Error("empty MedlineCitation");
      return [citationToRecord(citation, undefined)];
    }
  } finally {
    currentRaw = [];
  }
  // DeleteCitation
  const del = asNode(doc.DeleteCitation) ?? {};
  return asArray(del.PMID).map((p) => {
    const pmid = textOf(p).trim();
    if (!/^\d+$/.test(pmid)) throw new Error(`DeleteCitation has a non-numeric PMID ${JSON.stringify(pmid)}`);
    const rec = emptyPubmedRecord(pmid, attr(p, "Version") ?? "1");
    rec.flags.deleted = true;
    return rec;
  });
}

const PMID_RE = /<PMID\b[^>]*>\s*(\d+)\s*<\/PMID>/;

function handleRaw(raw: RawRecord, file: string, opts: ParsePubmedOptions): PubmedRecord[] {
  if (raw.tag === "PubmedBookArticle") {
    const pmid = PMID_RE.exec(raw.xml)?.[1] ?? null;
    opts.onWarning?.({ file, pmid, byteOffset: raw.byteOffset, kind: "book", message: `${file}: book record (PubmedBookArticle${pmid ? `, PMID ${pmid}` : ""}) skipped: no MedlineCitation` });
    return [];
  }
  try {
    const recs = parseRecordXml(raw, opts.reader, opts.screen);
    if (opts.validate) for (let i = 0; i < recs.length; i++) recs[i] = PubmedRecordSchema.parse(recs[i]);
    return recs;
  } catch (err) {
    const pmid = PMID_RE.exec(raw.xml)?.[1] ?? null;
    const where = pmid ? `PMID ${pmid}` : `byte offset ${raw.byteOffset}`;
    opts.onWarning?.({
      file,
      pmid,
      byteOffset: raw.byteOffset,
      kind: "malformed",
      message: `${file}: skipped malformed ${raw.tag} (${where}): ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
    });
    return [];
  }
}

function handleLeftover(splitter: RecordSplitter, file: string, opts: ParsePubmedOptions): void {
  const left = splitter.leftover();
  if (!left) return;
  const pmid = PMID_RE.exec(left.xml)?.[1] ?? null;
  opts.onWarning?.({
    file,
    pmid,
    byteOffset: left.byteOffset,
    kind: "truncated",
    message: `${file}: unfinished ${left.tag} at end of input (byte offset ${left.byteOffset}${pmid ? `, PMID ${pmid}` : ""})`,
  });
}

/**
 * Parse PubMed XML held in memory (e.g. one efetch response).
 * @param xml - a `PubmedArticleSet` / `MedlineCitationSet` document (or bare records).
 * @param options - `onWarning` receives skipped records; `source` names the input in warnings.
 * @returns the records, in document order (deleted-citation records included).
 */
export function parsePubmedXmlString(xml: string, options: ParsePubmedOptions & { source?: string } = {}): PubmedRecord[] {
  const file = options.source ?? "<string>";
  const splitter = new RecordSplitter();
  const out: PubmedRecord[] = [];
  for (const raw of splitter.pushBytes(Buffer.from(xml, "utf8"))) for (const r of handleRaw(raw, file, options)) out.push(r);
  handleLeftover(splitter, file, options);
  return out;
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/**
 * Stream the records of a PubMed XML file (`.xml` or gzip `.xml.gz`), one at a time.
 * Memory is bounded by the largest record plus a read chunk (64 KiB), not by the file size.
 * Malformed records are skipped and reported through `onWarning` (file + PMID or byte offset).
 * @param path - the file.
 * @param options - see {@link ParsePubmedOptions}.
 * @returns an async generator of records in file order (deleted-citation records included).
 * @throws PubmedFileError when the file cannot be read to its end (missing, truncated gzip, I/O
 *   error) — thrown after every record before the break has been yielded.
 */
export async function* parsePubmedFile(path: string, options: ParsePubmedOptions = {}): AsyncGenerator<PubmedRecord> {
  let yielded = 0;
  let gz: boolean;
  try {
    gz = await isGzip(path);
  } catch (err) {
    throw new PubmedFileError(path, 0, err);
  }
  const fileStream = createReadStream(path, { highWaterMark: 256 * 1024 });
  const stream = gz ? fileStream.pipe(createGunzip({ chunkSize: 256 * 1024 })) : fileStream;
  if (gz) fileStream.on("error", (err) => stream.destroy(err));
  const onFileChunk = options.onFileChunk;
  if (onFileChunk) fileStream.on("data", (c) => onFileChunk(c as Buffer));
  const splitter = new RecordSplitter();
  const decoder = new XmlByteDecoder();
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      options.onProgress?.(fileStream.bytesRead);
      for (const raw of splitter.pushBytes(decoder.push(chunk))) {
        for (const rec of handleRaw(raw, path, options)) {
          yielded++;
          yield rec;
        }
      }
    }
    for (const raw of splitter.pushBytes(decoder.end())) {
      for (const rec of handleRaw(raw, path, options)) {
        yielded++;
        yield rec;
      }
    }
  } catch (err) {
    // Bytes the decoder still holds (it reads up to SNIFF_BYTES before deciding the encoding) go
    // to the splitter first, so a file cut early still reports its unfinished record and offset.
    let rest: RawRecord[] = [];
    try {
      rest = splitter.pushBytes(decoder.end());
    } catch {
      rest = [];
    }
    for (const raw of rest) {
      for (const rec of handleRaw(raw, path, options)) {
        yielded++;
        yield rec;
      }
    }
    handleLeftover(splitter, path, options);
    reportInvalidBytes(decoder, path, options);
    throw new PubmedFileError(path, yielded, err);
  } finally {
    fileStream.destroy();
    if (stream !== fileStream) stream.destroy();
  }
  handleLeftover(splitter, path, options);
  reportInvalidBytes(decoder, path, options);
}

function reportInvalidBytes(decoder: XmlByteDecoder, file: string, opts: ParsePubmedOptions): void {
  if (decoder.invalid === 0) return;
  const enc = decoder.declared ?? "UTF-8";
  const where = decoder.firstInvalidOffset !== null ? `; first at byte offset ${decoder.firstInvalidOffset}` : "";
  opts.onWarning?.({
    file,
    pmid: null,
    byteOffset: decoder.firstInvalidOffset ?? 0,
    kind: "encoding",
    invalidBytes: decoder.invalid,
    encoding: enc,
    message: `${file}: ${decoder.invalid} byte sequence(s) invalid in the file's encoding ${enc} (decoded as U+FFFD${where})`,
  });
}
