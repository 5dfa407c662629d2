/**
 * Sentence BLEU reproducing NLTK 3.8:
 * `sentence_bleu([TreebankWordTokenizer().tokenize(ref.lower())],
 *                TreebankWordTokenizer().tokenize(cand.lower()),
 *                weights=(0.25,)*4, smoothing_function=SmoothingFunction().method1)`.
 *
 * - Tokeniser: a port of NLTK's `TreebankWordTokenizer.tokenize` (Penn Treebank sed script by
 *   R. MacIntyre) on the whole lowercased text, without punkt sentence splitting (punkt is not
 *   available offline; the parity fixtures were made the same way: `tokenizer: "treebank"`).
 *   Python regex semantics are kept: Unicode `\d` and `\w`-based word boundaries, `$` also
 *   matching before a final newline, and `str.split()`'s whitespace set.
 * - Modified n-gram precision with clipping; method1 smoothing replaces a zero numerator by
 *   epsilon = 0.1; brevity penalty exp(1 − r/c) with r the reference length closest to the
 *   hypothesis length (ties → shorter); BLEU = 0 when no unigram matches.
 *
 * @see Papineni K. et al. (2002) BLEU: a method for automatic evaluation of machine translation.
 * @see Chen B., Cherry C. (2014) A systematic comparison of smoothing techniques for sentence-level BLEU (method 1).
 * @see nltk/translate/bleu_score.py, nltk/tokenize/treebank.py, nltk/tokenize/destructive.py (NLTK 3.8).
 *   Checked against all 620 rows of tests/fixtures/parity/rouge-bleu-expected.jsonl.
 */
import { z } from "zod";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const BLEU_METRIC_ID = "bleu";

/** Config of the BLEU metric. */
export const BleuConfigSchema = z
  .object({
    /** Maximum n-gram order; weights are uniform 1/maxN. */
    maxN: z.number().int().min(1).max(8).default(4),
    /** Epsilon added to zero-count numerators (NLTK SmoothingFunction().method1). */
    epsilon: z.number().positive().default(0.1),
    /** Lowercase texts before tokenising. */
    lowercase: z.boolean().default(true),
  })
  .strict();
/** Parsed BLEU config. */
export type BleuConfig = z.infer<typeof BleuConfigSchema>;

// Python's str.split() whitespace set and `\s` (Unicode).
const PY_WS = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD = "[\\p{L}\\p{N}\\p{Mn}\\p{Mc}_]";
const B_START = `(?<!${WORD})(?=${WORD})`; // Python \b before a word char
const B_END = `(?<=${WORD})(?!${WORD})`; // Python \b after a word char

