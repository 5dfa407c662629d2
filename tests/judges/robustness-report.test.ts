/**
 * Regression tests from the adversarial review of the robustness report (issue 15, item 5):
 * abstentions are not "misled"; the misleading table says how many eligible cells were really
 * perturbed; cells left unchanged are listed with their reason; a distractor's sentences count as
 * perturbed spans for uptake (its change record names only its title); swap cells are labelled by
 * element; the LLM grounding columns appear next to the lexical ones; every table is explained.
 * Values computed by hand.
 */
import { describe, expect, it } from "vitest";
import { groundingMetrics } from "../../experiments/metrics-stage.ts";
import { robustnessSection } from "../../experiments/report/robustness-section.ts";
import type { RunRecord } from "../../experiments/types.ts";
import { misleadingRate, type RobustnessRow } from "../../judges/robustness.ts";

const row = (item: string, strength: number, answer: string, extra: Partial<RobustnessRow> = {}): RobustnessRow => ({
  item,
  model: "m",
  workflow: "critic-rag[conflict]",
  strength,
  answer,
  gold: "higher",
  ...extra,
});

describe("misleading rate: abstentions and applied perturbations", () => {
  it("an abstention is eligible, not misled: 3 eligible, 1 misled, 1 abstained → rate 1/3", () => {
    const rows = [
      row("i1", 0, "higher"),
      row("i2", 0, "higher"),
      row("i3", 0, "higher"),
      row("i1", 1, "insufficient data", { abstained: true, applied: true }),
      row("i2", 1, "lower", { applied: true }),
      row("i3", 1, "higher", { applied: false }),
    ];
    const [m] = misleadingRate(rows);
    expect(m).toMatchObject({ eligible: 3, misled: 1, abstained: 1, applied: 2, followedCorruption: 1 });
    expect(m.rate).toBeCloseTo(1 / 3, 12);
  });
});

const rec = (over: Partial<RunRecord> & { itemId: string }): RunRecord =>
  ({
    key: `${over.itemId}-${over.workflow}-${JSON.stringify(over.params)}`,
    dataset: "medevidence",
    taskKind: "synthesis",
    model: "m",
    workflow: "golden-rag",
    params: {},
    repeat: 0,
    status: "ok",
    output: "x",
    reference: null,
    itemMeta: { referenceAnswer: "higher" },
    intermediate: {},
    generator: {},
    startedAt: "",
    finishedAt: "",
    ...over,
  }) as unknown as RunRecord;

describe("uptake of inserted distractors", () => {
  it("an output sentence copied from a distractor takes up the perturbation (its record names only the title)", () => {
    const record = rec({
      itemId: "i1",
      workflow: "perturbed-rag",
      params: { op: "distract", strength: 1 },
      output: "Vitamin D lowered fracture risk in nursing homes.",
      intermediate: {
        perturbation: {
          evidence: [
            { id: "1", title: "Aspirin and stroke", text: "Aspirin reduced stroke in adults." },
            { id: "9", title: "Vitamin D in the elderly", text: "Vitamin D lowered fracture risk in nursing homes." },
          ],
          steps: [{ op: "distract", applied: true, inserted: ["9"], changes: [{ op: "distract", docId: "9", kind: "near", before: "", after: "Vitamin D in the elderly" }] }],
        },
      },
    });
    expect(groundingMetrics(record)).toMatchObject({ grounding_supported: 1, perturbation_uptake: 1, unsupported_claims: 0 });
    const golden = { ...record, output: "Aspirin reduced stroke in adults." } as RunRecord;
    expect(groundingMetrics(golden).perturbation_uptake).toBe(0);
  });
});

describe("robustness section", () => {
  it("labels swap cells by element, counts perturbed/abstained, lists unchanged cells with their reason, shows LLM columns, explains every table", async () => {
    const steps = (applied: boolean, reason?: string) => [{ op: "swap", applied, ...(reason ? { reason } : {}), changes: [], inserted: [] }];
    const records = [
      rec({ itemId: "i1", workflow: "golden-rag", labels: { answer_label_lexical: "higher" } }),
      rec({ itemId: "i2", workflow: "golden-rag", labels: { answer_label_lexical: "higher" } }),
      rec({
        itemId: "i1",
        workflow: "perturbed-rag",
        params: { op: "swap", element: "outcome", strength: 1 },
        labels: { answer_label_lexical: "lower" },
        metrics: { perturbation_uptake: 0.5, perturbation_uptake_llm: 1, grounding_supported_llm: 1 },
        intermediate: { perturbation: { steps: steps(true) } },
      }),
      rec({
        itemId: "i2",
        workflow: "perturbed-rag",
        params: { op: "swap", element: "outcome", strength: 1 },
        labels: { answer_label_lexical: "higher" },
        metrics: { perturbation_uptake: 0 },
        intermediate: { perturbation: { steps: steps(false, "no outcome found (rule extractor) in 12345678") } },
      }),
      rec({
        itemId: "i1",
        workflow: "critic-rag",
        params: { op: "conflict", strength: 1 },
        labels: { answer_label_lexical: "insufficient data" },
        intermediate: { critic: { abstained: true }, perturbation: { steps: [{ op: "conflict", applied: true, changes: [], inserted: [] }] } },
      }),
    ];
    const s = (await robustnessSection(records))!;
    const table = (id: string) => s.tables.find((t) => t.id === id)!;
    expect(table("misleading-rate").header).toEqual(["model", "workflow", "strength", "eligible", "perturbed", "misled", "rate", "95% CI", "followed", "abstained"]);
    expect(table("misleading-rate").rows).toEqual([
      ["m", "critic-rag[conflict]", "1", "1", "1", "0", "0.000", "0.000–0.793", "0", "1"],
      ["m", "perturbed-rag[swap:outcome]", "1", "2", "1", "1", "0.500", "0.095–0.905", "1", "0"],
    ]);
    expect(table("perturbation-not-applied").rows).toEqual([["m", "perturbed-rag[swap:outcome]", "1", "2", "1", "no outcome found (rule extractor) in <ids> (1)"]]);
    expect(table("perturbation-uptake").header).toEqual(["model", "workflow", "perturbation_uptake", "grounding_supported", "numeric_fidelity", "perturbation_uptake_llm", "grounding_supported_llm"]);
    expect(table("perturbation-uptake").rows).toEqual([["m", "perturbed-rag[swap:outcome]", "0.250 (n 2)", "–", "–", "1.000 (n 1)", "1.000 (n 1)"]]);
    for (const t of s.tables) expect(t.caption, t.id).toBeTruthy();
  });
});
