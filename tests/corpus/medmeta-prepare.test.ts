/**
 * `datasets prepare medmeta` end to end on MedMeta rows 1–2 against a fake E-utilities server:
 * golden abstracts found, the missing PMID reported, noise drawn from the golden years with a
 * seed (reproducible), files the corpus reader, the loader and the noise-corpus builder accept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEutilsClient } from "../../corpus/eutils.ts";
import { dayNumber } from "../../corpus/eutils-windows.ts";
import { prepareMedMeta, type MedMetaPrepareReport } from "../../corpus/medmeta-prepare.ts";
import { loadMedMeta } from "../../corpus/datasets/medmeta.ts";
import { readCorpusFile } from "../../corpus/corpus-file.ts";
import { buildNoiseCorpus } from "../../retrieval/noise-corpus.ts";
import { startFakeEutils, type FakeEutilsServer, type FakePubmedEntry } from "../helpers/fake-eutils-server.ts";
import { medmetaFakePubmed, MISSING_GOLDEN_PMID, ROW1_PMIDS, ROW2_PMIDS } from "../helpers/fake-pubmed-medmeta.ts";

const ids = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { pmid: string }).pmid);

describe("prepare medmeta (fake E-utilities, rows 1–2)", () => {
  let entries: FakePubmedEntry[];
  let fake: FakeEutilsServer;
  let first: MedMetaPrepareReport;
  const client = () => createEutilsClient({ baseUrl: fake.url, requestsPerSecond: 10 });
  const prepare = (seed: string, outDir = mkdtempSync(join(tmpdir(), "medmeta-prep-"))) =>
    // cap 100: the fake serves 100 ids per result set, so the ~300-record noise pool needs date windows.
    prepareMedMeta(client(), { rows: [1, 2], noiseCount: 40, seed, outDir, cap: 100 });

  beforeAll(async () => {
    entries = medmetaFakePubmed();
    fake = await startFakeEutils(entries, { cap: 100 });
    first = await prepare("s1");
  }, 120_000);
  afterAll(() => fake.close());

  it("finds the golden abstracts and reports the PMID PubMed does not have, with its row", () => {
    expect(first.rows).toEqual([1, 2]);
    expect(first.golden.requested).toBe(12);
    expect(first.golden.found).toBe(11);
    expect(first.golden.missing).toEqual([{ pmid: MISSING_GOLDEN_PMID, rows: [1] }]);
    expect(first.golden.perRow).toEqual([
      { row: 1, cited: 7, found: 6 },
      { row: 2, cited: 5, found: 5 },
    ]);
    expect(first.warnings.join("\n")).toContain(`${MISSING_GOLDEN_PMID} (row 1)`);
    expect(ids(first.files.golden)).toEqual([...ROW1_PMIDS, ...ROW2_PMIDS].filter((p) => p !== MISSING_GOLDEN_PMID));
  });

  it("samples the noise from the golden studies' years (2012–2020), with abstracts, never a golden PMID", () => {
    expect([first.noise.minYear, first.noise.maxYear]).toEqual([2012, 2020]);
    const lo = dayNumber("2012/01/01");
    const hi = dayNumber("2020/12/31");
    const inYears = entries.filter((e) => e.abstract.length > 0 && dayNumber(e.date) >= lo && dayNumber(e.date) <= hi);
    expect(first.noise.poolSize).toBe(inYears.length);
    expect(first.noise.sampled).toBe(40);
    const noise = ids(first.files.noise);
    expect(new Set(noise).size).toBe(40);
    const eligible = new Set(inYears.map((e) => e.pmid));
    const golden = new Set([...ROW1_PMIDS, ...ROW2_PMIDS]);
    for (const p of noise) {
      expect(eligible.has(p)).toBe(true);
      expect(golden.has(p)).toBe(false);
    }
    // The pool (> 100) was reached through date windows; no request asked past the cap.
    expect(first.noise.poolSize).toBeGreaterThan(100);
    expect(first.noise.windows.windows).toBeGreaterThan(1);
    expect(fake.requests.filter((q) => Number(q.params.retstart ?? 0) >= 100)).toEqual([]);
  });

  it("is reproducible with the same seed and differs with another", async () => {
    const again = await prepare("s1");
    expect(ids(again.files.noise)).toEqual(ids(first.files.noise));
    expect(readFileSync(again.files.corpus, "utf8")).toBe(readFileSync(first.files.corpus, "utf8"));
    const other = await prepare("s2");
    expect(new Set(ids(other.files.noise))).not.toEqual(new Set(ids(first.files.noise)));
  }, 60_000);

  it("writes a corpus the corpus reader, the MedMeta loader and the noise-corpus builder accept", async () => {
    const corpus = await readCorpusFile(first.files.corpus);
    expect(corpus.docs).toHaveLength(51);
    expect(corpus.malformed).toBe(0);
    const ds = await loadMedMeta({ abstracts: first.files.golden });
    const row1 = ds.items.find((t) => t.id === "medmeta:1")!;
    expect(row1.goldenDocs.map((d) => d.id)).toEqual(ROW1_PMIDS.filter((p) => p !== MISSING_GOLDEN_PMID));
    expect(row1.meta?.goldenAbstracts).toBe(6);
    expect(ds.items.find((t) => t.id === "medmeta:3")!.goldenDocs).toEqual([]);
    expect(ds.warnings.join("\n")).toMatch(/no prepared golden abstract for row\(s\) 3, 4, .*20/);
    expect(ds.warnings.join("\n")).toContain(`row 1: ${MISSING_GOLDEN_PMID}`);
    const pool = await readCorpusFile(first.files.noise);
    const built = buildNoiseCorpus(
      ds.items.flatMap((t) => t.goldenDocs),
      pool.docs,
      { noiseCount: 25, seed: "x" },
    );
    expect(built.goldenCount).toBe(11);
    expect(built.docs).toHaveLength(36);
  });

  it("without prepared abstracts (abstracts: false) MedMeta items carry none", async () => {
    const ds = await loadMedMeta({ abstracts: false });
    expect(ds.items.every((t) => t.goldenDocs.length === 0)).toBe(true);
  });
});
