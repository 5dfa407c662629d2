/**
 * Bench of the exact top-10 pass behind IVF recall (`exactTopKScan`, retrieval/lance/exact-scan.ts:
 * the build's recall check and `index tune`) against the plain pass it replaced (every row, one
 * question at a time, a vector object per row and its id decoded first), on a LanceDB table of
 * random vectors. Interleaved rounds; prints CPU seconds of each, their ratio (median of the
 * rounds), and whether the two give the same lists (ids and float64 scores, by SHA-256).
 *
 * Usage: `npx tsx experiments/bench/exact-scan.ts [--vectors 200000] [--dims 100] [--questions 284]
 *   [--rounds 3] [--dir /tmp/exact-scan-bench]` (the table is made once and reused).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type * as LanceDb from "@lancedb/lancedb";
import { loadLancedb } from "../../corpus/store/lance-store.ts";
import type { VectorHit } from "../../retrieval/dense/lancedb-store.ts";
import { exactTopKScan, insertHit } from "../../retrieval/lance/exact-scan.ts";

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

/** The plain pass (the code before 2026-12-05): per row an id and a vector object, one question at a time. */
async function plainPass(table: LanceDb.Table, queries: Float32Array[], k: number): Promise<VectorHit[][]> {
  const tops: VectorHit[][] = queries.map(() => []);
  const norms = queries.map((q) => Math.sqrt(q.reduce((s, x) => s + x * x, 0)));
  const better = (a: VectorHit, b: VectorHit) => a.score > b.score || (a.score === b.score && a.id < b.id);
  for await (const batch of table.query().select(["id", "vector"])) {
    const idCol = batch.getChild("id")!;
    const vecCol = batch.getChild("vector")!;
    for (let row = 0; row < batch.numRows; row++) {
      const id = String(idCol.get(row));
      const v = vecCol.get(row)!.toArray() as Float32Array;
      let nv = 0;
      for (let j = 0; j < v.length; j++) nv += v[j] * v[j];
      nv = Math.sqrt(nv);
      for (let qi = 0; qi < queries.length; qi++) {
        const q = queries[qi];
        let dot = 0;
        for (let j = 0; j < q.length; j++) dot += q[j] * v[j];
        const hit = { id, score: norms[qi] === 0 || nv === 0 ? 0 : dot / (norms[qi] * nv) };
        const top = tops[qi];
        if (top.length === k && !better(hit, top[k - 1])) continue;
        insertHit(top, hit, k);
      }
    }
  }
  return tops;
}

async function timed(f: () => Promise<VectorHit[][]>): Promise<{ cpu: number; sha: string }> {
  const c0 = process.cpuUsage();
  const hits = await f();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1e6, sha: createHash("sha256").update(JSON.stringify(hits)).digest("hex") };
}

async function main(): Promise<void> {
  const n = Number(arg("vectors", "200000"));
  const dims = Number(arg("dims", "100"));
  const nq = Number(arg("questions", "284"));
  const rounds = Number(arg("rounds", "3"));
  const dir = arg("dir", join(tmpdir(), "exact-scan-bench"));
  const lancedb = await loadLancedb();
  const db = await lancedb.connect(dir);
  const name = `v${n}_${dims}`;
  if (!existsSync(join(dir, `${name}.lance`))) {
    const r = lcg(7);
    await db.createTable(
      name,
      Array.from({ length: n }, (_, i) => ({ id: `P${i}`, vector: Array.from({ length: dims }, r) })),
    );
  }
  const table = await db.openTable(name);
  const r = lcg(99);
  const qs = Array.from({ length: nq }, () => Float32Array.from({ length: dims }, r));
  console.log(`exact-scan bench: ${n} random ${dims}-d vectors (LanceDB table in ${dir}), ${nq} questions, k = 10, ${rounds} interleaved rounds`);
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const plain = await timed(() => plainPass(table, qs, 10));
    const ours = await timed(async () => (await exactTopKScan(table, qs, 10)).hits);
    ratios.push(plain.cpu / ours.cpu);
    console.log(`round ${i + 1}: plain ${plain.cpu.toFixed(2)} s CPU, exactTopKScan ${ours.cpu.toFixed(2)} s CPU (${(plain.cpu / ours.cpu).toFixed(2)}×); same lists: ${plain.sha === ours.sha}`);
  }
  ratios.sort((a, b) => a - b);
  console.log(`median ratio (plain / exactTopKScan CPU): ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}×`);
}

await main();
