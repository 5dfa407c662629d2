/**
 * A skipped line of a `.jsonl` corpus (or task file) is labelled by every problem of its record,
 * not by the first only: `file:line: id: …; text: …` in the skip warning and the summary.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { loadCorpusArg, readCorpusFile } from "../../corpus/corpus-file.ts";
import { loadJsonlTasks } from "../../corpus/datasets/jsonl.ts";
import { readJsonl, zodIssuesText, type JsonlWarning } from "../../corpus/jsonl.ts";

const dir = mkdtempSync(join(tmpdir(), "medsynth-corpus-skips-"));
const MISSING_STRING = "Invalid input: expected string, received undefined";
/** A valid PubmedRecord line (as `corpus ingest` writes it), with a conclusion segment. */
const record = {
  pmid: "101",
  version: "1",
  doi: null,
  title: "Drug D in adults",
  vernacularTitle: null,
  journal: { title: "J", isoAbbreviation: "J", issn: null, nlmUniqueId: null },
  pubDate: "2020",
  languages: ["eng"],
  publicationTypes: ["Journal Article"],
  meshHeadings: [],
  keywords: [],
  abstract: [
    { label: "RESULTS", nlmCategory: "RESULTS", text: "It reduced the outcome." },
    { label: "CONCLUSIONS", nlmCategory: "CONCLUSIONS", text: "Drug D helps." },
  ],
  otherAbstracts: [],
  flags: { deleted: false, retracted: false, erratum: false },
};
// two problems: the title is missing and the publication date is a number
const badRecord = { ...Object.fromEntries(Object.entries(record).filter(([k]) => k !== "title")), pmid: "102", pubDate: 2020 };

describe("skipped corpus lines name every problem", () => {
  it("zodIssuesText joins every issue, field by field", () => {
    const r = z.object({ id: z.string(), n: z.number() }).strict().safeParse({ n: "x", extra: 1 });
    expect(zodIssuesText(r.error!.issues)).toBe(`id: ${MISSING_STRING}; n: Invalid input: expected number, received string; (root): Unrecognized key: "extra"`);
    expect(zodIssuesText([])).toBe("schema mismatch");
  });

  it("readJsonl's skip warning lists each problem of the line", async () => {
    const path = join(dir, "rows.jsonl");
    writeFileSync(path, '{"id":"1","n":1}\n{"n":"two"}\n');
    const warnings: JsonlWarning[] = [];
    const ids: string[] = [];
    for await (const r of readJsonl(path, { schema: z.object({ id: z.string(), n: z.number() }), onWarning: (w) => warnings.push(w) })) ids.push(r.id);
    expect(ids).toEqual(["1"]);
    expect(warnings.map((w) => w.message)).toEqual([`${path}:2: id: ${MISSING_STRING}; n: Invalid input: expected number, received string`]);
  });

  it("a corpus JSONL: CorpusDoc and PubmedRecord lines, in the first-problem field and the summary warning", async () => {
    const path = join(dir, "corpus.jsonl");
    writeFileSync(path, [JSON.stringify({ id: "d1", title: "T", text: "x" }), JSON.stringify({ title: "no id, no text" }), JSON.stringify(record), JSON.stringify(badRecord)].join("\n") + "\n");
    const r = await readCorpusFile(path);
    expect(r.docs.map((d) => d.id)).toEqual(["d1", "101"]);
    expect(r.malformed).toBe(2);
    const docProblem = `${path}:2: id: ${MISSING_STRING}; text: ${MISSING_STRING} (expected a CorpusDoc {id, title, text}, a PubmedRecord or a MedRAG {id, title, content, contents} line)`;
    expect(r.firstMalformed).toBe(docProblem);
    const log: string[] = [];
    await loadCorpusArg(path, (l) => log.push(l));
    expect(log).toContain(`warning: ${path}: 2 malformed line(s) skipped (first: ${docProblem})`);

    const only = join(dir, "records.jsonl");
    writeFileSync(only, JSON.stringify(badRecord) + "\n");
    expect((await readCorpusFile(only)).firstMalformed).toBe(`${only}:1: PubmedRecord title: ${MISSING_STRING}; pubDate: Invalid input: expected string, received number`);
  });

  it("a task JSONL: a PubmedRecord line's warning lists each problem", async () => {
    const path = join(dir, "tasks.jsonl");
    writeFileSync(path, [JSON.stringify(record), JSON.stringify(badRecord)].join("\n") + "\n");
    const d = await loadJsonlTasks({ path });
    expect(d.items.map((t) => t.id)).toEqual(["jsonl:101"]);
    expect(d.warnings).toEqual([`${path}:2: PubmedRecord title: ${MISSING_STRING}; pubDate: Invalid input: expected string, received number; skipped`]);
    expect(d.skipped).toEqual({ count: 1, reasons: { "invalid PubmedRecord title": 1 } });
  });
});

describe("a --corpus folder without JSONL files", () => {
  it("says so, and when it holds PubMed XML names the ingest command that makes a store of it", async () => {
    const { mkdirSync } = await import("node:fs");
    const dir = mkdtempSync(join(tmpdir(), "medsynth-corpus-dir-"));
    mkdirSync(join(dir, "xml"));
    mkdirSync(join(dir, "none"));
    writeFileSync(join(dir, "xml", "pubmed25n0001.xml.gz"), "");
    await expect(readCorpusFile(join(dir, "none"))).rejects.toThrow(new RegExp(`^--corpus: ${join(dir, "none")} is a folder without \\.jsonl / \\.jsonl\\.gz files$`));
    await expect(readCorpusFile(join(dir, "xml"))).rejects.toThrow(
      `--corpus: ${join(dir, "xml")} is a folder without .jsonl / .jsonl.gz files; it holds PubMed XML: ingest it into a store first (\`node bin/medsynth.js corpus ingest ${join(dir, "xml")} --store <store folder>\`), then give --corpus lance:<store folder>`,
    );
  });
});
