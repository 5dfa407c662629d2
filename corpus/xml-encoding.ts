/**
 * Byte decoding of an XML stream as its encoding says: a byte-order mark, else the `encoding` of
 * the XML declaration, else UTF-8 (XML 1.0 §4.3.3 and Appendix F). Any encoding WHATWG's
 * `TextDecoder` knows is accepted (labels per the Encoding Standard: "ISO-8859-1" and "latin1"
 * decode as windows-1252, a superset).
 *
 * Output is what `RecordSplitter` reads: the text as UTF-8 bytes. A UTF-8 stream passes through
 * untouched (the same Buffers) — its bytes are only validated (native
 * `isUtf8`, with a byte-exact count of the bad sequences when a chunk fails) — so byte offsets
 * stay those of the file. Any other encoding is decoded and re-encoded as UTF-8; byte offsets then
 * refer to that UTF-8 text.
 *
 * Invalid input is counted, never hidden: `invalid` is the number of U+FFFD replacement
 * characters the decoding produces (one per maximal ill-formed subsequence, as `TextDecoder`
 * counts them), with the byte offset of the first one for UTF-8. For non-UTF-8 encodings that can
 * themselves encode U+FFFD (UTF-16, GB18030) a literal U+FFFD in the file is counted too.
 *
 * @see https://www.w3.org/TR/xml/#sec-guessing ; https://encoding.spec.whatwg.org/
 */
import { isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";

/** How many leading bytes are looked at to find a BOM or an XML declaration. */
export const SNIFF_BYTES = 1024;

/** The encoding found at the start of an XML byte stream. */
export interface SniffedEncoding {
  /** Label as found (declaration or BOM name), e.g. "ISO-8859-1"; "UTF-8" when nothing is declared. */
  label: string;
  /** Where it came from. */
  source: "bom" | "declaration" | "default";
}

const EMPTY: Buffer = Buffer.alloc(0);
const DECL_RE = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._:-]*)["']/;

/**
 * Find the encoding of an XML document from its first bytes.
 * @param head - the first bytes (≥ {@link SNIFF_BYTES} when the file is that long).
 * @returns the label and its source (see {@link SniffedEncoding}).
 */
export function sniffXmlEncoding(head: Uint8Array): SniffedEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { label: "UTF-8", source: "bom" };
  if (head[0] === 0xff && head[1] === 0xfe) return { label: "UTF-16LE", source: "bom" };
  if (head[0] === 0xfe && head[1] === 0xff) return { label: "UTF-16BE", source: "bom" };
  if (head[0] === 0x3c && head[1] === 0x00 && head[2] === 0x3f && head[3] === 0x00) return { label: "UTF-16LE", source: "declaration" };
  if (head[0] === 0x00 && head[1] === 0x3c && head[2] === 0x00 && head[3] === 0x3f) return { label: "UTF-16BE", source: "declaration" };
  const m = DECL_RE.exec(Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SNIFF_BYTES)).toString("latin1"));
  return m ? { label: m[1], source: "declaration" } : { label: "UTF-8", source: "default" };
}

/**
 * Count the ill-formed sequences of UTF-8 bytes in `b[start, end)`, the way a WHATWG UTF-8
 * decoder emits U+FFFD (one per maximal subpart); a sequence cut by `end` counts as ill-formed.
 * @returns the count and the index of the first ill-formed byte (or -1).
 */
export function countInvalidUtf8(b: Uint8Array, start = 0, end = b.length): { invalid: number; first: number } {
  let invalid = 0;
  let first = -1;
  let i = start;
  while (i < end) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else {
      if (first < 0) first = i;
      invalid++;
      i++;
      continue;
    }
    let j = i + 1;
    let k = 0;
    while (k < need && j < end) {
      const x = b[j];
      if (x < lo || x > hi) break;
      lo = 0x80;
      hi = 0xbf;
      j++;
      k++;
    }
    if (k < need) {
      if (first < 0) first = i;
      invalid++;
    }
    i = j;
  }
  return { invalid, first };
}

