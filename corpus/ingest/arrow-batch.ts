/**
 * Column-wise builder of one `records` append batch: each {@link RecordRow} is written straight
 * into typed arrays and growing UTF-8 byte buffers as it streams, and {@link RowBatchBuilder.finish}
 * wraps them as an Arrow table (`makeData`, no copy) for `table.add`.
 *
 * Why: profiles of the whole ingest put ~35 % of a worker's CPU in LanceDB's `makeArrowTable`
 * (generic row-object → vector building, per-value visitor dispatch and UTF-8 encoding through
 * TextEncoder) plus the garbage of holding a batch of row objects; this builder encodes each
 * string once with `Buffer.write` (native) and keeps no row objects, so a batch costs its encoded
 * bytes only (~1.4 KB a kept record).
 *
 * A worker thread hands a full batch to the writer (the main thread) as Arrow IPC file bytes
 * ({@link encodeBatchIpc}: the bytes LanceDB's `add` would otherwise make from a table on the main
 * thread) in a recycled ArrayBuffer, transferred, not cloned; the writer hands them to LanceDB as
 * they are (`corpus/store/lance-append.ts`) and transfers the buffer back with its acknowledgement.
 * {@link BatchColumns} (compact transferable copies of every column, {@link batchTransferList},
 * wrapped by {@link batchColumnsToTable}) remain for in-process use and tests.
 */
import type { Schema, Table } from "apache-arrow";
import type { RecordRow } from "./rows.ts";

/**
 * A compact copy of `b` owning its ArrayBuffer, made with one `ArrayBuffer.slice` (a memcpy):
 * `new Uint8Array(buffer)` copies a Buffer byte by byte (~0.3 s of CPU per 30 k-entry file).
 */
