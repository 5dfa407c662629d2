import { describe, expect, it } from "vitest";
import { analyze, ANALYZER_ID, createAnalyzer, defaultAnalyzer, ENGLISH_STOP_WORDS } from "../../retrieval/analyzer.ts";

describe("analyzer", () => {
  it("lowercases, drops Lucene stop words and 1-char tokens, stems with Porter2", () => {
    expect(analyze("The patients were randomized to Aspirin or placebo; a 2.5 mg dose")).toEqual([
      "patient", "were", "random", "aspirin", "placebo", "mg", "dose",
    ]);
  });

  it("splits on non-word characters like Python's \\w (keeps digits and underscores)", () => {
    expect(analyze("COVID-19 vs. SARS_CoV_2 (n=117)")).toEqual(["covid", "19", "vs", "sars_cov_2", "117"]);
  });

  it("uses Porter2 (Snowball English), not Porter1: 'generously' → 'generous', 'studies' → 'studi'", () => {
    expect(analyze("generously studies hospitalization reduces")).toEqual(["generous", "studi", "hospit", "reduc"]);
  });

  it("empty, blank and non-string input give []", () => {
    expect(analyze("")).toEqual([]);
    expect(analyze("   ")).toEqual([]);
    expect(analyze("the of and")).toEqual([]);
    expect(defaultAnalyzer.analyze(undefined as unknown as string)).toEqual([]);
  });

  it("has the 33 Lucene English stop words and a stable id", () => {
    expect(ENGLISH_STOP_WORDS).toHaveLength(33);
    expect(ENGLISH_STOP_WORDS).toContain("not");
    expect(defaultAnalyzer.id).toBe(ANALYZER_ID);
  });

  it("settings change output and id", () => {
    const a = createAnalyzer({ stopWords: false, stem: false, minTokenLength: 1 });
    expect(a.analyze("The studies of a drug")).toEqual(["the", "studies", "of", "a", "drug"]);
    expect(a.id).not.toBe(ANALYZER_ID);
    expect(() => createAnalyzer({ stemmer: "porter" } as never)).toThrow();
  });

  it("memoises stems: the cache grows by distinct tokens only", () => {
    const a = createAnalyzer();
    a.analyze("trial trials trial trial");
    expect(a.cacheSize).toBe(2);
  });
});
