import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestPubmed } from "../../../corpus/ingest.ts";
import type { PubmedRecord } from "../../../corpus/types.ts";
import {
  intOption,
  deletedPmids,
  describeModel,
  expectedVocabulary,
  fitHeaps,
  generateSyntheticPubmed,
  inventedWord,
  loadModel,
  storedModel,
  SYNTHETIC_PMID_BASE,
  syntheticFileName,
  wordTokens,
  type SyntheticModel,
} from "../../../experiments/bench/synthetic-pubmed.ts";

describe("Heaps fit and the Zipf–Mandelbrot vocabulary (hand-checkable cases)", () => {
  it("fitHeaps recovers V = N^0.5 from a stream that adds a word whenever ⌊√n⌋ grows", () => {
    const toks: string[] = [];
    for (let n = 1; n <= 200_000; n++) toks.push(`w${Math.floor(Math.sqrt(n))}`);
    const h = fitHeaps([toks]);
    expect(h.beta).toBeCloseTo(0.5, 2);
    expect(h.K).toBeCloseTo(1, 1);
    expect(h.vocabulary).toBe(Math.floor(Math.sqrt(200_000)));
  });

  it("expectedVocabulary matches the brute-force sum Σ 1 − (1 − p_r)^m for α = 2, q = 0 (p_r = 1/r − 1/(r+1))", () => {
    for (const m of [10, 1000, 100_000]) {
      let brute = 0;
      for (let r = 1; r < 2e6; r++) brute += 1 - (1 - (1 / r - 1 / (r + 1))) ** m;
      brute += m / 2e6; // tail: Σ_{r ≥ R} p_r = 1/R, each ≈ m·p_r
      expect(expectedVocabulary(m, 2, 0) / brute).toBeCloseTo(1, 3);
    }
  });

  it("invented words are distinct for distinct ranks", () => {
    const words = new Set<string>();
    for (let r = 1; r <= 300_000; r++) words.add(inventedWord(r));
    expect(words.size).toBe(300_000);
  });

  it("DeleteCitation PMIDs: ⌈share·count⌉ distinct PMIDs of the file's own range", () => {
    const d = deletedPmids(2, 1000, 2500, 0.01);
    expect(d).toHaveLength(5);
    expect(new Set(d).size).toBe(5);
    for (const p of d) expect(p >= SYNTHETIC_PMID_BASE + 2000 && p < SYNTHETIC_PMID_BASE + 2500).toBe(true);
  });
});

