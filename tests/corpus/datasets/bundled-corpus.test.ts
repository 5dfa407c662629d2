import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundledCorpus } from "../../../corpus/bundled-corpus.ts";

describe("bundled corpus (real data)", () => {
  it("merges PubMedQA, MedEvidence and Cohen 2006 abstracts, unique by PMID", async () => {
    const { docs, stats } = await loadBundledCorpus();
    expect(stats.total).toBe(3340);
    expect(docs).toHaveLength(3340);
    expect(new Set(docs.map((d) => d.id)).size).toBe(3340);
    expect(stats.bySource).toEqual({ pubmedqa: 1000, medevidence: 329, cohen2006: 2011 });
    expect(stats.duplicatesDropped).toBe(3);
    expect(stats.fromCache).toBe(false);
    expect(docs.every((d) => d.source && d.text.length > 0)).toBe(true);
    expect(docs.find((d) => d.id === "17466514")?.source).toBe("medevidence");
  });

  it("caches by content hash and reads the cache back identically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-corpus-"));
    const a = await loadBundledCorpus({ sources: ["medevidence"], cache: true, cacheDir: dir });
    expect(readdirSync(dir)).toEqual([`bundled-corpus-${a.stats.contentHash.slice(0, 16)}.json`]);
    const b = await loadBundledCorpus({ sources: ["medevidence"], cache: true, cacheDir: dir });
    expect(b.stats.fromCache).toBe(true);
    expect(b.docs).toEqual(a.docs);
    const c = await loadBundledCorpus({ sources: ["medevidence"], includePubmedqaConclusion: false, cache: true, cacheDir: dir });
    expect(c.stats.contentHash).not.toBe(a.stats.contentHash);
  });
});