function copyBytes(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** Nullable UTF-8 column: offsets, bytes, validity. */
class Utf8Column {
  offsets: Int32Array;
  bytes: Buffer;
  used = 0;
  valid: Uint8Array | null;
  nulls = 0;

  constructor(capacity: number, nullable: boolean, bytes = 1024) {
    this.offsets = new Int32Array(capacity + 1);
    this.bytes = Buffer.allocUnsafe(bytes);
    this.valid = nullable ? new Uint8Array((capacity + 7) >> 3) : null;
  }

  reset(): void {
    this.used = 0;
    this.nulls = 0;
    this.valid?.fill(0);
  }

  /** The used part, sharing the buffers (`copy`: compact copies owning their ArrayBuffers). */
  values(n: number, copy: boolean): Utf8Values {
    const offsets = this.offsets.subarray(0, n + 1);
    const bytes = this.bytes.subarray(0, this.used);
    const valid = this.nulls && this.valid ? this.valid.subarray(0, (n + 7) >> 3) : null;
    if (!copy) return { offsets, bytes, valid, nulls: this.nulls };
    return { offsets: offsets.slice(), bytes: copyBytes(bytes), valid: valid ? valid.slice() : null, nulls: this.nulls };
  }

  push(i: number, s: string | null): void {
    if (s === null) {
      this.nulls++;
      this.offsets[i + 1] = this.used;
      return;
    }
    if (this.valid) this.valid[i >> 3] |= 1 << (i & 7);
    const need = this.used + s.length * 3;
    if (need > this.bytes.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(next, 0, 0, this.used);
      this.bytes = next;
    }
    this.used += this.bytes.write(s, this.used, "utf8");
    if (this.used > 0x7fffffff) throw new Error("a records batch exceeds 2 GiB of text in one column");
    this.offsets[i + 1] = this.used;
  }
}

/** One UTF-8 column of a {@link BatchColumns}: `length + 1` offsets, the bytes, validity bits (null when no value is null). */
export interface Utf8Values {
  offsets: Int32Array;
  bytes: Uint8Array;
  valid: Uint8Array | null;
  nulls: number;
}

/**
 * A batch of `records` rows as plain typed arrays, each owning its ArrayBuffer (so it can be
 * transferred between threads). Numeric columns have `length` values; `year` has validity bits.
 */
export interface BatchColumns {
  length: number;
  rowKey: Float64Array;
  fileIndex: Int32Array;
  version: Float64Array;
  kwEmpty: Int32Array;
  kwOverlong: Int32Array;
  kwNonAscii: Int32Array;
  kwDuplicate: Int32Array;
  year: Int32Array;
  yearValid: Uint8Array | null;
  yearNulls: number;
  pmid: Utf8Values;
  kind: Utf8Values;
  dropReason: Utf8Values;
  doiKey: Utf8Values;
  titleKey: Utf8Values;
  sourceFile: Utf8Values;
  title: Utf8Values;
  record: Utf8Values;
}

const UTF8_COLUMNS = ["pmid", "kind", "dropReason", "doiKey", "titleKey", "sourceFile", "title", "record"] as const;

/** The ArrayBuffers of a {@link BatchColumns}, for `postMessage`'s transfer list. */
export function batchTransferList(c: BatchColumns): ArrayBuffer[] {
  const out: ArrayBuffer[] = [c.rowKey.buffer, c.fileIndex.buffer, c.version.buffer, c.kwEmpty.buffer, c.kwOverlong.buffer, c.kwNonAscii.buffer, c.kwDuplicate.buffer, c.year.buffer] as ArrayBuffer[];
  if (c.yearValid) out.push(c.yearValid.buffer as ArrayBuffer);
  for (const name of UTF8_COLUMNS) {
    const u = c[name];
    out.push(u.offsets.buffer as ArrayBuffer, u.bytes.buffer as ArrayBuffer);
    if (u.valid) out.push(u.valid.buffer as ArrayBuffer);
  }
  return [...new Set(out)];
}

/**
 * Wrap a batch's columns as an Arrow table of `schema` (the `records` schema, `recordsSchema()`),
 * sharing the arrays (no copy).
 * @param arrow - the `apache-arrow` module LanceDB uses (`loadArrow()`).
 * @throws Error when the schema has a column the batch does not hold.
 */
export function batchColumnsToTable(arrow: typeof import("apache-arrow"), schema: Schema, c: BatchColumns): Table {
  const n = c.length;
  const { makeData, RecordBatch, Struct, Table } = arrow;
  const fields = schema.fields;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const num = (name: string, values: Float64Array | Int32Array, valid: Uint8Array | null = null, nulls = 0) =>
    makeData({ type: byName.get(name)!.type, length: n, data: values.subarray(0, n), nullCount: nulls, nullBitmap: nulls && valid ? valid.subarray(0, (n + 7) >> 3) : undefined });
  const str = (name: string, u: Utf8Values) =>
    makeData({
      type: byName.get(name)!.type,
      length: n,
      valueOffsets: u.offsets.subarray(0, n + 1),
      data: u.bytes,
      nullCount: u.nulls,
      nullBitmap: u.nulls && u.valid ? u.valid.subarray(0, (n + 7) >> 3) : undefined,
    });
  const columns: Record<string, ReturnType<typeof makeData>> = {
    rowKey: num("rowKey", c.rowKey),
    fileIndex: num("fileIndex", c.fileIndex),
    version: num("version", c.version),
    kwEmpty: num("kwEmpty", c.kwEmpty),
    kwOverlong: num("kwOverlong", c.kwOverlong),
    kwNonAscii: num("kwNonAscii", c.kwNonAscii),
    kwDuplicate: num("kwDuplicate", c.kwDuplicate),
    year: num("year", c.year, c.yearValid, c.yearNulls),
  };
  for (const name of UTF8_COLUMNS) columns[name] = str(name, c[name]);
  const children = fields.map((f) => {
    const col = columns[f.name];
    if (!col) throw new Error(`records schema has a column the batch builder does not know: ${f.name}`);
    return col;
  });
  const data = makeData({ type: new Struct(fields), length: n, nullCount: 0, children });
  return new Table(schema, [new RecordBatch(schema, data)]);
}

/** Rows per batch at most (the typed arrays are sized for it). */
const DEFAULT_CAPACITY = 5_000;

/**
 * Builds one batch of `records` rows column by column (see the module comment).
 * Use: `push` rows until `length === capacity` or `textBytes` is large enough, then `finish()`;
 * once the table is consumed (LanceDB's `add` has copied it), `reset()` reuses the buffers.
 */
export class RowBatchBuilder {
  /** Rows pushed. */
  length = 0;
  readonly capacity: number;
  private readonly rowKey: Float64Array;
  private readonly fileIndex: Int32Array;
  private readonly version: Float64Array;
  private readonly kw: Int32Array[];
  private readonly year: Int32Array;
  private readonly yearValid: Uint8Array;
  private yearNulls = 0;
  private readonly pmid: Utf8Column;
  private readonly kind: Utf8Column;
  private readonly dropReason: Utf8Column;
  private readonly doiKey: Utf8Column;
  private readonly titleKey: Utf8Column;
  private readonly sourceFile: Utf8Column;
  private readonly title: Utf8Column;
  private readonly record: Utf8Column;

  /** @param capacity - rows at most (default 5,000). */
  constructor(capacity = DEFAULT_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`batch capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.rowKey = new Float64Array(capacity);
    this.fileIndex = new Int32Array(capacity);
    this.version = new Float64Array(capacity);
    this.kw = [0, 1, 2, 3].map(() => new Int32Array(capacity));
    this.year = new Int32Array(capacity);
    this.yearValid = new Uint8Array((capacity + 7) >> 3);
    this.pmid = new Utf8Column(capacity, false, capacity * 9);
    this.kind = new Utf8Column(capacity, false, capacity * 8);
    this.dropReason = new Utf8Column(capacity, true);
    this.doiKey = new Utf8Column(capacity, true, capacity * 32);
    this.titleKey = new Utf8Column(capacity, true, capacity * 16);
    this.sourceFile = new Utf8Column(capacity, false, capacity * 24);
    this.title = new Utf8Column(capacity, false, capacity * 128);
    this.record = new Utf8Column(capacity, false, capacity * 1024);
  }

  /**
   * Empty the builder, keeping its buffers (call only once the last `finish()` table is no longer
   * used: it shares them).
   */
  reset(): void {
    this.length = 0;
    this.yearNulls = 0;
    this.yearValid.fill(0);
    for (const c of [this.pmid, this.kind, this.dropReason, this.doiKey, this.titleKey, this.sourceFile, this.title, this.record]) c.reset();
  }

  /** UTF-8 bytes of the `record` column so far. */
  get textBytes(): number {
    return this.record.used;
  }

  /**
   * Append one row.
   * @throws Error when the builder is full.
   */
  push(r: RecordRow): void {
    const i = this.length;
    if (i >= this.capacity) throw new Error(`records batch is full (${this.capacity} rows)`);
    this.rowKey[i] = r.rowKey;
    this.fileIndex[i] = r.fileIndex;
    this.version[i] = r.version;
    this.kw[0][i] = r.kwEmpty;
    this.kw[1][i] = r.kwOverlong;
    this.kw[2][i] = r.kwNonAscii;
    this.kw[3][i] = r.kwDuplicate;
    if (r.year === null) this.yearNulls++;
    else {
      this.year[i] = r.year;
      this.yearValid[i >> 3] |= 1 << (i & 7);
    }
    this.pmid.push(i, r.pmid);
    this.kind.push(i, r.kind);
    this.dropReason.push(i, r.dropReason);
    this.doiKey.push(i, r.doiKey);
    this.titleKey.push(i, r.titleKey);
    this.sourceFile.push(i, r.sourceFile);
    this.title.push(i, r.title);
    this.record.push(i, r.record);
    this.length = i + 1;
  }

  /**
   * The batch's columns (see {@link BatchColumns}).
   * @param copy - true: compact copies that own their ArrayBuffers (transferable; the builder can
   *   be reset at once); false: views of the builder's buffers (valid until `reset()`).
   */
  columns(copy = true): BatchColumns {
    const n = this.length;
    const take = <T extends Float64Array | Int32Array | Uint8Array>(a: T, len: number): T => (copy ? a.slice(0, len) : a.subarray(0, len)) as T;
    return {
      length: n,
      rowKey: take(this.rowKey, n),
      fileIndex: take(this.fileIndex, n),
      version: take(this.version, n),
      kwEmpty: take(this.kw[0], n),
      kwOverlong: take(this.kw[1], n),
      kwNonAscii: take(this.kw[2], n),
      kwDuplicate: take(this.kw[3], n),
      year: take(this.year, n),
      yearValid: this.yearNulls ? take(this.yearValid, (n + 7) >> 3) : null,
      yearNulls: this.yearNulls,
      pmid: this.pmid.values(n, copy),
      kind: this.kind.values(n, copy),
      dropReason: this.dropReason.values(n, copy),
      doiKey: this.doiKey.values(n, copy),
      titleKey: this.titleKey.values(n, copy),
      sourceFile: this.sourceFile.values(n, copy),
      title: this.title.values(n, copy),
      record: this.record.values(n, copy),
    };
  }

  /**
   * The batch as an Arrow table of `schema` (the `records` schema, `recordsSchema()`); the table
   * shares the builder's buffers, so push nothing more until it is consumed, then `reset()`.
   * @param arrow - the `apache-arrow` module (imported lazily by the caller).
   */
  finish(arrow: typeof import("apache-arrow"), schema: Schema): Table {
    return batchColumnsToTable(arrow, schema, this.columns(false));
  }
}

/** Arrow IPC file bytes of one batch: the first `length` bytes of `buffer` (see {@link encodeBatchIpc}). */
export interface BatchIpc {
  buffer: ArrayBuffer;
  length: number;
  rows: number;
}

/**
 * Encode a batch as Arrow IPC *file* bytes (what LanceDB's `Table.add` builds from a table before
 * handing it to its native writer, `fromTableToBuffer`), written into `spare` when it is large
 * enough, else into a new ArrayBuffer with 25 % headroom. The encoder's chunks are views of the
 * builder's buffers (apache-arrow's writer copies nothing), joined here with one copy into memory
 * that is reused from batch to batch: fresh memory costs far more than the copy on this kind of
 * host (page faults; ~3.7 ms/MiB measured vs ~0.4 for a copy into warm memory).
 * The builder may be reset as soon as this resolves.
 * @param arrow - an apache-arrow module (any instance: only bytes come out).
 * @param schema - the table's schema (its field metadata travels in the bytes).
 * @param columns - the batch (views are fine, {@link RowBatchBuilder.columns}`(false)`).
 * @param spares - buffers to reuse (e.g. those the writer gave back): the smallest one large
 *   enough is taken out of the array; when none is, a new buffer is made and the smallest spare
 *   dropped (so a worker holds a bounded number of buffers that grow to its largest batch).
 */
export async function encodeBatchIpc(arrow: typeof import("apache-arrow"), schema: Schema, columns: BatchColumns, spares: ArrayBuffer[]): Promise<BatchIpc> {
  const writer = arrow.RecordBatchFileWriter.writeAll(batchColumnsToTable(arrow, schema, columns));
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const c of writer) {
    chunks.push(c);
    length += c.byteLength;
  }
  let fit = -1;
  let smallest = -1;
  for (let i = 0; i < spares.length; i++) {
    const size = spares[i].byteLength;
    if (size >= length && (fit < 0 || size < spares[fit].byteLength)) fit = i;
    if (smallest < 0 || size < spares[smallest].byteLength) smallest = i;
  }
  let buffer: ArrayBuffer;
  if (fit >= 0) buffer = spares.splice(fit, 1)[0];
  else {
    if (smallest >= 0) spares.splice(smallest, 1);
    buffer = new ArrayBuffer(Math.ceil(length * 1.25));
  }
  const out = new Uint8Array(buffer, 0, length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return { buffer, length, rows: columns.length };
}
