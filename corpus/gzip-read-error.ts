/**
 * The part of a read-error message that says how far into a gzip file reading got: shared by the
 * JSONL readers (corpus import and the `jsonl` dataset loader) so a truncated `.gz` is reported
 * the same way wherever it is read.
 */

/**
 * ` at compressed byte N` (plus ` (the .gz is truncated)` when zlib reports an unexpected end or
 * `Z_BUF_ERROR`), or "" when the file was not read through gunzip.
 * @param gzip - whether the file was piped through gunzip.
 * @param compressedBytesRead - bytes of the compressed file read so far (`ReadStream.bytesRead`).
 * @param err - the error the read ended with.
 */
export function gzipReadPosition(gzip: boolean, compressedBytesRead: number, err: unknown): string {
  if (!gzip) return "";
  const e = err as NodeJS.ErrnoException;
  const truncated = e?.code === "Z_BUF_ERROR" || /unexpected end/.test(String(e?.message ?? ""));
  return ` at compressed byte ${compressedBytesRead.toLocaleString("en-US")}${truncated ? " (the .gz is truncated)" : ""}`;
}
