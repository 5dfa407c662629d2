/**
 * Typed arrays on disk as raw little-endian part files, so one index array may exceed Node's
 * per-call limits (`readFileSync` refuses files > 2 GiB; one `Buffer` ≤ 4 GiB).
 *
 * An array `name` is written as `name.0`, `name.1`, … each at most `partBytes` bytes (default
 * 1 GiB, a multiple of 8), with a manifest entry `{ name, type, length, parts }` the caller keeps
 * (the BM25 cache keeps them in its `header.json`). Reads go through `fs.readSync` in ≤ 256 MiB
 * slices straight into the destination array, so no intermediate Buffer holds a whole file.
 * A missing part, a part of the wrong size or an unknown type is an error naming the file.
 */
import { closeSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Element types the array files support. */
export const ARRAY_TYPES = ["int32", "uint8", "float32", "float64"] as const;
/** One of {@link ARRAY_TYPES}. */
export type ArrayType = (typeof ARRAY_TYPES)[number];
/** A typed array of one of the {@link ARRAY_TYPES}. */
export type StoredArray = Int32Array | Uint8Array | Float32Array | Float64Array;

/** Manifest entry of one stored array. */
export interface ArrayFileEntry {
  /** File stem: parts are `<name>.<i>`. */
  name: string;
  type: ArrayType;
  /** Element count. */
  length: number;
  /** Number of part files. */
  parts: number;
}

/** Default maximum bytes per part file (1 GiB). */
export const DEFAULT_PART_BYTES = 1 << 30;
const IO_SLICE = 1 << 28;

function typeOf(a: StoredArray): ArrayType {
  if (a instanceof Int32Array) return "int32";
  if (a instanceof Uint8Array) return "uint8";
  if (a instanceof Float32Array) return "float32";
  return "float64";
}

function allocate(type: ArrayType, length: number): StoredArray {
  switch (type) {
    case "int32":
      return new Int32Array(length);
    case "uint8":
      return new Uint8Array(length);
    case "float32":
      return new Float32Array(length);
    case "float64":
      return new Float64Array(length);
    default:
      throw new Error(`unknown array type ${JSON.stringify(type)}; expected one of ${ARRAY_TYPES.join(", ")}`);
  }
}

/**
 * Writes `array` as part files `<dir>/<name>.<i>` of at most `partBytes` bytes each.
 * @param dir existing folder.
 * @param name file stem (no path separators).
 * @param array the data (written in the machine's byte order, little-endian on x64/arm64).
 * @param partBytes maximum bytes per part (≥ 8, rounded down to a multiple of 8; default 1 GiB).
 * @returns the manifest entry to keep for {@link readArrayFile}. An empty array still writes one empty part.
 */
export function writeArrayFile(dir: string, name: string, array: StoredArray, partBytes = DEFAULT_PART_BYTES): ArrayFileEntry {
  const per = Math.max(8, Math.floor(partBytes / 8) * 8);
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  const parts = Math.max(1, Math.ceil(bytes.byteLength / per));
  for (let i = 0; i < parts; i++) {
    const fd = openSync(join(dir, `${name}.${i}`), "w");
    try {
      const end = Math.min(bytes.byteLength, (i + 1) * per);
      for (let off = i * per; off < end; ) {
        off += writeSync(fd, bytes, off, Math.min(IO_SLICE, end - off));
      }
    } finally {
      closeSync(fd);
    }
  }
  return { name, type: typeOf(array), length: array.length, parts };
}

/**
 * Reads an array written by {@link writeArrayFile}.
 * @param dir the folder holding the parts.
 * @param entry its manifest entry.
 * @returns a fresh typed array of `entry.length` elements.
 * @throws Error naming the part file when one is missing, has the wrong size, or the totals disagree.
 */
export function readArrayFile(dir: string, entry: ArrayFileEntry): StoredArray {
  const out = allocate(entry.type, entry.length);
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  let off = 0;
  for (let i = 0; i < entry.parts; i++) {
    const file = join(dir, `${entry.name}.${i}`);
    let size: number;
    try {
      size = statSync(file).size;
    } catch (e) {
      throw new Error(`array file ${file} is missing (${(e as Error).message})`);
    }
    if (off + size > bytes.byteLength) throw new Error(`array file ${file} is larger than its manifest says (${entry.length} ${entry.type} in ${entry.parts} parts)`);
    const fd = openSync(file, "r");
    try {
      for (let done = 0; done < size; ) {
        const n = readSync(fd, bytes, off + done, Math.min(IO_SLICE, size - done), done);
        if (n === 0) throw new Error(`array file ${file} ended early at byte ${done} of ${size}`);
        done += n;
      }
    } finally {
      closeSync(fd);
    }
    off += size;
  }
  if (off !== bytes.byteLength) throw new Error(`array ${entry.name} in ${dir} is truncated: ${off} of ${bytes.byteLength} bytes`);
  return out;
}

/**
 * Packs strings into one UTF-8 byte array plus Float64 end offsets (64-bit safe), for
 * {@link writeArrayFile}.
 * @returns `bytes` (concatenated UTF-8) and `ends[i]` = byte end of string i.
 */
export function packStrings(strings: readonly string[]): { bytes: Uint8Array; ends: Float64Array } {
  const ends = new Float64Array(strings.length);
  let total = 0;
  for (let i = 0; i < strings.length; i++) {
    total += Buffer.byteLength(strings[i], "utf8");
    ends[i] = total;
  }
  const bytes = Buffer.allocUnsafe(total);
  let off = 0;
  for (const s of strings) off += bytes.write(s, off, "utf8");
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), ends };
}

/** Inverse of {@link packStrings}. */
export function unpackStrings(bytes: Uint8Array, ends: Float64Array): string[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    out[i] = buf.toString("utf8", start, ends[i]);
    start = ends[i];
  }
  return out;
}
