/** Resume after kill -9 mid-file, broken files among good ones, and a store built with other cleaning options. */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { connectStore, openLanceRecordStore, STORE_TABLES } from "../../../corpus/store/lance-store.ts";
import { readManifest } from "../../../corpus/ingest/manifest.ts";
import { writeSet, type FixtureCitation } from "./fixtures.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "medsynth-resume-"));
const cites = (from: number, n: number): FixtureCitation[] => Array.from({ length: n }, (_, i) => ({ pmid: String(from + i), title: `Study number ${from + i} of a treatment.` }));

async function allIds(uri: string): Promise<string[]> {
  const store = await openLanceRecordStore({ uri });
  const ids: string[] = [];
  for await (const b of store.ids(50)) ids.push(...b);
  return ids;
}

describe("corpus ingest --store: resume and bad input", () => {
  it("after kill -9 mid-file, a re-run reads only unfinished files and ends with every record once", async () => {
    const dir = tmp();
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    for (let f = 0; f < 3; f++) writeSet(inDir, `pubmed25n000${f + 1}.xml`, cites(1000 * (f + 1), 40));
    const uri = join(dir, "store");
    const child = spawn(process.execPath, ["--import", "tsx", resolve(__dirname, "kill-ingest-child.ts"), inDir, uri], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    await new Promise<void>((res) => {
      child.stdout.on("data", (d) => {
        out += String(d);
        // Killed once file #1 has two batches committed: mid-file (it has 8).
        if ((out.match(/^batch 1 /gm) ?? []).length >= 2 && !child.killed) child.kill("SIGKILL");
      });
      child.on("exit", () => res());
    });
    expect(out).not.toContain("finished");
    const db = await connectStore({ uri });
    const before = await readManifest(db);
    const done = before.filter((e) => e.status === "done").map((e) => e.file);
    expect(done).toContain("pubmed25n0001.xml");
    // Every file of the killed run has its entry, written before processing began: unfinished ones
    // are "failed" at their planned index, so a re-run keeps PubMed's order even when a later
    // file finished first (workers finish out of order).
    expect(before.map((e) => [e.file, e.fileIndex])).toEqual([
      ["pubmed25n0001.xml", 0],
      ["pubmed25n0002.xml", 1],
      ["pubmed25n0003.xml", 2],
    ]);
    for (const e of before.filter((x) => !done.includes(x.file))) expect(e.error).toContain("not finished");
    const records = await db.openTable(STORE_TABLES.records);
    if (!done.includes("pubmed25n0002.xml")) {
      const partial = await records.countRows("fileIndex = 1");
      expect(partial).toBeGreaterThanOrEqual(10);
      expect(partial).toBeLessThan(40);
    }
    const report = await ingestToStore([inDir], { store: { uri }, clean: {}, jobs: 2 });
    expect(report.skipped).toEqual(done);
    expect(report.processed.map((r) => r.file)).toEqual(["pubmed25n0001.xml", "pubmed25n0002.xml", "pubmed25n0003.xml"].filter((f) => !done.includes(f)));
    const ids = await allIds(uri);
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);
    expect((await readManifest(db)).map((e) => [e.file, e.fileIndex, e.status])).toEqual([
      ["pubmed25n0001.xml", 0, "done"],
      ["pubmed25n0002.xml", 1, "done"],
      ["pubmed25n0003.xml", 2, "done"],
    ]);
  }, 180_000);

  it("a truncated file is reported with its byte offset, the others complete, and a re-run retries only it", async () => {
    const dir = tmp();
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    writeSet(inDir, "pubmed25n0001.xml", cites(1000, 5));
    const full = writeSet(dir, "full.xml", cites(2000, 5));
    const gz = gzipSync(readFileSync(full));
    const broken = join(inDir, "pubmed25n0002.xml.gz");
    writeFileSync(broken, gz.subarray(0, Math.floor(gz.length * 0.6)));
    writeSet(inDir, "pubmed25n0003.xml", cites(3000, 5));
    const uri = join(dir, "store");
    const first = await ingestToStore([inDir], { store: { uri }, clean: {}, jobs: 2 });
    expect(first.failed.map((f) => f.file)).toEqual(["pubmed25n0002.xml.gz"]);
    expect(first.failed[0].error).toMatch(/pubmed25n0002\.xml\.gz.*(unexpected end of file|byte offset)/);
    expect(first.failed[0].error).toMatch(/byte offset \d+/);
    expect(first.failed[0].byteOffset).toBeGreaterThan(0);
    expect(first.manifest.map((e) => [e.file, e.status])).toEqual([
      ["pubmed25n0001.xml", "done"],
      ["pubmed25n0002.xml.gz", "failed"],
      ["pubmed25n0003.xml", "done"],
    ]);
    expect(first.meta.finalized).toBe(false);
    await expect(openLanceRecordStore({ uri })).rejects.toThrow(/unfinished/);

    writeFileSync(broken, gz);
    const second = await ingestToStore([inDir], { store: { uri }, clean: {}, jobs: 2 });
    expect(second.processed.map((r) => [r.file, r.status])).toEqual([["pubmed25n0002.xml.gz", "done"]]);
    expect(second.skipped).toEqual(["pubmed25n0001.xml", "pubmed25n0003.xml"]);
    expect((await allIds(uri)).sort()).toEqual([...cites(1000, 5), ...cites(2000, 5), ...cites(3000, 5)].map((c) => c.pmid).sort());

    // Other cleaning options are refused, naming the difference.
    await expect(ingestToStore([inDir], { store: { uri }, clean: { language: null }, jobs: 1 })).rejects.toThrow(/other cleaning options \(language: store "eng", this run null\)/);
    await expect(ingestToStore([inDir], { store: { uri }, clean: null, jobs: 1 })).rejects.toThrow(/built with cleaning; this run asks for none/);
  }, 180_000);

  it("invalid UTF-8 and a non-PubMed file fail with file and byte offset, a book record is counted, a re-run retries only the failed files", async () => {
    const dir = tmp();
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    writeSet(inDir, "pubmed25n0001.xml", cites(100, 2));
    // One byte (0xFF) that is never valid UTF-8, inside a title.
    const good2 = readFileSync(writeSet(dir, "two.xml", cites(200, 2)));
    const at = good2.indexOf("Study number 201");
    const bad2 = Buffer.concat([good2.subarray(0, at), Buffer.from([0xff]), good2.subarray(at)]);
    writeFileSync(join(inDir, "pubmed25n0002.xml"), bad2);
    const book = `<PubmedBookArticle><BookDocument><PMID Version="1">777</PMID><ArticleTitle>A chapter.</ArticleTitle></BookDocument><PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">777</ArticleId></ArticleIdList></PubmedBookData></PubmedBookArticle>`;
    const three = readFileSync(writeSet(dir, "three.xml", cites(300, 1)), "utf8").replace("</PubmedArticleSet>", `${book}\n</PubmedArticleSet>`);
    writeFileSync(join(inDir, "pubmed25n0003.xml"), three);
    writeFileSync(join(inDir, "pubmed25n0004.xml"), '{"pmid": "400"}\n');
    const uri = join(dir, "store");
    const first = await ingestToStore([inDir], { store: { uri }, clean: {}, jobs: 2 });
    expect(first.failed.map((f) => f.file)).toEqual(["pubmed25n0002.xml", "pubmed25n0004.xml"]);
    const [enc, json] = first.failed;
    expect(enc.error).toBe(`${join(inDir, "pubmed25n0002.xml")}: 1 byte sequence(s) invalid in the file's encoding utf-8 (decoded as U+FFFD; first at byte offset ${at})`);
    expect(enc.byteOffset).toBe(at);
    expect(json.error).toBe(`${join(inDir, "pubmed25n0004.xml")}: no PubMed records (looks like JSON, not PubMed XML)`);
    const booked = first.manifest.find((e) => e.file === "pubmed25n0003.xml");
    expect(booked).toMatchObject({ status: "done", records: 1, books: 1, bookPmids: ["777"], warnings: 0 });
    expect(first.meta.finalized).toBe(false);

    writeFileSync(join(inDir, "pubmed25n0002.xml"), good2);
    writeSet(inDir, "pubmed25n0004.xml", cites(400, 1));
    const second = await ingestToStore([inDir], { store: { uri }, clean: {}, jobs: 2 });
    expect(second.processed.map((r) => [r.file, r.status])).toEqual([
      ["pubmed25n0002.xml", "done"],
      ["pubmed25n0004.xml", "done"],
    ]);
    expect(second.skipped).toEqual(["pubmed25n0001.xml", "pubmed25n0003.xml"]);
    expect(second.meta.finalized).toBe(true);
    expect((await allIds(uri)).sort()).toEqual(["100", "101", "200", "201", "300", "400"]);
  }, 180_000);
});
