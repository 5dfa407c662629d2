/**
 * `validate --human` statistics from a fixed ratings file (tests/fixtures/viewer/human-ratings.json)
 * against reference values: scipy 1.17 (pearsonr, spearmanr, ttest_rel), numpy for ICC(2,1)/(2,k)
 * (Shrout & Fleiss mean squares) and Krippendorff's interval α (coincidence matrix), and by hand
 * for Cohen's κ and the preference crosstab.
 *
 * Ratings: rater1 1,2,3,4,5,3; rater2 2,2,3,5,4,3 on tasks t1…t6; panel 2,2,4,5,5,3;
 * t1, t3, t5 are configuration A and t2, t4, t6 configuration B.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveRubric } from "../../judges/rubric.ts";
import type { RunRecord } from "../../experiments/types.ts";
import { humanAlignment, humanAlignmentMarkdown } from "../../viewer/study/human-alignment.ts";
import type { Rating } from "../../viewer/study/store.ts";
import type { Study, StudyTask } from "../../viewer/study/study.ts";
import { studyRecord } from "./study-fixtures.ts";

const fixture = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "viewer", "human-ratings.json"), "utf8")) as { medmeta: Rating[]; binary: Rating[] };
const PANEL = [2, 2, 4, 5, 5, 3];

function setup(rubricIds: string[], mode: Study["mode"] = "single", tasksOverride?: StudyTask[]) {
  const records = new Map<string, RunRecord>();
  const tasks: StudyTask[] = tasksOverride ?? [];
  if (!tasksOverride) {
    PANEL.forEach((p, i) => {
      const r = studyRecord(`i${i + 1}`, "ds", 0, p);
      records.set(r.key, r);
      tasks.push({ id: `t${i + 1}`, kind: "single", itemId: r.itemId, keys: [r.key], configs: [i % 2 === 0 ? "A" : "B"], calibration: false });
    });
    tasks.push({ id: "c1", kind: "single", itemId: "i1", keys: ["cell-i1-0"], configs: ["A"], calibration: true, referenceScores: {} });
  }
  const study: Study = {
    version: 1,
    name: "fixed",
    createdAt: "",
    runDir: "",
    mode,
    seed: 1,
    rubrics: rubricIds.map((id) => resolveRubric(id)),
    configs: ["A", "B"],
    fingerprints: {},
    raters: [
      { id: "rater1", token: "x" },
      { id: "rater2", token: "y" },
    ],
    tasks,
    order: {},
  };
  return { study, records };
}

describe("humanAlignment (interval rubric)", () => {
  const { study, records } = setup(["medmeta-semantic-equivalence"]);
  const rep = humanAlignment(study, records, fixture.medmeta);

  it("leaves calibration ratings out", () => {
    expect(rep.ratings).toBe(12);
    expect(rep.calibrationRatingsLeftOut).toBe(1);
  });
  it("rater–rater ICC and Krippendorff's α equal the numpy values", () => {
    const a = rep.agreement[0];
    expect(a.dimension).toBe("medmeta-semantic-equivalence.semantic_equivalence");
    expect(a.tasks).toBe(6);
    expect(a.icc!.icc21).toBeCloseTo(0.8484848484848486, 12);
    expect(a.icc!.icc2k).toBeCloseTo(0.9180327868852459, 12);
    expect(a.alpha!.alpha).toBeCloseTo(0.8374384236453202, 12);
    expect(a.alpha!.level).toBe("interval");
    expect(a.kappa).toEqual([]);
  });
  it("human mean vs panel equals scipy's Pearson, Spearman, paired t and the Bland–Altman values", () => {
    const all = rep.humanVsPanel.find((h) => h.group === "all")!.result!;
    expect(all.n).toBe(6);
    expect(all.pearson.estimate).toBeCloseTo(0.964077400787091, 12);
    expect(all.pearson.p).toBeCloseTo(0.0019124718451712553, 8);
    expect(all.spearman.estimate).toBeCloseTo(0.9696969696969695, 12);
    expect(all.pairedT.t).toBeCloseTo(2.7116307227332026, 10);
    expect(all.pairedT.p).toBeCloseTo(0.04219399670552442, 8);
    expect(all.blandAltman.bias).toBeCloseTo(0.4166666666666667, 12);
    expect(all.blandAltman.loaLower).toBeCloseTo(-0.32105053298823266, 10);
    expect(all.blandAltman.loaUpper).toBeCloseTo(1.154383866321566, 10);
    expect(all.cohenDz).toBeCloseTo(1.107018606925119, 10);
  });
  it("per workflow configuration", () => {
    const a = rep.humanVsPanel.find((h) => h.group === "A")!.result!;
    const b = rep.humanVsPanel.find((h) => h.group === "B")!.result!;
    expect(a.pearson.estimate).toBeCloseTo(0.9819805060619655, 12);
    expect(a.pairedT.t).toBeCloseTo(4, 10);
    expect(a.pairedT.p).toBeCloseTo(0.05719095841793663, 8);
    expect(b.pearson.estimate).toBeCloseTo(0.9971764649527379, 12);
    expect(b.pairedT.p).toBeCloseTo(0.4226497308103743, 8);
  });
  it("renders the tables", () => {
    const md = humanAlignmentMarkdown(rep);
    expect(md).toContain("| medmeta-semantic-equivalence.semantic_equivalence | 6 | 0.848 | 0.918 | 6 | 0.837 |");
    expect(md).toContain("| medmeta-semantic-equivalence.semantic_equivalence | all | 6 | 0.964 | 0.970 | 0.417 | -0.321 to 1.154 | 2.712 | 0.0422 | 1.107 |");
  });
});

describe("humanAlignmentMarkdown with real configuration labels", () => {
  it("escapes `|` inside labels, so every table row has as many cells as its header", () => {
    const { study, records } = setup(["medmeta-semantic-equivalence"]);
    const labels = ["model-x | golden-rag", "model-x | standard-rag | k=5"];
    study.configs = labels;
    for (const t of study.tasks) t.configs = [t.configs[0] === "A" ? labels[0] : labels[1]];
    const md = humanAlignmentMarkdown(humanAlignment(study, records, fixture.medmeta));
    expect(md).toContain("| medmeta-semantic-equivalence.semantic_equivalence | model-x \\| standard-rag \\| k=5 | 3 |");
    // cells of a row: split on pipes not preceded by a backslash
    const cells = (line: string) => line.split(/(?<!\\)\|/).length;
    const lines = md.split("\n");
    lines.forEach((line, i) => {
      if (line.startsWith("|---")) {
        const header = lines[i - 1];
        for (let j = i + 1; j < lines.length && lines[j].startsWith("|"); j++) expect(cells(lines[j]), lines[j]).toBe(cells(header));
      }
    });
  });
});

describe("humanAlignment (binary rubric)", () => {
  it("Cohen's κ per rater pair and nominal α", () => {
    const { study, records } = setup(["rwe-completeness"]);
    const rep = humanAlignment(study, records, fixture.binary);
    const a = rep.agreement[0];
    // p_o = 5/6; p_e = (4/6)(3/6) + (2/6)(3/6) = 1/2 → κ = (5/6 − 1/2) / (1/2) = 2/3
    expect(a.kappa).toHaveLength(1);
    expect(a.kappa[0].raters).toEqual(["rater1", "rater2"]);
    expect(a.kappa[0].result.kappa).toBeCloseTo(2 / 3, 12);
    expect(a.alpha!.level).toBe("nominal");
    // nominal α: D_o = 2/12, D_e = 2·7·5/(12·11) → α = 1 − (2/12)/(70/132) = 1 − 22/70
    expect(a.alpha!.alpha).toBeCloseTo(1 - 22 / 70, 12);
    // no panel scores for this rubric on the records → no alignment, with the reason
    expect(rep.humanVsPanel[0].result).toBeNull();
    expect(rep.humanVsPanel[0].note).toContain("need at least 3 items with both scores");
  });
});

describe("humanAlignment (pairwise)", () => {
  it("crosstab of human × panel preference with the agreement rate", () => {
    const records = new Map<string, RunRecord>();
    const tasks: StudyTask[] = [];
    // panel pairs (A, B): 4>2 → a, 1<3 → b, 2=2 → tie, 5>0 → a
    [
      [4, 2],
      [1, 3],
      [2, 2],
      [5, 0],
    ].forEach(([pa, pb], i) => {
      const ra = studyRecord(`p${i}`, "ds", 0, pa);
      const rb = studyRecord(`p${i}`, "ds", 1, pb);
      records.set(ra.key, ra);
      records.set(rb.key, rb);
      tasks.push({ id: `t${i + 1}`, kind: "pairwise", itemId: `p${i}`, keys: [ra.key, rb.key], configs: ["A", "B"], calibration: false });
    });
    const { study } = setup(["medmeta-semantic-equivalence"], "pairwise", tasks);
    const pref = (rater: string, task: string, p: "a" | "b" | "tie"): Rating => ({ rater, task, scores: {}, preference: p, comment: "", revision: 1, updatedAt: "" });
    const rep = humanAlignment(study, records, [pref("rater1", "t1", "a"), pref("rater1", "t2", "a"), pref("rater1", "t3", "tie"), pref("rater1", "t4", "b"), pref("rater2", "t1", "a")]);
    const x = rep.preferences[0];
    expect(x.table.a).toEqual({ a: 2, b: 1, tie: 0, missing: 0 });
    expect(x.table.tie).toEqual({ a: 0, b: 0, tie: 1, missing: 0 });
    expect(x.table.b).toEqual({ a: 1, b: 0, tie: 0, missing: 0 });
    expect(x.n).toBe(5);
    expect(x.agreement).toBeCloseTo(3 / 5, 12);
    expect(humanAlignmentMarkdown(rep)).toContain("Agreement: 60.0 % of 5 ratings");
  });
});
