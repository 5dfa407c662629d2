"""Anchor of the whole-ingest bench: PubMed XML -> JSONL with lxml iterparse, one thread.

Reads each file (gzip or plain) and writes one JSON line per record, clearing each element after
use (flat memory). Prints "records=<n> deleted=<m>".

Fields (--fields):
- "full" (default): the same fields medsynth's records hold, extracted by `citation_record` of
  `lxml-anchor.py` (PMID + version, titles, journal with ISSNs and NLM id, dates, languages,
  publication types, MeSH, keywords, abstract segments, other abstracts, copyright, DOI, authors
  with affiliations and ORCID, retraction links) — the like-for-like anchor;
- "core": a lighter record (no authors, affiliations, ISSNs, other abstracts, copyright, article
  date or retraction links), the anchor used before; kept for comparison.

Usage: python3 lxml-ingest-anchor.py [--fields full|core] OUT.jsonl FILE...
"""
import gzip
import importlib.util
import json
import os
import sys

from lxml import etree


def _full_record():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("lxml_anchor", os.path.join(here, "lxml-anchor.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.citation_record


def text_of(el):
    return "".join(el.itertext()).strip() if el is not None else ""


def core_record(cit, pubmed_data):
    pmid_el = cit.find("PMID")
    art = cit.find("Article")
    journal = art.find("Journal") if art is not None else None
    date = journal.find("JournalIssue/PubDate") if journal is not None else None
    doi = None
    if art is not None:
        for e in art.findall("ELocationID"):
            if e.get("EIdType") == "doi":
                doi = text_of(e)
    if doi is None and pubmed_data is not None:
        for e in pubmed_data.findall("ArticleIdList/ArticleId"):
            if e.get("IdType") == "doi":
                doi = text_of(e)
    abstract = []
    if art is not None:
        for a in art.findall("Abstract/AbstractText"):
            abstract.append({"label": a.get("Label"), "nlmCategory": a.get("NlmCategory"), "text": text_of(a)})
    return {
        "pmid": text_of(pmid_el),
        "version": pmid_el.get("Version", "1") if pmid_el is not None else "1",
        "doi": doi,
        "title": text_of(art.find("ArticleTitle")) if art is not None else "",
        "journal": {"title": text_of(journal.find("Title")) if journal is not None else None,
                    "isoAbbreviation": text_of(journal.find("ISOAbbreviation")) if journal is not None else None},
        "pubDate": "-".join(t for t in (text_of(date.find("Year")), text_of(date.find("Month"))) if t) if date is not None else None,
        "languages": [text_of(l) for l in art.findall("Language")] if art is not None else [],
        "publicationTypes": [text_of(p) for p in art.findall("PublicationTypeList/PublicationType")] if art is not None else [],
        "meshHeadings": [text_of(m.find("DescriptorName")) for m in cit.findall("MeshHeadingList/MeshHeading")],
        "keywords": [text_of(k) for k in cit.findall("KeywordList/Keyword")],
        "abstract": abstract,
    }


def main():
    args = sys.argv[1:]
    fields = "full"
    if args and args[0] == "--fields":
        fields, args = args[1], args[2:]
    if fields not in ("full", "core"):
        sys.exit(f"--fields must be full or core, got {fields}")
    record = _full_record() if fields == "full" else core_record
    out_path, files = args[0], args[1:]
    n = deleted = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for path in files:
            fh = gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")
            with fh:
                for _, el in etree.iterparse(fh, events=("end",), tag=("PubmedArticle", "MedlineCitation", "DeleteCitation")):
                    if el.tag == "MedlineCitation":
                        parent = el.getparent()
                        if parent is not None and parent.tag == "PubmedArticle":
                            continue  # read with its PubmedArticle
                        out.write(json.dumps(record(el, None)) + "\n")
                        n += 1
                    elif el.tag == "DeleteCitation":
                        deleted += len(el.findall("PMID"))
                    else:
                        out.write(json.dumps(record(el.find("MedlineCitation"), el.find("PubmedData"))) + "\n")
                        n += 1
                    el.clear()
                    while el.getprevious() is not None:
                        del el.getparent()[0]
    print(f"records={n} deleted={deleted}")


main()
