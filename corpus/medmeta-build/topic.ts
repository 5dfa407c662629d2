/**
 * The topic of a review, for stratified sampling: read from the review's own PubMed record
 * (efetch `db=pubmed`).
 *
 * Choice (documented): `mesh` (default) = the review's first **MeSH major heading** — the first
 * `<MeshHeading>` whose descriptor, or one of its qualifiers, has `MajorTopicYN="Y"` (MEDLINE lists
 * headings alphabetically, so "first" is a fixed, reproducible pick, not a ranking). Records not yet
 * MeSH-indexed (common for reviews of the last months) fall back to the journal, written
 * "journal: <title>"; with neither, "unknown". `journal` = always the journal title. MedMeta
 * itself mapped each review to one of 64 MeSH-tree specialties with an LLM (Appendix A); that needs
 * a model, and the MeSH tree numbers are not in PubMed records, so we stratify on the heading.
 */
import { decodeEntities, flattenInlineMarkup } from "../markup.ts";

/** What the review's PubMed record says about its topic and date. */
export interface ReviewPubmedInfo {
  pmid: string;
  /** Major MeSH descriptors in record order. */
  meshMajor: string[];
  journal: string | null;
  /** `<PubDate><Year>` (or the first 4-digit year of `<MedlineDate>`). */
  year: number | null;
}

/** How a topic is chosen (see the file header). */
export type TopicSource = "mesh" | "journal";

const text = (raw: string | undefined) => (raw === undefined ? null : flattenInlineMarkup(raw) || null);

/**
 * Read {@link ReviewPubmedInfo} from efetch PubMed XML (any number of `<PubmedArticle>`s).
 * @returns one entry per article, keyed by PMID.
 */
export function parseReviewPubmedInfo(xml: string): Map<string, ReviewPubmedInfo> {
  const out = new Map<string, ReviewPubmedInfo>();
  for (const m of xml.matchAll(/<PubmedArticle\b[\s\S]*?<\/PubmedArticle>/g)) {
    const a = m[0];
    const pmid = /<PMID\b[^>]*>\s*(\d+)\s*<\/PMID>/.exec(a)?.[1];
    if (!pmid) continue;
    const meshMajor: string[] = [];
    for (const h of a.matchAll(/<MeshHeading>([\s\S]*?)<\/MeshHeading>/g)) {
      const d = /<DescriptorName\b([^>]*)>([\s\S]*?)<\/DescriptorName>/.exec(h[1]);
      if (!d) continue;
      const major = /MajorTopicYN="Y"/.test(d[1]) || /<QualifierName\b[^>]*MajorTopicYN="Y"/.test(h[1]);
      const name = text(d[2]);
      if (major && name) meshMajor.push(decodeEntities(name));
    }
    const journalBlock = /<Journal>([\s\S]*?)<\/Journal>/.exec(a)?.[1] ?? "";
    const pubDate = /<PubDate>([\s\S]*?)<\/PubDate>/.exec(journalBlock)?.[1] ?? "";
    const y = /<Year>\s*(\d{4})/.exec(pubDate)?.[1] ?? /<MedlineDate>[^<]*?(\d{4})/.exec(pubDate)?.[1];
    out.set(pmid, { pmid, meshMajor, journal: text(/<Title>([\s\S]*?)<\/Title>/.exec(journalBlock)?.[1]), year: y ? Number(y) : null });
  }
  return out;
}

/**
 * The stratification topic of a review (rule in the file header).
 * @param info its PubMed info, or null when PubMed did not return the record.
 * @param journalFallback the journal from the JATS XML, used when PubMed gives none.
 */
export function topicOf(info: ReviewPubmedInfo | null, source: TopicSource, journalFallback: string | null = null): string {
  const journal = info?.journal ?? journalFallback;
  if (source === "mesh" && info?.meshMajor.length) return info.meshMajor[0];
  if (journal) return source === "mesh" ? `journal: ${journal}` : journal;
  return "unknown";
}
