/**
 * Perturbations on a corpus store without loading it (issue 26): random distractors, retracted
 * inserts and swap donors drawn from a `PoolSource` (ids in memory, documents fetched by id) are
 * exactly those drawn from the loaded pool, only the picked documents are fetched, the store is
 * never scanned for distractors or donors (one scan, cached, for the retracted studies), and
 * `openRetrievalPool` gives a store as ids, a corpus file as documents.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DocumentSource } from "../../corpus/store/types.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createPerturbation } from "../../graphs/perturb/registry.ts";
import type { PerturbationContext, PerturbedPassage } from "../../graphs/perturb/types.ts";
import { openRetrievalPool, poolSourceOf } from "../../experiments/wiring.ts";
import { buildBulkyStore } from "../helpers/bulky-store.ts";

/** An in-memory DocumentSource that records what was read; `scanDocs` counts its passes. */
function fakeSource(docs: CorpusDoc[]) {
  const calls = { getDocs: [] as string[][], scans: 0, idPasses: 0 };
  const source: DocumentSource = {
    count: async () => docs.length,
    async getDocs(ids) {
      calls.getDocs.push([...ids]);
      const byId = new Map(docs.map((d) => [d.id, d]));
      return new Map(ids.filter((id) => byId.has(id)).map((id) => [id, byId.get(id)!]));
    },
    async *scanDocs() {
      calls.scans++;
      yield docs;
    },
    async *ids(batch = 1000) {
      calls.idPasses++;
      for (let i = 0; i < docs.length; i += batch) yield docs.slice(i, i + batch).map((d) => d.id);
    },
  };
  return { source, calls };
}

const POOL: CorpusDoc[] = Array.from(
  { length: 40 },
  (_, i) => ({ id: String(100 + i), title: `Trial ${i} of drug ${i}`, text: `Abstract ${i}.`, ...(i % 9 === 4 ? { retraction: "retracted" } : {}) }) as CorpusDoc,
);
const A: PerturbedPassage = { id: "100", title: "Golden one", text: "a" };
const B: PerturbedPassage = { id: "101", title: "Golden two", text: "b" };
const ctx = (over: Partial<PerturbationContext>): PerturbationContext => ({ itemId: "item-7", question: "q", seed: 11, goldenIds: new Set(["100", "101"]), ...over });

describe("perturbation pool streamed from a store", () => {
  it("random distractors: the same ids and passages as from the loaded pool; only the picks fetched, no scan", async () => {
    const op = createPerturbation({ op: "distract", strength: 1.5, source: "random" });
    for (const itemId of ["item-1", "item-2", "item-3"]) {
      const { source, calls } = fakeSource(POOL);
      const poolSource = await poolSourceOf(source, "fake");
      const loaded = await op.apply([A, B], ctx({ itemId, pool: POOL }));
      const streamed = await op.apply([A, B], ctx({ itemId, poolSource }));
      expect(loaded.step.inserted).toHaveLength(3);
      expect(streamed).toEqual(loaded);
      expect(calls.scans).toBe(0);
      expect(calls.getDocs).toEqual([loaded.step.inserted]);
    }
  });

  it("retracted inserts: the same studies as from the loaded pool; the store scanned once for all items", async () => {
    const op = createPerturbation({ op: "retracted", strength: 1, mode: "insert" });
    const { source, calls } = fakeSource(POOL);
    const poolSource = await poolSourceOf(source, "fake");
    for (const itemId of ["item-1", "item-2"]) {
      const loaded = await op.apply([A, B], ctx({ itemId, pool: POOL }));
      const streamed = await op.apply([A, B], ctx({ itemId, poolSource }));
      // Retracted: i ≡ 4 (mod 9) → ids 104, 113, 122, 131.
      expect(loaded.step.inserted.every((id) => ["104", "113", "122", "131"].includes(id))).toBe(true);
      expect(loaded.step.inserted).toHaveLength(2);
      expect(streamed).toEqual(loaded);
    }
    expect(calls.scans).toBe(1);
  });

  it("swap donors: the same replacement as from the loaded pool, donors fetched by id", async () => {
    const T1: PerturbedPassage = { id: "t1", title: "Aspirin versus placebo for secondary prevention of stroke", text: "Aspirin reduced recurrent stroke compared with placebo." };
    const D1: CorpusDoc = { id: "d1", title: "Clopidogrel versus usual care after myocardial infarction", text: "The primary outcome was major bleeding at 1 year." };
    const D3: CorpusDoc = { id: "d3", title: "Exercise training in heart failure", text: "Patients exercised three times a week." };
    const pool = [T1 as CorpusDoc, D3, D1];
    const { source, calls } = fakeSource(pool);
    const poolSource = await poolSourceOf(source, "fake");
    const op = createPerturbation({ op: "swap", strength: 1, element: "intervention" });
    const base = { goldenIds: new Set(["t1"]) };
    const loaded = await op.apply([T1], ctx({ ...base, pool }));
    const streamed = await op.apply([T1], ctx({ ...base, poolSource }));
    expect(loaded.evidence[0].title).toBe("Clopidogrel versus placebo for secondary prevention of stroke");
    expect(streamed).toEqual(loaded);
    expect(calls.scans).toBe(0);
    expect(calls.getDocs.flat().sort()).toEqual(["d1", "d3"]);
  });

  it("openRetrievalPool: a lance: store comes back as ids in store order (documents not loaded), a JSONL file as documents", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-pool-"));
    const store = await buildBulkyStore(dir, 30, 400);
    const logs: string[] = [];
    const p = await openRetrievalPool({ corpus: `lance:${store.uri}` }, (l) => logs.push(l));
    expect("source" in p).toBe(true);
    const src = (p as { source: Awaited<ReturnType<typeof poolSourceOf>> }).source;
    expect(src.ids).toEqual(Array.from({ length: 30 }, (_, i) => String(700000 + i)));
    expect(logs.join("\n")).toMatch(/perturbation pool: store lance:.*, 30 ids \(streamed; documents fetched by id for the picks\)/);
    const got = await src.getDocs(["700007", "nope"]);
    expect([...got.keys()]).toEqual(["700007"]);
    expect(got.get("700007")!.title).toBe("Bulky record 7 about cardiology.");
    const file = join(dir, "corpus.jsonl");
    writeFileSync(file, `${JSON.stringify({ id: "1", title: "T", text: "x" })}\n`);
    const f = await openRetrievalPool({ corpus: file }, () => {});
    expect(f).toEqual({ docs: [{ id: "1", title: "T", text: "x" }] });
  }, 120_000);
});
