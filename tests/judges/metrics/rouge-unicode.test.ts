/**
 * ROUGE on non-Latin text (issue 12 item 13). rouge-score's tokenizer keeps only [a-z0-9] runs,
 * so Thai text has no tokens: the default stays that tokenizer (parity) but the metric returns
 * null with the note `empty-after-tokenization` rather than a silent 0; the `unicode` tokenizer
 * (Intl.Segmenter word boundaries) scores such text. Expected values by hand.
 */
import { describe, expect, it } from "vitest";
import { createRougeMetric, EMPTY_AFTER_TOKENIZATION, RougeScorer } from "../../../judges/metrics/rouge.ts";

const THAI = "สวัสดีครับ ยินดีต้อนรับ";

describe("ROUGE with text the rouge-score tokenizer drops", () => {
  it("identical Thai texts: null with reason under the default tokenizer (was a silent 0)", async () => {
    const m = createRougeMetric();
    const [row] = await m.score([{ reference: THAI, candidate: THAI }]);
    expect(Object.keys(row)).toEqual(["rouge1_fmeasure", "rouge2_fmeasure", "rougeL_fmeasure"]);
    for (const v of Object.values(row)) expect(v).toEqual({ value: null, note: EMPTY_AFTER_TOKENIZATION });
    // The scorer itself keeps rouge-score's number (parity): 0.
    expect(new RougeScorer(["rouge1"]).score(THAI, THAI).rouge1.fmeasure).toBe(0);
  });

  it("empty or punctuation-only text still scores 0, as rouge-score", async () => {
    const m = createRougeMetric({ types: ["rouge1"] });
    const rows = await m.score([
      { reference: "x y", candidate: "" },
      { reference: "x y", candidate: "?!" },
    ]);
    expect(rows).toEqual([{ rouge1_fmeasure: { value: 0 } }, { rouge1_fmeasure: { value: 0 } }]);
  });

  it("mixed text keeps its Latin tokens: 'aspirin <Thai>' vs 'aspirin' → rouge1 F1 = 1", async () => {
    const [row] = await createRougeMetric({ types: ["rouge1"] }).score([{ reference: `aspirin ${THAI}`, candidate: "aspirin" }]);
    expect(row.rouge1_fmeasure).toEqual({ value: 1 });
  });

  it("unicode tokenizer: identical Thai → 1; 我们/喜欢/猫 vs 我们/喜欢/狗 → rouge1 = rougeL = 2/3", async () => {
    const m = createRougeMetric({ tokenizer: "unicode", types: ["rouge1", "rougeL"] });
    const [same, zh] = await m.score([
      { reference: THAI, candidate: THAI },
      { reference: "我们喜欢猫", candidate: "我们喜欢狗" },
    ]);
    expect(same.rouge1_fmeasure.value).toBe(1);
    expect(zh.rouge1_fmeasure.value).toBeCloseTo(2 / 3, 15);
    expect(zh.rougeL_fmeasure.value).toBeCloseTo(2 / 3, 15);
    // ASCII words are still stemmed (tokens longer than 3 chars), other scripts are not.
    expect(new RougeScorer(["rouge1"], true, "unicode").tokenize("Aspirin reduces Strokes, covid-19 Ελληνικά")).toEqual(["aspirin", "reduc", "stroke", "covid", "19", "ελληνικά"]);
  });
});
