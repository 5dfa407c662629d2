/** PubMed update semantics through the parallel store ingest, on hand-made baseline/update files. */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { openLanceRecordStore } from "../../../corpus/store/lance-store.ts";
import { writeSet } from "./fixtures.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "medsynth-upd-"));

async function storeState(uri: string): Promise<{ pmid: string; version: string; title: string; sourceFile: string; conclusion: string }[]> {
  const store = await openLanceRecordStore({ uri });
  const out = [];
  for await (const batch of store.scanRecords(2)) {
    for (const r of batch) out.push({ pmid: r.record.pmid, version: r.record.version, title: r.record.title, sourceFile: r.sourceFile, conclusion: r.record.abstract.at(-1)?.text ?? "" });
  }
  return out.sort((a, b) => Number(a.pmid) - Number(b.pmid));
}

describe("corpus ingest --store: PubMed update files applied in order", () => {
  it("deletes, replaces revised records and higher versions, keeps each record's file; baseline + updates == final state", async () => {
    const dir = tmp();
    const inDir = join(dir, "in");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(inDir);
    writeSet(inDir, "pubmed25n0001.xml", [
      { pmid: "101", title: "Alpha trial of aspirin." },
      { pmid: "102", title: "Beta cohort of statins." },
      { pmid: "103", title: "Gamma study of exercise." },
    ]);
    writeSet(inDir, "pubmed25n0002.xml", [
      { pmid: "104", title: "Delta trial of metformin." },
      { pmid: "105", version: "1", title: "Epsilon review v1." },
      { pmid: "105", version: "2", title: "Epsilon review v2." },
    ]);
    // Update: 102 revised, 103 deleted; 105 v1 again does not replace v2 (lower version).
    writeSet(
      inDir,
      "pubmed25n0003.xml",
      [
        { pmid: "102", title: "Beta cohort of statins (revised).", conclusion: "Revised conclusion." },
        { pmid: "105", version: "1", title: "Epsilon review v1 again." },
      ],
      ["103"],
    );
    // Update: 101 deleted then nothing; 106 new.
    writeSet(inDir, "pubmed25n0004.xml", [{ pmid: "106", title: "Zeta trial of vitamin D." }], ["101"]);

    const report = await ingestToStore([inDir], { store: { uri: join(dir, "store") }, clean: {}, jobs: 2 });
    expect(report.failed).toEqual([]);
    expect(report.meta.finalized).toBe(true);
    expect(report.manifest.map((e) => [e.file, e.fileIndex, e.status, e.records, e.deletes])).toEqual([
      ["pubmed25n0001.xml", 0, "done", 3, 0],
      ["pubmed25n0002.xml", 1, "done", 3, 0],
      ["pubmed25n0003.xml", 2, "done", 2, 1],
      ["pubmed25n0004.xml", 3, "done", 1, 1],
    ]);
    const state = await storeState(join(dir, "store"));
    expect(state).toEqual([
      { pmid: "102", version: "1", title: "Beta cohort of statins (revised).", sourceFile: "pubmed25n0003.xml", conclusion: "Revised conclusion." },
      { pmid: "104", version: "1", title: "Delta trial of metformin.", sourceFile: "pubmed25n0002.xml", conclusion: "Conclusion of 104." },
      { pmid: "105", version: "2", title: "Epsilon review v2.", sourceFile: "pubmed25n0002.xml", conclusion: "Conclusion of 105." },
      { pmid: "106", version: "1", title: "Zeta trial of vitamin D.", sourceFile: "pubmed25n0004.xml", conclusion: "Conclusion of 106." },
    ]);
    // Counts by hand: 2 delete entries removing 2 records (103, 101); 102 twice and 105 three times → 3 superseded.
    expect(report.meta.counts?.dropped.deleted).toBe(2);
    expect(report.meta.counts?.dropped.superseded).toBe(3);
    expect(report.meta.counts?.deleteEntries).toBe(2);
    expect(report.meta.counts?.deleteOfUnknown).toBe(0);
    expect(report.updates).toEqual({ deleteEntries: 2, deleted: ["101", "103"], deleteOfUnknown: [], superseded: ["102", "105", "105"] });
    expect(report.meta.counts?.kept).toBe(4);
    // The store's count (read from the table, unfiltered) is the records left: no marker, dropped or superseded row remains.
    expect(await (await openLanceRecordStore({ uri: join(dir, "store") })).count()).toBe(4);

    // The final state as one file gives the same records.
    const finalDir = join(dir, "final");
    mkdirSync(finalDir);
    writeSet(finalDir, "final.xml", [
      { pmid: "102", title: "Beta cohort of statins (revised).", conclusion: "Revised conclusion." },
      { pmid: "104", title: "Delta trial of metformin." },
      { pmid: "105", version: "2", title: "Epsilon review v2." },
      { pmid: "106", title: "Zeta trial of vitamin D." },
    ]);
    await ingestToStore([finalDir], { store: { uri: join(dir, "store-final") }, clean: {}, jobs: 1 });
    const finalState = await storeState(join(dir, "store-final"));
    expect(finalState.map(({ sourceFile: _s, ...r }) => r)).toEqual(state.map(({ sourceFile: _s, ...r }) => r));

    // A later update applied to the finalised store: 104 revised, 102 deleted; earlier files are not re-read.
    const upd = join(dir, "later");
    mkdirSync(upd);
    writeSet(upd, "pubmed25n0005.xml", [{ pmid: "104", title: "Delta trial of metformin (erratum applied)." }], ["102"]);
    const second = await ingestToStore([inDir, upd], { store: { uri: join(dir, "store") }, clean: {}, jobs: 2 });
    expect(second.skipped).toEqual(["pubmed25n0001.xml", "pubmed25n0002.xml", "pubmed25n0003.xml", "pubmed25n0004.xml"]);
    expect(second.processed.map((r) => r.file)).toEqual(["pubmed25n0005.xml"]);
    expect((await storeState(join(dir, "store"))).map((r) => [r.pmid, r.title, r.sourceFile])).toEqual([
      ["104", "Delta trial of metformin (erratum applied).", "pubmed25n0005.xml"],
      ["105", "Epsilon review v2.", "pubmed25n0002.xml"],
      ["106", "Zeta trial of vitamin D.", "pubmed25n0004.xml"],
    ]);
    // A new file that sorts before an ingested one is refused (files apply in order).
    const early = join(dir, "early");
    mkdirSync(early);
    writeSet(early, "pubmed25n0000.xml", [{ pmid: "107", title: "Eta." }]);
    await expect(ingestToStore([early], { store: { uri: join(dir, "store") }, clean: {}, jobs: 1 })).rejects.toThrow(/pubmed25n0000\.xml sorts before pubmed25n0005\.xml/);
  }, 180_000);
});

