/**
 * Fixed-size keys of every store row in typed arrays, and PubMed's update semantics plus the
 * kept-set cleaning rules over them — the same result as {@link resolveRows} (which works on row
 * objects and stays as the readable reference), at a fixed cost per row whatever the keys' text.
 *
 * Per row: `rowKey` (8 B), PMID as a number (8 B), version (8 B), kind and drop reason (2 B), a
 * 64-bit hash of the DOI key and the 64-bit title key (16 B), flags (1 B) = 43 B, plus 4 B of sort
 * permutation; the DOI and title sets are open-addressing tables of 64-bit keys sized 2× the
 * records that reach the de-duplication step (~18 B per such record and set). So ~47 B a row plus
 * ≤ 36 B a de-duplicated record: ~80 MB for 1 M rows, ~2 GB for the 38 M-entry PubMed baseline
 * (the row objects used before cost ~300 B a row: ~11 GB there).
 *
 * Semantics (as {@link resolveRows}): rows are sorted by (PMID, rowKey) and each PMID's entries are
 * replayed in file order — a delete removes the current record, a higher-or-equal version replaces
 * it — then the winners are taken in rowKey order for the DOI/title rules (first kept wins).
 * DOIs are compared by a 64-bit FNV-1a hash of their UTF-8 bytes (a false duplicate needs a 64-bit
 * collision: ~4·10⁻⁵ over 38 M DOIs).
 */
import { DROP_REASONS, emptyUpdateReport, type DropReason, type UpdateReport } from "../clean.ts";
import type { RowKeys, RowKind } from "./rows.ts";

const KIND_CODE: Record<RowKind, number> = { record: 0, dropped: 1, delete: 2 };
const REASON_INDEX = new Map<string, number>(DROP_REASONS.map((r, i) => [r, i]));
const HAS_DOI = 1;
const HAS_TITLE = 2;

/** Fixed-size key columns of `n` rows (see the module comment). */
export class RowKeyColumns {
  readonly rowKey: Float64Array;
  readonly pmid: Float64Array;
  readonly version: Float64Array;
  /** 0 record, 1 dropped, 2 delete. */
  readonly kind: Uint8Array;
  /** Index into DROP_REASONS of a `dropped` row's reason. */
  readonly reason: Uint8Array;
  /** DOI hash, two 32-bit halves per row. */
  readonly doi: Uint32Array;
  /** Title key, two 32-bit halves per row. */
  readonly title: Uint32Array;
  readonly flags: Uint8Array;
  /** Rows filled so far. */
  length = 0;

  /** @param capacity - rows at most. */
  constructor(readonly capacity: number) {
    this.rowKey = new Float64Array(capacity);
    this.pmid = new Float64Array(capacity);
    this.version = new Float64Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.reason = new Uint8Array(capacity);
    this.doi = new Uint32Array(2 * capacity);
    this.title = new Uint32Array(2 * capacity);
    this.flags = new Uint8Array(capacity);
  }

  /** Bytes held by the columns. */
  get bytes(): number {
    return this.capacity * 43;
  }

  /**
   * Append one row's keys.
   * @throws Error when the PMID is not a decimal number, the title key not 16 hex digits, or the
   *   columns are full.
   */
  push(r: RowKeys): void {
    const i = this.length;
    if (i >= this.capacity) throw new Error(`row key columns are full (${this.capacity} rows)`);
    this.rowKey[i] = r.rowKey;
    this.pmid[i] = pmidNumber(r.pmid);
    this.version[i] = r.version;
    this.kind[i] = KIND_CODE[r.kind];
    this.reason[i] = r.dropReason === null ? 0 : reasonIndex(r.dropReason);
    let f = 0;
    if (r.doiKey) {
      f |= HAS_DOI;
      hashUtf8(Buffer.from(r.doiKey, "utf8"), 0, Buffer.byteLength(r.doiKey), this.doi, 2 * i);
    }
    if (r.titleKey !== null) {
      f |= HAS_TITLE;
      setTitleKey(r.titleKey, this.title, 2 * i);
    }
    this.flags[i] = f;
    this.length = i + 1;
  }
}

/** Numeric PMID (PubMed PMIDs are decimal digits; the parser checks). */
export function pmidNumber(pmid: string): number {
  const n = Number(pmid);
  if (!Number.isSafeInteger(n) || n < 0 || pmid.length === 0) throw new Error(`not a numeric PMID: ${JSON.stringify(pmid)}`);
  return n;
}

function reasonIndex(reason: string): number {
  const k = REASON_INDEX.get(reason);
  if (k === undefined) throw new Error(`unknown drop reason in the store: ${reason}`);
  return k;
}

/** Index into DROP_REASONS of a drop reason (for readers filling {@link RowKeyColumns} directly). */
export function dropReasonIndex(reason: string): number {
  return reasonIndex(reason);
}

/**
 * 64-bit FNV-1a of `bytes[start, end)` written as two 32-bit halves at `out[at]`, `out[at + 1]`
 * (computed as two 32-bit FNV-1a lanes with different offset bases).
 */
export function hashUtf8(bytes: Uint8Array, start: number, end: number, out: Uint32Array, at: number): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x050c5d1f;
  for (let k = start; k < end; k++) {
    const b = bytes[k];
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b, 0x01000193) ^ (h2 >>> 15);
  }
  out[at] = h1 >>> 0;
  out[at + 1] = h2 >>> 0;
}

