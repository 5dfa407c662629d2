/**
 * Seeded synthetic documents with Zipfian term frequencies, for BM25 engine tests and benches
 * (a stand-in until the realistic synthetic PubMed generator is available): a vocabulary of
 * pronounceable made-up words (rank r drawn with probability ∝ 1/(r + 2.7)^1.07, Zipf–Mandelbrot
 * as in English text), titles of 6–18 words and abstracts of 80–300 words. SYNTHETIC, not PubMed.
 */

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

const ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "dr", "gl", "pr", "st", "th", "tr"];
const VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "ou"];
const CODAS = ["", "", "n", "r", "s", "l", "x", "m", "ct", "nd"];

/** A Zipfian word sampler over `vocab` made-up words (word i = the i-th most frequent). */
export class ZipfWords {
  readonly words: string[];
  private readonly cdf: Float64Array;

  constructor(vocab: number, seed = 1) {
    const rnd = mulberry32(seed);
    const seen = new Set<string>();
    this.words = [];
    while (this.words.length < vocab) {
      const syl = 2 + Math.floor(rnd() * 3);
      let w = "";
      for (let s = 0; s < syl; s++) w += ONSETS[Math.floor(rnd() * ONSETS.length)] + VOWELS[Math.floor(rnd() * VOWELS.length)];
      w += CODAS[Math.floor(rnd() * CODAS.length)];
      if (!seen.has(w)) {
        seen.add(w);
        this.words.push(w);
      }
    }
    this.cdf = new Float64Array(vocab);
    let s = 0;
    for (let r = 0; r < vocab; r++) this.cdf[r] = s += 1 / Math.pow(r + 2.7, 1.07);
    for (let r = 0; r < vocab; r++) this.cdf[r] /= s;
  }

  /** Rank of a word drawn with Zipfian probability. */
  rank(u: number): number {
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** `n` words drawn with Zipfian probability, space-separated. */
  text(rnd: () => number, n: number): string {
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.words[this.rank(rnd())];
    return out.join(" ");
  }
}

/**
 * `count` synthetic documents `{id, title, text}` (ids `Z<start + i>`), deterministic for a seed.
 * @param words the sampler (its vocabulary size bounds the corpus vocabulary).
 */
export function* zipfDocs(words: ZipfWords, count: number, seed: number, start = 0): Generator<{ id: string; title: string; text: string }> {
  const rnd = mulberry32(seed);
  for (let i = 0; i < count; i++) {
    const title = words.text(rnd, 6 + Math.floor(rnd() * 13));
    const text = words.text(rnd, 80 + Math.floor(rnd() * 221));
    yield { id: `Z${start + i}`, title, text };
  }
}

/** A random query of 1–7 words: mostly Zipfian draws, some uniform over the vocabulary (rare terms). */
export function zipfQuery(words: ZipfWords, rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 7);
  const q: string[] = [];
  for (let i = 0; i < n; i++) q.push(rnd() < 0.3 ? words.words[Math.floor(rnd() * words.words.length)] : words.words[words.rank(rnd())]);
  return q.join(" ");
}
