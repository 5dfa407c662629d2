/**
 * One segment of the on-disk BM25 index ({@link ./disk-engine.ts}): its file format, a streaming
 * writer, and a reader whose postings are read from disk in pages (positioned reads through a
 * bounded LRU {@link PageCache}), never whole-file loads.
 *
 * A segment folder (all integers little-endian; every file written once, `header.json` last):
 * - `header.json`: format tag, doc / term / posting / block counts, BM25 params, analyzer id, tf
 *   coding, the segment's own average doc length `avgdl` (the block maxima's reference).
 * - `terms.utf8` + `terms.ends` (float64 per term): the vocabulary as a UTF-8 string table, in term-id
 *   order (first appearance in the segment); read through the page cache on lookup.
 * - `df.i32` (per term: postings), `post-start.f64` (per term + 1: byte offset of its postings in
 *   `postings.bin`) — read through the page cache per query term (v1 held them resident).
 * - `blocks.bin`: per block of {@link BLOCK} postings (term t's blocks are numbered from
 *   Σ_{u<t} ⌈df_u/64⌉), 16 bytes: first doc (int32), last doc (int32), the block maximum (float32,
 *   rounded up) of tf·(k1+1)/(tf + k1·(1 − b + b·dl/avgdl_seg)) — the impact without idf under
 *   this segment's avgdl — and the block's byte length (uint32). 0.25 bytes per posting.
 * - `postings.bin`: per block, the doc gaps after the first doc as LEB128 varints, then the tfs:
 *   varints when the field weights are integers (tf integral), else float32 (the in-memory engine's
 *   float32 tf, same rounding). ~1.5–2.5 bytes per posting on PubMed-like text.
 * - `terms.hash` (v2): the vocabulary's open-addressing hash table as built by {@link TermTable}
 *   (`hashSlots` int32 slots, term id + 1, 0 = free, linear probing on {@link hashString}), so a
 *   lookup is a few positioned reads and opening reads no per-term data.
 * - `block-start.f64` (v2, per term + 1): first block number of each term (Σ ⌈df/64⌉ before it).
 * - `doc-len.f64` (per doc: field-weighted length), `ids.utf8` + `ids.ends` (float64 per doc): read
 *   lazily — lengths in pages of {@link NORM_PAGE} docs the first time a posting of one of them is
 *   scored, ids per hit (two positioned reads).
 *
 * Opening a segment reads `header.json` only (and `fstat`s its files): nothing proportional to its
 * documents or terms ({@link diskIo} counts the bytes read, for tests and benches).
 *
 * The block maximum depends on avgdl, which changes when segments are added or documents masked:
 * with avgdl' the live average, every impact of the block is ≤ idf · max · max(1, avgdl'/avgdl_seg)
 * (the denominator's terms shrink by at most avgdl_seg/avgdl'), so the stored maxima stay valid
 * bounds without rewriting the segment ({@link SegmentReader.boundScale}).
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Bm25Params } from "./params-core.ts";
import { equalsBytes, hashBytes, hashString } from "./term-table.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** What to do about a damaged or outdated on-disk BM25 index (said by every error that finds one). */
export function rebuildHint(): string {
  return `rebuild the index: \`${medsynthCommand()} index build --corpus <the same corpus> --mode bm25 --rebuild\` (in a config: bm25Disk.mode "rebuild"), or delete its folder`;
}

/** Format tag of a segment's `header.json` (v2: persisted term hash table and block starts). */
export const DISK_SEGMENT_FORMAT = "medsynth-bm25-disk-segment-v2";
/** log2 of {@link NORM_PAGE}. */
export const NORM_SHIFT = 10;
/** Documents per lazily read page of doc lengths (8 KiB of `doc-len.f64`). */
export const NORM_PAGE = 1 << NORM_SHIFT;

/** Bytes read from index files by this process (header, pages, raw arrays, ids, lengths); for tests and benches. */
export const diskIo = { bytesRead: 0 };
/** Postings per block (the unit of decoding and of the block-max index). */
export const BLOCK = 64;
/** Bytes per block record in `blocks.bin`. */
export const BLOCK_RECORD = 16;

/** A segment's `header.json`. */
export interface SegmentHeader {
  format: string;
  docCount: number;
  vocabSize: number;
  postings: number;
  blocks: number;
  /** Bytes of `postings.bin`. */
  postingBytes: number;
  params: Bm25Params;
  analyzerId: string;
  /** `varint`: integral tfs; `float32`: fractional (field weights not integers). */
  tfCoding: "varint" | "float32";
  /** Mean field-weighted doc length of this segment (its block maxima's reference). */
  avgdl: number;
  /** Sum of the doc lengths in doc order (float64, the engine's summation order). */
  totalLen: number;
  /** Slots of `terms.hash` (a power of two ≥ 2 × vocabSize, ≥ 16). */
  hashSlots: number;
  /**
   * Present when the segment has its quantised impacts (`impacts.u32`, `impact-start.f64`; written
   * since round 10, read by the term-at-a-time path, disk-taat.ts): `levels` quantisation levels of
   * the idf-free impact over `window`-document accumulator windows. Segments without it are
   * searched by block-max MaxScore only.
   */
  impacts?: { levels: number; window: number };
}

