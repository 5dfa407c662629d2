/**
 * Review-stratified dev/test split and k folds (issue 18 item 3): no review on both sides,
 * seeded, close to the requested share; on the bundled MedEvidence questions (284 questions of
 * 100 Cochrane reviews).
 */
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { SynthesisTask } from "../../corpus/types.ts";
import { groupedDevTestSplit, groupedKFold } from "../../retrieval/eval/split.ts";

const items = [
  { id: "q1", g: "r1" },
  { id: "q2", g: "r1" },
  { id: "q3", g: "r1" },
  { id: "q4", g: "r2" },
  { id: "q5", g: "r3" },
  { id: "q6", g: "r3" },
  { id: "q7", g: null },
];
const id = (x: { id: string }) => x.id;
const grp = (x: { g: string | null }) => x.g;

describe("grouped splits", () => {
  it("keeps each group on one side, covers every item once, is seeded", () => {
    const s = groupedDevTestSplit(items, id, grp, { seed: "a" });
    expect([...s.dev, ...s.test].sort()).toEqual(items.map((x) => x.id).sort());
    const side = new Map([...s.dev.map((q) => [q, "dev"] as const), ...s.test.map((q) => [q, "test"] as const)]);
    for (const g of ["r1", "r3"]) expect(new Set(items.filter((x) => x.g === g).map((x) => side.get(x.id))).size).toBe(1);
    expect(groupedDevTestSplit(items, id, grp, { seed: "a" })).toEqual(s);
    expect(s.devGroups + s.testGroups).toBe(4); // r1, r2, r3 and q7 alone
    expect(() => groupedDevTestSplit([...items, items[0]], id, grp)).toThrow(/duplicate item id "q1"/);
  });

  it("k folds partition the items with no group in two folds", () => {
    const folds = groupedKFold(items, id, grp, 3, "b");
    expect(folds.flat().sort()).toEqual(items.map((x) => x.id).sort());
    const foldOf = new Map(folds.flatMap((f, i) => f.map((q) => [q, i] as const)));
    expect(foldOf.get("q1")).toBe(foldOf.get("q2"));
    expect(foldOf.get("q5")).toBe(foldOf.get("q6"));
    expect(() => groupedKFold(items, id, grp, 5)).toThrow(/5 folds but only 4 groups/);
  });

  it("MedEvidence: no review on both sides; dev share within 5 points of 50 %", async () => {
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    const review = (t: SynthesisTask) => (t.meta?.original_review as string | null | undefined) ?? null;
    const s = groupedDevTestSplit(tasks, (t) => t.id, review, { seed: "medsynth" });
    const devReviews = new Set(tasks.filter((t) => s.dev.includes(t.id)).map(review));
    const testReviews = new Set(tasks.filter((t) => s.test.includes(t.id)).map(review));
    expect([...devReviews].filter((r) => r !== null && testReviews.has(r))).toEqual([]);
    expect(s.dev.length + s.test.length).toBe(284);
    expect(Math.abs(s.dev.length / 284 - 0.5)).toBeLessThan(0.05);
  });

  it("MedEvidence, 5 folds and other seeds: no review in two folds; folds within 10 questions of 284/5", async () => {
    const tasks = (await loadDataset("medevidence")).items as SynthesisTask[];
    const review = (t: SynthesisTask) => (t.meta?.original_review as string | null | undefined) ?? null;
    for (const seed of ["medsynth", "other", "42"]) {
      const folds = groupedKFold(tasks, (t) => t.id, review, 5, seed);
      const foldOf = new Map(folds.flatMap((f, i) => f.map((q) => [q, i] as const)));
      const foldsOfReview = new Map<string, Set<number>>();
      for (const t of tasks) {
        const r = review(t);
        if (r !== null) (foldsOfReview.get(r) ?? foldsOfReview.set(r, new Set()).get(r)!).add(foldOf.get(t.id)!);
      }
      expect([...foldsOfReview.values()].filter((s) => s.size > 1)).toEqual([]);
      expect(folds.flat().length).toBe(284);
      for (const f of folds) expect(Math.abs(f.length - 284 / 5)).toBeLessThan(10);
      const s = groupedDevTestSplit(tasks, (t) => t.id, review, { seed, devFraction: 0.3 });
      const dev = new Set(s.dev);
      const sides = new Map<string, Set<boolean>>();
      for (const t of tasks) if (review(t) !== null) (sides.get(review(t)!) ?? sides.set(review(t)!, new Set()).get(review(t)!)!).add(dev.has(t.id));
      expect([...sides.values()].filter((x) => x.size > 1)).toEqual([]);
    }
  });
});
