import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { readJsonl, writeJsonl, type JsonlStats, type JsonlWarning } from "../../corpus/jsonl.ts";

const dir = mkdtempSync(join(tmpdir(), "medsynth-jsonl-"));

describe("JSONL", () => {
  it("writes and reads back records, plain and gzip", async () => {
    for (const name of ["a.jsonl", "a.jsonl.gz"]) {
      const path = join(dir, name);
      const n = await writeJsonl(
        path,
        (async function* () {
          yield { id: "1", x: 1 };
          yield { id: "2", x: "é" };
        })(),
      );
      expect(n).toBe(2);
      const back = [];
      for await (const r of readJsonl(path)) back.push(r);
      expect(back).toEqual([
        { id: "1", x: 1 },
        { id: "2", x: "é" },
      ]);
    }
    expect(gunzipSync(readFileSync(join(dir, "a.jsonl.gz"))).toString("utf8")).toBe('{"id":"1","x":1}\n{"id":"2","x":"é"}\n');
  });

  it("skips and reports malformed lines with file:line", async () => {
    const path = join(dir, "bad.jsonl");
    writeFileSync(path, '{"id":"1","n":1}\n{broken\n\n{"id":"3","n":"three"}\n{"id":"4","n":4}\n');
    const warnings: JsonlWarning[] = [];
    const stats: JsonlStats = { lines: 0, records: 0, skipped: 0 };
    const got = [];
    for await (const r of readJsonl(path, { schema: z.object({ id: z.string(), n: z.number() }), onWarning: (w) => warnings.push(w), stats })) got.push(r);
    expect(got).toEqual([
      { id: "1", n: 1 },
      { id: "4", n: 4 },
    ]);
    expect(warnings.map((w) => w.line)).toEqual([2, 4]);
    expect(warnings[0].message.startsWith(`${path}:2: invalid JSON`)).toBe(true);
    expect(warnings[1].message).toContain(`${path}:4: n:`);
    expect(stats).toEqual({ lines: 5, records: 2, skipped: 2 });
  });
});
