/**
 * `medsynth corpus ingest` and `search` on PubMed edge cases (issue 12 items 1, 2, 4), real CLI:
 * book records named by PMID in the summary, invalid bytes reported with exit 1, retracted papers
 * and notices dropped by `--clean` (counted) unless `--keep-retracted`, and `search` marking them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ingestPubmed } from "../../corpus/ingest.ts";
import { writeJsonl } from "../../corpus/jsonl.ts";
import type { PubmedRecord } from "../../corpus/types.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID } from "../../retrieval/registry.ts";
import { runSearch } from "../../experiments/cli/retrieval-commands.ts";
import { runCli } from "./run-cli.ts";

const EDGE = fileURLToPath(new URL("../fixtures/pubmed-edge/", import.meta.url));
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "medsynth-edge-cli-"));
  process.env.MEDSYNTH_CACHE_DIR = join(dir, "cache");
});

describe("corpus ingest on edge cases", () => {
  it("names book records by PMID, reports invalid bytes per file and exits 1", () => {
    const bad = join(dir, "bad.xml");
    const before = Buffer.from("<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>90000051</PMID><Article><ArticleTitle>x", "utf8");
    writeFileSync(bad, Buffer.concat([before, Buffer.from([0xff]), Buffer.from("</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>", "utf8")]));
    const r = runCli(["corpus", "ingest", join(EDGE, "books.xml"), bad, "--out", join(dir, "o.jsonl"), "--no-progress"], { env: { MEDSYNTH_CACHE_DIR: join(dir, "cache") } });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^book records \(skipped\) +2$/m);
    expect(r.stdout).toContain("book records skipped (PubmedBookArticle, no MedlineCitation): 2 — PMIDs 90000021, 90000023\n");
    expect(r.stderr).toContain(`error: ${bad}: 1 byte sequence(s) invalid in the file's encoding UTF-8 (decoded as U+FFFD; first at byte offset ${before.length})`);
    expect(r.stdout).toContain("wrote 2 records");
  });

  it("--clean drops retracted papers and notices, counted; --keep-retracted keeps them", () => {
    const env = { env: { MEDSYNTH_CACHE_DIR: join(dir, "cache") } };
    const clean = runCli(["corpus", "ingest", join(EDGE, "retractions.xml"), "--out", join(dir, "c.jsonl"), "--no-progress", "--clean", "--json"], env);
    expect(clean.status).toBe(0);
    const j = JSON.parse(clean.stdout);
    expect(j.counts.retracted).toBe(2);
    expect(j.counts.retractionNotices).toBe(2);
    // 90000002 (retracted) is the only record that would pass §3.1.1; the others lack an abstract.
    expect(j.clean.dropped.retracted).toBe(2);
    expect(j.clean.dropped["retraction-notice"]).toBe(2);
    expect(j.clean.kept).toBe(0);
    const keep = JSON.parse(runCli(["corpus", "ingest", join(EDGE, "retractions.xml"), "--out", join(dir, "k.jsonl"), "--no-progress", "--clean", "--keep-retracted", "--json"], env).stdout);
    expect(keep.clean.dropped.retracted).toBe(0);
    expect(keep.clean.dropped["retraction-notice"]).toBe(0);
    expect(keep.clean.kept).toBe(1);
  });
});

describe("search marks retracted papers and notices", () => {
  it("prints [RETRACTED] / [RETRACTION NOTICE] before the title and `retraction` in JSON", async () => {
    const recs: PubmedRecord[] = [];
    await ingestPubmed([join(EDGE, "retractions.xml")], { onRecord: (r) => void recs.push(r) });
    const all = join(dir, "all.jsonl");
    await writeJsonl(all, recs);
    const base = { mode: "bm25", embedder: DEFAULT_RETRIEVER_EMBEDDER_ID, bm25Engine: "fast", fusion: "rrf", candidates: "100", index: "none", rerankCandidates: "50", corpus: all, k: "7" };
    const lines: string[] = [];
    const hits = await runSearch(
      "effect retraction",
      base,
      (l) => lines.push(l),
      () => {},
    );
    const tagged = new Map(hits.map((h) => [h.id, h.doc?.retraction]));
    expect(tagged.get("90000002")).toBe("retracted");
    expect(tagged.get("90000001")).toBe("notice");
    expect(tagged.get("90000006")).toBeUndefined();
    expect(lines.find((l) => /^\d+\s+90000002\b/.test(l))).toMatch(/\[RETRACTED\] Effect of A on B\.$/);
    expect(lines.find((l) => /^\d+\s+90000001\b/.test(l))).toMatch(/\[RETRACTION NOTICE\] Retraction Note: Effect of A on B\.$/);
    const json: string[] = [];
    await runSearch(
      "effect retraction",
      { ...base, json: true },
      (l) => json.push(l),
      () => {},
    );
    const byPmid = new Map(JSON.parse(json[0]).map((h: { pmid: string; retraction?: string }) => [h.pmid, h.retraction]));
    expect(byPmid.get("90000002")).toBe("retracted");
    expect(byPmid.get("90000001")).toBe("notice");
  });
});
