/**
 * The lean RAG corpus (`corpus rag-export`): MedRAG's fields, one snippet per PMID, read back as
 * the same documents; and `--corpus` reading MedRAG's published PubMed chunk format (hand-made
 * sample in the format of `MedRAG/pubmed`'s `chunk/pubmed23nXXXX.jsonl`).
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { connectStore, openLanceRecordStore } from "../../../corpus/store/lance-store.ts";
import { medragContents, ragExport } from "../../../corpus/store/rag-table.ts";
import { openRetrievalCorpus, readCorpusFile } from "../../../corpus/corpus-file.ts";
import type { CorpusDoc } from "../../../corpus/types.ts";
import { writeSet } from "../ingest/fixtures.ts";
import { runCli } from "../../cli/run-cli.ts";

async function allDocs(src: { scanDocs(b?: number): AsyncIterable<CorpusDoc[]> }): Promise<CorpusDoc[]> {
  const out: CorpusDoc[] = [];
  for await (const b of src.scanDocs(2)) out.push(...b);
  return out;
}

describe("corpus rag-export", () => {
  it("joins title and content as MedRAG does", () => {
    expect(medragContents("Aspirin after stroke.", "We tested.")).toBe("Aspirin after stroke. We tested.");
    expect(medragContents("Is aspirin safe?", "Yes.")).toBe("Is aspirin safe? Yes.");
    expect(medragContents("Aspirin after stroke", "We tested.")).toBe("Aspirin after stroke. We tested.");
    expect(medragContents("", "Only content.")).toBe("Only content.");
  });

  it("writes one snippet per PMID with MedRAG's fields (JSONL) and a lean table the store then reads documents from", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-rag-"));
    mkdirSync(join(dir, "in"));
    writeSet(join(dir, "in"), "a.xml", [
      { pmid: "11", title: "One trial." },
      { pmid: "12", title: "Two trial" },
      { pmid: "13", title: "Three trial?" },
    ]);
    const uri = join(dir, "store");
    await ingestToStore([join(dir, "in")], { store: { uri }, clean: null, jobs: 1 });
    const before = await openLanceRecordStore({ uri });
    expect(before.docsFromRagTable).toBe(false);
    const fromRecords = await allDocs(before);
    const fp = await before.fingerprint();

    const out = join(dir, "rag.jsonl");
    const rep = await ragExport({ uri }, { jsonl: out });
    expect(rep).toMatchObject({ docs: 3, table: true, jsonl: out, fingerprint: fp });
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines.map((l) => Object.keys(l))).toEqual([0, 1, 2].map(() => ["id", "title", "content", "contents"]));
    const abstract12 = "BACKGROUND: Background of 12.\nMETHODS: Methods of 12.\nRESULTS: Results of 12.\nCONCLUSIONS: Conclusion of 12.";
    expect(lines[1]).toEqual({ id: "12", title: "Two trial", content: abstract12, contents: `Two trial. ${abstract12}` });
    expect(lines[0].contents.startsWith("One trial. BACKGROUND: Background of 11.")).toBe(true);
    expect(lines[2].contents.startsWith("Three trial? BACKGROUND")).toBe(true);

    // The store now serves documents from the lean table: same documents, same fingerprint.
    const after = await openLanceRecordStore({ uri });
    expect(after.docsFromRagTable).toBe(true);
    const current: string[] = [];
    await openRetrievalCorpus(`lance:${uri}`, (l) => current.push(l));
    expect(current).toEqual([`corpus: store lance:${uri}, 3 docs (streamed, documents from its lean RAG table; documents fetched by id for hits)`]); // no note
    expect(await after.fingerprint()).toBe(fp);
    expect(await allDocs(after)).toEqual(fromRecords);
    const got = await after.getDocs(["13", "11", "99"]);
    expect(got.size).toBe(2);
    expect(got.get("13")).toEqual(fromRecords[2]);
    expect(got.get("11")).toEqual(fromRecords[0]);
    const db = await connectStore({ uri });
    expect((await (await db.openTable("rag")).listVersions()).length).toBe(1);
    // The JSONL reads back (as a MedRAG corpus) into the same id, title and text.
    const read = await readCorpusFile(out);
    expect(read.docs.map((d) => [d.id, d.title, d.text])).toEqual(fromRecords.map((d) => [d.id, d.title, d.text]));

    // A later ingest changes the store's fingerprint: the stale lean table is no longer read.
    writeSet(join(dir, "in"), "b.xml", [{ pmid: "14", title: "Four trial." }]);
    await ingestToStore([join(dir, "in")], { store: { uri }, clean: null, jobs: 1 });
    const updated = await openLanceRecordStore({ uri });
    expect(await updated.fingerprint()).not.toBe(fp);
    expect(updated.docsFromRagTable).toBe(false);
    expect((await allDocs(updated)).map((d) => d.id)).toEqual(["11", "12", "13", "14"]);
    // …and a command opening it says so, with the command that brings the table back.
    const noted: string[] = [];
    await openRetrievalCorpus(`lance:${uri}`, (l) => noted.push(l));
    expect(noted[1]).toBe(
      `note: the store's lean RAG table was written from an earlier state of the store and is not used; rerun \`node bin/medsynth.js corpus rag-export --store ${uri}\` to use it again`,
    );
  }, 120_000);

  it("an export stopped midway (or a table short of its rows) is never read, even for the state a complete export was written from", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-rag-stop-"));
    mkdirSync(join(dir, "in"));
    writeSet(join(dir, "in"), "a.xml", [
      { pmid: "21", title: "One trial." },
      { pmid: "22", title: "Two trial." },
    ]);
    const uri = join(dir, "store");
    await ingestToStore([join(dir, "in")], { store: { uri }, clean: null, jobs: 1 });
    await ragExport({ uri });
    expect((await openLanceRecordStore({ uri })).docsFromRagTable).toBe(true);
    // Export the same state again, stopped after the table was replaced: the JSONL path is a folder.
    await expect(ragExport({ uri }, { jsonl: join(dir, "in") })).rejects.toThrow();
    const stopped = await openLanceRecordStore({ uri });
    expect(stopped.docsFromRagTable).toBe(false);
    expect((await allDocs(stopped)).map((d) => d.id)).toEqual(["21", "22"]);
    const noted: string[] = [];
    await openRetrievalCorpus(`lance:${uri}`, (l) => noted.push(l));
    expect(noted[1]).toBe(
      `note: the store's lean RAG table is unfinished (a corpus rag-export was interrupted) and is not used; rerun \`node bin/medsynth.js corpus rag-export --store ${uri}\` to use it again`,
    );
    await ragExport({ uri });
    expect((await openLanceRecordStore({ uri })).docsFromRagTable).toBe(true);
    // A table that lost rows since it was written is not current either.
    await (await (await connectStore({ uri })).openTable("rag")).delete("id = '22'");
    expect((await openLanceRecordStore({ uri })).docsFromRagTable).toBe(false);
  }, 120_000);

  it("reads MedRAG's PubMed chunk lines (id + PMID, content, contents), a folder of chunk files, and names bad lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-medrag-"));
    const chunk = join(dir, "chunk");
    mkdirSync(chunk);
    // Hand-made in the published format: since 02/2024 `id` is a snippet id and `PMID` the article.
    const l1 = {
      id: "pubmed23n0001_0",
      title: "Formate assay in body fluids: application in methanol poisoning.",
      content: "A formate assay is described.",
      contents: "Formate assay in body fluids: application in methanol poisoning. A formate assay is described.",
      PMID: 1,
    };
    const l2 = {
      id: "pubmed23n0001_1",
      title: "Delineation of the intimate details of the backbone conformation",
      content: "The backbone conformation was studied.",
      contents: "Delineation of the intimate details of the backbone conformation. The backbone conformation was studied.",
      PMID: 2,
    };
    // The earlier format: the id is the PMID, no PMID field.
    const l3 = { id: "30", title: "Metal substitutions incarbonic anhydrase.", content: "Cobalt replaced zinc.", contents: "Metal substitutions incarbonic anhydrase. Cobalt replaced zinc." };
    writeFileSync(join(chunk, "pubmed23n0001.jsonl"), `${JSON.stringify(l1)}\n${JSON.stringify(l2)}\n`);
    writeFileSync(join(chunk, "pubmed23n0002.jsonl"), `${JSON.stringify(l3)}\n{"id": "", "title": "x", "content": "no id"}\n`);
    const one = await readCorpusFile(join(chunk, "pubmed23n0001.jsonl"));
    expect(one.docs).toEqual([
      { id: "1", title: l1.title, text: "A formate assay is described.", source: "pubmed" },
      { id: "2", title: l2.title, text: "The backbone conformation was studied.", source: "pubmed" },
    ]);
    const all = await readCorpusFile(chunk);
    expect(all.docs.map((d) => d.id)).toEqual(["1", "2", "30"]);
    expect(all.lines).toBe(4);
    expect(all.malformed).toBe(1);
    expect(all.firstMalformed).toMatch(/pubmed23n0002\.jsonl:2: MedRAG line: id \(or PMID\) must be a non-empty/);
  });

  it("through the CLI: JSONL only with --no-table", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-rag-cli-"));
    mkdirSync(join(dir, "in"));
    writeSet(join(dir, "in"), "a.xml", [
      { pmid: "21", title: "Alpha." },
      { pmid: "22", title: "Beta." },
    ]);
    const store = join(dir, "store");
    expect(runCli(["corpus", "ingest", join(dir, "in"), "--store", store, "--no-progress", "--json"]).status).toBe(0);
    const r = runCli(["corpus", "rag-export", "--store", store, "--out", join(dir, "rag.jsonl.gz"), "--no-table"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/wrote 2 snippets, one per PMID, to .*rag\.jsonl\.gz \(id, title, content, contents\) in/);
    const s = runCli(["search", "beta", "--corpus", join(dir, "rag.jsonl.gz"), "--k", "1", "--json"]);
    expect(s.status).toBe(0);
    expect((JSON.parse(s.stdout) as { pmid: string }[]).map((h) => h.pmid)).toEqual(["22"]);
  }, 120_000);
});