/** A 16-hex-digit title key as two 32-bit halves. */
export function setTitleKey(hex: string, out: Uint32Array, at: number): void {
  if (!/^[0-9a-f]{16}$/.test(hex)) throw new Error(`title key is not 16 hex digits: ${JSON.stringify(hex)}`);
  out[at] = parseInt(hex.slice(0, 8), 16);
  out[at + 1] = parseInt(hex.slice(8), 16);
}

/** Open-addressing set of 64-bit keys (two 32-bit halves), fixed capacity. */
class Key64Set {
  private readonly keys: Uint32Array;
  private readonly used: Uint8Array;
  private readonly mask: number;

  constructor(expected: number) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.keys = new Uint32Array(2 * cap);
    this.used = new Uint8Array(cap);
    this.mask = cap - 1;
  }

  get bytes(): number {
    return this.keys.byteLength + this.used.byteLength;
  }

  /** Whether (hi, lo) is in the set. */
  has(hi: number, lo: number): boolean {
    let s = (Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 0) & this.mask;
    while (this.used[s]) {
      if (this.keys[2 * s] === hi && this.keys[2 * s + 1] === lo) return true;
      s = (s + 1) & this.mask;
    }
    return false;
  }

  /** Add (hi, lo) (no-op when present). */
  add(hi: number, lo: number): void {
    let s = (Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 0) & this.mask;
    while (this.used[s]) {
      if (this.keys[2 * s] === hi && this.keys[2 * s + 1] === lo) return;
      s = (s + 1) & this.mask;
    }
    this.used[s] = 1;
    this.keys[2 * s] = hi;
    this.keys[2 * s + 1] = lo;
  }
}

/** Result of {@link resolveKeyColumns}. */
export interface ColumnResolution {
  /** 1 for a row of the final corpus, by row index. */
  keep: Uint8Array;
  /** Rows kept. */
  kept: number;
  /** Per-reason drops (same meaning as {@link resolveRows}). */
  dropped: Record<DropReason, number>;
  seen: number;
  /** What the update semantics did, PMIDs named (as `CleanResult.updates`; events in (PMID, rowKey) order). */
  updates: UpdateReport;
  /** Peak bytes of the typed arrays used (columns, permutation, sets). */
  bytes: number;
}

/**
 * Apply update semantics and the kept-set rules to key columns (see the module comment).
 * @param c - the rows' keys.
 * @param clean - whether DOI/title de-duplication applies.
 */
export function resolveKeyColumns(c: RowKeyColumns, clean: boolean): ColumnResolution {
  const n = c.length;
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const { pmid, rowKey, version, kind } = c;
  order.sort((a, b) => pmid[a] - pmid[b] || rowKey[a] - rowKey[b]);
  const keep = new Uint8Array(n);
  let winners = 0;
  const updates = emptyUpdateReport();
  for (let g = 0; g < n; ) {
    const p = pmid[order[g]];
    let current = -1;
    let j = g;
    for (; j < n && pmid[order[j]] === p; j++) {
      const i = order[j];
      if (kind[i] === 2) {
        updates.deleteEntries++;
        if (current >= 0) {
          dropped.deleted++;
          updates.deleted.push(String(p));
          current = -1;
        } else updates.deleteOfUnknown.push(String(p));
        continue;
      }
      if (current < 0) {
        current = i;
        continue;
      }
      dropped.superseded++;
      updates.superseded.push(String(p));
      if (version[i] >= version[current]) current = i;
    }
    if (current >= 0) {
      keep[current] = 1;
      winners++;
    }
    g = j;
  }
  // Winners in rowKey order (the permutation array is reused).
  let w = 0;
  let candidates = 0;
  for (let i = 0; i < n; i++) {
    if (!keep[i]) continue;
    order[w++] = i;
    if (kind[i] === 0) candidates++;
  }
  const byKey = order.subarray(0, winners).sort((a, b) => rowKey[a] - rowKey[b]);
  const dois = clean ? new Key64Set(candidates) : null;
  const titles = clean ? new Key64Set(candidates) : null;
  let kept = 0;
  for (let k = 0; k < byKey.length; k++) {
    const i = byKey[k];
    if (kind[i] === 1) {
      dropped[DROP_REASONS[c.reason[i]]]++;
      keep[i] = 0;
      continue;
    }
    if (dois && titles) {
      const f = c.flags[i];
      const dh = c.doi[2 * i];
      const dl = c.doi[2 * i + 1];
      const th = c.title[2 * i];
      const tl = c.title[2 * i + 1];
      if (f & HAS_DOI && dois.has(dh, dl)) {
        dropped["duplicate-doi"]++;
        keep[i] = 0;
        continue;
      }
      if (f & HAS_TITLE && titles.has(th, tl)) {
        dropped["duplicate-title"]++;
        keep[i] = 0;
        continue;
      }
      if (f & HAS_DOI) dois.add(dh, dl);
      if (f & HAS_TITLE) titles.add(th, tl);
    }
    kept++;
  }
  const bytes = c.bytes + order.byteLength + keep.byteLength + (dois?.bytes ?? 0) + (titles?.bytes ?? 0);
  return { keep, kept, dropped, seen: n, updates, bytes };
}
