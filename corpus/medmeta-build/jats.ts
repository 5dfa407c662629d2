/**
 * Reading a review out of PMC JATS XML (what efetch `db=pmc` returns): title, publication date,
 * journal, the review's conclusion, its reference list and its included-studies tables.
 *
 * Rules (documented here because they decide what a MedMeta item is):
 * - **Conclusion** ({@link findConclusion}), first match wins:
 *   1. abstract: in the main `<abstract>` (no `abstract-type`), then the others, a `<sec>` whose
 *      title is "Conclusion(s)", "Authors' conclusion(s)" or starts with either ("Conclusions and
 *      Relevance"), or a `<p>` that starts with such a label and a colon ("Conclusions: …");
 *   2. body: the first `<sec>` (at any depth, so also inside Discussion) titled "Conclusion(s)" or
 *      "Concluding remarks" (section numbers such as "5." ignored);
 *   3. Discussion: the last paragraph of a section titled "Discussion…" that opens with "In
 *      conclusion", "In summary", "To conclude", "To summarise/summarize" or "Taken together".
 *   Otherwise none (MedMeta's criterion 3: a conclusion explicit enough to parse).
 * - **Included-studies tables** ({@link INCLUDED_TABLE_RE}): a `<table-wrap>` whose label + caption
 *   mention the characteristics of the included/eligible studies or trials ("Characteristics of
 *   included studies", "Study characteristics", "Main characteristics of the included trials",
 *   "Summary of included studies"), and not excluded/ongoing ones. Its studies are the targets of
 *   `<xref ref-type="bibr" rid="…">` inside the table body (caption and footnotes are left out: they
 *   cite methods papers); a table without such links falls back to first-author surname + year
 *   found in the table text ("Smith 2019", "Smith et al. (2019)").
 * - **References**: `<ref>` elements of `<ref-list>`; the PMID is `<pub-id pub-id-type="pmid">` or a
 *   PubMed `<ext-link>`; DOI, article title, journal (`<source>`), year, volume, first page and the
 *   first author's surname are kept for resolving refs without a PMID.
 * - **Publication date**: the electronic publication date (`pub-type="epub"` or `date-type="pub"`
 *   `publication-format="electronic"`), else the print one, else the first dated `<pub-date>`
 *   other than `pmc-release`.
 *
 * Parsing uses fast-xml-parser in document order (`preserveOrder`) so mixed content keeps its words
 * and spacing; block elements (`p`, `sec`, `title`, table cells …) are separated by a space.
 *
 * @see MedMeta §3.1 (inclusion criteria: a characteristics-of-studies table, all primary studies in
 *   PubMed, an explicit conclusion); JATS 1.3 tag library (`ref`, `pub-id`, `xref`, `table-wrap`).
 */
import { XMLParser } from "fast-xml-parser";

/** An element of the parsed JATS tree (text children are strings). */
export interface JatsElement {
  tag: string;
  attrs: Record<string, string>;
  children: (JatsElement | string)[];
}

/** One reference of the review's reference list. */
export interface JatsRef {
  /** The `<ref id>` that `xref rid` points to. */
  id: string;
  label: string | null;
  pmid: string | null;
  doi: string | null;
  title: string | null;
  journal: string | null;
  year: string | null;
  volume: string | null;
  firstPage: string | null;
  /** First author's surname (or the group name). */
  firstAuthor: string | null;
}

/** An included-studies table and the refs it cites. */
export interface JatsStudyTable {
  id: string | null;
  /** Label and caption, e.g. "Table 1 Characteristics of the included studies". */
  caption: string;
  /** Ref ids cited in the table body, in first-citation order. */
  refIds: string[];
  /** How the citations were found: reference links, or first author + year in the text. */
  method: "xref" | "author-year";
}

/** Where the conclusion was found (see the file header). */
export type ConclusionSource = "abstract" | "body-section" | "discussion-paragraph";

/** The parts of a review that a MedMeta item needs. */
export interface JatsReview {
  pmid: string | null;
  /** "PMC…" or null. */
  pmcid: string | null;
  title: string;
  journal: string | null;
  /** Publication date (see the file header). */
  pubDate: { year: number; month: number | null; day: number | null } | null;
  conclusion: { text: string; source: ConclusionSource; heading: string } | null;
  /**
   * The XML has a `<body>` (full text) and no "publisher … does not allow downloading of the full
   * text" comment; PMC serves only front matter for articles outside the open-access subset.
   */
  hasBody: boolean;
  /** A `<ref-list>` is present. */
  hasRefList: boolean;
  refs: JatsRef[];
  studyTables: JatsStudyTable[];
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
  processEntities: true,
  commentPropName: "#comment",
});

type Ordered = Record<string, unknown>;

