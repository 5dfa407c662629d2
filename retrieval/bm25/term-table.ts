/**
 * A read-only term → id lookup over a packed UTF-8 string table (the BM25 index's vocabulary as it
 * is stored: concatenated UTF-8 `bytes` plus Float64 end offsets, see `packStrings` in
 * {@link ./array-files.ts}), without one JS string and one `Map` entry per term.
 *
 * Open addressing on an `Int32Array` of slots (term id + 1; 0 = free; load ≤ 1/2), keyed by a hash
 * of the term's UTF-16 code units; a lookup hashes the query string and compares its code units
 * with the slot's UTF-8 bytes decoded on the fly. Costs 8–16 bytes per term beside the string table
 * itself, against ~100 for a `Map<string, number>` and its strings (measured at 25k docs / 16.6k
 * terms: 3–7 MiB less resident memory in a query process).
 *
 * Terms must be valid UTF-16 (no lone surrogates: the analyzer never produces them, and
 * `Buffer.write` would replace them by U+FFFD); the ids are the positions in the table.
 */

/** FNV-1a step over one UTF-16 code unit. */
function step(h: number, unit: number): number {
  return Math.imul(h ^ unit, 0x01000193);
}

/** Murmur3-style finaliser so the low bits index the slots well. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

const FNV_OFFSET = 0x811c9dc5 | 0;

/** Hash of a string's UTF-16 code units (the same value {@link hashBytes} gives for its UTF-8); int32, the slot key of {@link TermTable} and of the on-disk `terms.hash`. */
export function hashString(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = step(h, s.charCodeAt(i));
  return finish(h);
}

/** Hash of the UTF-16 code units of the UTF-8 bytes [start, end) (valid UTF-8 assumed); equals {@link hashString} of the decoded string. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; ) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      h = step(h, b0);
      i++;
    } else if (b0 < 0xe0) {
      h = step(h, ((b0 & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else if (b0 < 0xf0) {
      h = step(h, ((b0 & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    } else {
      const cp = (((b0 & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f)) - 0x10000;
      h = step(h, 0xd800 + (cp >> 10));
      h = step(h, 0xdc00 + (cp & 0x3ff));
      i += 4;
    }
  }
  return finish(h);
}

/** Whether the UTF-8 bytes [start, end) encode exactly the code units of `s`. */
export function equalsBytes(s: string, bytes: Uint8Array, start: number, end: number): boolean {
  let j = 0;
  const n = s.length;
  for (let i = start; i < end; ) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      if (j >= n || s.charCodeAt(j++) !== b0) return false;
      i++;
    } else if (b0 < 0xe0) {
      if (j >= n || s.charCodeAt(j++) !== (((b0 & 0x1f) << 6) | (bytes[i + 1] & 0x3f))) return false;
      i += 2;
    } else if (b0 < 0xf0) {
      if (j >= n || s.charCodeAt(j++) !== (((b0 & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f))) return false;
      i += 3;
    } else {
      const cp = (((b0 & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f)) - 0x10000;
      if (j + 1 >= n || s.charCodeAt(j) !== 0xd800 + (cp >> 10) || s.charCodeAt(j + 1) !== 0xdc00 + (cp & 0x3ff)) return false;
      j += 2;
      i += 4;
    }
  }
  return j === n;
}

/** Term → id over a packed UTF-8 string table (see the module doc). */
export class TermTable {
  private readonly slots: Int32Array;
  private readonly mask: number;

  /**
   * @param bytes the concatenated UTF-8 of the terms.
   * @param ends ends[i] = byte end of term i (term i is bytes [ends[i-1], ends[i]), ends[-1] = 0).
   *   Both arrays are kept (not copied). A repeated term resolves to its first id.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly ends: Float64Array,
  ) {
    let cap = 16;
    while (cap < 2 * ends.length) cap *= 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    for (let t = 0, start = 0; t < ends.length; t++) {
      const end = ends[t];
      const h = hashBytes(bytes, start, end);
      if (this.find(h, null, start, end) < 0) {
        let slot = h & this.mask;
        while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
        this.slots[slot] = t + 1;
      }
      start = end;
    }
  }

  /** Number of terms in the table. */
  get size(): number {
    return this.ends.length;
  }

  /**
   * Id of `term` (its position in the table), or -1 when absent.
   * @param term any string.
   */
  get(term: string): number {
    return this.find(hashString(term), term, 0, 0);
  }

  /** Id of the term with hash h equal to `term` (or, when term is null, to bytes [start, end)), or -1. */
  private find(h: number, term: string | null, start: number, end: number): number {
    const { slots, mask, bytes, ends } = this;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const v = slots[slot];
      if (v === 0) return -1;
      const t = v - 1;
      const s0 = t > 0 ? ends[t - 1] : 0;
      const s1 = ends[t];
      if (term !== null ? equalsBytes(term, bytes, s0, s1) : sameBytes(bytes, s0, s1, start, end)) return t;
    }
  }
}

/** Whether bytes [a0, a1) and [b0, b1) are equal. */
function sameBytes(bytes: Uint8Array, a0: number, a1: number, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let i = 0; i < a1 - a0; i++) if (bytes[a0 + i] !== bytes[b0 + i]) return false;
  return true;
}