describe("synthetic PubMed generator (real-data fit, 3 files of 1,000 entries)", () => {
  let model: SyntheticModel;
  let dir: string;
  const records: PubmedRecord[] = [];
  let report: Awaited<ReturnType<typeof ingestPubmed>>;

  beforeAll(async () => {
    model = await loadModel({ seed: 1 });
    dir = mkdtempSync(join(tmpdir(), "medsynth-synth-"));
    await generateSyntheticPubmed(model, { outDir: join(dir, "a"), entries: 3000, perFile: 1000, seed: 1, jobs: 1, deleteShare: 0.002 });
    report = await ingestPubmed([join(dir, "a")], { onRecord: (r) => void records.push(r) });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is fitted on the real abstracts and says it is synthetic", () => {
    expect(model.stats.abstracts).toBeGreaterThan(3000);
    expect(model.stats.heaps.beta).toBeGreaterThan(0.4);
    expect(model.stats.heaps.beta).toBeLessThan(0.8);
    expect(model.stats.headWords.slice(0, 3)).toContain("the");
    const head = gunzipSync(readFileSync(join(dir, "a", syntheticFileName(0)))).toString("utf8", 0, 600);
    expect(head).toContain("SYNTHETIC");
    expect(head).toContain("<PubmedArticleSet>");
  });

  it("parses with the project's ingest: every entry, no warning, DeleteCitation entries applied as deleted records", () => {
    expect(report.counts.files).toBe(3);
    expect(report.counts.records).toBe(3000);
    expect(report.counts.warnings).toBe(0);
    expect(report.counts.deletedCitations).toBe(6); // ⌈0.002 · 1000⌉ = 2 per file
    const deleted = records.filter((r) => r.flags.deleted).map((r) => Number(r.pmid));
    expect(deleted).toEqual([0, 1, 2].flatMap((f) => deletedPmids(f, 1000, 3000, 0.002)));
  });

  it("has unique PMIDs, DOIs and titles", () => {
    const live = records.filter((r) => !r.flags.deleted);
    expect(new Set(live.map((r) => r.pmid)).size).toBe(3000);
    expect(new Set(live.map((r) => r.doi)).size).toBe(3000);
    expect(new Set(live.map((r) => r.title)).size).toBe(3000);
    expect(live[0].pmid).toBe(String(SYNTHETIC_PMID_BASE));
    expect(live[0].doi).toBe(`10.5555/synth.${SYNTHETIC_PMID_BASE}`);
  });

  it("follows the real shares (no abstract, structured, languages) within sampling error", () => {
    const live = records.filter((r) => !r.flags.deleted);
    const s = model.stats;
    const noAbs = live.filter((r) => r.abstract.length === 0).length / live.length;
    expect(Math.abs(noAbs - s.noAbstractShare)).toBeLessThan(4 * Math.sqrt((s.noAbstractShare * (1 - s.noAbstractShare)) / live.length));
    const withAbs = live.filter((r) => r.abstract.length > 0);
    const structured = withAbs.filter((r) => r.abstract.length >= 2 && r.abstract.every((x) => x.label)).length / withAbs.length;
    expect(Math.abs(structured - s.structuredShare)).toBeLessThan(4 * Math.sqrt((s.structuredShare * (1 - s.structuredShare)) / withAbs.length));
    const english = live.filter((r) => r.languages[0] === "eng").length / live.length;
    const realEnglish = s.languages.filter((l) => l === "eng").length / s.languages.length;
    expect(Math.abs(english - realEnglish)).toBeLessThan(0.02);
    expect(live.some((r) => r.meshHeadings.length > 0)).toBe(true);
    expect(live.every((r) => r.pubDate !== null)).toBe(true);
  });

  it("grows its vocabulary as the real abstracts' Heaps law says (V within 8 %, β within 0.05)", () => {
    const live = records.filter((r) => !r.flags.deleted);
    const h = fitHeaps(live.map((r) => wordTokens(`${r.title} ${r.abstract.map((x) => x.text).join(" ")}`)));
    const { K, beta } = model.stats.heaps;
    expect(Math.abs(h.beta - beta)).toBeLessThan(0.05);
    expect(h.vocabulary / (K * h.tokens ** beta)).toBeGreaterThan(0.92);
    expect(h.vocabulary / (K * h.tokens ** beta)).toBeLessThan(1.08);
  });

  it("keeps the real frequencies of frequent words (the 20 most frequent real words within 10 %)", () => {
    const counts = new Map<string, number>();
    let n = 0;
    for (const r of records) {
      if (r.flags.deleted) continue;
      for (const t of wordTokens(`${r.title} ${r.abstract.map((x) => x.text).join(" ")}`)) {
        counts.set(t, (counts.get(t) ?? 0) + 1);
        n++;
      }
    }
    const s = model.stats;
    for (let i = 0; i < 20; i++) {
      const real = s.headCounts[i] / s.heaps.tokens;
      const synthetic = (counts.get(s.headWords[i]) ?? 0) / n;
      expect(Math.abs(synthetic / real - 1), s.headWords[i]).toBeLessThan(0.1);
    }
  });

  it("is deterministic: a file depends on (seed, file index) only; another seed gives other text", async () => {
    await generateSyntheticPubmed(model, { outDir: join(dir, "b"), entries: 1000, perFile: 1000, seed: 1, jobs: 1, deleteShare: 0.002 });
    await generateSyntheticPubmed(model, { outDir: join(dir, "c"), entries: 1000, perFile: 1000, seed: 2, jobs: 1, deleteShare: 0.002 });
    const read = (d: string) => gunzipSync(readFileSync(join(dir, d, syntheticFileName(0)))).toString("utf8");
    expect(read("b")).toBe(read("a"));
    expect(read("c")).not.toBe(read("a"));
  });

  it("runs without the data mirror from the stored fit", async () => {
    const m = storedModel();
    expect(m.stats.headWords).toHaveLength(0);
    // Says where its constants came from (it printed "R² NaN; 0 distinct words").
    const heaps = describeModel(m).find((l) => l.includes("Heaps' law"))!;
    expect(heaps).toBe("  Heaps' law (stored constants, no real data read here; fitted once on 3,997 real abstracts, 1,037,646 tokens, 28,314 distinct words, R² 0.995): V = 7.44·N^0.607");
    expect(describeModel(m).join("\n")).not.toMatch(/NaN/);
    const r = await generateSyntheticPubmed(m, { outDir: join(dir, "d"), entries: 50, perFile: 50, seed: 1, jobs: 1 });
    expect(r.entries).toBe(50);
    const rep = await ingestPubmed([join(dir, "d")]);
    expect(rep.counts.records).toBe(50);
    expect(rep.counts.warnings).toBe(0);
  });
});

describe("the generator's whole-number options", () => {
  it("take decimal digits only and name the option and the text given", () => {
    expect([intOption("entries", "30000", 1), intOption("seed", "-7", Number.MIN_SAFE_INTEGER), intOption("gzip-level", "9", 0, 9)]).toEqual([30000, -7, 9]);
    // Number() would read these as 16, 1000, 2 and NaN ("got NaN" was the old message).
    for (const text of ["0x10", "1e3", "2.0", "abc", ""]) expect(() => intOption("entries", text, 1)).toThrow(`--entries must be an integer ≥ 1 (got ${JSON.stringify(text)})`);
    expect(() => intOption("entries", "0", 1)).toThrow('--entries must be an integer ≥ 1 (got "0")');
    expect(() => intOption("gzip-level", "10", 0, 9)).toThrow('--gzip-level must be an integer from 0 to 9 (got "10")');
  });
});
