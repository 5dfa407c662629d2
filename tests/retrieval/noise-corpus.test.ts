import { describe, expect, it } from "vitest";
import type { CorpusDoc } from "../../corpus/types.ts";
import { buildNoiseCorpus } from "../../retrieval/noise-corpus.ts";

const doc = (id: string): CorpusDoc => ({ id, title: `t${id}`, text: `x${id}` });
const GOLDEN = ["g1", "g2", "g3", "p5"].map(doc);
const POOL = [...Array.from({ length: 100 }, (_, i) => doc(`p${i}`)), doc("p7"), doc("g2")];

describe("buildNoiseCorpus", () => {
  it("exact golden/noise counts, no golden id among noise, golden recorded", () => {
    const c = buildNoiseCorpus(GOLDEN, POOL, { noiseCount: 30, seed: "s1" });
    expect(c.docs).toHaveLength(34);
    expect(c.goldenCount).toBe(4);
    expect(c.noiseCount).toBe(30);
    expect([...c.goldenIds].sort()).toEqual(["g1", "g2", "g3", "p5"]);
    const noise = c.docs.filter((d) => !c.goldenIds.has(d.id));
    expect(noise).toHaveLength(30);
    expect(new Set(c.docs.map((d) => d.id)).size).toBe(34);
    // p5 and g2 are golden ids (excluded from the pool), p7 repeats.
    expect(c.excludedFromPool).toEqual({ golden: 2, duplicate: 1 });
  });

  it("is deterministic by seed and differs across seeds", () => {
    const ids = (seed: string) => buildNoiseCorpus(GOLDEN, POOL, { noiseCount: 30, seed }).docs.map((d) => d.id);
    expect(ids("s1")).toEqual(ids("s1"));
    expect(ids("s1")).not.toEqual(ids("s2"));
    const unshuffled = buildNoiseCorpus(GOLDEN, POOL, { noiseCount: 30, seed: "s1", shuffle: false }).docs.map((d) => d.id);
    expect(unshuffled.slice(0, 4)).toEqual(["g1", "g2", "g3", "p5"]);
    expect(new Set(unshuffled)).toEqual(new Set(ids("s1")));
  });

  it("MedMeta proportions: 2,250 golden + 22,750 noise = 25,000", () => {
    const golden = Array.from({ length: 2250 }, (_, i) => doc(`g${i}`));
    const pool = Array.from({ length: 30000 }, (_, i) => doc(`n${i}`));
    const c = buildNoiseCorpus(golden, pool, { noiseCount: 22750 });
    expect([c.goldenCount, c.noiseCount, c.docs.length]).toEqual([2250, 22750, 25000]);
  });

  it("throws when the eligible pool is too small; drops and counts duplicate golden docs", () => {
    expect(() => buildNoiseCorpus(GOLDEN, POOL, { noiseCount: 100 })).toThrow(/noiseCount 100 exceeds the 99 eligible pool docs/);
    const c = buildNoiseCorpus([doc("g1"), doc("g1")], POOL, { noiseCount: 0 });
    expect([c.goldenCount, c.duplicateGolden, c.docs.length]).toEqual([1, 1, 1]);
    expect(() => buildNoiseCorpus(GOLDEN, POOL, { noiseCount: 1, sed: "x" } as never)).toThrow();
  });
});