/** Quantisation levels of a segment's impacts (16 bits; `impacts.u32`). */
export const IMPACT_LEVELS = 65535;
/** Documents per accumulator window of the impacts (a posting stores its document's offset in its window in 16 bits). */
export const IMPACT_WINDOW = 1 << 16;

/**
 * The quantised idf-free impact q ∈ [1, {@link IMPACT_LEVELS}] of `x = tf·(k1+1)/(tf + norm)`
 * (x < k1+1) with `sigma = (k1+1) / IMPACT_LEVELS`: `q = ⌈x / sigma⌉` (one more when the float
 * product falls short), so that `sigma·(q − 2) < x ≤ sigma·q` — the bound disk-taat.ts relies on.
 */
export function quantiseImpact(x: number, sigma: number): number {
  let q = Math.ceil(x / sigma);
  if (q * sigma < x) q++;
  return q < 1 ? 1 : q > IMPACT_LEVELS ? IMPACT_LEVELS : q;
}

/** Rounds a non-negative float64 up to a float32 (as the in-memory engine's block maxima). */
export function f32Up(x: number): number {
  return Math.fround(x * (1 + 2 ** -23));
}

// ---------------------------------------------------------------------------------------------
// Buffered sequential writer and reader of raw files.

/** Appends bytes to a file through a 4 MiB buffer (positioned writes, no stream objects). */
export class FileAppender {
  private readonly fd: number;
  private readonly buf: Buffer;
  private used = 0;
  /** Bytes written so far (flushed or buffered). */
  position: number;

  /** @param path file to write; `append` keeps its content (position = its size), else truncates. */
  constructor(
    readonly path: string,
    append = false,
    bufBytes = 1 << 22,
  ) {
    this.fd = openSync(path, append ? "a" : "w");
    this.position = append ? fstatSync(this.fd).size : 0;
    this.buf = Buffer.allocUnsafe(bufBytes);
  }

  /** Makes room for `n` more bytes in the buffer (flushing), returns the write offset. */
  private room(n: number): number {
    if (this.used + n > this.buf.length) this.flush();
    return this.used;
  }

