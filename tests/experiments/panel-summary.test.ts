import { describe, expect, it } from "vitest";
import { mergePanelSummary } from "../../experiments/panel-summary.ts";

describe("panel summary on records", () => {
  it("replaces the rubrics a panel covers and keeps the others", () => {
    const prev = {
      aggregation: "mean",
      scores: {
        "medconclusion-dimensions": { semantic_similarity: { value: 70, nPresent: 2, nJudges: 2 } },
        "medmeta-semantic-equivalence": { semantic_equivalence: { value: 3, nPresent: 1, nJudges: 2 } },
      },
    };
    const merged = mergePanelSummary(prev, { "medmeta-semantic-equivalence": { semantic_equivalence: { value: 3.5, perJudge: { a: 3, b: 4 }, nJudges: 2, nPresent: 2 } } }, "mean");
    expect(merged.scores["medconclusion-dimensions"].semantic_similarity.value).toBe(70);
    expect(merged.scores["medmeta-semantic-equivalence"].semantic_equivalence).toEqual({ value: 3.5, nPresent: 2, nJudges: 2 });
    const tie = mergePanelSummary(undefined, { r: { d: { value: 0, perJudge: { a: 1, b: 0 }, nJudges: 2, nPresent: 2, tie: true } } }, "majority");
    expect(tie).toEqual({ aggregation: "majority", scores: { r: { d: { value: 0, nPresent: 2, nJudges: 2, tie: true } } } });
  });
});
