/**
 * `AtomicResultsWriter.writeLineBytes` (merge copies record lines byte for byte): lines given as
 * bytes and as strings come out in the order written, each ending in one newline, multi-byte
 * UTF-8 intact, a line longer than the writer's buffer included.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AtomicResultsWriter, CHUNK_BYTES } from "../../results/results-file.ts";

describe("AtomicResultsWriter.writeLineBytes", () => {
  it("keeps the order of byte and string lines", () => {
    const path = join(mkdtempSync(join(tmpdir(), "atomic-bytes-")), "results.jsonl");
    const w = new AtomicResultsWriter(path);
    const long = `{"key":"long","x":"${"é".repeat(CHUNK_BYTES)}"}`;
    w.writeLineBytes(Buffer.from('{"key":"a","t":"Å"}'));
    w.writeLine('{"key":"b"}');
    w.writeLineBytes(Buffer.from('{"key":"c"}'));
    w.writeLineBytes(Buffer.from(long));
    w.writeLine('{"key":"d"}');
    w.commit();
    expect(w.count).toBe(5);
    expect(readFileSync(path, "utf8")).toBe(['{"key":"a","t":"Å"}', '{"key":"b"}', '{"key":"c"}', long, '{"key":"d"}', ""].join("\n"));
  });
});
