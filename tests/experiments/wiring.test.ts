import { describe, expect, it } from "vitest";
import { formatStudyRaw } from "../../graphs/rwe-summary.ts";
import { loadRetrievalCorpus, sourceTextOf } from "../../experiments/wiring.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { RweStudy } from "../../corpus/types.ts";

describe("wiring", () => {
  it("builds a MedMeta-style noise corpus: every golden MedEvidence abstract + 500 seeded noise abstracts", async () => {
    const docs = await loadRetrievalCorpus({ corpus: "bundled", noise: { goldenFrom: "medevidence", noiseCount: 500, seed: 7 } });
    expect(docs).toHaveLength(329 + 500);
    const ids = new Set(docs.map((d) => d.id));
    expect(ids.size).toBe(829);
    const again = await loadRetrievalCorpus({ corpus: "bundled", noise: { goldenFrom: "medevidence", noiseCount: 500, seed: 7 } });
    expect(again.map((d) => d.id)).toEqual(docs.map((d) => d.id));
    const other = await loadRetrievalCorpus({ corpus: "bundled", noise: { goldenFrom: "medevidence", noiseCount: 500, seed: 8 } });
    expect(other.map((d) => d.id).sort()).not.toEqual(docs.map((d) => d.id).sort());
    await expect(loadRetrievalCorpus({ corpus: "bundled", noise: { goldenFrom: "pubmedqa", noiseCount: 1, seed: 0 } })).rejects.toThrow(/goldenFrom: "pubmedqa" holds conclusion items/);
    await expect(loadRetrievalCorpus({ corpus: "/nope/corpus.jsonl" })).rejects.toThrow(/retrieval.corpus: \/nope\/corpus.jsonl does not exist/);
  });

  it("gives judges the RWE study as source text, with every outcome's estimate", async () => {
    const study = (await loadDataset("rwe-glp1")).items[0] as RweStudy;
    const text = sourceTextOf(study as never, "rwe");
    expect(text.startsWith(study.question)).toBe(true);
    for (const o of study.outcomes) expect(text).toContain(o.name);
    // The jurors see the same raw study the model is given: no pre-labelled significance.
    expect(text).toContain(formatStudyRaw(study));
    expect(text).not.toMatch(/statistically significant/);
  });
});

describe("retrieval mode default of a config (issue 12 item 9)", () => {
  it("absent mode: bm25 with the offline word vectors (said once), hybrid with a real embedder; an explicit mode wins", async () => {
    const { resolvedRetrievalMode } = await import("../../experiments/wiring.ts");
    const log: string[] = [];
    expect(resolvedRetrievalMode({ corpus: "bundled", options: {} }, (l) => log.push(l))).toBe("bm25");
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^retrieval mode: bm25 \(default with the offline word-vector embedder/);
    expect(resolvedRetrievalMode({ corpus: "bundled", options: { embedder: "transformers:Xenova/bge-small-en-v1.5" } })).toBe("hybrid");
    expect(resolvedRetrievalMode({ corpus: "bundled", mode: "dense", options: {} }, (l) => log.push(l))).toBe("dense");
    expect(log).toHaveLength(1);
  });
});
