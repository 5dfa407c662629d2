/** Builders of tiny PubMed XML files for the ingest tests (real element names, hand-made content). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** One citation of a fixture file. */
export interface FixtureCitation {
  pmid: string;
  version?: string;
  title: string;
  doi?: string;
  /** Abstract conclusion text (the other sections are fixed). */
  conclusion?: string;
  language?: string;
}

/** A structured MedlineCitation (BACKGROUND, METHODS, RESULTS, CONCLUSIONS) that passes cleaning. */
export function citationXml(c: FixtureCitation): string {
  const version = c.version ? ` Version="${c.version}"` : "";
  const doi = c.doi ? `<ELocationID EIdType="doi" ValidYN="Y">${c.doi}</ELocationID>` : "";
  return `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID${version}>${c.pmid}</PMID>
<Article PubModel="Print"><Journal><ISSN IssnType="Print">1234-5678</ISSN><JournalIssue><PubDate><Year>2020</Year><Month>Mar</Month></PubDate></JournalIssue><Title>Journal of Tests</Title><ISOAbbreviation>J Tests</ISOAbbreviation></Journal>
<ArticleTitle>${c.title}</ArticleTitle>${doi}
<Abstract><AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Background of ${c.pmid}.</AbstractText><AbstractText Label="METHODS" NlmCategory="METHODS">Methods of ${c.pmid}.</AbstractText><AbstractText Label="RESULTS" NlmCategory="RESULTS">Results of ${c.pmid}.</AbstractText><AbstractText Label="CONCLUSIONS" NlmCategory="CONCLUSIONS">${c.conclusion ?? `Conclusion of ${c.pmid}.`}</AbstractText></Abstract>
<Language>${c.language ?? "eng"}</Language><PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType></PublicationTypeList></Article>
<MedlineJournalInfo><NlmUniqueID>0001</NlmUniqueID></MedlineJournalInfo></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">${c.pmid}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`;
}

/**
 * Write a PubmedArticleSet file.
 * @param dir - folder; @param name - file name; @param citations - records; @param deletes - PMIDs of a DeleteCitation.
 * @returns the path.
 */
export function writeSet(dir: string, name: string, citations: FixtureCitation[], deletes: string[] = []): string {
  const del = deletes.length ? `<DeleteCitation>${deletes.map((p) => `<PMID Version="1">${p}</PMID>`).join("")}</DeleteCitation>` : "";
  const path = join(dir, name);
  writeFileSync(path, `<?xml version="1.0" encoding="utf-8"?>\n<PubmedArticleSet>\n${citations.map(citationXml).join("\n")}\n${del}\n</PubmedArticleSet>\n`);
  return path;
}