function toElements(nodes: unknown): (JatsElement | string)[] {
  if (!Array.isArray(nodes)) return [];
  const out: (JatsElement | string)[] = [];
  for (const n of nodes as Ordered[]) {
    const attrsRaw = (n[":@"] ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(n)) {
      if (k === ":@") continue;
      if (k === "#text") out.push(String(v));
      else {
        const attrs: Record<string, string> = {};
        for (const [a, av] of Object.entries(attrsRaw)) attrs[a] = String(av);
        out.push({ tag: k, attrs, children: toElements(v) });
      }
    }
  }
  return out;
}

/**
 * Parse JATS (or a `<pmc-articleset>` of it) into an element tree.
 * @returns a synthetic root element "#document" holding the top-level nodes.
 * @throws Error when the text is not well-formed XML.
 */
export function parseJats(xml: string): JatsElement {
  return { tag: "#document", attrs: {}, children: toElements(parser.parse(xml)) };
}

const isEl = (n: JatsElement | string): n is JatsElement => typeof n !== "string";

/** Child elements of `el` with tag `tag`. */
export function childrenOf(el: JatsElement, tag: string): JatsElement[] {
  return el.children.filter((c): c is JatsElement => isEl(c) && c.tag === tag);
}

/** Descendant elements matching `pred`, in document order; does not descend into matches when `stopAtMatch`. */
export function findAll(el: JatsElement, pred: (e: JatsElement) => boolean, stopAtMatch = false): JatsElement[] {
  const out: JatsElement[] = [];
  const walk = (e: JatsElement) => {
    for (const c of e.children) {
      if (!isEl(c)) continue;
      if (pred(c)) {
        out.push(c);
        if (stopAtMatch) continue;
      }
      walk(c);
    }
  };
  walk(el);
  return out;
}

/** First descendant with tag `tag`, or null. */
export function findFirst(el: JatsElement, tag: string): JatsElement | null {
  for (const c of el.children) {
    if (!isEl(c)) continue;
    if (c.tag === tag) return c;
    const d = findFirst(c, tag);
    if (d) return d;
  }
  return null;
}

const BLOCK = new Set(["p", "sec", "title", "label", "list", "list-item", "td", "th", "tr", "caption", "table-wrap", "fig", "def", "term", "ref", "abstract", "disp-quote", "boxed-text"]);

/**
 * Plain text of an element: text in document order, block elements separated by a space,
 * whitespace collapsed, trimmed.
 * @param skip tags left out with their content (e.g. `title` for a section's body).
 */
export function textOf(el: JatsElement | null, skip: ReadonlySet<string> = new Set()): string {
  if (!el) return "";
  const parts: string[] = [];
  const walk = (e: JatsElement) => {
    for (const c of e.children) {
      if (!isEl(c)) parts.push(c);
      else if (c.tag === "#comment" || skip.has(c.tag)) continue;
      else if (BLOCK.has(c.tag)) {
        parts.push(" ");
        walk(c);
        parts.push(" ");
      } else walk(c);
    }
  };
  walk(el);
  return parts.join("").replace(/\s+/g, " ").trim();
}

/** Text of an element's direct `<title>` child ("" when none). */
const titleOf = (el: JatsElement) => textOf(childrenOf(el, "title")[0] ?? null);

