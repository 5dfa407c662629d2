/**
 * Persistence of medsynth's in-memory BM25 index (fast-engine.ts): a folder of array files
 * (array-files.ts, each split into parts so an index may exceed 4 GiB) and `header.json`,
 * written last.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readArrayFile, writeArrayFile, type ArrayFileEntry } from "./array-files.ts";
import type { FastBm25Data } from "./fast-build.ts";
import type { Bm25Params } from "./params.ts";
import { parseBm25Params } from "./params-core.ts";

/** Format tag of the on-disk index folder (`header.json` field `format`). */
export const FAST_BM25_FORMAT = "medsynth-bm25-fast-v2";

/**
 * Writes index arrays into folder `dir` (created if missing): `header.json` (format, params,
 * analyzer id, content hash, counts, array manifest) and array part files — ids and terms as
 * UTF-8 blobs with Float64 end offsets, `offsets` (Float64), `postDocs` (Int32), `postTf` (Uint8
 * when every tf is an integer ≤ 255, else Float32), `docLen` (Float64) — each split into parts of
 * ≤ `partBytes` bytes. `header.json` is written last, so a folder without it is an interrupted write.
 * @returns total bytes of the arrays.
 */
export function writeFastBm25Data(dir: string, data: FastBm25Data, partBytes: number): number {
  mkdirSync(dir, { recursive: true });
  const { params, analyzerId, contentHash, idBytes, idEnds, termBytes, termEnds, offsets, postDocs, postTf, docLen } = data;
  const arrays: [string, Int32Array | Float32Array | Float64Array | Uint8Array][] = [
    ["ids-utf8", idBytes],
    ["ids-ends", idEnds],
    ["terms-utf8", termBytes],
    ["terms-ends", termEnds],
    ["offsets", offsets],
    ["post-docs", postDocs],
    ["post-tf", postTf],
    ["doc-len", docLen],
  ];
  const manifest = arrays.map(([name, a]) => writeArrayFile(dir, name, a, partBytes));
  const bytes = arrays.reduce((s, [, a]) => s + a.byteLength, 0);
  const header = { format: FAST_BM25_FORMAT, params, analyzerId, contentHash, docCount: idEnds.length, vocabSize: termEnds.length, postings: postDocs.length, arrays: manifest };
  writeFileSync(join(dir, "header.json"), JSON.stringify(header, null, 1) + "\n");
  return bytes;
}

/**
 * Reads the arrays of an index folder written by {@link writeFastBm25Data} (checked against its header).
 * @param dir the index folder.
 * @throws Error naming the folder or file when `header.json` is missing or unreadable, the format
 *   differs, an array file is missing, short or long, or the arrays disagree with the header. A
 *   cache that cannot be read is never silently rebuilt: delete the folder to rebuild it.
 */
export function readFastBm25Data(dir: string): FastBm25Data {
  const headerPath = join(dir, "header.json");
  let header: {
    format: string;
    params: unknown;
    analyzerId: string;
    contentHash: string | null;
    docCount: number;
    vocabSize: number;
    postings: number;
    arrays: ArrayFileEntry[];
  };
  try {
    header = JSON.parse(readFileSync(headerPath, "utf8"));
  } catch (e) {
    throw new Error(`readFastBm25: cannot read ${headerPath}: ${(e as Error).message}`);
  }
  if (header.format !== FAST_BM25_FORMAT) throw new Error(`readFastBm25: ${dir} has format ${JSON.stringify(header.format)}, expected ${FAST_BM25_FORMAT}`);
  const byName = new Map((header.arrays ?? []).map((a) => [a.name, a]));
  const load = <T>(name: string): T => {
    const entry = byName.get(name);
    if (!entry) throw new Error(`readFastBm25: ${headerPath} lists no array "${name}"`);
    return readArrayFile(dir, entry) as T;
  };
  const idBytes = load<Uint8Array>("ids-utf8");
  const idEnds = load<Float64Array>("ids-ends");
  const termBytes = load<Uint8Array>("terms-utf8");
  const termEnds = load<Float64Array>("terms-ends");
  const offsets = load<Float64Array>("offsets");
  const postDocs = load<Int32Array>("post-docs");
  const postTf = load<Uint8Array | Float32Array>("post-tf");
  if (!(postTf instanceof Uint8Array || postTf instanceof Float32Array)) throw new Error(`readFastBm25: ${dir} is corrupt (post-tf must be uint8 or float32)`);
  const docLen = load<Float64Array>("doc-len");
  if (idEnds.length !== header.docCount || docLen.length !== header.docCount || (idEnds.length > 0 && idEnds[idEnds.length - 1] !== idBytes.length)) {
    throw new Error(`readFastBm25: ${dir} is corrupt (doc count ${header.docCount} vs ${idEnds.length} ids, ${docLen.length} lengths)`);
  }
  const v = termEnds.length;
  if (v !== header.vocabSize || offsets.length !== v + 1 || (v > 0 && termEnds[v - 1] !== termBytes.length)) throw new Error(`readFastBm25: ${dir} is corrupt (vocabulary/offsets sizes disagree)`);
  if (offsets[v] !== header.postings || postDocs.length !== header.postings || postTf.length !== header.postings) {
    throw new Error(`readFastBm25: ${dir} is corrupt (postings count mismatch)`);
  }
  let params: Bm25Params;
  try {
    params = parseBm25Params(header.params);
  } catch (e) {
    throw new Error(`readFastBm25: ${headerPath} is corrupt (${(e as Error).message})`);
  }
  return { params, analyzerId: header.analyzerId, contentHash: header.contentHash, idBytes, idEnds, termBytes, termEnds, offsets, postDocs, postTf, docLen };
}