const STARTING_QUOTES: Array<[RegExp, string]> = [
  [/^"/u, "``"],
  [/(``)/gu, " $1 "],
  [/([ ([{<])("|'{2})/gu, "$1 `` "],
];

const PUNCTUATION: Array<[RegExp, string]> = [
  [/([:,])([^\p{Nd}])/gu, " $1 $2"],
  [/([:,])(?=\n?$)/gu, " $1 "],
  [/\.\.\./gu, " ... "],
  [/[;@#$%&]/gu, " $& "],
  [new RegExp(`([^.])(\\.)([\\])}>"']*)[${PY_WS}]*(?=\\n?$)`, "gu"), "$1 $2$3 "],
  [/[?!]/gu, " $& "],
  [/([^'])' /gu, "$1 ' "],
];

const PARENS_BRACKETS: [RegExp, string] = [/[\][(){}<>]/gu, " $& "];
const DOUBLE_DASHES: [RegExp, string] = [/--/gu, " -- "];

const ENDING_QUOTES: Array<[RegExp, string]> = [
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, "$1 $2 "],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, "$1 $2 "],
];

// MacIntyre contractions (CONTRACTIONS2, CONTRACTIONS3), case-insensitive, Python \b semantics.
const CONTRACTIONS: RegExp[] = [
  `${B_START}(can)(not)${B_END}`,
  `${B_START}(d)('ye)${B_END}`,
  `${B_START}(gim)(me)${B_END}`,
  `${B_START}(gon)(na)${B_END}`,
  `${B_START}(got)(ta)${B_END}`,
  `${B_START}(lem)(me)${B_END}`,
  `${B_START}(more)('n)${B_END}`,
  `${B_START}(wan)(na)(?=[${PY_WS}])`,
  ` ('t)(is)${B_END}`,
  ` ('t)(was)${B_END}`,
].map((p) => new RegExp(p, "giu"));

const SPLIT_WS = new RegExp(`[${PY_WS}]+`, "u");

/**
 * Tokenise like NLTK 3.8 `TreebankWordTokenizer().tokenize(text)` (no parenthesis conversion).
 * @returns the tokens (the caller lowercases first when BLEU is case-insensitive).
 */
export function treebankTokenize(text: string): string[] {
  for (const [re, sub] of STARTING_QUOTES) text = text.replace(re, sub);
  for (const [re, sub] of PUNCTUATION) text = text.replace(re, sub);
  text = text.replace(PARENS_BRACKETS[0], PARENS_BRACKETS[1]);
  text = text.replace(DOUBLE_DASHES[0], DOUBLE_DASHES[1]);
  text = " " + text + " ";
  for (const [re, sub] of ENDING_QUOTES) text = text.replace(re, sub);
  for (const re of CONTRACTIONS) text = text.replace(re, " $1 $2 ");
  return text.split(SPLIT_WS).filter((t) => t.length > 0);
}

/** Per-order modified precision counts. */
export interface BleuPrecision {
  n: number;
  numerator: number;
  denominator: number;
}

/** Sentence BLEU with the counts that produced it. */
export interface BleuResult {
  bleu: number;
  hypLen: number;
  refLen: number;
  brevityPenalty: number;
  precisions: BleuPrecision[];
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join("\u0001");
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
}

/**
 * Sentence BLEU of token lists, as NLTK `sentence_bleu(references, hypothesis,
 * smoothing_function=SmoothingFunction(epsilon).method1)` with uniform weights 1/maxN.
 * @param references one or more tokenised references.
 * @param hypothesis the tokenised candidate.
 */
export function sentenceBleuTokens(references: ReadonlyArray<readonly string[]>, hypothesis: readonly string[], maxN = 4, epsilon = 0.1): BleuResult {
  if (references.length === 0) throw new RangeError("sentenceBleuTokens: at least one reference is required");
  const precisions: BleuPrecision[] = [];
  for (let n = 1; n <= maxN; n++) {
    const counts = hypothesis.length >= n ? ngramCounts(hypothesis, n) : new Map<string, number>();
    const maxRef = new Map<string, number>();
    for (const ref of references) {
      for (const [k, c] of ngramCounts(ref, n)) if ((maxRef.get(k) ?? 0) < c) maxRef.set(k, c);
    }
    let numerator = 0;
    let total = 0;
    for (const [k, c] of counts) {
      numerator += Math.min(c, maxRef.get(k) ?? 0);
      total += c;
    }
    precisions.push({ n, numerator, denominator: Math.max(1, total) });
  }
  const hypLen = hypothesis.length;
  let refLen = references[0].length;
  for (const r of references) {
    const d = Math.abs(r.length - hypLen);
    const best = Math.abs(refLen - hypLen);
    if (d < best || (d === best && r.length < refLen)) refLen = r.length;
  }
  const bp = hypLen > refLen ? 1 : hypLen === 0 ? 0 : Math.exp(1 - refLen / hypLen);
  if (precisions[0].numerator === 0) return { bleu: 0, hypLen, refLen, brevityPenalty: bp, precisions };
  let s = 0;
  const w = 1 / maxN;
  for (const p of precisions) {
    const pi = p.numerator === 0 ? (p.numerator + epsilon) / p.denominator : p.numerator / p.denominator;
    s += w * Math.log(pi);
  }
  return { bleu: bp * Math.exp(s), hypLen, refLen, brevityPenalty: bp, precisions };
}

/**
 * Sentence BLEU of two texts with treebank tokens of the lowercased texts (NLTK settings above).
 * @returns BLEU in [0, 1] with its n-gram counts and brevity penalty.
 */
export function sentenceBleu(reference: string, candidate: string, config: Partial<BleuConfig> = {}): BleuResult {
  const c = BleuConfigSchema.parse(config);
  const prep = (t: string): string[] => treebankTokenize(c.lowercase ? t.toLowerCase() : t);
  return sentenceBleuTokens([prep(reference)], prep(candidate), c.maxN, c.epsilon);
}

/**
 * Registry factory: a metric reporting `bleu`.
 * @throws ZodError on a bad config.
 */
export function createBleuMetric(config: Partial<BleuConfig> = {}): Metric {
  const c = BleuConfigSchema.parse(config);
  return {
    id: BLEU_METRIC_ID,
    outputs: ["bleu"],
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      return pairs.map((p) => ({ bleu: { value: sentenceBleu(p.reference, p.candidate, c).bleu } }));
    },
  };
}
