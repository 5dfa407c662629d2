/**
 * PubMed records with unusual structure (issue 12 items 1–4): retractions both ways, declared
 * encodings and invalid bytes, AuthorList and the abstract's copyright line, book records.
 * Inputs are the hand-built files of tests/fixtures/pubmed-edge/ (expected values written by hand
 * from those files) plus byte strings built here.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TextDecoder } from "node:util";
import { gzipSync } from "node:zlib";
import type { PubmedRecord } from "../../corpus/types.ts";
import { parsePubmedFile, PubmedFileError, type PubmedWarning } from "../../corpus/pubmed-xml.ts";
import { normalizeOrcid } from "../../corpus/pubmed-fields.ts";
import { countInvalidUtf8, sniffXmlEncoding, XmlByteDecoder } from "../../corpus/xml-encoding.ts";
import { cleanRecords } from "../../corpus/clean.ts";
import { recordToCorpusDoc } from "../../corpus/conclusion-task.ts";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { bookSummary } from "../../experiments/cli/corpus-commands.ts";
import { retractionTag } from "../../experiments/cli/retrieval-commands.ts";
import { isRetractedDoc } from "../../graphs/perturb/retracted.ts";

const EDGE = fileURLToPath(new URL("../fixtures/pubmed-edge/", import.meta.url));

async function readAll(path: string, warnings: PubmedWarning[] = []): Promise<PubmedRecord[]> {
  const out: PubmedRecord[] = [];
  for await (const r of parsePubmedFile(path, { onWarning: (w) => warnings.push(w), validate: true })) out.push(r);
  return out;
}
const tmp = () => mkdtempSync(join(tmpdir(), "medsynth-edge-"));

describe("retractions both ways (issue 12 item 1)", async () => {
  const recs = await readAll(join(EDGE, "retractions.xml"));
  const by = (pmid: string) => recs.find((r) => r.pmid === pmid)!;

  it("flags a notice (publication type + RetractionOf) and keeps the PMIDs it retracts", () => {
    expect(by("90000001").flags).toEqual({ deleted: false, retracted: false, erratum: false, retractionNotice: true });
    expect(by("90000001").retractionOf).toEqual(["90000002"]);
    expect(by("90000001").retractionIn).toEqual([]);
    // RetractionOf entries alone make a notice; one without a PMID is skipped, the others kept in order.
    expect(by("90000004").flags.retractionNotice).toBe(true);
    expect(by("90000004").retractionOf).toEqual(["90000003", "90000005"]);
  });

  it("flags a retracted paper (publication type or RetractionIn) and keeps its notice's PMID", () => {
    expect(by("90000002").flags).toEqual({ deleted: false, retracted: true, erratum: false });
    expect(by("90000002").retractionIn).toEqual(["90000001"]); // the CommentIn entry before it is not kept
    expect(by("90000003").flags.retracted).toBe(true); // RetractionIn only, no "Retracted Publication" type
    expect(by("90000003").retractionIn).toEqual(["90000004"]); // repeated entry kept once
  });

  it("does not flag errata, comments, partial retractions or expressions of concern", () => {
    expect(by("90000005").flags).toEqual({ deleted: false, retracted: false, erratum: true });
    expect(by("90000006").flags).toEqual({ deleted: false, retracted: false, erratum: false });
    expect(by("90000006").version).toBe("2");
    expect(by("90000007").flags).toEqual({ deleted: false, retracted: false, erratum: false });
    for (const p of ["90000005", "90000006", "90000007"]) {
      expect(by(p).retractionOf).toEqual([]);
      expect(by(p).retractionIn).toEqual([]);
    }
  });

  it("cleaning drops retracted papers and notices by default, counted; switchable", () => {
    const opts = { language: null, minSegments: 1, requireConclusion: false } as const;
    // 90000002 is the only record with an abstract: make every record pass the other rules.
    const withAbstract = recs.map((r) => ({ ...r, title: `${r.title} ${r.pmid}`, abstract: by("90000002").abstract }));
    const res = cleanRecords(withAbstract, opts);
    expect(res.dropped.retracted).toBe(2); // 90000002, 90000003
    expect(res.dropped["retraction-notice"]).toBe(2); // 90000001, 90000004
    expect(res.kept.map((r) => r.pmid)).toEqual(["90000005", "90000006", "90000007"]);
    const keepAll = cleanRecords(withAbstract, { ...opts, dropRetracted: false, dropRetractionNotices: false });
    expect(keepAll.kept.length).toBe(7);
    expect(cleanRecords(withAbstract, { ...opts, dropRetractionNotices: false }).kept.map((r) => r.pmid)).toEqual(["90000001", "90000004", "90000005", "90000006", "90000007"]);
  });

  it("corpus documents carry the flag and `search` marks it", () => {
    expect(recordToCorpusDoc(by("90000002")).retraction).toBe("retracted");
    expect(recordToCorpusDoc(by("90000001")).retraction).toBe("notice");
    expect("retraction" in recordToCorpusDoc(by("90000005"))).toBe(false);
    expect(retractionTag("retracted")).toBe("[RETRACTED] ");
    expect(retractionTag("notice")).toBe("[RETRACTION NOTICE] ");
    expect(retractionTag(undefined)).toBe("");
    // The `retracted` evidence perturbation finds these documents in its pool; a notice is not a retracted study.
    expect(isRetractedDoc(recordToCorpusDoc(by("90000002")))).toBe(true);
    expect(isRetractedDoc(recordToCorpusDoc(by("90000001")))).toBe(false);
  });
});

describe("authors and the copyright line (issue 12 item 3)", async () => {
  const [a, b] = await readAll(join(EDGE, "authors.xml"));

  it("parses persons, a group author, affiliations and ORCID iDs; drops ValidYN=N and empty authors", () => {
    expect(a.authors).toEqual([
      {
        lastName: "Bonà",
        foreName: "Maria José",
        initials: "MJ",
        collectiveName: null,
        affiliations: ["Dipartimento di Medicina, Università di Padova, Padova, Italy.", "Centre for Evidence & Synthesis, Oxford, UK."],
        orcid: "0000-0002-1825-009X",
      },
      { lastName: null, foreName: null, initials: null, collectiveName: "The HAND-BUILT Trial Investigators", affiliations: [], orcid: null },
      { lastName: "O'Neil", foreName: "Seán", initials: "S", collectiveName: null, affiliations: [], orcid: "0000-0002-1825-009X" },
      { lastName: "Plato", foreName: null, initials: null, collectiveName: null, affiliations: [], orcid: null },
    ]);
    expect(b.authors).toEqual([]);
  });

  it("keeps the abstract's copyright line in its own field, out of the segments", () => {
    expect(a.copyright).toBe("© 2022 The Authors. Published by Hand-Built Press under CC BY 4.0.");
    expect(a.abstract.map((s) => s.text)).toEqual(["To read authors.", "Authors were read.", "Authors can be read."]);
    expect(b.copyright).toBe("Copyright 2001.");
    expect(b.abstract).toEqual([]);
    expect(b.pubDate).toBe("2001-01");
  });

  it("keeps a multi-byte character ending a value (UTF-8 'à' ends in byte 0xA0, which a byte-string trim removes)", () => {
    expect(a.journal.title).toBe("Rivista di qualità");
    expect(a.journal.isoAbbreviation).toBe("Riv Qualità");
    expect(a.authors![0].lastName).toBe("Bonà");
  });

  it("normalises ORCID iDs", () => {
    expect(normalizeOrcid("https://orcid.org/0000-0002-1825-0097")).toBe("0000-0002-1825-0097");
    expect(normalizeOrcid("http://orcid.org/000000021825009x")).toBe("0000-0002-1825-009X");
    expect(normalizeOrcid(" 0000-0002-1825-0097 ")).toBe("0000-0002-1825-0097");
    expect(normalizeOrcid("not-an-orcid")).toBe("not-an-orcid");
    expect(normalizeOrcid("  ")).toBeNull();
  });
});

describe("declared encodings and invalid bytes (issue 12 item 2)", () => {
  it("decodes an ISO-8859-1 file as declared, with no invalid bytes reported", async () => {
    const warnings: PubmedWarning[] = [];
    const [r] = await readAll(join(EDGE, "latin1.xml"), warnings);
    expect(warnings).toEqual([]);
    expect(r.title).toBe("[Café, thé et santé : étude à Zürich ± 5 %].");
    expect(r.journal.title).toBe("Revue médicale de Genève");
    expect(r.abstract[0].text).toBe("Résumé : naïve «test» à 37°C.");
    expect(r.authors).toEqual([{ lastName: "Müller", foreName: "Renée", initials: "R", collectiveName: null, affiliations: [], orcid: null }]);
  });

  it("finds the encoding from a BOM, the declaration, or defaults to UTF-8", () => {
    expect(sniffXmlEncoding(Buffer.from('<?xml version="1.0" encoding="windows-1250"?><a/>'))).toEqual({ label: "windows-1250", source: "declaration" });
    expect(sniffXmlEncoding(Buffer.from("<?xml version='1.0' encoding='ISO-8859-1' standalone='yes'?>"))).toEqual({ label: "ISO-8859-1", source: "declaration" });
    expect(sniffXmlEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x3c]))).toEqual({ label: "UTF-8", source: "bom" });
    expect(sniffXmlEncoding(Buffer.from([0xff, 0xfe, 0x3c, 0x00]))).toEqual({ label: "UTF-16LE", source: "bom" });
    expect(sniffXmlEncoding(Buffer.from("<PubmedArticleSet>"))).toEqual({ label: "UTF-8", source: "default" });
  });

  it("counts ill-formed UTF-8 sequences as TextDecoder replaces them", () => {
    // 'a', FF (never valid), C3 28 (lead without continuation), E2 82 cut at the end.
    const bytes = Buffer.from([0x61, 0xff, 0xc3, 0x28, 0x62, 0xe2, 0x82]);
    const ref = [...new TextDecoder("utf-8").decode(bytes)].filter((c) => c === "\ufffd").length;
    expect(ref).toBe(3);
    expect(countInvalidUtf8(bytes)).toEqual({ invalid: 3, first: 1 });
    // Surrogates (ED A0 80) and overlongs (C0 AF, E0 80 80) are ill-formed too: 3 + 2 + 3 replacements in WHATWG.
    const odd = Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xe0, 0x80, 0x80]);
    expect(countInvalidUtf8(odd).invalid).toBe([...new TextDecoder("utf-8").decode(odd)].filter((c) => c === "\ufffd").length);
    expect(countInvalidUtf8(Buffer.from("é → 😀", "utf8"))).toEqual({ invalid: 0, first: -1 });
  });

  it("validates UTF-8 across chunk boundaries without false alarms, and passes bytes through", () => {
    const text = Buffer.from(`<?xml version="1.0"?><a>${"é😀→".repeat(400)}</a>`, "utf8");
    for (const size of [1, 2, 3, 5, 1024]) {
      const d = new XmlByteDecoder();
      const out: Buffer[] = [];
      for (let i = 0; i < text.length; i += size) out.push(d.push(text.subarray(i, i + size)));
      out.push(d.end());
      expect(d.invalid).toBe(0);
      expect(d.encoding).toBe("utf-8");
      expect(Buffer.concat(out).equals(text)).toBe(true);
    }
    const cut = new XmlByteDecoder();
    cut.push(Buffer.concat([text, Buffer.from([0xf0, 0x9f])]));
    cut.end();
    expect(cut.invalid).toBe(1);
    expect(cut.firstInvalidOffset).toBe(text.length);
  });

  it("reports invalid UTF-8 per file with the count and first byte offset; records are kept", async () => {
    const d = tmp();
    const good = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">90000041</PMID><Article><Journal><Title>J</Title></Journal><ArticleTitle>Bad ',
      "utf8",
    );
    const bad = Buffer.concat([
      good,
      Buffer.from([0xe9]),
      Buffer.from(" byte and another ", "utf8"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from("</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>\n", "utf8"),
    ]);
    const path = join(d, "bad.xml.gz");
    writeFileSync(path, gzipSync(bad));
    const warnings: PubmedWarning[] = [];
    const recs = await readAll(path, warnings);
    expect(recs.map((r) => r.title)).toEqual(["Bad \ufffd byte and another \ufffd\ufffd"]);
    expect(warnings.map((w) => [w.kind, w.invalidBytes, w.byteOffset, w.encoding])).toEqual([["encoding", 3, good.length, "UTF-8"]]);
    expect(warnings[0].message).toContain(path);
    const report = await ingestPubmed([path]);
    expect(report.encodingErrors).toEqual([{ file: path, encoding: "UTF-8", invalidBytes: 3, firstByteOffset: good.length, message: warnings[0].message }]);
    expect(report.counts.records).toBe(1);
    expect(report.counts.warnings).toBe(0);
  });

  it("counts bytes invalid in a declared single-byte encoding, and refuses an unknown encoding", async () => {
    const d = tmp();
    // 0xD2 is undefined in windows-1253 (Greek): TextDecoder gives U+FFFD.
    const greek = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="windows-1253"?><PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>90000042</PMID><Article><ArticleTitle>', "latin1"),
      Buffer.from([0xe1, 0xe2, 0xd2]),
      Buffer.from("</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>", "latin1"),
    ]);
    writeFileSync(join(d, "greek.xml"), greek);
    const warnings: PubmedWarning[] = [];
    const [r] = await readAll(join(d, "greek.xml"), warnings);
    expect(r.title).toBe("αβ\ufffd");
    expect(warnings.map((w) => [w.kind, w.invalidBytes, w.encoding])).toEqual([["encoding", 1, "windows-1253"]]);
    writeFileSync(join(d, "klingon.xml"), '<?xml version="1.0" encoding="x-klingon"?><PubmedArticleSet/>');
    await expect(readAll(join(d, "klingon.xml"))).rejects.toThrow(PubmedFileError);
    await expect(readAll(join(d, "klingon.xml"))).rejects.toThrow(/unsupported encoding "x-klingon"/);
  });
});

describe("book records (issue 12 item 4)", () => {
  it("are skipped, reported as `book` with their PMID, and named in the CLI summary", async () => {
    const warnings: PubmedWarning[] = [];
    const recs = await readAll(join(EDGE, "books.xml"), warnings);
    expect(recs.map((r) => r.pmid)).toEqual(["90000022"]);
    expect(warnings.map((w) => [w.kind, w.pmid])).toEqual([
      ["book", "90000021"],
      ["book", "90000023"],
    ]);
    const file = join(EDGE, "books.xml");
    const report = await ingestPubmed([file]);
    expect(report.books).toEqual([
      { file, pmid: "90000021" },
      { file, pmid: "90000023" },
    ]);
    expect(report.counts.books).toBe(2);
    expect(report.counts.warnings).toBe(0);
    expect(report.counts.records).toBe(1);
    expect(report.emptyFiles).toEqual([]);
    expect(bookSummary(report.books)).toBe("book records skipped (PubmedBookArticle, no MedlineCitation): 2 — PMIDs 90000021, 90000023");
    expect(bookSummary([])).toBeNull();
  });
});
