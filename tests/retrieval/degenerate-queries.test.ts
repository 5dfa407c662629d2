/**
 * Degenerate queries and documents (issue 12 item 5): an empty, stop-word-only or
 * out-of-vocabulary query returns no hits in BM25, dense, hybrid and lance-hybrid alike; an empty
 * document never matches (before: hybrid returned the stop-word document with dense score 0.95
 * for "the of and", and an all-empty corpus returned every document for any query).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { searchMatchable, unmatchableDocIds } from "../../retrieval/dense/dense-retriever.ts";
import { createRetriever, RETRIEVAL_MODES } from "../../retrieval/registry.ts";

const MIXED = [
  { id: "1", title: "Aspirin for stroke", text: "Aspirin reduces the risk of stroke in adults." },
  { id: "2", title: "", text: "the of and with" },
  { id: "3", title: "", text: "" },
  { id: "4", title: "Statins", text: "Statins lower cholesterol and cardiovascular events." },
];
const ALL_EMPTY = [
  { id: "a", title: "", text: "" },
  { id: "b", title: "", text: "" },
];
const DEGENERATE = ["", "   ", "the of and", "with", "zzqx qqzv", "*&^%$#@!"];

describe("degenerate queries return no hits in every mode", () => {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-degenerate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("mixed corpus (one stop-word doc, one empty doc) and all-empty corpus", async () => {
    for (const mode of RETRIEVAL_MODES) {
      for (const [name, docs] of [
        ["mixed", MIXED],
        ["all-empty", ALL_EMPTY],
      ] as const) {
        const r = await createRetriever({ mode, dense: { dir } }, { docs, log: () => {} });
        for (const q of DEGENERATE) expect(await r.search(q, 10), `${mode} ${name} ${JSON.stringify(q)}`).toEqual([]);
        const hits = await r.search("aspirin stroke", 10);
        // The empty document never matches; on the all-empty corpus nothing does.
        expect(
          hits.map((h) => h.id),
          `${mode} ${name}`,
        ).not.toContain("3");
        if (name === "all-empty") expect(hits, `${mode} all-empty`).toEqual([]);
        else expect(hits[0].id, mode).toBe("1");
      }
    }
  }, 180_000);

  it("unmatchable documents: no analyzable term; the vector search asks for more and drops them", async () => {
    expect([...unmatchableDocIds(MIXED)]).toEqual(["2", "3"]);
    const asked: number[] = [];
    const store = {
      search: async (_v: Float32Array, k: number) => (
        asked.push(k),
        [
          { id: "3", score: 0.9 },
          { id: "1", score: 0.5 },
          { id: "2", score: 0.4 },
          { id: "4", score: 0.1 },
        ].slice(0, k)
      ),
    };
    expect(await searchMatchable(store, new Float32Array(1), 2, new Set(["2", "3"]))).toEqual([
      { id: "1", score: 0.5 },
      { id: "4", score: 0.1 },
    ]);
    expect(asked).toEqual([4]);
  });
});