/** Section titles that mark a conclusion in an abstract ("Conclusion(s)", "Authors' conclusion(s)", "Conclusions and relevance" …). */
export const ABSTRACT_CONCLUSION_RE = /^(?:authors['’]?\s+)?conclusions?\b/i;
/** Body section titles that are the conclusion. */
export const BODY_CONCLUSION_RE = /^(?:[\dIVX]+(?:\.\d+)*\.?\s+)?(?:conclusions?|concluding remarks)\b/i;
/** Body section titles of the discussion. */
export const DISCUSSION_RE = /^(?:[\dIVX]+(?:\.\d+)*\.?\s+)?discussion\b/i;
/** Openings of a discussion paragraph that states the conclusion. */
export const CONCLUDING_PARAGRAPH_RE = /^(?:in conclusion|in summary|to conclude|to summari[sz]e|taken together)\b/i;
/** Inline label at the start of an unstructured abstract paragraph ("Conclusions: …"). */
const INLINE_LABEL_RE = /^((?:authors['’]?\s+)?conclusions?)\s*[:.]\s*/i;

/**
 * The review's conclusion, by the rule in the file header.
 * @param article the `<article>` element.
 * @returns the text with its source and the heading it was found under, or null.
 */
export function findConclusion(article: JatsElement): JatsReview["conclusion"] {
  const front = findFirst(article, "front");
  const abstracts = front ? findAll(front, (e) => e.tag === "abstract", true) : [];
  const ordered = [...abstracts.filter((a) => !a.attrs["abstract-type"]), ...abstracts.filter((a) => a.attrs["abstract-type"])];
  for (const a of ordered) {
    for (const sec of findAll(a, (e) => e.tag === "sec")) {
      const heading = titleOf(sec);
      if (ABSTRACT_CONCLUSION_RE.test(heading)) {
        const text = textOf(sec, new Set(["title", "label"]));
        if (text) return { text, source: "abstract", heading };
      }
    }
    for (const p of findAll(a, (e) => e.tag === "p")) {
      const t = textOf(p);
      const m = INLINE_LABEL_RE.exec(t);
      if (m && t.length > m[0].length) return { text: t.slice(m[0].length).trim(), source: "abstract", heading: m[1] };
    }
  }
  const body = findFirst(article, "body");
  if (!body) return null;
  const secs = findAll(body, (e) => e.tag === "sec");
  for (const sec of secs) {
    const heading = titleOf(sec);
    if (BODY_CONCLUSION_RE.test(heading)) {
      const text = textOf(sec, new Set(["title", "label", "table-wrap", "fig"]));
      if (text) return { text, source: "body-section", heading };
    }
  }
  for (const sec of secs) {
    const heading = titleOf(sec);
    if (!DISCUSSION_RE.test(heading)) continue;
    const paras = findAll(sec, (e) => e.tag === "p")
      .map((p) => textOf(p))
      .filter((t) => CONCLUDING_PARAGRAPH_RE.test(t));
    if (paras.length) return { text: paras[paras.length - 1], source: "discussion-paragraph", heading };
  }
  return null;
}

/**
 * Table label + caption text that marks an included-studies table. Matches "characteristics of
 * (the) (included|eligible|selected|individual|primary) studies/trials/RCTs", "study/trial
 * characteristics", "(included|eligible) studies/trials", "summary of (the) (included)
 * studies/trials"; see {@link EXCLUDED_TABLE_RE} for what is left out.
 */
export const INCLUDED_TABLE_RE =
  /characteristics of (?:the )?(?:(?:included|eligible|selected|individual|primary)\s+)?(?:studies|trials|rcts)\b|\b(?:study|trial)\s+characteristics\b|\b(?:included|eligible)\s+(?:studies|trials|rcts)\b|summary of (?:the )?(?:included\s+)?(?:studies|trials)\b/i;
/** Captions of tables about other studies than the included ones (excluded, ongoing, awaiting classification). */
export const EXCLUDED_TABLE_RE = /\b(?:excluded|ongoing|awaiting)\b/i;

function refOf(ref: JatsElement): JatsRef {
  const cit = findAll(ref, (e) => e.tag === "element-citation" || e.tag === "mixed-citation" || e.tag === "citation" || e.tag === "nlm-citation", true)[0] ?? ref;
  const pubIds = findAll(ref, (e) => e.tag === "pub-id");
  const pubId = (type: string) => {
    const e = pubIds.find((p) => (p.attrs["pub-id-type"] ?? "").toLowerCase() === type);
    return e ? textOf(e) || null : null;
  };
  let pmid = pubId("pmid");
  if (!pmid) {
    const link = findAll(ref, (e) => e.tag === "ext-link" && /pubmed/i.test(`${e.attrs["ext-link-type"] ?? ""} ${e.attrs["xlink:href"] ?? ""}`))[0];
    const m = link ? /(\d{1,9})\/?$/.exec(link.attrs["xlink:href"] ?? textOf(link)) : null;
    pmid = m ? m[1] : null;
  }
  if (pmid && !/^\d+$/.test(pmid)) pmid = null;
  const first = (tag: string) => {
    const e = findFirst(cit, tag);
    return e ? textOf(e) || null : null;
  };
  const surname = findFirst(cit, "surname");
  return {
    id: ref.attrs.id ?? "",
    label: textOf(childrenOf(ref, "label")[0] ?? null) || null,
    pmid,
    doi: pubId("doi"),
    title: first("article-title"),
    journal: first("source"),
    year: (first("year") ?? "").match(/\d{4}/)?.[0] ?? null,
    volume: first("volume"),
    firstPage: first("fpage") ?? first("elocation-id"),
    firstAuthor: surname ? textOf(surname) : first("collab"),
  };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Ref ids whose first author's surname is followed within 40 characters by the ref's year in `text`. */
function refsByAuthorYear(text: string, refs: readonly JatsRef[]): string[] {
  const hits: { id: string; at: number }[] = [];
  for (const r of refs) {
    if (!r.firstAuthor || !r.year) continue;
    const m = new RegExp(`\\b${escapeRe(r.firstAuthor)}\\b[^\\n]{0,40}?\\b${r.year}\\b`).exec(text);
    if (m) hits.push({ id: r.id, at: m.index });
  }
  return hits.sort((a, b) => a.at - b.at).map((h) => h.id);
}

function studyTables(article: JatsElement, refs: readonly JatsRef[]): JatsStudyTable[] {
  const known = new Set(refs.map((r) => r.id));
  const out: JatsStudyTable[] = [];
  for (const tw of findAll(article, (e) => e.tag === "table-wrap")) {
    const caption = `${textOf(childrenOf(tw, "label")[0] ?? null)} ${textOf(childrenOf(tw, "caption")[0] ?? null)}`.trim();
    if (!INCLUDED_TABLE_RE.test(caption) || EXCLUDED_TABLE_RE.test(caption)) continue;
    const bodyParts = tw.children.filter((c): c is JatsElement => isEl(c) && !["label", "caption", "table-wrap-foot", "object-id"].includes(c.tag));
    const ids: string[] = [];
    for (const part of bodyParts)
      for (const x of findAll({ tag: "#part", attrs: {}, children: [part] }, (e) => e.tag === "xref" && e.attrs["ref-type"] === "bibr"))
        for (const rid of (x.attrs.rid ?? "").split(/\s+/)) if (known.has(rid) && !ids.includes(rid)) ids.push(rid);
    if (ids.length) out.push({ id: tw.attrs.id ?? null, caption, refIds: ids, method: "xref" });
    else {
      const text = bodyParts.map((p) => textOf(p)).join(" ");
      out.push({ id: tw.attrs.id ?? null, caption, refIds: refsByAuthorYear(text, refs), method: "author-year" });
    }
  }
  return out;
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function pubDateOf(meta: JatsElement | null): JatsReview["pubDate"] {
  if (!meta) return null;
  const dates = childrenOf(meta, "pub-date").filter((d) => /\d{4}/.test(textOf(childrenOf(d, "year")[0] ?? null)));
  const kind = (d: JatsElement) => {
    const t = d.attrs["pub-type"] ?? d.attrs["date-type"] ?? "";
    const f = d.attrs["publication-format"] ?? "";
    if (t === "epub" || (t === "pub" && f === "electronic")) return 0;
    if (t === "ppub" || (t === "pub" && f === "print") || t === "pub") return 1;
    if (t === "pmc-release") return 3;
    return 2;
  };
  const best = [...dates].sort((a, b) => kind(a) - kind(b))[0];
  if (!best || kind(best) === 3) return null;
  const num = (tag: string) => {
    const t = textOf(childrenOf(best, tag)[0] ?? null);
    if (!t) return null;
    if (/^\d+$/.test(t)) return Number(t);
    const i = MONTH_NAMES.indexOf(t.slice(0, 3).toLowerCase());
    return i >= 0 ? i + 1 : null;
  };
  return { year: Number(textOf(childrenOf(best, "year")[0] ?? null).match(/\d{4}/)![0]), month: num("month"), day: num("day") };
}

/**
 * Extract a {@link JatsReview} from one `<article>` element.
 * @param article an element from {@link pmcArticles} (or the `<article>` of a single JATS file).
 */
export function extractReview(article: JatsElement): JatsReview {
  const meta = findFirst(article, "article-meta");
  const idOf = (type: string) => {
    const e = meta ? childrenOf(meta, "article-id").find((a) => a.attrs["pub-id-type"] === type) : undefined;
    return e ? textOf(e) : null;
  };
  const pmcRaw = idOf("pmc") ?? idOf("pmcid");
  const titleGroup = meta ? childrenOf(meta, "title-group")[0] : undefined;
  const refList = findAll(article, (e) => e.tag === "ref-list");
  const refs = refList.flatMap((rl) => findAll(rl, (e) => e.tag === "ref", true)).map(refOf);
  const journalMeta = findFirst(article, "journal-meta");
  return {
    pmid: idOf("pmid"),
    pmcid: pmcRaw ? (pmcRaw.toUpperCase().startsWith("PMC") ? pmcRaw.toUpperCase() : `PMC${pmcRaw}`) : null,
    title: textOf(titleGroup ? (childrenOf(titleGroup, "article-title")[0] ?? null) : null),
    journal: journalMeta ? textOf(findFirst(journalMeta, "journal-title")) || null : null,
    pubDate: pubDateOf(meta),
    conclusion: findConclusion(article),
    hasBody: findFirst(article, "body") !== null && !findAll(article, (e) => e.tag === "#comment" && WITHHELD_RE.test(textOf(e))).length,
    hasRefList: refList.length > 0,
    refs,
    studyTables: studyTables(article, refs),
  };
}

/** PMC's comment in place of the full text of an article outside the open-access subset. */
const WITHHELD_RE = /does not allow downloading of the full text/i;

/** The `<article>` elements of a `<pmc-articleset>` (or of a single JATS document). */
export function pmcArticles(doc: JatsElement): JatsElement[] {
  return findAll(doc, (e) => e.tag === "article", true);
}
