/** Natural order of item ids: `medevidence:13` before `medevidence:125`, in compare lists too. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { naturalCompare } from "../../viewer/natural-order.ts";
import { startViewerServer } from "../../viewer/server.ts";
import { studyRecord } from "./study-fixtures.ts";

const IDS = ["medevidence:125", "medevidence:13", "medevidence:2", "mslr:10", "mslr:9", "medevidence:13b"];
const NATURAL = ["medevidence:2", "medevidence:13", "medevidence:13b", "medevidence:125", "mslr:9", "mslr:10"];

describe("naturalCompare", () => {
  it("orders digit runs by value", () => {
    expect([...IDS].sort(naturalCompare)).toEqual(NATURAL);
    // string order is the defect being fixed
    expect([...IDS].sort()).not.toEqual(NATURAL);
    expect(naturalCompare("a01", "a1")).not.toBe(0);
    expect(naturalCompare("x", "x")).toBe(0);
  });
});

describe("compare route", () => {
  it("lists pairs in natural item-id order", async () => {
    const dirs = ["a", "b"].map(() => {
      const dir = mkdtempSync(join(tmpdir(), "medsynth-natural-"));
      writeFileSync(join(dir, "results.jsonl"), IDS.map((id, i) => JSON.stringify({ ...studyRecord(id, "ds", 0, 1), key: `k${i}` })).join("\n") + "\n");
      return dir;
    });
    const srv = await startViewerServer({ runs: dirs, port: 0 });
    try {
      const page = (await (await fetch(`${srv.url}/api/compare?a=0&b=1&diff=0&size=50`)).json()) as { pairs: { itemId: string }[] };
      expect(page.pairs.map((p) => p.itemId)).toEqual(NATURAL);
    } finally {
      await srv.close();
    }
  });
});
