/** `corpus ingest --store` through the real CLI: exit codes, messages, resume. */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./run-cli.ts";
import { writeSet } from "../corpus/ingest/fixtures.ts";

describe("medsynth corpus ingest --store", () => {
  it("names a broken file with its byte offset and exits 1; after the fix only that file is read and the store is finalised", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-cli-"));
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    writeSet(inDir, "a.xml", [
      { pmid: "11", title: "One trial." },
      { pmid: "12", title: "Two trial." },
    ]);
    const good = readFileSync(writeSet(dir, "b-full.xml", [{ pmid: "13", title: "Three trial." }]), "utf8");
    writeFileSync(join(inDir, "b.xml"), good.slice(0, good.indexOf("</Abstract>")));
    const store = join(dir, "store");
    const r = runCli(["corpus", "ingest", inDir, "--store", store, "--jobs", "2", "--no-progress"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error: .*b\.xml: truncated: ends inside a record \(decompressed byte offset \d+, PMID 13\)/);
    expect(r.stdout).toMatch(/not finalised — 1 file\(s\) failed/);

    writeFileSync(join(inDir, "b.xml"), good);
    const ok = runCli(["corpus", "ingest", inDir, "--store", store, "--json", "--no-progress"]);
    expect(ok.status).toBe(0);
    const rep = JSON.parse(ok.stdout) as { processed: { file: string }[]; skipped: string[]; finalized: boolean; counts: { kept: number } };
    expect(rep.processed.map((p) => p.file)).toEqual(["b.xml"]);
    expect(rep.skipped).toEqual(["a.xml"]);
    expect(rep.finalized).toBe(true);
    expect(rep.counts.kept).toBe(3);

    const both = runCli(["corpus", "ingest", inDir, "--store", store, "--out", join(dir, "x.jsonl")]);
    expect(both.status).not.toBe(0);
    expect(both.stderr).toMatch(/exactly one of --store <uri> .* or --out/);
  }, 400_000);
});
