/**
 * Seeded SYNTHETIC documents for BM25 engine tests and benches (made-up words, not PubMed): word
 * ranks drawn from a Zipf–Mandelbrot law over an unbounded rank space, P(rank ≥ x) =
 * ((x+q)/(1+q))^−(α−1), with α = 1.65, q = 74.74 — the values h-synth's realistic synthetic-PubMed
 * generator (`experiments/bench/synthetic-pubmed.ts`, issue 26 item 1) fitted so that the expected
 * vocabulary follows Heaps' law V = 7.44·N^0.607 measured on the bundled real abstracts; so the
 * vocabulary keeps growing with the corpus as real PubMed's does. Ranks 1–33 are Lucene's English
 * stop words (removed by the analyzer, as the most frequent real words are); other ranks are
 * invented words, a bijective syllable spelling of the rank. Titles have 6–18 words, abstracts
 * 80–300.
 */
import { ENGLISH_STOP_WORDS } from "../../retrieval/analyzer.ts";
import { spellRank, type SyllableAlphabet, zipfMandelbrotRank } from "../../experiments/bench/synthetic-pubmed.ts";

/** Deterministic PRNG (mulberry32) in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** This helper's own syllables (not the generator's: its words, and so the tests' figures, stay as they were). */
const SYLLABLES: SyllableAlphabet = {
  onsets: ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "dr", "gl", "pr", "st", "th", "tr"],
  vowels: ["a", "e", "i", "o", "u", "ae", "io", "ou"],
  codas: ["", "n", "r", "s", "l", "x", "m", "ct"],
  suffixes: ["in", "ase", "ol", "ide", "ine", "oma", "yl", "ium", "ate", "one", "ic", "al"],
};

/** Zipf–Mandelbrot word sampler (see the module doc). */
export class ZipfWords {
  private readonly e: number;
  private readonly memo = new Map<number, string>();

  constructor(
    alpha = 1.65,
    private readonly q = 74.74,
  ) {
    this.e = -1 / (alpha - 1);
  }

  /** A rank (≥ 1) drawn from u in [0, 1). */
  rank(u: number): number {
    return zipfMandelbrotRank(1 - u, this.e, this.q, 2 ** 40);
  }

  /** The word of rank r: a stop word for r ≤ 33, else an invented word (distinct per rank). */
  word(r: number): string {
    if (r <= ENGLISH_STOP_WORDS.length) return ENGLISH_STOP_WORDS[r - 1];
    const hit = this.memo.get(r);
    if (hit) return hit;
    const w = spellRank(r, SYLLABLES);
    if (r < 200_000) this.memo.set(r, w);
    return w;
  }

  /** `n` words drawn with Zipfian probability, space-separated. */
  text(rnd: () => number, n: number): string {
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.word(this.rank(rnd()));
    return out.join(" ");
  }
}

/**
 * `count` synthetic documents `{id, title, text}` (ids `Z<start + i>`), deterministic for a seed.
 */
export function* zipfDocs(words: ZipfWords, count: number, seed: number, start = 0): Generator<{ id: string; title: string; text: string }> {
  const rnd = mulberry32(seed);
  for (let i = 0; i < count; i++) {
    const title = words.text(rnd, 6 + Math.floor(rnd() * 13));
    const text = words.text(rnd, 80 + Math.floor(rnd() * 221));
    yield { id: `Z${start + i}`, title, text };
  }
}

/**
 * A random query of 1–7 words: 70% Zipfian draws (common words, stop words dropped by the
 * analyzer), 30% uniform over ranks 34–(34 + `rareRanks`) (rare words; some absent from a small corpus).
 */
export function zipfQuery(words: ZipfWords, rnd: () => number, rareRanks = 50_000): string {
  const n = 1 + Math.floor(rnd() * 7);
  const q: string[] = [];
  for (let i = 0; i < n; i++) q.push(words.word(rnd() < 0.3 ? 34 + Math.floor(rnd() * rareRanks) : words.rank(rnd())));
  return q.join(" ");
}
