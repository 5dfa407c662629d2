/**
 * The scanner + raw-token memo analyzer (`createAnalyzer`, issue 11) gives exactly the terms of the
 * regex reference it replaced (`createReferenceAnalyzer`): on the bundled corpus, the MedEvidence
 * questions (also pinned by a hash of the terms the pre-issue-11 implementation gave), every
 * Unicode code point, and seeded random strings of letters, marks, digits, underscores, surrogate
 * pairs, lone surrogates and case-mapping edge cases (`İ`, `Σ`/`ς`, Kelvin sign).
 */
import { createHash } from "node:crypto";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { loadBundledCorpus } from "../../corpus/bundled-corpus.ts";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { SynthesisTask } from "../../corpus/types.ts";
import { createAnalyzer, createReferenceAnalyzer, type AnalyzerConfig } from "../../retrieval/analyzer.ts";

/** Settings exercised everywhere: the default, everything kept (min length 1), and a longer minimum. */
const CONFIGS: Partial<AnalyzerConfig>[] = [{}, { stopWords: false, stem: false, minTokenLength: 1 }, { stem: false, minTokenLength: 3 }];

/** Texts that differ between the two analyzers, with both outputs (empty when all agree). */
function differences(texts: readonly unknown[], config: Partial<AnalyzerConfig>): { text: unknown; reference: string[]; fast: string[] }[] {
  const ref = createReferenceAnalyzer(config);
  const fast = createAnalyzer(config);
  const out: { text: unknown; reference: string[]; fast: string[] }[] = [];
  for (const t of texts) {
    const a = ref.analyze(t as string);
    const b = fast.analyze(t as string);
    if (a.length !== b.length || a.some((x, i) => x !== b[i])) out.push({ text: t, reference: a, fast: b });
  }
  return out;
}

/** Characters random strings are drawn from: ASCII, Latin-1, Greek, Turkish, marks, format and modifier chars, astral. */
const POOL: string[] = [
  ..."aZ09_ -.,;'’·:\n\t/()=+%",
  ..."éÉßÄäøÅÆœ",
  "İ",
  "ı",
  "I",
  "i",
  "\u0307", // Turkish dotted/dotless i and the combining dot above
  "Σ",
  "σ",
  "ς",
  "Α",
  "α",
  "Ω",
  "ΐ", // Greek, sigma forms
  "\u0301",
  "\u0345",
  "\u0300",
  "\u20dd", // combining acute, ypogegrammeni (cased + case-ignorable), grave, enclosing circle (Me)
  "\u200d",
  "\u00ad",
  "\u02b0",
  "\u02c6",
  "\u00b4", // ZWJ (Cf), soft hyphen (Cf), modifier letter h (Lm), circumflex (Lm), acute accent (Sk)
  "\u212a",
  "\u212b",
  "ﬁ",
  "Ⅻ",
  "ⅻ",
  "①",
  "٣",
  "²",
  "‿",
  "⁀", // Kelvin, Ångström, ligature, roman numerals (Nl), circled one (No), Arabic-Indic 3, superscript 2, connector punctuation
  "中",
  "ǅ",
  "ᾈ", // CJK, titlecase digraph, Greek with prosgegrammeni
  "𝐀",
  "𐐀",
  "𐐨",
  "😀",
  "𞤀", // math bold A (astral Lu), Deseret capital/small, emoji (astral non-word), Adlam capital
  "\ud800",
  "\udc00", // lone high / low surrogate
];

