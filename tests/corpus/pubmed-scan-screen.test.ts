/**
 * The scanner's two shortcuts used by the ingest (issue 10, whole-ingest speed):
 * - `screen`: a citation the screen rejects is returned as its core record, its other texts never
 *   decoded. The ingest screens with the cleaning rules, so every store row must be the same with
 *   and without the screen — checked on every bundled XML file and edge-case fixture under several
 *   cleaning options, and on hand-built records whose abstract texts flatten to nothing;
 * - `RawRecord.ascii`: set from the record's bytes; an ASCII record scanned without the per-field
 *   UTF-8 test gives the same record.
 */
import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import { xmlFiles } from "../helpers/xml-files.ts";
import { CleanOptionsSchema, recordDropReason, type CleanOptions } from "../../corpus/clean.ts";
import { parsePubmedFile, parsePubmedXmlString, RecordSplitter } from "../../corpus/pubmed-xml.ts";
import { scanRecordXml } from "../../corpus/pubmed-scan.ts";
import { recordToRow } from "../../corpus/ingest/rows.ts";
import type { PubmedRecord } from "../../corpus/types.ts";

const XML_DIR = datasetDirSync("pubmed-xml");
const EDGE = fileURLToPath(new URL("../fixtures/pubmed-edge/", import.meta.url));

async function read(path: string, screen?: (r: PubmedRecord) => boolean): Promise<PubmedRecord[]> {
  const out: PubmedRecord[] = [];
  for await (const r of parsePubmedFile(path, { screen })) out.push(r);
  return out;
}

const OPTION_SETS: CleanOptions[] = [{}, { language: null, requireConclusion: false, minSegments: 1 }, { dropRetracted: false, dropRetractionNotices: false }];