  writeBytes(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    if (n > this.buf.length) {
      this.flush();
      for (let off = start; off < end; ) off += writeSync(this.fd, src, off, end - off);
    } else {
      const at = this.room(n);
      this.buf.set(src.subarray(start, end), at);
      this.used += n;
    }
    this.position += n;
  }
  writeInt32(x: number): void {
    const at = this.room(4);
    this.buf.writeInt32LE(x, at);
    this.used += 4;
    this.position += 4;
  }
  writeUint32(x: number): void {
    const at = this.room(4);
    this.buf.writeUInt32LE(x, at);
    this.used += 4;
    this.position += 4;
  }
  writeFloat32(x: number): void {
    const at = this.room(4);
    this.buf.writeFloatLE(x, at);
    this.used += 4;
    this.position += 4;
  }
  writeFloat64(x: number): void {
    const at = this.room(8);
    this.buf.writeDoubleLE(x, at);
    this.used += 8;
    this.position += 8;
  }
  /** Writes an unsigned integer < 2³¹ as a LEB128 varint. */
  writeVarint(x: number): void {
    const at = this.room(5);
    let p = at;
    while (x >= 0x80) {
      this.buf[p++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[p++] = x;
    this.used = p;
    this.position += p - at;
  }
  flush(): void {
    for (let off = 0; off < this.used; ) off += writeSync(this.fd, this.buf, off, this.used - off);
    this.used = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Reads a file front to back through a buffer (for run files and streamed arrays). */
export class FileScanner {
  private readonly fd: number;
  private readonly buf: Buffer;
  private start = 0;
  private end = 0;
  private filePos = 0;
  readonly size: number;

  constructor(
    readonly path: string,
    bufBytes = 1 << 20,
  ) {
    this.fd = openSync(path, "r");
    this.size = fstatSync(this.fd).size;
    this.buf = Buffer.allocUnsafe(bufBytes);
  }
  /** Bytes not yet consumed. */
  get remaining(): number {
    return this.size - this.filePos + (this.end - this.start);
  }
  private need(n: number): void {
    if (this.end - this.start >= n) return;
    this.buf.copy(this.buf, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    while (this.end < n) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.filePos);
      if (got === 0) throw new Error(`${this.path}: ended early at byte ${this.filePos} (truncated file)`);
      diskIo.bytesRead += got;
      this.end += got;
      this.filePos += got;
    }
  }
  readInt32(): number {
    this.need(4);
    const x = this.buf.readInt32LE(this.start);
    this.start += 4;
    return x;
  }
  readFloat64(): number {
    this.need(8);
    const x = this.buf.readDoubleLE(this.start);
    this.start += 8;
    return x;
  }
  /** Fills `out` with the next out.length bytes. */
  readBytes(out: Uint8Array): void {
    for (let i = 0; i < out.length; ) {
      const take = Math.min(out.length - i, this.buf.length);
      this.need(take);
      out.set(this.buf.subarray(this.start, this.start + take), i);
      this.start += take;
      i += take;
    }
  }
  /**
   * Reads `n` elements of `out`'s type (int32, float32 or float64) into out[at..at+n): the file's
   * little-endian bytes are copied as they are (a little-endian host, as {@link readRaw} assumes).
   */
  readArray(out: Int32Array | Float32Array | Float64Array, at: number, n: number): void {
    this.readBytes(new Uint8Array(out.buffer, out.byteOffset + at * out.BYTES_PER_ELEMENT, n * out.BYTES_PER_ELEMENT));
  }
  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Reads a whole raw file of `count` elements into a fresh typed array (chunked positioned reads;
 * for the resident per-term arrays and the vocabulary).
 * @throws Error naming the file when it is missing or its size is not `count` elements.
 */
export function readRaw<T extends Int32Array | Float64Array | Uint8Array>(path: string, Ctor: { new (n: number): T; BYTES_PER_ELEMENT: number }, count: number): T {
  const out = new Ctor(count);
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw new Error(`on-disk BM25: ${path} is missing (${(e as Error).message}): ${rebuildHint()}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size !== bytes.byteLength) throw new Error(`on-disk BM25: ${path} has ${size} bytes, expected ${bytes.byteLength} (${count} elements); the index is corrupt: ${rebuildHint()}`);
    for (let off = 0; off < size; ) {
      const n = readSync(fd, bytes, off, Math.min(1 << 28, size - off), off);
      if (n === 0) throw new Error(`on-disk BM25: ${path} ended early`);
      diskIo.bytesRead += n;
      off += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Page cache.

/**
 * A bounded LRU cache of fixed-size file pages shared by every file of an index: reads are
 * positioned `readSync` calls of whole pages; at most `capacityBytes` of pages stay resident (the
 * query process's memory for postings and block maxima, whatever the index size).
 */
export class PageCache {
  private readonly pages = new Map<number, Buffer>();
  private readonly fds: number[] = [];
  private readonly sizes: number[] = [];
  private readonly maxPages: number;
  private scratch = Buffer.allocUnsafe(1 << 16);
  /** Pages read again since they were queued (second chance before eviction). */
  private readonly refs = new Set<number>();
  private lastKey = -1;
  private lastBuf: Buffer | null = null;
  /** Offset set by {@link locate}. */
  at = 0;
  /** Pages read from disk and reads served from the cache (for benches). */
  readonly stats = { misses: 0, hits: 0 };

  /**
   * @param capacityBytes most page bytes kept (≥ one page).
   * @param pageBytes page size (a power of two; default 64 KiB).
   */
  constructor(
    capacityBytes: number,
    readonly pageBytes = 1 << 16,
  ) {
    this.maxPages = Math.max(2, Math.floor(capacityBytes / pageBytes));
  }

  /** Registers an open file; returns its file number for {@link read}. */
  addFile(path: string): number {
    const fd = openSync(path, "r");
    this.fds.push(fd);
    this.sizes.push(fstatSync(fd).size);
    return this.fds.length - 1;
  }

  /** Byte size of file `f`. */
  size(f: number): number {
    return this.sizes[f];
  }

  private page(f: number, p: number): Buffer {
    const key = f * 2 ** 26 + p;
    if (key === this.lastKey) {
      this.stats.hits++;
      return this.lastBuf!;
    }
    let buf = this.pages.get(key);
    if (buf) {
      this.stats.hits++;
      this.refs.add(key);
    } else {
      this.stats.misses++;
      const pos = p * this.pageBytes;
      const len = Math.min(this.pageBytes, this.sizes[f] - pos);
      buf = Buffer.allocUnsafeSlow(len);
      for (let off = 0; off < len; ) {
        const n = readSync(this.fds[f], buf, off, len - off, pos + off);
        if (n === 0) throw new Error(`on-disk BM25: short read at byte ${pos + off} of file #${f}`);
        diskIo.bytesRead += n;
        off += n;
      }
      // Second-chance eviction in insertion order: a page read again since it was queued goes round once more.
      while (this.pages.size >= this.maxPages) {
        const [oldKey, oldBuf] = this.pages.entries().next().value!;
        this.pages.delete(oldKey);
        if (this.refs.delete(oldKey)) this.pages.set(oldKey, oldBuf);
      }
      this.pages.set(key, buf);
    }
    this.lastKey = key;
    this.lastBuf = buf;
    return buf;
  }

  /**
   * Locates bytes [pos, pos + len) of file `f` without a view object: returns the array holding
   * them and sets {@link at} to their offset in it (a cached page, or a scratch copy when the range
   * spans pages); valid until the next call.
   */
  locate(f: number, pos: number, len: number): Uint8Array {
    const pb = this.pageBytes;
    const p = Math.floor(pos / pb);
    const off = pos - p * pb;
    if (off + len <= pb) {
      this.at = off;
      return this.page(f, p);
    }
    if (this.scratch.length < len) this.scratch = Buffer.allocUnsafe(Math.max(len, 2 * this.scratch.length));
    this.readInto(f, pos, len, this.scratch, 0);
    this.at = 0;
    return this.scratch;
  }

  /**
   * Bytes [pos, pos + len) of file `f`: a view into a cached page when the range lies in one page
   * (valid until the next call), else a copy in a scratch buffer (also valid until the next call).
   */
  read(f: number, pos: number, len: number): Uint8Array {
    const pb = this.pageBytes;
    const p = Math.floor(pos / pb);
    const off = pos - p * pb;
    if (off + len <= pb) {
      const page = this.page(f, p);
      return page.subarray(off, off + len);
    }
    if (this.scratch.length < len) this.scratch = Buffer.allocUnsafe(Math.max(len, 2 * this.scratch.length));
    this.readInto(f, pos, len, this.scratch, 0);
    return this.scratch.subarray(0, len);
  }

  /** Copies bytes [pos, pos + len) of file `f` into out[at..). */
  readInto(f: number, pos: number, len: number, out: Uint8Array, at: number): void {
    const pb = this.pageBytes;
    let done = 0;
    while (done < len) {
      const q = pos + done;
      const p = Math.floor(q / pb);
      const off = q - p * pb;
      const page = this.page(f, p);
      const take = Math.min(len - done, page.length - off);
      if (take <= 0) throw new Error(`on-disk BM25: read past the end of file #${f} (byte ${q})`);
      out.set(page.subarray(off, off + take), at + done);
      done += take;
    }
  }

  /** Bytes of pages held now. */
  get residentBytes(): number {
    let s = 0;
    for (const b of this.pages.values()) s += b.length;
    return s;
  }

  /** Drops every page (cold-cache measurements). */
  clear(): void {
    this.pages.clear();
    this.refs.clear();
    this.lastKey = -1;
    this.lastBuf = null;
  }

  close(): void {
    for (const fd of this.fds) closeSync(fd);
    this.fds.length = 0;
    this.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// Block codec.

/**
 * Decodes one block: n postings, first doc `first`, gaps then tfs from bytes[at..).
 * Writes docs into outDocs[0..n) and tfs into outTf[0..n).
 */
export function decodeBlock(bytes: Uint8Array, at: number, n: number, first: number, float: boolean, outDocs: Int32Array, outTf: Float64Array): void {
  let p = at;
  let d = first;
  outDocs[0] = d;
  for (let i = 1; i < n; i++) {
    let x = bytes[p++];
    if (x < 0x80) d += x;
    else {
      let v = x & 0x7f;
      let sh = 7;
      do {
        x = bytes[p++];
        v |= (x & 0x7f) << sh;
        sh += 7;
      } while (x >= 0x80);
      d += v;
    }
    outDocs[i] = d;
  }
  if (float) {
    const dv = new DataView(bytes.buffer, bytes.byteOffset + p, n * 4);
    for (let i = 0; i < n; i++) outTf[i] = dv.getFloat32(4 * i, true);
  } else {
    for (let i = 0; i < n; i++) {
      let x = bytes[p++];
      if (x < 0x80) outTf[i] = x;
      else {
        let v = x & 0x7f;
        let sh = 7;
        do {
          x = bytes[p++];
          v |= (x & 0x7f) << sh;
          sh += 7;
        } while (x >= 0x80);
        outTf[i] = v;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Writer.

/**
 * Writes a segment folder term by term: {@link beginTerm}, {@link add} (docs ascending), {@link
 * endTerm}; then {@link finish} with the vocabulary, ids and lengths files already in the folder.
 * Memory: the segment's doc lengths (8 bytes per doc, for the block maxima) plus one block.
 */
export class SegmentWriter {
  private readonly postings: FileAppender;
  private readonly blocks: FileAppender;
  private readonly df: FileAppender;
  private readonly postStart: FileAppender;
  private readonly blockStart: FileAppender;
  private readonly impacts: FileAppender;
  private readonly impactStart: FileAppender;
  private readonly sigma: number;
  private readonly norm: Float64Array;
  private readonly totalLen: number;
  private readonly k1p1: number;
  private readonly float: boolean;
  private bDocs = new Int32Array(BLOCK);
  private bTf = new Float64Array(BLOCK);
  private bn = 0;
  private termDf = 0;
  private termStart = 0;
  private lastDoc = -1;
  private terms = 0;
  private postingCount = 0;
  private blockCount = 0;
  /** Average doc length of the segment (the block maxima's reference). */
  readonly avgdl: number;

  /**
   * @param dir existing folder of the segment.
   * @param docLen the segment's doc lengths (field-weighted), in doc order.
   * @param params BM25 params (k1, b; field weights decide the tf coding).
   */
  constructor(
    readonly dir: string,
    docLen: Float64Array,
    readonly params: Bm25Params,
  ) {
    const n = docLen.length;
    let total = 0;
    for (let d = 0; d < n; d++) total += docLen[d];
    this.totalLen = total;
    const avgdl = (this.avgdl = n > 0 ? total / n : 0);
    const { k1, b } = params;
    this.norm = new Float64Array(n);
    for (let d = 0; d < n; d++) this.norm[d] = k1 * (1 - b + (avgdl > 0 ? (b * docLen[d]) / avgdl : 0));
    this.k1p1 = k1 + 1;
    this.float = tfCodingOf(params) === "float32";
    this.postings = new FileAppender(join(dir, "postings.bin"));
    this.blocks = new FileAppender(join(dir, "blocks.bin"));
    this.df = new FileAppender(join(dir, "df.i32"));
    this.postStart = new FileAppender(join(dir, "post-start.f64"));
    this.blockStart = new FileAppender(join(dir, "block-start.f64"));
    this.impacts = new FileAppender(join(dir, "impacts.u32"));
    this.impactStart = new FileAppender(join(dir, "impact-start.f64"));
    this.sigma = this.k1p1 / IMPACT_LEVELS;
  }

  beginTerm(): void {
    this.termDf = 0;
    this.lastDoc = -1;
    this.termStart = this.postings.position;
    this.postStart.writeFloat64(this.termStart);
    this.blockStart.writeFloat64(this.blockCount);
    this.impactStart.writeFloat64(this.postingCount);
  }

  /** Adds postings docs[i], tfs[i] for i in [0, n) (docs ascending, after the term's previous ones). */
  add(docs: ArrayLike<number>, tfs: ArrayLike<number>, n: number): void {
    for (let i = 0; i < n; i++) {
      const d = docs[i];
      if (d <= this.lastDoc) throw new Error(`SegmentWriter: docs out of order (${d} after ${this.lastDoc}) in term #${this.terms}`);
      this.lastDoc = d;
      this.bDocs[this.bn] = d;
      this.bTf[this.bn++] = tfs[i];
      if (this.bn === BLOCK) this.flushBlock();
    }
  }

  private flushBlock(): void {
    const n = this.bn;
    if (n === 0) return;
    const { bDocs, bTf, norm, k1p1, postings, impacts, sigma } = this;
    const start = postings.position;
    let max = 0;
    for (let i = 0; i < n; i++) {
      const tf = bTf[i];
      const s = (tf * k1p1) / (tf + norm[bDocs[i]]);
      if (s > max) max = s;
      if (i > 0) postings.writeVarint(bDocs[i] - bDocs[i - 1]);
      // Window offset (high 16 bits) and quantised impact (low 16 bits), as fast-taat.ts packs them.
      impacts.writeInt32(((bDocs[i] & (IMPACT_WINDOW - 1)) << 16) | quantiseImpact(s, sigma));
    }
    if (this.float) for (let i = 0; i < n; i++) postings.writeFloat32(bTf[i]);
    else for (let i = 0; i < n; i++) postings.writeVarint(bTf[i]);
    this.blocks.writeInt32(bDocs[0]);
    this.blocks.writeInt32(bDocs[n - 1]);
    this.blocks.writeFloat32(f32Up(max));
    this.blocks.writeUint32(postings.position - start);
    this.termDf += n;
    this.postingCount += n;
    this.blockCount++;
    this.bn = 0;
  }

  /** Ends the current term; returns its document frequency. */
  endTerm(): number {
    this.flushBlock();
    if (this.termDf === 0) throw new Error(`SegmentWriter: term #${this.terms} has no postings`);
    this.df.writeInt32(this.termDf);
    this.terms++;
    return this.termDf;
  }

  /**
   * Closes the files and writes `header.json` (last: a folder without it is unfinished). The
   * folder must already hold `terms.utf8`/`terms.ends` for exactly the terms written, and
   * `ids.utf8`/`ids.ends`/`doc-len.f64` for the docs.
   * @returns the header.
   */
  finish(analyzerId: string): SegmentHeader {
    this.postStart.writeFloat64(this.postings.position);
    this.blockStart.writeFloat64(this.blockCount);
    this.impactStart.writeFloat64(this.postingCount);
    for (const f of [this.postings, this.blocks, this.df, this.postStart, this.blockStart, this.impacts, this.impactStart]) f.close();
    const hashSlots = writeTermHash(this.dir, this.terms);
    const header: SegmentHeader = {
      format: DISK_SEGMENT_FORMAT,
      docCount: this.norm.length,
      vocabSize: this.terms,
      postings: this.postingCount,
      blocks: this.blockCount,
      postingBytes: this.postings.position,
      params: this.params,
      analyzerId,
      tfCoding: this.float ? "float32" : "varint",
      avgdl: this.avgdl,
      totalLen: this.totalLen,
      hashSlots,
      impacts: { levels: IMPACT_LEVELS, window: IMPACT_WINDOW },
    };
    writeFileSync(join(this.dir, "header.json"), JSON.stringify(header, null, 1) + "\n");
    return header;
  }
}

/**
 * Writes `terms.hash` of a segment folder from its `terms.utf8` / `terms.ends` (`v` terms): the
 * slots {@link TermTable} builds (term id + 1 at the first free slot from hash & (slots − 1)).
 * Memory: the vocabulary and the slots (build time only).
 * @returns the slot count.
 */
function writeTermHash(dir: string, v: number): number {
  const ends = readRaw(join(dir, "terms.ends"), Float64Array, v);
  const bytes = readRaw(join(dir, "terms.utf8"), Uint8Array, v > 0 ? ends[v - 1] : 0);
  let cap = 16;
  while (cap < 2 * v) cap *= 2;
  const slots = new Int32Array(cap);
  const mask = cap - 1;
  for (let t = 0, start = 0; t < v; t++) {
    let slot = hashBytes(bytes, start, ends[t]) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = t + 1;
    start = ends[t];
  }
  writeFileSync(join(dir, "terms.hash"), new Uint8Array(slots.buffer));
  return cap;
}

/** Tf coding for `params`: varints when both field weights are integers, else float32. */
export function tfCodingOf(params: Bm25Params): "varint" | "float32" {
  return Number.isInteger(params.fieldWeights.title) && Number.isInteger(params.fieldWeights.text) ? "varint" : "float32";
}

// ---------------------------------------------------------------------------------------------
// Reader.

/** A term's block index for one query: views over its `blocks.bin` records plus byte offsets. */
export interface TermBlocks {
  /** Number of blocks and postings. */
  nb: number;
  df: number;
  first: Int32Array;
  last: Int32Array;
  max: Float32Array;
  /** Byte offset of block j in `postings.bin`. */
  pos: Float64Array;
  len: Uint32Array;
}

/**
 * An opened segment: only `header.json` is read at open; the term hash table, per-term arrays,
 * block records and postings are read on demand through the shared {@link PageCache}, doc
 * lengths in pages of {@link NORM_PAGE} docs ({@link readDocLens}).
 */
export class SegmentReader {
  readonly header: SegmentHeader;
  private readonly fBlocks: number;
  private readonly fPostings: number;
  private readonly fHash: number;
  private readonly fTerms: number;
  private readonly fTermEnds: number;
  private readonly fDf: number;
  private readonly fPostStart: number;
  private readonly fBlockStart: number;
  private readonly fDocLen: number;
  private readonly fImpactStart: number;
  private impactFd: number | null = null;
  private readonly hashMask: number;
  readonly float: boolean;
  private idFds: number[] | null = null;

  /**
   * @param dir the segment folder.
   * @param cache the page cache its files are read through.
   * @throws Error naming the folder when `header.json` is missing or another format (a v1 segment:
   *   rebuild), or a file's size disagrees with the header.
   */
  constructor(
    readonly dir: string,
    readonly cache: PageCache,
  ) {
    let header: SegmentHeader;
    try {
      const text = readFileSync(join(dir, "header.json"), "utf8");
      diskIo.bytesRead += Buffer.byteLength(text);
      header = JSON.parse(text);
    } catch (e) {
      throw new Error(`on-disk BM25: cannot read ${join(dir, "header.json")} (${(e as Error).message}); the segment is unfinished or corrupt: ${rebuildHint()}`);
    }
    if (header.format !== DISK_SEGMENT_FORMAT) throw new Error(`on-disk BM25: ${dir} has format ${JSON.stringify(header.format)}, expected ${DISK_SEGMENT_FORMAT}: ${rebuildHint()}`);
    this.header = header;
    const v = header.vocabSize;
    const file = (name: string, bytes: number): number => {
      let f: number;
      try {
        f = cache.addFile(join(dir, name));
      } catch (e) {
        throw new Error(`on-disk BM25: ${join(dir, name)} is missing (${(e as Error).message})`);
      }
      if (cache.size(f) !== bytes) throw new Error(`on-disk BM25: ${join(dir, name)} has ${cache.size(f)} bytes, expected ${bytes}; the index is corrupt: ${rebuildHint()}`);
      return f;
    };
    this.fBlocks = file("blocks.bin", header.blocks * BLOCK_RECORD);
    this.fPostings = file("postings.bin", header.postingBytes);
    this.fHash = file("terms.hash", header.hashSlots * 4);
    this.fTermEnds = file("terms.ends", v * 8);
    this.fTerms = cache.addFile(join(dir, "terms.utf8"));
    this.fDf = file("df.i32", v * 4);
    this.fPostStart = file("post-start.f64", (v + 1) * 8);
    this.fBlockStart = file("block-start.f64", (v + 1) * 8);
    this.fDocLen = file("doc-len.f64", header.docCount * 8);
    checkStringFile(dir, "terms", v);
    checkStringFile(dir, "ids", header.docCount);
    this.fImpactStart = -1;
    if (header.impacts) {
      if (header.impacts.levels !== IMPACT_LEVELS || header.impacts.window !== IMPACT_WINDOW)
        throw new Error(
          `on-disk BM25: ${dir} has impacts of ${header.impacts.levels} levels over ${header.impacts.window}-doc windows, expected ${IMPACT_LEVELS} over ${IMPACT_WINDOW}; rebuild the index`,
        );
      this.fImpactStart = file("impact-start.f64", (v + 1) * 8);
      file("impacts.u32", header.postings * 4);
    }
    this.hashMask = header.hashSlots - 1;
    this.float = header.tfCoding === "float32";
  }

  get docCount(): number {
    return this.header.docCount;
  }

  private i32(f: number, i: number): number {
    const b = this.cache.locate(f, i * 4, 4) as Buffer;
    return b.readInt32LE(this.cache.at);
  }

  private f64(f: number, i: number): number {
    const b = this.cache.locate(f, i * 8, 8) as Buffer;
    return b.readDoubleLE(this.cache.at);
  }

  /** Term id of `term` in this segment, or -1 (probes `terms.hash`, compares with `terms.utf8`). */
  termId(term: string): number {
    const mask = this.hashMask;
    for (let slot = hashString(term) & mask; ; slot = (slot + 1) & mask) {
      const v = this.i32(this.fHash, slot);
      if (v === 0) return -1;
      const t = v - 1;
      const s0 = t > 0 ? this.f64(this.fTermEnds, t - 1) : 0;
      const s1 = this.f64(this.fTermEnds, t);
      const bytes = this.cache.locate(this.fTerms, s0, s1 - s0);
      const at = this.cache.at;
      if (equalsBytes(term, bytes, at, at + (s1 - s0))) return t;
    }
  }

  /** Postings of term t (its document frequency in this segment). */
  termDf(t: number): number {
    return this.i32(this.fDf, t);
  }

  /** Term t's block records (one positioned read of ⌈df/64⌉ × 16 bytes through the cache). */
  termBlocks(t: number): TermBlocks {
    const b0 = this.f64(this.fBlockStart, t);
    const nb = this.f64(this.fBlockStart, t + 1) - b0;
    const raw = new ArrayBuffer(nb * BLOCK_RECORD);
    this.cache.readInto(this.fBlocks, b0 * BLOCK_RECORD, nb * BLOCK_RECORD, new Uint8Array(raw), 0);
    const i32 = new Int32Array(raw);
    const f32 = new Float32Array(raw);
    const u32 = new Uint32Array(raw);
    const first = new Int32Array(nb);
    const last = new Int32Array(nb);
    const max = new Float32Array(nb);
    const len = new Uint32Array(nb);
    const pos = new Float64Array(nb);
    let at = this.f64(this.fPostStart, t);
    for (let j = 0; j < nb; j++) {
      first[j] = i32[4 * j];
      last[j] = i32[4 * j + 1];
      max[j] = f32[4 * j + 2];
      len[j] = u32[4 * j + 3];
      pos[j] = at;
      at += len[j];
    }
    return { nb, df: this.termDf(t), first, last, max, pos, len };
  }

  /** Decodes block j of a term (given its {@link TermBlocks}) into outDocs / outTf; returns its posting count. */
  decode(tb: TermBlocks, j: number, outDocs: Int32Array, outTf: Float64Array): number {
    const n = j === tb.nb - 1 ? tb.df - j * BLOCK : BLOCK;
    const bytes = this.cache.locate(this.fPostings, tb.pos[j], tb.len[j]);
    decodeBlock(bytes, this.cache.at, n, tb.first[j], this.float, outDocs, outTf);
    return n;
  }

  /** True when the segment has quantised impacts (term-at-a-time can search it). */
  get hasImpacts(): boolean {
    return this.fImpactStart >= 0;
  }

  /** Ordinal of term t's first posting in `impacts.u32` (4 bytes each; postings in term-id, then doc order). */
  impactStart(t: number): number {
    return this.f64(this.fImpactStart, t);
  }

  /**
   * Reads `n` packed impacts from ordinal `from` of `impacts.u32` into out[at..at + n) with
   * positioned reads straight into `out` (no page cache: a long question reads tens of MB once;
   * the OS caches the file).
   * @throws Error naming the file when it ends early.
   */
  readImpacts(from: number, n: number, out: Int32Array, at: number): void {
    this.impactFd ??= openSync(join(this.dir, "impacts.u32"), "r");
    const bytes = new Uint8Array(out.buffer, out.byteOffset + at * 4, n * 4);
    for (let off = 0; off < bytes.length; ) {
      const got = readSync(this.impactFd, bytes, off, bytes.length - off, from * 4 + off);
      if (got === 0) throw new Error(`on-disk BM25: ${join(this.dir, "impacts.u32")} ends before posting ${from + n}; the index is corrupt: ${rebuildHint()}`);
      off += got;
    }
    diskIo.bytesRead += n * 4;
  }

  /** The length of doc d (8 bytes through the page cache). */
  docLenAt(d: number): number {
    return this.f64(this.fDocLen, d);
  }

  /** Copies the lengths of docs [from, from + n) into out[0..n) (through the page cache). */
  readDocLens(from: number, n: number, out: Float64Array): void {
    this.cache.readInto(this.fDocLen, from * 8, n * 8, new Uint8Array(out.buffer, out.byteOffset, n * 8), 0);
  }

  /** The segment's doc lengths (read in full: 8 bytes per doc; when merging and updating). */
  readDocLen(): Float64Array {
    return readRaw(join(this.dir, "doc-len.f64"), Float64Array, this.docCount);
  }

  /** Scans the ids in doc order, in batches. */
  *scanIds(batch = 65_536): Generator<string[]> {
    const ends = new FileScanner(join(this.dir, "ids.ends"));
    const bytes = new FileScanner(join(this.dir, "ids.utf8"));
    try {
      const n = this.docCount;
      const e = new Float64Array(Math.min(batch, Math.max(1, n)));
      let prev = 0;
      for (let d = 0; d < n; ) {
        const take = Math.min(batch, n - d);
        ends.readArray(e, 0, take);
        const total = e[take - 1] - prev;
        const buf = new Uint8Array(total);
        bytes.readBytes(buf);
        const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
        const out = new Array<string>(take);
        let s = 0;
        for (let i = 0; i < take; i++) {
          out[i] = b.toString("utf8", s, e[i] - prev);
          s = e[i] - prev;
        }
        prev = e[take - 1];
        d += take;
        yield out;
      }
    } finally {
      ends.close();
      bytes.close();
    }
  }

  /** Id of doc d (two positioned reads). */
  idAt(d: number): string {
    this.idFds ??= [openSync(join(this.dir, "ids.ends"), "r"), openSync(join(this.dir, "ids.utf8"), "r")];
    const e = Buffer.alloc(16);
    let start = 0;
    let end: number;
    if (d === 0) {
      readSync(this.idFds[0], e, 0, 8, 0);
      end = e.readDoubleLE(0);
    } else {
      readSync(this.idFds[0], e, 0, 16, (d - 1) * 8);
      start = e.readDoubleLE(0);
      end = e.readDoubleLE(8);
    }
    const b = Buffer.alloc(end - start);
    if (end > start) readSync(this.idFds[1], b, 0, end - start, start);
    diskIo.bytesRead += (d === 0 ? 8 : 16) + (end - start);
    return b.toString("utf8");
  }

  /** Closes the id files (the page cache owns the others). */
  close(): void {
    if (this.idFds) for (const fd of this.idFds) closeSync(fd);
    this.idFds = null;
    if (this.impactFd !== null) closeSync(this.impactFd);
    this.impactFd = null;
  }
}

/**
 * Check a string file pair of a segment at open: `<name>.ends` holds `count` float64 end offsets
 * and `<name>.utf8` is as long as the last of them (a truncated id file would otherwise give hits
 * with empty PMIDs and no error).
 * @throws Error naming the file and both sizes, with the rebuild command.
 */
function checkStringFile(dir: string, name: string, count: number): void {
  const endsPath = join(dir, `${name}.ends`);
  const textPath = join(dir, `${name}.utf8`);
  let endsSize: number;
  let textSize: number;
  try {
    endsSize = statSync(endsPath).size;
    textSize = statSync(textPath).size;
  } catch (e) {
    throw new Error(`on-disk BM25: ${(e as NodeJS.ErrnoException).path ?? endsPath} is missing: ${rebuildHint()}`);
  }
  if (endsSize !== count * 8) throw new Error(`on-disk BM25: ${endsPath} has ${endsSize} bytes, expected ${count * 8}; the index is corrupt: ${rebuildHint()}`);
  let last = 0;
  if (count > 0) {
    const fd = openSync(endsPath, "r");
    try {
      const b = Buffer.alloc(8);
      readSync(fd, b, 0, 8, (count - 1) * 8);
      last = b.readDoubleLE(0);
    } finally {
      closeSync(fd);
    }
  }
  if (textSize !== last) throw new Error(`on-disk BM25: ${textPath} has ${textSize} bytes, expected ${last}; the index is corrupt: ${rebuildHint()}`);
}

/** Creates folder `dir` (and parents). */
export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
