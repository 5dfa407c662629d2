import { describe, expect, it } from "vitest";
import { loadCohen2006 } from "../../../corpus/datasets/cohen2006.ts";
import { QrelsTopicSchema } from "../../../corpus/qrels.ts";

describe("cohen2006 loader (real data)", async () => {
  const d = await loadCohen2006();

  it("loads 5 topics, 2,249 records, 2,014 with abstracts", () => {
    expect(d.taskKind).toBe("qrels");
    expect(d.items.map((t) => t.id)).toEqual(["cohen2006:ADHD", "cohen2006:Antihistamines", "cohen2006:Estrogens", "cohen2006:NSAIDS", "cohen2006:UrinaryIncontinence"]);
    for (const t of d.items) QrelsTopicSchema.parse(t);
    expect(d.items.reduce((n, t) => n + t.judged.length, 0)).toBe(2249);
    expect(d.items.reduce((n, t) => n + Number(t.meta?.withAbstract), 0)).toBe(2014);
    // 3 PMIDs with abstracts appear in two topics → 2,011 unique docs
    expect(d.docs).toHaveLength(2011);
  });

  it("has the per-topic included counts and topic queries from index.csv", () => {
    expect(Object.fromEntries(d.items.map((t) => [t.query, t.relevant.length]))).toEqual({
      ADHD: 20,
      Antihistamines: 16,
      Estrogens: 80,
      NSAIDS: 41,
      "Urinary Incontinence": 40,
    });
    expect(d.items.map((t) => t.meta?.abstractScreeningIncluded)).toEqual([84, 92, 80, 88, 78]);
    expect(d.qrels!["cohen2006:ADHD"]["10197827"]).toBe(1);
    // Judged non-relevant records are kept with gain 0 (issue 12 item 7): 20 relevant of the topic's judged records.
    const adhd = d.qrels!["cohen2006:ADHD"];
    expect(Object.values(adhd).filter((g) => g > 0)).toHaveLength(20);
    expect(Object.keys(adhd)).toHaveLength(new Set(d.items.find((t) => t.query === "ADHD")!.judged).size);
    expect(Object.values(adhd).filter((g) => g === 0).length).toBeGreaterThan(0);
  });

  it("maps a record to a corpus doc", () => {
    const doc = d.docs!.find((x) => x.id === "10051933")!;
    expect(doc.title).toBe("The effectiveness of clonidine as an analgesic in paediatric adenotonsillectomy.");
    expect(doc.year).toBe(1999);
    expect(doc.source).toBe("cohen2006:ADHD");
    expect(doc.text.startsWith("To compare the analgesic effects of preoperative oral clonidine")).toBe(true);
  });

  it("supports screening-level relevance and topic filters, and rejects unknown topics", async () => {
    const s = await loadCohen2006({ topics: ["ADHD"], relevance: "label_abstract_screening" });
    expect(s.items).toHaveLength(1);
    expect(s.items[0].relevant).toHaveLength(84);
    await expect(loadCohen2006({ topics: ["Statins"] })).rejects.toThrow(/unknown topic\(s\) Statins; valid: ADHD, Antihistamines/);
  });
});