/** Start of a UTF-8 sequence left unfinished at the end of `b` (its length when none). */
function incompleteTailStart(b: Uint8Array): number {
  const n = b.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const c = b[n - back];
    if (c < 0x80) return n;
    if (c >= 0xc0) {
      const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return len > back ? n - back : n;
    }
  }
  return n;
}

function countReplacement(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\ufffd"); i >= 0; i = s.indexOf("\ufffd", i + 1)) n++;
  return n;
}

/**
 * Streaming decoder of one XML file's bytes into the UTF-8 bytes `RecordSplitter` reads (see the
 * module comment). Push chunks in order, then call {@link XmlByteDecoder.end}.
 */
export class XmlByteDecoder {
  /** Encoding in use once known (WHATWG name, e.g. "utf-8", "windows-1252"); null before the first bytes are seen. */
  encoding: string | null = null;
  /** Label as declared or found (e.g. "ISO-8859-1"). */
  declared: string | null = null;
  /** Ill-formed sequences met so far (each became one U+FFFD). */
  invalid = 0;
  /** Byte offset (in the file's decompressed bytes) of the first ill-formed sequence, for UTF-8; else null. */
  firstInvalidOffset: number | null = null;

  private head: Buffer[] = [];
  private headLength = 0;
  private decoder: TextDecoder | null = null;
  private carry: Buffer | null = null;
  private offset = 0;

  /**
   * Add the next bytes.
   * @returns the UTF-8 bytes they complete (possibly empty).
   * @throws Error when the declared encoding is not one `TextDecoder` knows (message names it).
   */
  push(chunk: Buffer): Buffer {
    if (this.encoding === null) {
      this.head.push(chunk);
      this.headLength += chunk.length;
      if (this.headLength < SNIFF_BYTES) return EMPTY;
      return this.start();
    }
    return this.decode(chunk);
  }

  /**
   * Flush at end of input.
   * @returns the last bytes; an unfinished multi-byte sequence at the end counts as invalid.
   */
  end(): Buffer {
    let out = EMPTY;
    if (this.encoding === null) out = this.start();
    if (this.decoder) {
      const s = this.decoder.decode();
      this.invalid += countReplacement(s);
      return s ? Buffer.concat([out, Buffer.from(s, "utf8")]) : out;
    }
    if (this.carry && this.carry.length > 0) {
      this.firstInvalidOffset ??= this.offset;
      this.invalid++;
      this.carry = null;
    }
    return out;
  }

  private start(): Buffer {
    const head = this.head.length === 1 ? this.head[0] : Buffer.concat(this.head);
    this.head = [];
    const found = sniffXmlEncoding(head);
    this.declared = found.label;
    let dec: TextDecoder;
    try {
      dec = new TextDecoder(found.label);
    } catch {
      throw new Error(`unsupported encoding "${found.label}" declared (not one TextDecoder knows)`);
    }
    this.encoding = dec.encoding;
    if (dec.encoding !== "utf-8") this.decoder = dec;
    return head.length > 0 ? this.decode(head) : EMPTY;
  }

  private decode(chunk: Buffer): Buffer {
    if (this.decoder) {
      const s = this.decoder.decode(chunk, { stream: true });
      this.invalid += countReplacement(s);
      return Buffer.from(s, "utf8");
    }
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const cut = incompleteTailStart(buf);
    const body = cut === buf.length ? buf : buf.subarray(0, cut);
    if (!isUtf8(body)) {
      const { invalid, first } = countInvalidUtf8(body);
      if (invalid > 0) {
        this.invalid += invalid;
        this.firstInvalidOffset ??= this.offset + first;
      }
    }
    this.offset += body.length;
    this.carry = cut === buf.length ? null : Buffer.from(buf.subarray(cut));
    return chunk;
  }
}
