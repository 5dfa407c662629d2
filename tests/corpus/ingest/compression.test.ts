/** Page compression of a new store's records table (`--compression`): written as Lance field metadata; an existing table keeps its own. */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { connectStore, openLanceRecordStore, STORE_TABLES } from "../../../corpus/store/lance-store.ts";
import { writeSet } from "./fixtures.ts";

async function recordCompression(uri: string): Promise<(string | undefined)[]> {
  const table = await (await connectStore({ uri })).openTable(STORE_TABLES.records);
  const schema = await table.schema();
  return ["pmid", "record"].map((name) => schema.fields.find((f) => f.name === name)?.metadata.get("lance-encoding:compression"));
}

describe("corpus ingest --store: page compression of the records table", () => {
  it("is none by default, zstd when asked, Lance's own (no metadata) for lance-default; a later run keeps the table's; records read back the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-comp-"));
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    writeSet(inDir, "pubmed25n0001.xml", [
      { pmid: "101", title: "Alpha trial of aspirin." },
      { pmid: "102", title: "Beta cohort of statins." },
    ]);
    writeSet(inDir, "pubmed25n0002.xml", [{ pmid: "103", title: "Gamma study of exercise." }]);
    const first = join(inDir, "pubmed25n0001.xml");
    const titles = async (uri: string) => {
      const store = await openLanceRecordStore({ uri });
      const out: string[] = [];
      for await (const b of store.scanRecords()) out.push(...b.map((r) => r.record.title));
      return out.sort();
    };

    const byDefault = join(dir, "default");
    await ingestToStore([first], { store: { uri: byDefault }, jobs: 1 });
    expect(await recordCompression(byDefault)).toEqual(["none", "none"]);
    // A later run asking for zstd appends to the existing table, which keeps its compression.
    await ingestToStore([inDir], { store: { uri: byDefault }, jobs: 1, compression: "zstd" });
    expect(await recordCompression(byDefault)).toEqual(["none", "none"]);
    expect(await titles(byDefault)).toEqual(["Alpha trial of aspirin.", "Beta cohort of statins.", "Gamma study of exercise."]);

    const zstd = join(dir, "zstd");
    await ingestToStore([inDir], { store: { uri: zstd }, jobs: 1, compression: "zstd" });
    expect(await recordCompression(zstd)).toEqual(["zstd", "zstd"]);
    expect(await titles(zstd)).toEqual(await titles(byDefault));

    const lance = join(dir, "lance");
    await ingestToStore([inDir], { store: { uri: lance }, jobs: 1, compression: "lance-default" });
    expect(await recordCompression(lance)).toEqual([undefined, undefined]);
  });
});
