/**
 * The one text analyzer of medsynth's lexical retrieval: Unicode word tokenisation, lowercasing,
 * Lucene's English stop words and Porter2 (Snowball English) stemming.
 *
 * Every place that tokenises text for BM25 (both engines, at index and at query time) calls
 * {@link analyze} or an analyzer built by {@link createAnalyzer}, so index and query terms always
 * agree. It mirrors the pipeline behind the bm25s anchors of issue 3 (token pattern
 * `(?u)\b\w\w+\b`, `stopwords="en"`, PyStemmer `english`).
 *
 * Stemming dominates indexing cost (STACK.md: memoising cut prep of 5,000 docs from 1,277 ms to
 * 174 ms), so each analyzer keeps a Map token → stem.
 *
 * @see https://snowballstem.org/algorithms/english/stemmer.html (Porter2)
 * @see Lucene `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (= bm25s `STOPWORDS_EN`)
 */
import { createRequire } from "node:module";
import { z } from "zod";

const require = createRequire(import.meta.url);
const winkUtils = require("wink-nlp-utils") as { string: { stem(word: string): string } };

/** Porter2 stemmer of `wink-nlp-utils` (`string.stem`), unmemoised. */
const porter2: (word: string) => string = winkUtils.string.stem;

/**
 * Lucene's default English stop set (33 words), the `"en"` list of bm25s. Kept deliberately small:
 * medical negations other than "no"/"not" and words like "versus" carry meaning.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = Object.freeze([
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
  "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
  "will", "with",
]);

/** Config of an analyzer. */
export const AnalyzerConfigSchema = z
  .object({
    /** Drop {@link ENGLISH_STOP_WORDS} (matched on the lowercased token, before stemming). */
    stopWords: z.boolean().default(true),
    /** Apply Porter2 stemming. */
    stem: z.boolean().default(true),
    /** Minimum token length in characters (bm25s/scikit-learn pattern `\w\w+` = 2). */
    minTokenLength: z.number().int().min(1).default(2),
  })
  .strict();
/** Analyzer settings (see {@link AnalyzerConfigSchema}). */
export type AnalyzerConfig = z.infer<typeof AnalyzerConfigSchema>;

/** Id of the default analyzer (recorded in index caches so a changed analyzer forces a rebuild). */
export const ANALYZER_ID = "en-lucene-stop-porter2-v1";

/** A text → terms function plus its identity. */
export interface Analyzer {
  /** Stable id including the settings, e.g. `en-lucene-stop-porter2-v1`. */
  readonly id: string;
  readonly config: AnalyzerConfig;
  /** Terms of `text` in order of occurrence (duplicates kept). Non-string / empty → []. */
  analyze(text: string): string[];
  /** Number of distinct tokens currently memoised by the stemmer cache. */
  readonly cacheSize: number;
}

// Unicode word characters as Python's `\w`: letters, marks, digits, connector punctuation (_).
const TOKEN_RE = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;

/**
 * Builds an analyzer with its own memoised stemmer.
 * @param config partial {@link AnalyzerConfig}; defaults: stop words on, stemming on, min length 2.
 * @returns an {@link Analyzer}; `analyze("The patients were randomized")` → `["patient", "were", "random"]`.
 * @throws ZodError on an unknown key or a bad value.
 */
export function createAnalyzer(config: Partial<AnalyzerConfig> = {}): Analyzer {
  const cfg = AnalyzerConfigSchema.parse(config);
  const stop = new Set(cfg.stopWords ? ENGLISH_STOP_WORDS : []);
  const memo = new Map<string, string>();
  const isDefault = cfg.stopWords && cfg.stem && cfg.minTokenLength === 2;
  const id = isDefault
    ? ANALYZER_ID
    : `en-${cfg.stopWords ? "lucene-stop" : "nostop"}-${cfg.stem ? "porter2" : "nostem"}-min${cfg.minTokenLength}-v1`;
  const stemOf = (token: string): string => {
    let s = memo.get(token);
    if (s === undefined) {
      s = cfg.stem ? porter2(token) : token;
      memo.set(token, s);
    }
    return s;
  };
  return {
    id,
    config: cfg,
    get cacheSize() {
      return memo.size;
    },
    analyze(text: string): string[] {
      if (typeof text !== "string" || text.length === 0) return [];
      const out: string[] = [];
      const re = new RegExp(TOKEN_RE.source, "gu");
      const lower = text.toLowerCase();
      for (let m = re.exec(lower); m !== null; m = re.exec(lower)) {
        const tok = m[0];
        if (tok.length < cfg.minTokenLength || stop.has(tok)) continue;
        out.push(stemOf(tok));
      }
      return out;
    },
  };
}

/** The shared default analyzer (one memo for the whole process). */
export const defaultAnalyzer: Analyzer = createAnalyzer();

/**
 * Analyzes `text` with {@link defaultAnalyzer}.
 * @returns terms in order, e.g. `analyze("Aspirin reduces strokes in older adults")` →
 *   `["aspirin", "reduc", "stroke", "older", "adult"]`.
 */
export function analyze(text: string): string[] {
  return defaultAnalyzer.analyze(text);
}
