/** The `jsonl` dataset loader on `corpus ingest` output: PubmedRecord lines → ConclusionTasks, .jsonl.gz read through gunzip. */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { loadJsonlTasks } from "../../corpus/datasets/jsonl.ts";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { datasetDirSync } from "../../corpus/datasets/files.ts";
import type { ConclusionTask, PubmedRecord } from "../../corpus/types.ts";

const BIO = datasetDirSync("pubmed-xml/biopython");

async function ingestedLines(): Promise<string[]> {
  const recs: PubmedRecord[] = [];
  // pubmed1 (PMIDs 12091962, 9997) and pubmed2 (11748933, 11700088): no abstract or one unlabelled
  // paragraph, so no conclusion;
  // pubmed4 (27797938) and pubmed5 (28775130) are structured with a CONCLUSIONS segment.
  await ingestPubmed(
    ["pubmed1.xml", "pubmed2.xml", "pubmed4.xml", "pubmed5.xml"].map((f) => join(BIO, f)),
    { onRecord: (r) => void recs.push(r) },
  );
  return recs.map((r) => JSON.stringify(r));
}

describe("jsonl loader on PubmedRecord lines", () => {
  it("turns records with a conclusion into conclusion tasks and counts the rest by reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-jsonl-pm-"));
    const path = join(dir, "corpus.jsonl");
    const lines = await ingestedLines();
    writeFileSync(path, lines.join("\n") + "\n");
    for (const kind of [undefined, "conclusion"] as const) {
      const d = await loadJsonlTasks({ path, ...(kind ? { kind } : {}) });
      expect(d.taskKind).toBe("conclusion");
      expect(d.items.map((t) => t.id)).toEqual(["jsonl:27797938", "jsonl:28775130"]);
      expect(d.skipped).toEqual({ count: 4, reasons: { "no conclusion": 4 } });
      expect(d.warnings[0]).toBe(`${path}:1: PMID 12091962: no conclusion segment in the abstract; skipped`);
      const t = d.items[0] as ConclusionTask & { kind: string };
      expect(t.kind).toBe("conclusion");
      expect(t.pmid).toBe("27797938");
      expect(t.sections.map((s) => s.label)).toEqual(["OBJECTIVE", "DESIGN", "RESULTS"]);
      expect(t.referenceConclusion).toBe("Prediagnostic leucocyte telomere length and genetic variants at the TERT gene region were associated with risk of pancreatic cancer.");
    }
    const wrongKind = await loadJsonlTasks({ path, kind: "synthesis" });
    expect(wrongKind.items).toEqual([]);
    expect(wrongKind.skipped).toEqual({ count: 6, reasons: { "kind mismatch": 6 } });
  });

  it("reads a .jsonl.gz through gunzip (same items as the plain file)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-jsonl-gz-"));
    const plain = join(dir, "tasks.jsonl");
    const gz = join(dir, "tasks.jsonl.gz");
    const lines = await ingestedLines();
    writeFileSync(plain, lines.join("\n") + "\n");
    writeFileSync(gz, gzipSync(readFileSync(plain)));
    const a = await loadJsonlTasks({ path: plain });
    const b = await loadJsonlTasks({ path: gz });
    expect(b.items).toHaveLength(2);
    expect(b.items).toEqual(a.items);
    expect(b.skipped).toEqual(a.skipped);
  });

  it("names a truncated .gz", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-jsonl-gzcut-"));
    const gz = join(dir, "cut.jsonl.gz");
    const lines = await ingestedLines();
    const full = gzipSync(Buffer.from(lines.join("\n") + "\n"));
    writeFileSync(gz, full.subarray(0, Math.floor(full.length / 2)));
    await expect(loadJsonlTasks({ path: gz })).rejects.toThrow(/cut\.jsonl\.gz: read failed after line \d+ at compressed byte [\d,]+ \(the \.gz is truncated\): unexpected end of file/);
  });
});
