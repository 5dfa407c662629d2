import { describe, expect, it } from "vitest";
import { loadMedEvidence } from "../../../corpus/datasets/medevidence.ts";
import { buildSynthesisQrels, countRelevant, qrelsFromTopics } from "../../../corpus/qrels.ts";
import { SynthesisTaskSchema } from "../../../corpus/types.ts";

describe("medevidence loader (real data)", async () => {
  const d = await loadMedEvidence();

  it("loads 284 questions over 329 unique abstracts from 100 reviews", () => {
    expect(d.items).toHaveLength(284);
    for (const it of d.items) SynthesisTaskSchema.parse(it);
    expect(d.docs).toHaveLength(329);
    expect(new Set(d.docs!.map((x) => x.id)).size).toBe(329);
    expect(new Set(d.items.map((i) => i.meta?.original_review)).size).toBe(100);
    expect(d.skipped.count).toBe(0);
    // line 83 (question 77) lists 22682536 twice
    expect(d.warnings).toEqual([expect.stringMatching(/med-evidence-abstract\.jsonl:83: relevant_sources lists PMID\(s\) 22682536 more than once/)]);
    expect(d.items.find((i) => i.id === "medevidence:77")!.goldenPmids).toEqual(["29229808", "22682536", "24736370", "29655496"]);
  });

  it("maps question 5 exactly", () => {
    const t = d.items[5];
    expect(t.id).toBe("medevidence:5");
    expect(t.question).toBe("Is total polyp detection higher, lower, or the same when comparing chromoscopy to conventional endoscopy?");
    expect(t.referenceAnswer).toBe("higher");
    expect(t.evidenceCertainty).toBeNull(); // "" in the file
    expect(t.goldenPmids).toEqual(["12196768", "14960519", "20179689", "16527699", "21159889", "16767577", "19139000"]);
    expect(t.goldenDocs.map((g) => g.id)).toEqual(t.goldenPmids);
    expect(t.goldenDocs[0].title).toBe("Total colonic dye-spray increases the detection of diminutive adenomas during routine colonoscopy: a randomized controlled trial.");
    expect(t.goldenDocs[0].year).toBe(2002);
    expect(t.meta).toEqual({
      medical_specialty: "Internal Medicine & Subspecialties",
      review_year: 2016,
      source_concordance: 0.285714286,
      original_review: "27056645",
      fulltext_required: "no",
    });
  });

  it("keeps the answer distribution and certainty gaps", () => {
    const count = (f: (t: (typeof d.items)[number]) => string | null) => d.items.reduce<Record<string, number>>((m, t) => ((m[String(f(t))] = (m[String(f(t))] ?? 0) + 1), m), {});
    expect(count((t) => t.referenceAnswer)).toEqual({ "no difference": 94, lower: 56, higher: 53, "uncertain effect": 43, "insufficient data": 38 });
    expect(count((t) => t.evidenceCertainty)).toEqual({ high: 43, moderate: 57, low: 65, "very low": 61, null: 58 });
  });

  it("builds qrels question → relevant_sources", () => {
    const q = d.qrels!;
    expect(Object.keys(q)).toHaveLength(284);
    expect(q["medevidence:0"]).toEqual({ "17466514": 1 });
    expect(countRelevant(q, "medevidence:5")).toBe(7);
    expect(Object.values(q).reduce((n, r) => n + Object.keys(r).length, 0)).toBe(617); // 618 listed, one repeated
    expect(buildSynthesisQrels(d.items)).toEqual(q);
    expect(() => buildSynthesisQrels([d.items[0], d.items[0]])).toThrow(/duplicate task id "medevidence:0"/);
    expect(() =>
      qrelsFromTopics([
        { id: "a", dataset: "x", query: "q", relevant: [], judged: [] },
        { id: "a", dataset: "x", query: "q", relevant: [], judged: [] },
      ]),
    ).toThrow(/duplicate query id/);
    expect(countRelevant(q, "nope")).toBe(0);
  });
});
