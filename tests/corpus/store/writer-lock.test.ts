/**
 * One writer at a time on a store, and the temporary files a killed writer leaves: an ingest
 * removes them (a fresh user's `kill -9` during finalisation left a 366 MB `.tmp…` in
 * `records.lance/data` that no re-run removed), waits while another live process writes, and the
 * lock file is invisible to readers.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { ingestToStore } from "../../../corpus/ingest/run-ingest.ts";
import { openLanceRecordStore } from "../../../corpus/store/lance-store.ts";
import { ragExport } from "../../../corpus/store/rag-table.ts";
import { removeOrphanTempFiles, STORE_WRITER_LOCK } from "../../../corpus/store/writer-lock.ts";
import { writeSet } from "../ingest/fixtures.ts";

function inputs(): { dir: string; inDir: string; uri: string } {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-writer-"));
  const inDir = join(dir, "in");
  mkdirSync(inDir);
  writeSet(inDir, "pubmed25n0001.xml", [
    { pmid: "101", title: "Alpha trial of aspirin." },
    { pmid: "102", title: "Beta cohort of statins." },
  ]);
  return { dir, inDir, uri: join(dir, "store") };
}

describe("store writer lock and orphaned temporary files", () => {
  it("a re-run ingest removes the .tmp files a killed write left in the tables, and nothing else", async () => {
    const { inDir, uri } = inputs();
    await ingestToStore([inDir], { store: { uri }, jobs: 1 });
    const data = join(uri, "records.lance", "data");
    const kept = readdirSync(data).sort();
    writeFileSync(join(data, ".tmpOHcBWQ"), Buffer.alloc(3 * 2 ** 20));
    writeFileSync(join(uri, "manifest.lance", ".tmpA1"), "x");
    writeFileSync(join(uri, "notes.tmp"), "not in a table: kept");
    const lines: string[] = [];
    await ingestToStore([inDir], { store: { uri }, jobs: 1, log: (l) => lines.push(l) });
    expect(lines).toContain("removed 2 temporary file(s) (3.0 MiB) left in the store by an interrupted write");
    expect(readdirSync(data).sort()).toEqual(kept);
    expect(existsSync(join(uri, "notes.tmp"))).toBe(true);
    expect(existsSync(join(uri, STORE_WRITER_LOCK))).toBe(false); // released
    expect(await (await openLanceRecordStore({ uri })).count()).toBe(2);
    expect(removeOrphanTempFiles("s3://bucket/store")).toEqual({ files: 0, bytes: 0 });
  });

  it("an ingest waits while another live process holds the writer lock, saying which; rag-export takes the lock too", async () => {
    const { inDir, uri } = inputs();
    await ingestToStore([inDir], { store: { uri }, jobs: 1 });
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(uri, STORE_WRITER_LOCK), String(holder.pid));
      const lines: string[] = [];
      let done = false;
      const ingest = ingestToStore([inDir], { store: { uri }, jobs: 1, log: (l) => lines.push(l) }).then(() => (done = true));
      const rag = ragExport({ uri }, { log: (l) => lines.push(l) });
      await new Promise((r) => setTimeout(r, 1500));
      expect(done).toBe(false);
      expect(lines.filter((l) => l === `corpus store ${uri}: waiting for process ${holder.pid}, which is writing to it`)).toHaveLength(2);
      holder.kill("SIGKILL"); // a dead holder's lock is taken over
      await ingest;
      expect((await rag).docs).toBe(2);
      expect(lines.filter((l) => l === `corpus store ${uri}: process ${holder.pid} stopped without finishing its write; this one goes on`)).toHaveLength(1);
    } finally {
      holder.kill("SIGKILL");
    }
  }, 60_000);
});