describe("analyzer parity: createAnalyzer ≡ createReferenceAnalyzer", () => {
  it("every bundled-corpus title and text and every MedEvidence question, for each setting", async () => {
    const { docs } = await loadBundledCorpus();
    const questions = ((await loadDataset("medevidence")).items as SynthesisTask[]).map((t) => t.question);
    const texts = [...docs.flatMap((d) => [d.title, d.text]), ...questions];
    expect(docs.length).toBeGreaterThan(3000);
    for (const config of CONFIGS) expect(differences(texts, config)).toEqual([]);
  });

  it("MedEvidence questions give the terms the pre-issue-11 implementation gave (frozen hash)", async () => {
    // sha256 over JSON.stringify(terms) + "\n" per question, computed with the regex implementation
    // of retrieval/analyzer.ts at commit 7ca1aa4 (before issue 11): 284 questions, 4,220 terms.
    const questions = ((await loadDataset("medevidence")).items as SynthesisTask[]).map((t) => t.question);
    for (const make of [createAnalyzer, createReferenceAnalyzer]) {
      const a = make();
      const h = createHash("sha256");
      let terms = 0;
      for (const q of questions) {
        const t = a.analyze(q);
        terms += t.length;
        h.update(JSON.stringify(t) + "\n");
      }
      expect([questions.length, terms, h.digest("hex")]).toEqual([284, 4220, "c11835a55931268539dbba0daaa4d1aa3e76d820f99976c94e7adaa4a7339ddb"]);
    }
  });

  it("every Unicode code point, alone and inside a word", () => {
    // All code points except capital sigma (its context rule sends the whole text to the reference
    // path; tested below), separated by spaces, and again glued between ASCII letters.
    const cps: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0x3a3) continue;
      cps.push(String.fromCodePoint(cp));
    }
    const spaced: string[] = [];
    const glued: string[] = [];
    for (let i = 0; i < cps.length; i += 4096) {
      spaced.push(cps.slice(i, i + 4096).join(" "));
      glued.push(
        cps
          .slice(i, i + 4096)
          .map((c) => `Ab${c}Cd`)
          .join(" "),
      );
    }
    // Unstemmed: stemming applies the same function to the same lowercased token on both sides,
    // and stemming a million distinct tokens would only make the test slow.
    // The everything-kept setting is the most sensitive one (the İ length rule is covered by the random strings).
    expect(differences([...spaced, ...glued], CONFIGS[1])).toEqual([]);
  });

  it("case-mapping edge cases: İ (two code units when lowercased), final sigma decided by context outside the token", () => {
    const a = createAnalyzer({ stem: false });
    // "İ" lowercases to "i" + U+0307 (2 code units) and so passes the 2-character minimum;
    // Σ before "'Α" is not final (the apostrophe is case-ignorable, Α is cased) → σ; at the end of a word → ς.
    expect(a.analyze("İ ΟΔΟΣ ΟΔΟΣ'Α")).toEqual(["i\u0307", "οδος", "οδοσ"]);
    expect(createReferenceAnalyzer({ stem: false }).analyze("İ ΟΔΟΣ ΟΔΟΣ'Α")).toEqual(["i\u0307", "οδος", "οδοσ"]);
    expect(a.analyze("KELVIN \u212Aelvin")).toEqual(["kelvin", "kelvin"]);
    // A lone surrogate ends a token; a surrogate pair letter is one character of 2 code units.
    expect(a.analyze("ab\ud800cd 𐐀 😀x")).toEqual(["ab", "cd", "𐐨"]);
  });

  it("20,000 seeded random strings over letters, marks, digits, underscores, surrogates, İ and Σ, for each setting", () => {
    const rng = seedrandom("medsynth-analyzer-parity");
    const texts: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const len = Math.floor(rng() * 24);
      let s = "";
      for (let j = 0; j < len; j++) s += POOL[Math.floor(rng() * POOL.length)];
      texts.push(s);
    }
    const withSigma = texts.filter((t) => t.includes("Σ")).length;
    expect(withSigma).toBeGreaterThan(1000); // both paths of the fast analyzer are exercised
    for (const config of CONFIGS) expect(differences(texts, config)).toEqual([]);
  });

  it("empty and non-string input give [] on both", () => {
    const inputs = ["", "   ", "!!", undefined, null, 42, { length: 3 }, ["a b"]];
    for (const config of CONFIGS) {
      expect(differences(inputs, config)).toEqual([]);
      for (const x of inputs) expect(createAnalyzer(config).analyze(x as string)).toEqual([]);
    }
  });

  it("a tiny memo that starts over gives the same terms (the bound never changes output)", () => {
    const texts = ["Trials of TRIALS and trial", "Σίσυφος trials", "αβγ δεζ trial Trial TRIAL", "x y z ab cd ef"];
    const small = createAnalyzer({}, { memoMax: 2 });
    const ref = createReferenceAnalyzer();
    for (let r = 0; r < 3; r++) for (const t of texts) expect(small.analyze(t)).toEqual(ref.analyze(t));
    expect(small.cacheSize).toBeLessThanOrEqual(2);
    expect(() => createAnalyzer({}, { memoMax: 1 })).toThrow(RangeError);
  });
});

