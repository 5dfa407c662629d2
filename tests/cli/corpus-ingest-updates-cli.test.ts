/**
 * `corpus ingest … --out x.jsonl` applies PubMed's update semantics as `--store` does, and both
 * paths say what happened: records deleted, deletes of unknown PMIDs, superseded entries — PMIDs
 * named (real CLI).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeSet } from "../corpus/ingest/fixtures.ts";
import { runCli } from "./run-cli.ts";

let dir: string;
let baseline: string;
let update: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-ingest-upd-cli-"));
  // Baseline: 101, 102, 103 and 104 twice (same version: a duplicate).
  baseline = writeSet(dir, "A.xml", [
    { pmid: "101", title: "Alpha trial of aspirin." },
    { pmid: "102", title: "Beta cohort of statins." },
    { pmid: "103", title: "Gamma study of exercise." },
    { pmid: "104", version: "2", title: "Delta v2." },
    { pmid: "104", version: "1", title: "Delta v1 (older version, later in the file)." },
  ]);
  // Update: 102 revised; DeleteCitation of 103 (known) and 201, 202 (never seen).
  update = writeSet(dir, "update.xml", [{ pmid: "102", title: "Beta cohort of statins (revised).", conclusion: "Revised conclusion." }], ["103", "201", "202"]);
});

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { pmid: string; version: string; title: string });

describe("corpus ingest --out applies PubMed update semantics", () => {
  it("writes the final state (deleted, superseded and duplicate entries gone) and names the PMIDs", () => {
    const out = join(dir, "x.jsonl");
    const r = runCli(["corpus", "ingest", baseline, update, "--out", out, "--no-progress"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // 9 entries (6 records + 3 deletes) → 3 records: 101, 104 v2, 102 revised (in stream order of the winners).
    expect(lines(out).map((x) => [x.pmid, x.version, x.title])).toEqual([
      ["101", "1", "Alpha trial of aspirin."],
      ["104", "2", "Delta v2."],
      ["102", "1", "Beta cohort of statins (revised)."],
    ]);
    expect(r.stdout).toContain("updates (DeleteCitation, later file / higher Version): 1 record deleted, 2 deletes of unknown PMIDs, 2 entries superseded\n");
    expect(r.stdout).toContain("  deleted (record removed by a DeleteCitation): PMIDs 103\n");
    expect(r.stdout).toContain("  delete of unknown PMID (no record of it read before the DeleteCitation): PMIDs 201, 202\n");
    expect(r.stdout).toContain("  superseded (an entry replaced by a later file or a higher Version of its PMID): PMIDs 104, 102\n");
    expect(r.stdout).toContain("wrote 3 records to");
    // No spool file left beside the output.
    expect(readdirSync(dir).filter((f) => f.includes(".spool-"))).toEqual([]);

    const j = runCli(["corpus", "ingest", baseline, update, "--out", join(dir, "y.jsonl.gz"), "--no-progress", "--json"]);
    expect(j.status).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      written: 3,
      updates: { deleteEntries: 3, deleted: 1, deleteOfUnknown: 2, superseded: 2, pmids: { deleted: ["103"], deleteOfUnknown: ["201", "202"], superseded: ["104", "102"] } },
    });
  });

  it("--clean gives the same records and update counts", () => {
    const out = join(dir, "c.jsonl");
    const r = runCli(["corpus", "ingest", baseline, update, "--out", out, "--clean", "--no-progress", "--json"]);
    expect(r.status).toBe(0);
    expect(lines(out).map((x) => x.pmid)).toEqual(["101", "104", "102"]);
    const j = JSON.parse(r.stdout);
    expect(j.updates).toMatchObject({ deleted: 1, deleteOfUnknown: 2, superseded: 2 });
    expect(j.clean.dropped).toMatchObject({ deleted: 1, superseded: 2 });
  });

  it("--store reports the same classes: 1 record deleted (not 3), 2 deletes of unknown PMIDs, PMIDs named", () => {
    const uri = join(dir, "store");
    const r = runCli(["corpus", "ingest", baseline, update, "--store", uri, "--jobs", "1", "--no-progress"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\ndeleted +1\nsuperseded +2\ndelete of unknown PMID \(not a record\) +2\nkept +3\n/);
    expect(r.stdout).toMatch(/\ndeleted citations \(all files\) +3\n/); // every DeleteCitation entry of the files; the table below: records removed
    expect(r.stdout).toContain("updates of the last finalisation — dropped by reason (kept: records in the store):\n");
    expect(r.stdout).toContain("1 record deleted, 2 deletes of unknown PMIDs, 2 entries superseded\n");
    expect(r.stdout).toContain("  deleted (record removed by a DeleteCitation): PMIDs 103\n");
    expect(r.stdout).toContain("  delete of unknown PMID (no record of it read before the DeleteCitation): PMIDs 201, 202\n");
    // The store resolver meets events in PMID order.
    expect(r.stdout).toContain("  superseded (an entry replaced by a later file or a higher Version of its PMID): PMIDs 102, 104\n");
    const out = join(dir, "exported.jsonl");
    expect(runCli(["corpus", "export", "--store", uri, "--out", out]).status).toBe(0);
    expect(
      lines(out)
        .map((x) => x.pmid)
        .sort(),
    ).toEqual(["101", "102", "104"]);
  });

  it("an ingest that yields nothing creates no output file (not a 0-byte one)", () => {
    const empty = join(dir, "empty.xml");
    writeFileSync(empty, "");
    const out = join(dir, "none.jsonl");
    const r = runCli(["corpus", "ingest", empty, "--out", out, "--no-progress"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: no PubMed records in any input; nothing usable in ${empty}; ${out} not written\n`);
    expect(existsSync(out)).toBe(false);
  });
});
