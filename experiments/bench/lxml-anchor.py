"""lxml anchor of experiments/bench/ingest.ts: parse PubMed XML files with lxml.etree.iterparse.

Reads every .xml / .xml.gz file given (or found in the folders given), one thread, and extracts
the same fields medsynth's parser does into a dict per record (PMID + version, title, vernacular
title, journal title / ISO abbreviation / ISSN / NLM id, publication date parts, languages,
publication types, MeSH descriptors, keywords, abstract segments with label and NLM category,
other abstracts, copyright line, DOI, authors with affiliations and ORCID, CommentsCorrections
retraction links), clearing each top-level element after use so memory stays flat (the usual
streaming idiom). Records are counted, not written.

Prints one JSON line: {"records", "deleted", "books", "segments", "start_rss_kib", "seconds",
"cpu_seconds", "peak_rss_kib"} — seconds timed around the parse only (interpreter start-up
excluded), peak RSS from getrusage (KiB on Linux), before parsing and at the end.

Usage: python3 experiments/bench/lxml-anchor.py FILE_OR_DIR...
"""
import gzip
import json
import os
import resource
import sys
import time

from lxml import etree

TOP = ("PubmedArticle", "MedlineCitation", "DeleteCitation", "PubmedBookArticle")


def text_of(el):
    return "".join(el.itertext()).strip() if el is not None else ""


def segments(parent):
    out = []
    if parent is None:
        return out
    for a in parent.iterfind("AbstractText"):
        t = " ".join(text_of(a).split())
        if t:
            out.append((a.get("Label"), a.get("NlmCategory"), t))
    return out


def date_parts(d):
    if d is None:
        return None
    return {c.tag: (c.text or "").strip() for c in d}


def citation_record(cit, pubmed_data):
    pmid_el = cit.find("PMID")
    art = cit.find("Article")
    rec = {"pmid": (pmid_el.text or "").strip(), "version": pmid_el.get("Version", "1")}
    if art is None:
        return rec
    journal = art.find("Journal")
    rec["journal"] = {
        "title": text_of(journal.find("Title")) if journal is not None else "",
        "iso": text_of(journal.find("ISOAbbreviation")) if journal is not None else "",
        "issn": [(i.get("IssnType"), text_of(i)) for i in journal.iterfind("ISSN")] if journal is not None else [],
    }
    info = cit.find("MedlineJournalInfo")
    if info is not None:
        rec["journal"]["nlm"] = text_of(info.find("NlmUniqueID"))
        rec["journal"]["issnLinking"] = text_of(info.find("ISSNLinking"))
    rec["pubDate"] = date_parts(art.find("Journal/JournalIssue/PubDate"))
    rec["articleDate"] = date_parts(art.find("ArticleDate"))
    rec["title"] = " ".join(text_of(art.find("ArticleTitle")).split())
    rec["vernacularTitle"] = " ".join(text_of(art.find("VernacularTitle")).split())
    rec["languages"] = [text_of(l) for l in art.iterfind("Language")]
    rec["types"] = [text_of(p) for p in art.iterfind("PublicationTypeList/PublicationType")]
    rec["mesh"] = [text_of(h.find("DescriptorName")) for h in cit.iterfind("MeshHeadingList/MeshHeading")]
    rec["keywords"] = [" ".join(text_of(k).split()) for k in cit.iterfind("KeywordList/Keyword")]
    abstract = art.find("Abstract")
    rec["abstract"] = segments(abstract)
    rec["copyright"] = text_of(abstract.find("CopyrightInformation")) if abstract is not None else ""
    rec["other"] = [(o.get("Type"), o.get("Language"), segments(o)) for o in cit.iterfind("OtherAbstract")]
    doi = None
    if pubmed_data is not None:
        for i in pubmed_data.iterfind("ArticleIdList/ArticleId"):
            if i.get("IdType") == "doi" and text_of(i):
                doi = text_of(i)
                break
    if doi is None:
        for e in art.iterfind("ELocationID"):
            if e.get("EIdType") == "doi" and e.get("ValidYN") != "N" and text_of(e):
                doi = text_of(e)
                break
    rec["doi"] = doi
    authors = []
    for a in art.iterfind("AuthorList/Author"):
        if a.get("ValidYN") == "N":
            continue
        orcid = None
        for ident in a.iterfind("Identifier"):
            if ident.get("Source") == "ORCID":
                orcid = text_of(ident)
                break
        authors.append({
            "last": text_of(a.find("LastName")), "fore": text_of(a.find("ForeName")),
            "initials": text_of(a.find("Initials")), "collective": " ".join(text_of(a.find("CollectiveName")).split()),
            "affiliations": [" ".join(text_of(f).split()) for f in a.iterfind("AffiliationInfo/Affiliation")],
            "orcid": orcid,
        })
    rec["authors"] = authors
    rec["refs"] = [(c.get("RefType"), text_of(c.find("PMID"))) for c in cit.iterfind("CommentsCorrectionsList/CommentsCorrections")
                   if c.get("RefType") in ("RetractionOf", "RetractionIn")]
    return rec


def files_of(args):
    out = []
    for a in args:
        if os.path.isdir(a):
            for root, _dirs, names in os.walk(a):
                out += [os.path.join(root, n) for n in names if n.endswith(".xml") or n.endswith(".xml.gz")]
        else:
            out.append(a)
    return sorted(out)


def open_xml(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def main():
    files = files_of(sys.argv[1:])
    counts = {"records": 0, "deleted": 0, "books": 0, "segments": 0}
    counts["start_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    c0 = time.process_time()
    for path in files:
        with open_xml(path) as f:
            for _event, el in etree.iterparse(f, events=("end",), tag=TOP):
                parent = el.getparent()
                if el.tag == "MedlineCitation" and parent is not None and parent.tag == "PubmedArticle":
                    continue  # read with its PubmedArticle
                if el.tag == "PubmedArticle":
                    rec = citation_record(el.find("MedlineCitation"), el.find("PubmedData"))
                    counts["records"] += 1
                    counts["segments"] += len(rec.get("abstract", []))
                elif el.tag == "MedlineCitation":
                    rec = citation_record(el, None)
                    counts["records"] += 1
                    counts["segments"] += len(rec.get("abstract", []))
                elif el.tag == "DeleteCitation":
                    counts["deleted"] += len(el.findall("PMID"))
                else:
                    counts["books"] += 1
                el.clear()
                while el.getprevious() is not None:
                    del el.getparent()[0]
    counts["seconds"] = time.perf_counter() - t0
    counts["cpu_seconds"] = time.process_time() - c0
    counts["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