describe("scanner screen (the ingest's early cleaning)", () => {
  it("gives the same store rows as full records on every bundled file, under several cleaning options", async () => {
    let screenedOut = 0;
    let kept = 0;
    for (const file of [...xmlFiles(XML_DIR), ...xmlFiles(EDGE)]) {
      const full = await read(file);
      const cores = await read(file, () => false);
      for (const opts of OPTION_SETS) {
        const clean = CleanOptionsSchema.parse(opts);
        const screened = await read(file, (core) => recordDropReason(core, clean) === null);
        expect(screened.length).toBe(full.length);
        const at = { fileIndex: 3, seq: 0, sourceFile: "f.xml" };
        for (let i = 0; i < full.length; i++) {
          const a = recordToRow(full[i], { ...at, seq: i }, clean);
          const b = recordToRow(screened[i], { ...at, seq: i }, clean);
          expect(b, `${file} #${i}`).toEqual(a);
          if (a.kind === "dropped") screenedOut++;
          if (!full[i].flags.deleted) {
            // What a screen sees: the core fields of the full record, segments by label and category.
            const core = cores[i];
            expect(
              core.abstract.map((s) => [s.label, s.nlmCategory]),
              `${file} #${i}`,
            ).toEqual(full[i].abstract.map((s) => [s.label, s.nlmCategory]));
            expect([core.pmid, core.version, core.title, core.journal.title, core.pubDate, core.languages, core.publicationTypes, core.flags, core.retractionIn, core.retractionOf]).toEqual([
              full[i].pmid,
              full[i].version,
              full[i].title,
              full[i].journal.title,
              full[i].pubDate,
              full[i].languages,
              full[i].publicationTypes,
              full[i].flags,
              full[i].retractionIn,
              full[i].retractionOf,
            ]);
          }
          if (a.kind === "record") {
            kept++;
            // A kept record is decoded in full: identical to the unscreened one.
            expect(screened[i]).toEqual(full[i]);
          }
        }
      }
    }
    // Both branches are exercised (the 2016 slice alone drops about two thirds under the defaults).
    expect(screenedOut).toBeGreaterThan(500);
    expect(kept).toBeGreaterThan(200);
  });

  it("counts an abstract segment whose text flattens to nothing as absent, as the full record does", () => {
    const seg = (label: string, content: string) => `<AbstractText Label="${label}" NlmCategory="${label}">${content}</AbstractText>`;
    const citation = (pmid: number, segs: string[]) =>
      `<MedlineCitation><PMID Version="1">${pmid}</PMID><Article><Journal><Title>J</Title><JournalIssue><PubDate><Year>2020</Year></PubDate></JournalIssue></Journal>` +
      `<ArticleTitle>T ${pmid}</ArticleTitle><Abstract>${segs.join("")}</Abstract><Language>eng</Language>` +
      `<PublicationTypeList><PublicationType>Journal Article</PublicationType></PublicationTypeList></Article></MedlineCitation>`;
    const ok = [seg("BACKGROUND", "b"), seg("METHODS", "m"), seg("CONCLUSIONS", "c")];
    // Contents that flatten to "": tags only, whitespace runs, an NBSP entity, a UTF-8 NBSP (C2 A0), a MathML-free tag pair.
    const empties = ["<i></i>", " \n\t ", "&#160;", "\u00a0", "<b> </b>"];
    const xml =
      `<MedlineCitationSet>${citation(1, ok)}${empties.map((e, i) => citation(10 + i, [seg("BACKGROUND", "b"), seg("METHODS", e), seg("CONCLUSIONS", "c")])).join("")}` +
      `${citation(20, [seg("BACKGROUND", "  <i>x</i>"), seg("METHODS", "&lt;5"), seg("CONCLUSIONS", " c")])}</MedlineCitationSet>`;
    const clean = CleanOptionsSchema.parse({});
    const full = parsePubmedXmlString(xml);
    const screened = parsePubmedXmlString(xml, { screen: (core) => recordDropReason(core, clean) === null });
    expect(full.map((r) => recordDropReason(r, clean))).toEqual([null, ...empties.map(() => "too-few-segments"), null]);
    expect(screened.map((r) => recordDropReason(r, clean))).toEqual(full.map((r) => recordDropReason(r, clean)));
    // Kept records are full; rejected ones are cores: no segment text decoded, raw inner XML kept.
    expect(screened[0]).toEqual(full[0]);
    expect(screened[6]).toEqual(full[6]);
    expect(screened[6].abstract.map((s) => s.text)).toEqual(["x", "<5", "c"]);
    expect(screened[1].abstract.map((s) => s.label)).toEqual(["BACKGROUND", "CONCLUSIONS"]);
    expect(screened[1].authors).toEqual([]);
    // The core itself (what a screen sees) has exactly the full record's segments, by label and category.
    const cores = parsePubmedXmlString(xml, { screen: () => false });
    expect(cores.map((r) => r.abstract.map((s) => [s.label, s.nlmCategory]))).toEqual(full.map((r) => r.abstract.map((s) => [s.label, s.nlmCategory])));
  });
});

describe("RawRecord.ascii", () => {
  it("is set from the record's bytes, and an ASCII record scans the same without the UTF-8 test", () => {
    const a = "<MedlineCitation><PMID>1</PMID><Article><Journal><Title>J &amp; K</Title></Journal><ArticleTitle>Plain <i>ascii</i></ArticleTitle></Article></MedlineCitation>";
    const b = "<MedlineCitation><PMID>2</PMID><Article><ArticleTitle>Caf\u00e9</ArticleTitle></Article></MedlineCitation>";
    const recs = new RecordSplitter().pushBytes(Buffer.from(`<MedlineCitationSet>${a}${b}</MedlineCitationSet>`, "utf8"));
    expect(recs.map((r) => r.ascii)).toEqual([true, false]);
    expect(scanRecordXml("MedlineCitation", recs[0].xml, true)).toEqual(scanRecordXml("MedlineCitation", recs[0].xml, false));
    expect(scanRecordXml("MedlineCitation", recs[1].xml, false)[0].title).toBe("Caf\u00e9");
    expect(scanRecordXml("MedlineCitation", recs[0].xml, true)[0].journal.title).toBe("J & K");
  });
});
