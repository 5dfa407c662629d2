/**
 * The computation behind compare mode, run once per pair of runs in a worker thread
 * (viewer/compare-worker.ts): a merge join of the two runs' indexes on (item in natural order,
 * model, workflow, parameters, repeat), each pair described — status change, identical after
 * whitespace normalisation (by output hash), word-level difference of the outputs, the change of
 * every score column both cells have — and written in order to a cache database, from which pages
 * are read. Memory: two rows at a time.
 */
import type Database from "better-sqlite3";
import { openSqlite } from "../results/sqlite.ts";
import { renameSync, rmSync } from "node:fs";
import { scoreColumnsOf, sqlId } from "../results/cell-index.ts";

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}.%]+/u)
    .filter(Boolean);

/**
 * Word-multiset difference of two texts: 1 − Σ_w min(cA(w), cB(w)) / max(|A|, |B|).
 * Two empty texts differ by 0.
 */
export function wordDifference(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      common++;
      counts.set(w, c - 1);
    }
  }
  return 1 - common / Math.max(wa.length, wb.length);
}

/** Counts over all pairs of a comparison. */
export interface CompareCounts {
  matched: number;
  identical: number;
  differing: number;
  onlyA: number;
  onlyB: number;
}

/** What one side of the join reads per cell. */
interface Side {
  id: number;
  natItem: string;
  itemId: string;
  model: string;
  workflow: string;
  params: string;
  repeat: number;
  status: string;
  outHash: string | null;
  [score: string]: unknown;
}

const cmp = (x: Side, y: Side): number => {
  for (const f of ["natItem", "itemId", "model", "workflow", "params"] as const) if (x[f] !== y[f]) return x[f] < y[f] ? -1 : 1;
  return x.repeat - y.repeat;
};

/**
 * Compare the runs whose indexes are `indexA` and `indexB` and write every pair, in order, to the
 * cache database `cachePath` (written to a temporary file, then renamed: a cache file is always
 * complete). Pairs have `seq` (0-based position) and `dseq` (position among non-identical pairs).
 * @returns the counts
 */
export function computeComparison(indexA: string, indexB: string, cachePath: string, tmp = `${cachePath}.tmp-${process.pid}-${Date.now()}`): CompareCounts {
  const a = openSqlite(indexA, { readonly: true, fileMustExist: true });
  const b = openSqlite(indexB, { readonly: true, fileMustExist: true });
  const out = openSqlite(tmp);
  try {
    out.pragma("journal_mode = MEMORY"); // OFF is refused in better-sqlite3's defensive mode
    out.pragma("synchronous = OFF");
    out.exec(`CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
      CREATE TABLE pairs (seq INTEGER PRIMARY KEY, dseq INTEGER, itemId TEXT, model TEXT, workflow TEXT, params TEXT, repeat INTEGER,
        a INTEGER, b INTEGER, statusA TEXT, statusB TEXT, identical INTEGER, difference REAL, deltas TEXT)`);
    const colsA = scoreColumnsOf(a);
    const colsB = new Set(scoreColumnsOf(b));
    const common = colsA.filter((c) => colsB.has(c));
    const select = (db: Database.Database) =>
      db
        .prepare(
          `SELECT id, natItem, itemId, model, workflow, params, repeat, status, outHash${common.map((c) => `, ${sqlId(c)}`).join("")} FROM cells ORDER BY natItem, itemId, model, workflow, params, repeat, id`,
        )
        .iterate() as IterableIterator<Side>;
    // outputs are read only for pairs whose output hashes differ (equal hashes: difference 0)
    const textA = a.prepare("SELECT search FROM texts WHERE id = ?").pluck();
    const textB = b.prepare("SELECT search FROM texts WHERE id = ?").pluck();
    const ia = select(a);
    const ib = select(b);
    const insert = out.prepare(
      "INSERT INTO pairs (seq, dseq, itemId, model, workflow, params, repeat, a, b, statusA, statusB, identical, difference, deltas) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const counts: CompareCounts = { matched: 0, identical: 0, differing: 0, onlyA: 0, onlyB: 0 };
    let seq = 0;
    let dseq = 0;
    const write = (ra: Side | null, rb: Side | null) => {
      const any = (ra ?? rb) as Side;
      const hasA = ra !== null && ra.outHash !== null;
      const hasB = rb !== null && rb.outHash !== null;
      const identical = !!ra && !!rb && ra.status === rb.status && (hasA && hasB ? ra.outHash === rb.outHash : hasA === hasB);
      const difference = hasA && hasB ? (ra.outHash === rb.outHash ? 0 : wordDifference((textA.get(ra.id) as string) ?? "", (textB.get(rb.id) as string) ?? "")) : null;
      const deltas: Record<string, number> = {};
      if (ra && rb) {
        for (const c of common) {
          const va = ra[c];
          const vb = rb[c];
          if (typeof va === "number" && typeof vb === "number") deltas[c] = vb - va;
        }
        counts.matched++;
        if (identical) counts.identical++;
        else counts.differing++;
      } else if (ra) counts.onlyA++;
      else counts.onlyB++;
      insert.run(
        seq++,
        identical ? null : dseq++,
        any.itemId,
        any.model,
        any.workflow,
        any.params,
        any.repeat,
        ra?.id ?? null,
        rb?.id ?? null,
        ra?.status ?? null,
        rb?.status ?? null,
        identical ? 1 : 0,
        difference,
        JSON.stringify(deltas),
      );
    };
    out.exec("BEGIN");
    let x = ia.next();
    let y = ib.next();
    let n = 0;
    while (!x.done || !y.done) {
      const c = x.done ? 1 : y.done ? -1 : cmp(x.value, y.value);
      if (c === 0) {
        write(x.value, y.value);
        x = ia.next();
        y = ib.next();
      } else if (c < 0) {
        write(x.value as Side, null);
        x = ia.next();
      } else {
        write(null, y.value as Side);
        y = ib.next();
      }
      if (++n % 50000 === 0) {
        out.exec("COMMIT");
        out.exec("BEGIN");
      }
    }
    out.exec("COMMIT");
    out.exec("CREATE INDEX ix_dseq ON pairs (dseq)");
    out.prepare("INSERT INTO meta (k, v) VALUES ('counts', ?)").run(JSON.stringify(counts));
    out.close();
    renameSync(tmp, cachePath);
    return counts;
  } catch (err) {
    if (out.open) out.close();
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    a.close();
    b.close();
  }
}
