import { describe, expect, it } from "vitest";
import { AnalyzerConfigSchema } from "../../retrieval/analyzer-config.ts";
import { analyze, ANALYZER_ID, createAnalyzer, defaultAnalyzer, ENGLISH_STOP_WORDS, parseAnalyzerConfig } from "../../retrieval/analyzer.ts";

describe("analyzer", () => {
  it("lowercases, drops Lucene stop words and 1-char tokens, stems with Porter2", () => {
    expect(analyze("The patients were randomized to Aspirin or placebo; a 2.5 mg dose")).toEqual(["patient", "were", "random", "aspirin", "placebo", "mg", "dose"]);
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

  it("parseAnalyzerConfig (zod-free) accepts and rejects what AnalyzerConfigSchema does, with the same values", () => {
    const inputs: unknown[] = [
      {},
      { stopWords: false },
      { stem: false, minTokenLength: 1 },
      { minTokenLength: 3 },
      { minTokenLength: 0 },
      { minTokenLength: 1.5 },
      { minTokenLength: 2 ** 53 },
      { minTokenLength: Number.NaN },
      { minTokenLength: "2" },
      { stopWords: 1 },
      { stem: "yes" },
      { stemmer: "porter" },
      null,
      [],
      "en",
    ];
    let accepted = 0;
    for (const input of inputs) {
      const z = AnalyzerConfigSchema.safeParse(input);
      let mine: unknown = null;
      let ok = true;
      try {
        mine = parseAnalyzerConfig(input);
      } catch {
        ok = false;
      }
      expect({ input, ok }).toEqual({ input, ok: z.success });
      if (z.success) {
        accepted++;
        expect(mine).toEqual(z.data);
      }
    }
    expect(accepted).toBe(4);
    expect(parseAnalyzerConfig()).toEqual({ stopWords: true, stem: true, minTokenLength: 2 });
    expect(() => parseAnalyzerConfig({ minTokenLength: 0 })).toThrow(/minTokenLength must be an integer ≥ 1, got 0/);
  });
});
