/** `corpus ingest --store` through the real CLI: encoding errors exit 1 like the JSONL path; book records are listed. */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../cli/run-cli.ts";
import { writeSet } from "./fixtures.ts";

describe("medsynth corpus ingest --store: bad input", () => {
  it("a file with invalid UTF-8 is named with its byte offset and exits 1 on both paths; a book record is listed by PMID", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-bad-cli-"));
    const inDir = join(dir, "in");
    mkdirSync(inDir);
    const good = readFileSync(
      writeSet(dir, "src.xml", [
        { pmid: "21", title: "First trial." },
        { pmid: "22", title: "Second trial." },
      ]),
    );
    const at = good.indexOf("Second trial.");
    writeFileSync(join(inDir, "a.xml"), Buffer.concat([good.subarray(0, at), Buffer.from([0xc3, 0x28]), good.subarray(at)]));
    const book = `<PubmedBookArticle><BookDocument><PMID Version="1">888</PMID></BookDocument></PubmedBookArticle>`;
    writeFileSync(join(inDir, "b.xml"), readFileSync(writeSet(dir, "b-src.xml", [{ pmid: "23", title: "Third trial." }]), "utf8").replace("</PubmedArticleSet>", `${book}</PubmedArticleSet>`));

    const store = runCli(["corpus", "ingest", inDir, "--store", join(dir, "store"), "--no-progress"]);
    expect(store.status).toBe(1);
    expect(store.stderr).toContain(`error: ${join(inDir, "a.xml")}: 1 byte sequence(s) invalid in the file's encoding utf-8 (decoded as U+FFFD; first at byte offset ${at})`);
    expect(store.stdout).toContain("book records skipped (PubmedBookArticle, no MedlineCitation): 1 — PMIDs 888");
    expect(store.stdout).toMatch(/not finalised — 1 file\(s\) failed/);

    const jsonl = runCli(["corpus", "ingest", inDir, "--out", join(dir, "c.jsonl")]);
    expect(jsonl.status).toBe(1);
    expect(jsonl.stderr).toContain(`first at byte offset ${at}`);
  }, 300_000);
});
