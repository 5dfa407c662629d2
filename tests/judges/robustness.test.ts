/**
 * Robustness metrics (issue 15) on fixed rows/records, values computed by hand:
 * misleading rate, robustness curve (Wilson CIs), oracle gap, lexical grounding with perturbation
 * uptake, numeric fidelity.
 */
import { describe, expect, it } from "vitest";
import { groundingMetrics } from "../../experiments/metrics-stage.ts";
import type { RunRecord } from "../../experiments/types.ts";
import { lexicalGrounding, numericFidelity } from "../../judges/metrics/grounding.ts";
import { misleadingRate, oracleGap, robustnessCurve, wilsonInterval, type RobustnessRow } from "../../judges/robustness.ts";

const row = (item: string, strength: number, answer: string, gold: string): RobustnessRow => ({ item, model: "m", workflow: "negated-rag", strength, answer, gold });
const ROWS: RobustnessRow[] = [
  row("i1", 0, "higher", "higher"),
  row("i2", 0, "lower", "lower"),
  row("i3", 0, "lower", "higher"),
  row("i4", 0, "no difference", "no difference"),
  row("i1", 1, "lower", "higher"), // misled, followed the flipped direction
  row("i2", 1, "no difference", "lower"), // misled, not the flipped direction
  row("i3", 1, "higher", "higher"), // wrong on clean evidence: not eligible
  row("i4", 1, "no difference", "no difference"),
];

describe("robustness statistics", () => {
  it("Wilson interval: 2 of 3 → (0.2077, 0.9385) (statsmodels proportion_confint method='wilson')", () => {
    const w = wilsonInterval(2, 3);
    expect(w.low).toBeCloseTo(0.20765, 4);
    expect(w.high).toBeCloseTo(0.93851, 4);
    expect(wilsonInterval(0, 0)).toEqual({ low: null, high: null });
    expect(wilsonInterval(3, 3).high).toBe(1);
  });
  it("misleading rate: of the 3 items right on clean evidence, 2 wrong under perturbation, 1 followed the flip", () => {
    const [m] = misleadingRate(ROWS);
    expect(m).toMatchObject({ model: "m", workflow: "negated-rag", strength: 1, eligible: 3, misled: 2, followedCorruption: 1 });
    expect(m.rate).toBeCloseTo(2 / 3, 12);
    expect(m.low).toBeCloseTo(0.20765, 4);
  });
  it("a workflow without strength 0 takes its clean answers from Golden-RAG", () => {
    const rows = [
      { ...ROWS[0], workflow: "golden-rag" },
      { ...ROWS[4], workflow: "perturbed-rag[distract]" },
    ];
    expect(misleadingRate(rows)).toMatchObject([{ workflow: "perturbed-rag[distract]", eligible: 1, misled: 1, followedCorruption: 1 }]);
  });
  it("robustness curve: accuracy 3/4 at strength 0 and 2/4 at strength 1", () => {
    expect(robustnessCurve(ROWS).map((p) => [p.strength, p.n, p.correct, p.accuracy])).toEqual([
      [0, 4, 3, 0.75],
      [1, 4, 2, 0.5],
    ]);
  });
  it("oracle gap: paired by item, unpaired items left out", () => {
    const g = oracleGap([
      { item: "a", model: "m", workflow: "golden-rag", value: 1 },
      { item: "a", model: "m", workflow: "standard-rag", value: 0 },
      { item: "b", model: "m", workflow: "golden-rag", value: 0.5 },
      { item: "b", model: "m", workflow: "standard-rag", value: 0.5 },
      { item: "c", model: "m", workflow: "golden-rag", value: 1 },
    ]);
    expect(g).toEqual([{ model: "m", n: 2, golden: 0.75, standard: 0.25, gap: 0.5 }]);
  });
});

describe("grounding and numeric fidelity", () => {
  it("supported share and unsupported claims", () => {
    const g = lexicalGrounding("Aspirin reduced stroke risk. Vitamins cure cancer.", ["Aspirin reduced stroke risk in adults. Statins lowered mortality."]);
    expect([g.sentences, g.supportedShare, g.unsupported, g.uptakeShare]).toEqual([2, 0.5, 1, 0]);
  });
  it("perturbation uptake: the output follows the perturbed span rather than the original", () => {
    const spans = [{ before: "Aspirin reduced stroke risk in adults.", after: "Aspirin increased stroke risk in adults." }];
    const g = lexicalGrounding("Aspirin increased stroke risk.", ["Aspirin increased stroke risk in adults."], spans);
    expect([g.supportedShare, g.uptakeShare]).toEqual([1, 1]);
    const clean = lexicalGrounding("Aspirin reduced stroke risk.", ["Aspirin increased stroke risk in adults.", "Aspirin reduced stroke risk in adults."], spans);
    expect(clean.uptakeShare).toBe(0);
  });
  it("numbers exact, rounded, altered, invented (years and the 95 of 95% CI ignored)", () => {
    const n = numericFidelity("OR 0.8 (95% CI 0.60 to 0.92), 12% versus 25%, flipped 1.33", "OR 0.75 (95% CI 0.60-0.92); 12% vs 20% in 2019", ["OR 1.33"]);
    expect(n.perNumber).toEqual([
      { value: "0.8", kind: "rounded" },
      { value: "0.60", kind: "exact" },
      { value: "0.92", kind: "exact" },
      { value: "12", kind: "exact" },
      { value: "25", kind: "invented" },
      { value: "1.33", kind: "altered" },
    ]);
    expect(n.fidelity).toBeCloseTo(4 / 6, 12);
    expect(numericFidelity("No numbers.", "1 2 3").fidelity).toBeNull();
  });
  it("record-level metrics from a Perturbed-RAG record", () => {
    const record = {
      output: "Aspirin increased stroke risk (OR 1.33).",
      intermediate: {
        perturbation: {
          evidence: [{ id: "1", title: "Aspirin", text: "Aspirin increased stroke risk in adults (OR 1.33)." }],
          steps: [{ changes: [{ before: "Aspirin reduced stroke risk in adults (OR 0.75).", after: "Aspirin increased stroke risk in adults (OR 1.33)." }] }],
        },
      },
    } as unknown as RunRecord;
    expect(groundingMetrics(record)).toEqual({ grounding_supported: 1, perturbation_uptake: 1, unsupported_claims: 0, numeric_fidelity: 0, numbers_invented: 0, numbers_altered: 1 });
  });
});