describe("termIds().analyzeInto", () => {
  /** A vocabulary get-or-add and a fresh term-id analyzer on it. */
  const vocabulary = (make = createAnalyzer, memoMax?: number) => {
    const vocab = new Map<string, number>();
    const calls: string[] = [];
    const a = memoMax ? createAnalyzer({}, { memoMax }) : make();
    const ti = a.termIds((term) => {
      calls.push(term);
      let id = vocab.get(term);
      if (id === undefined) vocab.set(term, (id = vocab.size));
      return id;
    });
    return { vocab, calls, a, ti };
  };

  it("writes the ids of exactly analyze()'s terms, asking termIdOf once per distinct raw token", () => {
    const { vocab, calls, ti } = vocabulary();
    const out = new Int32Array(64).fill(-7);
    const text = "The trial trials TRIAL; the Trial of aspirin";
    const n = ti.analyzeInto(text, out);
    // terms: trial (trial), trial (trials), trial (TRIAL), trial (Trial), aspirin; "the", "of" are stop words
    expect(n).toBe(5);
    expect([...out.subarray(0, n)]).toEqual([0, 0, 0, 0, 1]);
    expect(out[n]).toBe(-7); // nothing written past the count
    expect(calls).toEqual(["trial", "trial", "trial", "trial", "aspirin"]); // trial, trials, TRIAL, Trial, aspirin
    expect(ti.analyzeInto(text, out)).toBe(5);
    expect(calls).toHaveLength(5); // all memoised now
    expect([...vocab.keys()]).toEqual(["trial", "aspirin"]);
  });

  it("matches analyze + vocabulary on the bundled corpus (both implementations, and with a tiny memo)", async () => {
    const { docs } = await loadBundledCorpus();
    const texts = docs.slice(0, 800).flatMap((d) => [d.title, d.text, "ΣΥΝΟΨΗ: ΟΔΟΣ'Α " + d.title]);
    const buf = new Int32Array(Math.max(...texts.map((t) => t.length)));
    const ref = createReferenceAnalyzer();
    for (const [v, n] of [
      [vocabulary(), texts.length],
      [vocabulary(createReferenceAnalyzer), texts.length],
      [vocabulary(createAnalyzer, 3), 300],
    ] as const) {
      let bad = 0;
      for (const t of texts.slice(0, n)) {
        const n = v.ti.analyzeInto(t, buf);
        const want = ref.analyze(t).map((term) => v.vocab.get(term));
        if (n !== want.length || want.some((id, i) => buf[i] !== id)) bad++;
      }
      expect(bad).toBe(0);
      expect(v.vocab.size).toBeGreaterThan(1000);
      expect(v.ti.cacheSize).toBeLessThanOrEqual(n === 300 ? 3 : Infinity);
    }
  });

  it("rejects a short buffer and a termIdOf that is not a non-negative Int32; non-strings give 0", () => {
    const { ti } = vocabulary();
    expect(() => ti.analyzeInto("aspirin trial", new Int32Array(5))).toThrow(RangeError);
    expect(ti.analyzeInto(undefined as unknown as string, new Int32Array(0))).toBe(0);
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) {
      const t = createAnalyzer().termIds(() => bad);
      expect(() => t.analyzeInto("aspirin", new Int32Array(10))).toThrow(/termIdOf\("aspirin"\) returned/);
    }
  });

  it("termIdOf may call back into the same analyzer and term-id analyzer", () => {
    const a = createAnalyzer();
    const vocab = new Map<string, number>();
    const inner = new Int32Array(100);
    let depth = 0;
    const ti = a.termIds((term) => {
      a.analyze("nested call with other words");
      if (term === "aspirin" && depth++ === 0) expect(ti.analyzeInto("aspirin placebo", inner)).toBe(2);
      let id = vocab.get(term);
      if (id === undefined) vocab.set(term, (id = vocab.size));
      return id;
    });
    const out = new Int32Array(100);
    const n = ti.analyzeInto("aspirin versus placebo in older adults", out);
    expect([...out.subarray(0, n)].map((id) => [...vocab.keys()][id])).toEqual(["aspirin", "versus", "placebo", "older", "adult"]);
  });
});
