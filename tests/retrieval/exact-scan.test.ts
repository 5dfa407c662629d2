/**
 * exactTopKScan (retrieval/lance/exact-scan.ts) against a per-question reference written the plain
 * way (every row, float64 dot of the float32 components j ascending, sort by score then id): the
 * same ids and bit-identical scores, with questions scored four at a time, Arrow chunks at
 * non-zero offsets, tied vectors under different ids, zero vectors, skip, leave-one-out and
 * duplicate dropping.
 */
import { describe, expect, it } from "vitest";
import { exactTopKScan } from "../../retrieval/lance/exact-scan.ts";
import type { VectorHit } from "../../retrieval/dense/lancedb-store.ts";

const DIMS = 7;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

/** Rows: random vectors, row 5 a copy of row 2 (a tie under another id), row 9 all zeros. */
function corpus(n: number): { ids: string[]; vecs: Float32Array[] } {
  const r = rng(3);
  const vecs = Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, () => r()));
  vecs[5] = Float32Array.from(vecs[2]);
  vecs[9] = new Float32Array(DIMS);
  return { ids: vecs.map((_, i) => `d${String(i).padStart(3, "0")}`), vecs };
}

/** A fake LanceDB table streaming the rows in batches; each batch's vectors in two Arrow-like chunks placed at offsets. */
function fakeTable(ids: string[], vecs: Float32Array[], batchRows: number) {
  const chunk = (rows: Float32Array[], pad: number) => {
    const values = new Float32Array((pad + rows.length + 1) * DIMS);
    rows.forEach((v, i) => values.set(v, (pad + i) * DIMS));
    // child offset 1 vector, data offset pad - 1 vectors: rows start at `pad * DIMS`.
    return { type: { listSize: DIMS }, offset: pad - 1, length: rows.length, children: [{ values, offset: DIMS }] };
  };
  return {
    name: "fake_vectors",
    query: () => ({
      select: () =>
        (async function* () {
          for (let s = 0; s < ids.length; s += batchRows) {
            const bIds = ids.slice(s, s + batchRows);
            const bVecs = vecs.slice(s, s + batchRows);
            const half = Math.ceil(bVecs.length / 2);
            yield {
              numRows: bIds.length,
              getChild: (name: string) => (name === "id" ? { get: (i: number) => bIds[i] } : { data: [chunk(bVecs.slice(0, half), 2), chunk(bVecs.slice(half), 3)] }),
            };
          }
        })(),
    }),
  };
}

/** The plain reference for one question. */
function reference(
  q: Float32Array,
  ids: string[],
  vecs: Float32Array[],
  k: number,
  skip = new Set<string>(),
  self?: string,
  dropAt = Number.POSITIVE_INFINITY,
): { hits: VectorHit[]; dropped: number } {
  const nq = Math.sqrt(q.reduce((s, x) => s + x * x, 0));
  const all: VectorHit[] = [];
  let dropped = 0;
  ids.forEach((id, i) => {
    if (skip.has(id) || id === self) return;
    const v = vecs[i];
    let dot = 0;
    let nv = 0;
    for (let j = 0; j < DIMS; j++) dot += q[j] * v[j];
    for (let j = 0; j < DIMS; j++) nv += v[j] * v[j];
    const score = nq === 0 || nv === 0 ? 0 : dot / (nq * Math.sqrt(nv));
    if (score >= dropAt) dropped++;
    else all.push({ id, score });
  });
  all.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return { hits: all.slice(0, k), dropped };
}

describe("exactTopKScan: four questions at a time, the same lists and bits as one at a time", () => {
  const { ids, vecs } = corpus(203);
  const r = rng(11);
  // 9 questions (two blocks of four and one alone): one a corpus row, one all zeros.
  const qs = Array.from({ length: 9 }, () => Float32Array.from({ length: DIMS }, () => r()));
  qs[3] = Float32Array.from(vecs[2]);
  qs[7] = new Float32Array(DIMS);
  const table = fakeTable(ids, vecs, 50) as never;

  it("top 10 of each question: ids and scores equal the reference's exactly (ties by id, zero vectors score 0)", async () => {
    const { hits, dropped } = await exactTopKScan(table, qs, 10);
    expect(dropped).toEqual(qs.map(() => 0));
    qs.forEach((q, i) => expect(hits[i]).toEqual(reference(q, ids, vecs, 10).hits));
    expect(hits[3].slice(0, 2).map((h) => h.id)).toEqual(["d002", "d005"]); // the tie, by id
    expect(hits[7].every((h) => h.score === 0)).toBe(true);
  });

  it("skip, leave-one-out and duplicate dropping as the reference applies them", async () => {
    const skip = new Set(["d002", "d100"]);
    const selfIds = qs.map((_, i) => (i === 3 ? "d005" : "d001"));
    const { hits, dropped } = await exactTopKScan(table, qs, 5, { skip, selfIds, dropScoreAtLeast: 0.999 });
    qs.forEach((q, i) => {
      const ref = reference(q, ids, vecs, 5, skip, selfIds[i], 0.999);
      expect(hits[i]).toEqual(ref.hits);
      expect(dropped[i]).toBe(ref.dropped);
    });
    const dup = await exactTopKScan(table, [qs[3]], 3, { dropScoreAtLeast: 0.999 });
    expect(dup.dropped).toEqual([2]); // rows 2 and 5 equal the question
  });

  it("a question of another length is an error naming it", async () => {
    await expect(exactTopKScan(table, [qs[0], new Float32Array(3)], 10)).rejects.toThrow(/question 1 has 3 dimensions, question 0 has 7/);
    await expect(exactTopKScan(table, [new Float32Array(3)], 10)).rejects.toThrow(/fake_vectors: vectors of 7 dimensions, questions of 3/);
  });
});
