/**
 * `nprobes` tuned on questions (retrieval/lance/ann-tune.ts): the split, the doubling, the recall
 * on both halves against the exact top-10 of a real LanceDB table (brute force as reference), and
 * what is stored. The ANN search is a double whose hits depend on `nprobes` by a rule, so every
 * recall below is computed by hand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../retrieval/lance-env.ts";
import type * as LanceDb from "@lancedb/lancedb";
import { applyAnnTuning, queriesSha256, splitTuneHeldOut, tuneAnnOnQueries } from "../../retrieval/lance/ann-tune.ts";
import { reachesRecall, type DiskIndexMeta, type LanceAnnStore } from "../../retrieval/lance/disk-engines.ts";

const DIMS = 4;
const N = 40;

/** Doc i's vector: a point on a spiral, so cosine rankings are distinct. */
function docVector(i: number): Float32Array {
  return Float32Array.from([Math.cos(i * 0.37), Math.sin(i * 0.37), Math.cos(i * 0.11) * 0.5, 1 + (i % 5) * 0.1]);
}

function bruteTop10(q: Float32Array): { id: string; s: number }[] {
  const cos = (a: Float32Array, b: Float32Array) => {
    let d = 0;
    let na = 0;
    let nb = 0;
    for (let j = 0; j < a.length; j++) {
      d += a[j] * b[j];
      na += a[j] * a[j];
      nb += b[j] * b[j];
    }
    return d / Math.sqrt(na * nb);
  };
  return Array.from({ length: N }, (_, i) => ({ id: String(1000 + i), s: cos(q, docVector(i)) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
    .slice(0, 10);
}

describe("tuneAnnOnQueries", () => {
  let dir: string;
  let table: LanceDb.Table;
  // Six questions: positions 1, 3, 5 are held out (share 0.5); the zero vector is left out first.
  const texts = ["q0", "q1", "zero", "q2", "q3", "q4", "q5"];
  const queryVecs = [docVector(3.5), docVector(10.2), new Float32Array(DIMS), docVector(20.7), docVector(25.1), docVector(31.9), docVector(7.3)];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "medsynth-ann-tune-"));
    const lancedb = await import("@lancedb/lancedb");
    const db = await lancedb.connect(dir);
    table = await db.createTable(
      "v",
      Array.from({ length: N }, (_, i) => ({ id: String(1000 + i), vector: Array.from(docVector(i)) })),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A store double: at `nprobes` p, the tuning questions get min(10, 3p) of their exact top-10 right, held-out ones min(10, 2p). */
  let exactKept = new Map<string, unknown>();
  let tableVersion = 1;
  function fakeStore(meta: Partial<DiskIndexMeta>, patches: Partial<DiskIndexMeta>[]): LanceAnnStore {
    const usable = queryVecs.filter((v) => v.some((x) => x !== 0));
    const m = { kind: "ann", fingerprint: "f", docCount: N, index: "ivf_pq", numPartitions: 16, nprobes: 8, buildSeconds: 1, ...meta } as DiskIndexMeta;
    return {
      table,
      tableName: "v",
      dir,
      docCount: N,
      unmatchable: new Set<string>(),
      meta: m,
      updateMeta: async (p: Partial<DiskIndexMeta>) => {
        patches.push(p);
      },
      readExactLists: async (key: string) => exactKept.get(key) ?? null,
      writeExactLists: async (key: string, lists: unknown) => {
        exactKept.clear();
        exactKept.set(key, lists);
      },
      tableVersion: async () => tableVersion,
      search: async (v: Float32Array, k: number, o?: { nprobes?: number }) => {
        const qi = usable.indexOf(v);
        const right = Math.min(10, (qi % 2 === 1 ? 2 : 3) * (o?.nprobes ?? 0));
        const exact = bruteTop10(v);
        // Wrong hits score below every exact one (recallAtK counts a hit tied with the 10th as right).
        const wrong = Array.from({ length: 10 - right }, (_, j) => ({ id: `x${j}`, s: -1 - j }));
        return [...exact.slice(0, right), ...wrong].slice(0, k).map((h) => ({ id: h.id, score: h.s }));
      },
    } as unknown as LanceAnnStore;
  }

  it("splits deterministically: share 0.5 holds out the odd positions, 0.25 every fourth", () => {
    expect(splitTuneHeldOut(5, 0.5)).toEqual({ tune: [0, 2, 4], heldOut: [1, 3] });
    expect(splitTuneHeldOut(8, 0.25)).toEqual({ tune: [0, 1, 2, 4, 5, 6], heldOut: [3, 7] });
  });

  it("doubles nprobes until the tuning half reaches the target; the held-out recall is reported", async () => {
    const patches: Partial<DiskIndexMeta>[] = [];
    const store = fakeStore({}, patches);
    const r = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 0.95 });
    // Tuning half: 3p/10 → 0.3, 0.6, 1.0 at p = 1, 2, 4; held out: 2p/10 → 0.2, 0.4, 0.8. Then
    // bisection between 2 (missed) and 4 (reached): 3 → 0.9 misses; 3 and 4 are adjacent: stop.
    expect(r.tuning.curve.map((p) => p.nprobes)).toEqual([1, 2, 4, 3]);
    const want = [
      [0.3, 0.2],
      [0.6, 0.4],
      [1, 0.8],
      [0.9, 0.6],
    ];
    r.tuning.curve.forEach((p, i) => {
      expect(p.recallTune).toBeCloseTo(want[i][0], 12);
      expect(p.recallHeldOut).toBeCloseTo(want[i][1], 12);
    });
    expect(r.nprobes).toBe(4);
    expect(r.recallAt10HeldOut).toBeCloseTo(0.8, 12);
    expect(r.reachedTarget).toBe(true);
    expect(r.zeroVectors).toBe(1);
    expect(r.tuning.tuneQueries).toBe(3);
    expect(r.tuning.heldOutQueries).toBe(3);
    expect(r.tuning.queriesSha256).toBe(queriesSha256(texts));
    expect(patches).toEqual([]); // tuning alone stores nothing
  });

  it("bisects between the last miss and the first hit and keeps the smallest nprobes that reaches the target", async () => {
    const store = fakeStore({ numPartitions: 64 }, []);
    // Target 0.85: 1 → 0.3, 2 → 0.6, 4 → 1.0 (hit), bisect 3 → 0.9 (hit); 2 and 3 adjacent: stop at 3.
    const r = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 0.85 });
    expect(r.tuning.curve.map((p) => p.nprobes)).toEqual([1, 2, 4, 3]);
    expect([r.nprobes, r.recallAt10Tune, r.reachedTarget]).toEqual([3, expect.closeTo(0.9, 12), true]);
    expect(r.recallAt10HeldOut).toBeCloseTo(0.6, 12);
    // bisectSteps 0: doubling only (round 12's behaviour).
    const d = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 0.85, bisectSteps: 0 });
    expect([d.tuning.curve.map((p) => p.nprobes), d.nprobes]).toEqual([[1, 2, 4], 4]);
    // Reached at the first value tried: nothing to bisect.
    const s = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 0.2, startNprobes: 1 });
    expect([s.tuning.curve.map((p) => p.nprobes), s.nprobes]).toEqual([[1], 1]);
  });

  it("a mean recall equal to the target reaches it despite floating-point rounding (reachesRecall)", () => {
    // 20 questions whose recalls sum to 19.3: the running sum is 0.9649999999999999 × 20.
    const recalls = [...Array(13).fill(1), ...Array(7).fill(0.9)];
    const mean = recalls.reduce((a, b) => a + b, 0) / recalls.length;
    expect(mean).toBeLessThan(0.965); // the rounding the helper found
    expect(reachesRecall(mean, 0.965)).toBe(true);
    expect(reachesRecall(0.9649, 0.965)).toBe(false);
  });

  it("keeps the exact lists for the next tuning on the same questions, table version and skip set", async () => {
    exactKept = new Map();
    const store = fakeStore({}, []);
    const logs: string[] = [];
    const first = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", {}, (l) => logs.push(l));
    expect(logs[0]).toMatch(/^index tune: exact top-10 of 6 questions in [\d.]+ s \(one pass over \d+ vectors\)$/);
    expect(exactKept.size).toBe(1);
    logs.length = 0;
    const again = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 0.5 }, (l) => logs.push(l));
    expect(logs[0]).toBe("index tune: exact top-10 of 6 questions kept by an earlier tuning on the same questions and index (no pass over the vectors)");
    expect(again.tuning.curve.slice(0, 2)).toEqual(first.tuning.curve.slice(0, 2)); // same exact lists, same recalls
    // Other questions, or the table rebuilt (another version): a new pass.
    logs.length = 0;
    await tuneAnnOnQueries(store, texts.slice(1), queryVecs.slice(1), "q.json", {}, (l) => logs.push(l));
    expect(logs[0]).toMatch(/one pass over/);
    tableVersion = 2;
    logs.length = 0;
    await tuneAnnOnQueries(store, texts.slice(1), queryVecs.slice(1), "q.json", {}, (l) => logs.push(l));
    expect(logs[0]).toMatch(/one pass over/);
    tableVersion = 1;
  });

  it("stops at every partition when the target is never reached, and says so", async () => {
    const store = fakeStore({ numPartitions: 3 }, []);
    const r = await tuneAnnOnQueries(store, texts, queryVecs, "q.json", { targetRecall: 1, startNprobes: 1 });
    // p = 1 → 0.3, 2 → 0.6, then min(3, 4) = 3 → 0.9 (tuning half): below 1 with every partition.
    expect(r.tuning.curve.map((p) => p.nprobes)).toEqual([1, 2, 3]);
    expect(r.recallAt10Tune).toBeCloseTo(0.9, 12);
    expect(r.reachedTarget).toBe(false);
  });

  it("applyAnnTuning stores nprobes, the held-out recall and method, and keeps the build's own check once", async () => {
    const patches: Partial<DiskIndexMeta>[] = [];
    const store = fakeStore({ recallAt10: 0.95, nprobes: 2560, recallSample: 100, recallMethod: "duplicates-left-out" }, patches);
    const r = await tuneAnnOnQueries(store, texts, queryVecs, "q.json");
    await applyAnnTuning(store, r);
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({
      nprobes: 4,
      recallSample: 3,
      recallMethod: "queries-held-out",
      buildRecall: { recallAt10: 0.95, nprobes: 2560, recallSample: 100, recallMethod: "duplicates-left-out" },
    });
    expect(patches[0].recallAt10).toBeCloseTo(0.8, 12);
    // A second tuning keeps the build's check from the first (not the tuned values).
    const again = fakeStore({ recallAt10: 0.8, nprobes: 4, recallMethod: "queries-held-out", buildRecall: { recallAt10: 0.95, nprobes: 2560, recallSample: 100 } }, patches);
    await applyAnnTuning(again, r);
    expect(patches[1].buildRecall).toEqual({ recallAt10: 0.95, nprobes: 2560, recallSample: 100 });
  });

  it("errors: HNSW (no nprobes), mismatched lengths, fewer than two usable questions, an empty half", async () => {
    await expect(tuneAnnOnQueries(fakeStore({ index: "hnsw_sq" }, []), texts, queryVecs, "q.json")).rejects.toThrow(/hnsw_sq, which has no nprobes/);
    await expect(tuneAnnOnQueries(fakeStore({}, []), texts.slice(1), queryVecs, "q.json")).rejects.toThrow(/6 questions but 7 vectors/);
    await expect(tuneAnnOnQueries(fakeStore({}, []), ["a", "b"], [docVector(1), new Float32Array(DIMS)], "few.txt")).rejects.toThrow(/1 of 2 questions in few.txt have a non-zero vector/);
    await expect(tuneAnnOnQueries(fakeStore({}, []), ["a"], [docVector(1)], "one.txt")).rejects.toThrow(/one.txt holds 1 question; at least 2 are needed/);
    // Share 0.1 of 6 usable questions: ⌊(i+1)·0.1⌋ = 0 for every i < 6, so nothing is held out.
    await expect(tuneAnnOnQueries(fakeStore({}, []), texts, queryVecs, "q.json", { heldOutShare: 0.1 })).rejects.toThrow(/leaves 6 to tune and 0 held out; both need at least one/);
  });
});