describe("finalisation deletes within their memory budget", () => {
  it("compacting before the deletes (many losers for the budget) gives the same store as deleting first", async () => {
    const { mkdirSync } = await import("node:fs");
    const states: Awaited<ReturnType<typeof storeState>>[] = [];
    const phases: string[][] = [];
    for (const deleteFilterBudget of [undefined, 1]) {
      const dir = tmp();
      const inDir = join(dir, "in");
      mkdirSync(inDir);
      writeSet(
        inDir,
        "pubmed25n0001.xml",
        Array.from({ length: 20 }, (_, i) => ({ pmid: String(201 + i), title: `Trial ${i} of aspirin.` })),
      );
      // 12 revised (superseded) and 3 deleted: 15 losers > 8 lists of one key → compact first with budget 1.
      writeSet(
        inDir,
        "pubmed25n0002.xml",
        Array.from({ length: 12 }, (_, i) => ({ pmid: String(201 + i), title: `Trial ${i} of aspirin (revised).` })),
        ["213", "214", "215"],
      );
      const report = await ingestToStore([inDir], { store: { uri: join(dir, "store") }, clean: {}, jobs: 2, ...(deleteFilterBudget ? { deleteFilterBudget } : {}) });
      expect(report.failed).toEqual([]);
      expect(report.meta.counts?.kept).toBe(17);
      expect(await (await openLanceRecordStore({ uri: join(dir, "store") })).count()).toBe(17);
      states.push(await storeState(join(dir, "store")));
      phases.push(Object.keys(report.phaseSeconds));
    }
    expect(states[1]).toEqual(states[0]);
    expect(states[0].map((s) => s.pmid)).toEqual([...Array.from({ length: 12 }, (_, i) => String(201 + i)), "216", "217", "218", "219", "220"]);
    expect(states[0][0].title).toBe("Trial 0 of aspirin (revised).");
    expect(phases[0]).not.toContain("finalize: compact before delete");
    expect(phases[1]).toContain("finalize: compact before delete");
  }, 60_000);
});

describe("corpus ingest --store: another file under a name the store already holds", () => {
  it("is refused, saying files are known by name and what to do (rename so it sorts last, or a new store)", async () => {
    const { mkdirSync } = await import("node:fs");
    const dir = tmp();
    for (const sub of ["a", "b"]) mkdirSync(join(dir, sub));
    writeSet(join(dir, "a"), "pubmed25n0001.xml", [{ pmid: "101", title: "Alpha trial of aspirin." }]);
    writeSet(join(dir, "b"), "pubmed25n0001.xml", [
      { pmid: "201", title: "Another file, same name." },
      { pmid: "202", title: "And a second record." },
    ]);
    const uri = join(dir, "store");
    await ingestToStore([join(dir, "a")], { store: { uri }, jobs: 1 });
    await expect(ingestToStore([join(dir, "b")], { store: { uri }, jobs: 1 })).rejects.toThrow(
      /b\/pubmed25n0001\.xml: the store already holds a file named pubmed25n0001\.xml \(\d+ bytes, sha256 [0-9a-f]{64}\) and this one has \d+ bytes: the store knows its input files by name, as PubMed names its baseline and update files\. If this is another file, give it a new name that sorts after pubmed25n0001\.xml; if it is that file changed, ingest into a new --store$/,
    );
  });
});
