/**
 * Exact top-k cosine search of many query vectors in one streamed pass over a LanceDB vector
 * table: the reference that IVF recall@10 is measured against (the build's check and `index
 * tune`). At 24 M 100-d vectors and 284 questions the pass is 6.8 × 10¹¹ multiply-adds, so the
 * inner loop is what costs: vectors are read from the Arrow batch's flat float32 buffer (no
 * per-row objects), four questions are scored against a vector at once (each with its own
 * accumulator, summing in the same order as one question alone: the same float64 dot products,
 * bit for bit), and a row's id is decoded only when its score could enter a list.
 */
import type * as LanceDb from "@lancedb/lancedb";
import type { VectorHit } from "../dense/lancedb-store.ts";

/** Options of {@link exactTopKScan}. */
export interface ExactScanOptions {
  /** Ids left out of every list (e.g. unmatchable docs). */
  skip?: ReadonlySet<string>;
  /** Row `selfIds[i]` is left out of query i's list (leave-one-out). */
  selfIds?: readonly string[];
  /** Rows with cosine ≥ this to query i are left out of its list and counted in `dropped[i]`. */
  dropScoreAtLeast?: number;
}

/** One Arrow chunk of a `vector` column as a flat view: row r's vector starts at `base + r * dims`. */
interface FlatChunk {
  values: Float32Array;
  base: number;
  rows: number;
  dims: number;
}

/** The chunks of a fixed-size-list float32 column, in row order. */
function flatChunks(vecCol: { data: readonly { type: unknown; offset: number; length: number; children: readonly { values: unknown; offset?: number }[] }[] }): FlatChunk[] {
  return vecCol.data.map((d) => {
    const dims = (d.type as { listSize: number }).listSize;
    const child = d.children[0];
    return { values: child.values as Float32Array, base: (child.offset ?? 0) + d.offset * dims, rows: d.length, dims };
  });
}

/**
 * `out[qi]` = Σⱼ queries[qi·dims + j] · values[at + j], j ascending, in float64 — the sum one
 * question alone would compute — for every question, four at a time.
 */
function dotsInto(out: Float64Array, queries: Float32Array, nq: number, dims: number, values: Float32Array, at: number): void {
  let qi = 0;
  for (; qi + 4 <= nq; qi += 4) {
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    const o = qi * dims;
    for (let j = 0; j < dims; j++) {
      const x = values[at + j];
      a += queries[o + j] * x;
      b += queries[o + dims + j] * x;
      c += queries[o + 2 * dims + j] * x;
      d += queries[o + 3 * dims + j] * x;
    }
    out[qi] = a;
    out[qi + 1] = b;
    out[qi + 2] = c;
    out[qi + 3] = d;
  }
  for (; qi < nq; qi++) {
    let a = 0;
    const o = qi * dims;
    for (let j = 0; j < dims; j++) a += queries[o + j] * values[at + j];
    out[qi] = a;
  }
}

const better = (a: VectorHit, b: VectorHit) => a.score > b.score || (a.score === b.score && a.id < b.id);

/**
 * Insert `hit` into the best-first list `top` (score descending, ties by id ascending) of at most
 * `k` hits; the caller has checked that it belongs there (list not full, or better than its last).
 */
export function insertHit(top: VectorHit[], hit: VectorHit, k: number): void {
  let pos = top.length === k ? k - 1 : top.length;
  if (top.length < k) top.push(hit);
  while (pos > 0 && better(hit, top[pos - 1])) {
    top[pos] = top[pos - 1];
    pos--;
  }
  top[pos] = hit;
}

/**
 * Exact top-`k` (cosine, best first, ties by id) of each query vector over the `vector` column
 * of `table`, in one streamed pass (record batches; memory = one batch + k hits per query).
 * Scores are dot / (‖q‖ · ‖v‖) in float64 over the float32 components (0 when either norm is 0).
 * @param table a LanceDB table with `id` (utf8) and `vector` (fixed-size list of float32).
 * @returns `hits`: one list per query, in query order; `dropped`: per query, the rows left out by
 *   `dropScoreAtLeast`.
 * @throws Error naming the table when a vector's length differs from the queries'.
 */
export async function exactTopKScan(table: LanceDb.Table, queries: readonly Float32Array[], k: number, opts: ExactScanOptions = {}): Promise<{ hits: VectorHit[][]; dropped: number[] }> {
  const dropped = queries.map(() => 0);
  const tops: VectorHit[][] = queries.map(() => []);
  if (queries.length === 0 || k <= 0) return { hits: tops, dropped };
  const scan = new ScanState(queries, k, opts, tops, dropped);
  for await (const batch of table.query().select(["id", "vector"])) {
    const idCol = batch.getChild("id")!;
    let row = 0;
    for (const chunk of flatChunks(batch.getChild("vector")! as never)) {
      if (chunk.dims !== scan.dims) throw new Error(`exact search over ${table.name}: vectors of ${chunk.dims} dimensions, questions of ${scan.dims}`);
      for (let r = 0; r < chunk.rows; r++, row++) scan.row(chunk.values, chunk.base + r * chunk.dims, row, idCol);
    }
  }
  return { hits: tops, dropped };
}

/** The pass's state: flattened questions, their norms, the lists, one row's scores. */
class ScanState {
  readonly dims: number;
  private readonly nq: number;
  private readonly qf: Float32Array;
  private readonly qNorms: Float64Array;
  private readonly dots: Float64Array;
  private readonly skip: ReadonlySet<string>;
  private readonly dropAt: number;

  constructor(
    queries: readonly Float32Array[],
    private readonly k: number,
    private readonly opts: ExactScanOptions,
    private readonly tops: VectorHit[][],
    private readonly dropped: number[],
  ) {
    this.dims = queries[0].length;
    this.nq = queries.length;
    this.qf = new Float32Array(this.nq * this.dims);
    queries.forEach((q, i) => {
      if (q.length !== this.dims) throw new Error(`exact search: question ${i} has ${q.length} dimensions, question 0 has ${this.dims}`);
      this.qf.set(q, i * this.dims);
    });
    this.qNorms = Float64Array.from(queries, (q) => Math.sqrt(q.reduce((s, x) => s + x * x, 0)));
    this.dots = new Float64Array(this.nq);
    this.skip = opts.skip ?? new Set<string>();
    this.dropAt = opts.dropScoreAtLeast ?? Number.POSITIVE_INFINITY;
  }

  /** Score one row against every question and update the lists. */
  row(values: Float32Array, at: number, row: number, idCol: { get(i: number): unknown }): void {
    const dims = this.dims;
    let nv = 0;
    for (let j = 0; j < dims; j++) nv += values[at + j] * values[at + j];
    nv = Math.sqrt(nv);
    dotsInto(this.dots, this.qf, this.nq, dims, values, at);
    let id: string | null = null;
    const selfIds = this.opts.selfIds;
    for (let qi = 0; qi < this.nq; qi++) {
      const score = this.qNorms[qi] === 0 || nv === 0 ? 0 : this.dots[qi] / (this.qNorms[qi] * nv);
      const top = this.tops[qi];
      const wanted = score >= this.dropAt || top.length < this.k || score >= top[this.k - 1].score;
      if (!wanted) continue;
      if (id === null) {
        id = String(idCol.get(row));
        if (this.skip.has(id)) return;
      }
      if (selfIds && selfIds[qi] === id) continue;
      if (score >= this.dropAt) {
        this.dropped[qi]++;
        continue;
      }
      const hit = { id, score };
      if (top.length === this.k && !better(hit, top[this.k - 1])) continue;
      insertHit(top, hit, this.k);
    }
  }
}
