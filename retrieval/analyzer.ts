/**
 * The one text analyzer of medsynth's lexical retrieval: Unicode word tokenisation, lowercasing,
 * Lucene's English stop words and Porter2 (Snowball English) stemming.
 *
 * Every place that tokenises text for BM25 (both engines, at index and at query time) calls
 * {@link analyze} or an analyzer built by {@link createAnalyzer}, so index and query terms always
 * agree. It mirrors the pipeline behind the bm25s anchors of issue 3 (token pattern
 * `(?u)\b\w\w+\b`, `stopwords="en"`, PyStemmer `english`).
 *
 * Definition (the reference, {@link createReferenceAnalyzer}): lowercase the whole text
 * (`String.prototype.toLowerCase`, Unicode root locale), take the maximal runs of Python `\w`
 * characters (`[\p{L}\p{M}\p{N}\p{Pc}]+`), drop runs shorter than `minTokenLength` UTF-16 code
 * units and stop words, stem the rest.
 *
 * Implementation ({@link createAnalyzer}, issue 11: the index build at 1 M docs was
 * analyzer-dominated): a hand-written scanner over char codes (a table for ASCII, a lazily filled
 * per-code-point table for other characters, surrogate pairs joined) finds the runs in the
 * ORIGINAL text while hashing them, and a memo keyed by the raw (not lowercased) run gives its
 * final term, or "dropped" for stop words and short runs, without allocating a substring on a hit.
 * Only a miss slices, lowercases, checks and stems. This gives the reference's output exactly
 * because (checked over every code point of the running Unicode version by the parity tests):
 * lowercasing maps each code point to code points of the same `\w` class, so runs are the same
 * before and after lowercasing; and the lowercase of a run is the run's own lowercase except for
 * the one context-dependent mapping of the root locale, Greek final sigma (`Σ` → `ς` or `σ`
 * depending on letters around it, possibly outside the run): a text containing `Σ` in a run is
 * analysed by the reference path. Where `İ` (U+0130) lowercases to two code units, the length
 * check uses the lowercased run, as the reference does.
 *
 * @see https://snowballstem.org/algorithms/english/stemmer.html (Porter2)
 * @see Lucene `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (= bm25s `STOPWORDS_EN`)
 * @see https://www.unicode.org/versions/latest/ch03.pdf §3.13 (Final_Sigma, the only
 *   context-dependent lowercase mapping outside language-specific tailorings)
 */
import { createRequire } from "node:module";
import type { z } from "zod";
import type { AnalyzerConfigSchema } from "./analyzer-config.ts";

const require = createRequire(import.meta.url);
/**
 * Porter2 stemmer of `wink-porter2-stemmer`, unmemoised — the very function `wink-nlp-utils`
 * exports as `string.stem` (same package, required directly: loading all of `wink-nlp-utils`
 * costs ~61 MiB RSS per process, this module ~0.6 MiB).
 */
const porter2 = require("wink-porter2-stemmer") as (word: string) => string;

/**
 * Lucene's default English stop set (33 words), the `"en"` list of bm25s. Kept deliberately small:
 * medical negations other than "no"/"not" and words like "versus" carry meaning.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = Object.freeze([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "for",
  "if",
  "in",
  "into",
  "is",
  "it",
  "no",
  "not",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "will",
  "with",
]);

/**
 * Settings of an analyzer: `z.infer` of `AnalyzerConfigSchema` (`analyzer-config.ts`; a
 * type-only import, so a query process loading the analyzer does not load zod), checked at run
 * time by {@link parseAnalyzerConfig}.
 */
export type AnalyzerConfig = z.infer<typeof AnalyzerConfigSchema>;

/**
 * Checks partial analyzer settings and fills the defaults (stop words on, stemming on, minimum
 * length 2): the same values and accepted inputs as `AnalyzerConfigSchema.parse`.
 * @param config partial settings (undefined → defaults).
 * @returns a fresh {@link AnalyzerConfig}.
 * @throws Error naming the key: an unknown key, a non-boolean `stopWords`/`stem`, a
 *   `minTokenLength` that is not a safe integer ≥ 1.
 */
export function parseAnalyzerConfig(config: unknown = {}): AnalyzerConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw new Error(`analyzer config: expected an object, got ${JSON.stringify(config)}`);
  const c = config as Record<string, unknown>;
  for (const key of Object.keys(c)) {
    if (key !== "stopWords" && key !== "stem" && key !== "minTokenLength") throw new Error(`analyzer config: unknown key ${JSON.stringify(key)} (allowed: stopWords, stem, minTokenLength)`);
  }
  const flag = (key: "stopWords" | "stem"): boolean => {
    const v = c[key] === undefined ? true : c[key];
    if (typeof v !== "boolean") throw new Error(`analyzer config: ${key} must be a boolean, got ${JSON.stringify(c[key])}`);
    return v;
  };
  const min = c.minTokenLength === undefined ? 2 : c.minTokenLength;
  if (typeof min !== "number" || !Number.isSafeInteger(min) || min < 1) throw new Error(`analyzer config: minTokenLength must be an integer ≥ 1, got ${JSON.stringify(c.minTokenLength)}`);
  return { stopWords: flag("stopWords"), stem: flag("stem"), minTokenLength: min };
}

/** Id of the default analyzer (recorded in index caches so a changed analyzer forces a rebuild). */
export const ANALYZER_ID = "en-lucene-stop-porter2-v1";

/**
 * Term ids of texts under one analyzer and one vocabulary, written into a caller's buffer (the
 * index-build form of {@link Analyzer.analyze}; see {@link Analyzer.termIds}).
 */
export interface TermIdAnalyzer {
  /**
   * Writes the term ids of `text`'s terms, in order of occurrence (duplicates kept), into `out`
   * from index 0: the ids `termIdOf` gives for exactly the terms `analyze(text)` returns.
   * @param text any string; non-string or empty → 0 terms.
   * @param out buffer of at least `text.length` entries (a text never has more terms than code
   *   units); entries past the returned count are left as they were.
   * @returns the number of ids written.
   * @throws RangeError when `out` is shorter than `text.length` (nothing is written).
   */
  analyzeInto(text: string, out: Int32Array): number;
  /** Number of distinct raw tokens memoised with their term id. */
  readonly cacheSize: number;
}

/** A text → terms function plus its identity. */
export interface Analyzer {
  /** Stable id including the settings, e.g. `en-lucene-stop-porter2-v1`. */
  readonly id: string;
  readonly config: AnalyzerConfig;
  /** Terms of `text` in order of occurrence (duplicates kept). Non-string / empty → []. */
  analyze(text: string): string[];
  /**
   * A {@link TermIdAnalyzer} mapping each term to `termIdOf(term)`, memoised per raw token so a
   * repeated token costs neither a term string nor a `termIdOf` call. `termIdOf` must return the
   * same id for the same term every time (it may be called more than once per term: tokens that
   * differ only in case share a term); it is called only for terms that are kept.
   * @param termIdOf term → id (an integer in [0, 2³¹)), e.g. a vocabulary's get-or-add.
   * @throws RangeError from `analyzeInto` when `termIdOf` returns anything else.
   */
  termIds(termIdOf: (term: string) => number): TermIdAnalyzer;
  /** Number of distinct tokens currently memoised (raw tokens for {@link createAnalyzer}: "Trial" and "trial" are two). */
  readonly cacheSize: number;
}

// Unicode word characters as Python's `\w`: letters, marks, digits, connector punctuation (_).
const TOKEN_RE = /[\p{L}\p{M}\p{N}\p{Pc}]+/gu;
const WORD_CHAR_RE = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;

/** Parsed config, analyzer id and stop set shared by both implementations. */
function settings(config: Partial<AnalyzerConfig>): { cfg: AnalyzerConfig; id: string; stop: Set<string> } {
  const cfg = parseAnalyzerConfig(config);
  const isDefault = cfg.stopWords && cfg.stem && cfg.minTokenLength === 2;
  const id = isDefault ? ANALYZER_ID : `en-${cfg.stopWords ? "lucene-stop" : "nostop"}-${cfg.stem ? "porter2" : "nostem"}-min${cfg.minTokenLength}-v1`;
  return { cfg, id, stop: new Set(cfg.stopWords ? ENGLISH_STOP_WORDS : []) };
}

/** The reference pipeline over `text` (lowercase all, regex runs, filter, stem through `stemOf`). */
function referenceAnalyze(text: string, cfg: AnalyzerConfig, stop: Set<string>, stemOf: (token: string) => string): string[] {
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
}

/** Throws for a `termIdOf` result that is not a non-negative Int32. */
function checkTermId(id: number, term: string): number {
  if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff) {
    throw new RangeError(`termIds: termIdOf(${JSON.stringify(term)}) returned ${id}, not an integer in [0, 2^31)`);
  }
  return id;
}

/**
 * The reference implementation of the analyzer definition (the regex pipeline medsynth used up to
 * issue 11), with a memo lowercased token → stem. Same ids and output as {@link createAnalyzer},
 * several times slower; kept for parity tests and `experiments/bench/analyzer.ts`.
 * @param config partial {@link AnalyzerConfig}.
 * @throws Error naming the key on an unknown key or a bad value.
 */
export function createReferenceAnalyzer(config: Partial<AnalyzerConfig> = {}): Analyzer {
  const { cfg, id, stop } = settings(config);
  const memo = new Map<string, string>();
  const stemOf = (token: string): string => {
    let s = memo.get(token);
    if (s === undefined) {
      s = cfg.stem ? porter2(token) : token;
      memo.set(token, s);
    }
    return s;
  };
  const analyzeText = (text: string): string[] => referenceAnalyze(text, cfg, stop, stemOf);
  return {
    id,
    config: cfg,
    get cacheSize() {
      return memo.size;
    },
    analyze: analyzeText,
    termIds(termIdOf) {
      const ids = new Map<string, number>();
      return {
        get cacheSize() {
          return ids.size;
        },
        analyzeInto(text, out) {
          if (typeof text !== "string") return 0;
          if (out.length < text.length) throw new RangeError(`analyzeInto: out has ${out.length} entries, the text ${text.length} code units`);
          const terms = analyzeText(text);
          for (let i = 0; i < terms.length; i++) {
            let t = ids.get(terms[i]);
            if (t === undefined) ids.set(terms[i], (t = checkTermId(termIdOf(terms[i]), terms[i])));
            out[i] = t;
          }
          return terms.length;
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Scanner

/** 1 for the ASCII `\w` characters [0-9A-Za-z_]. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_WORD[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ? 1 : 0;
}
/** `\w` class of BMP code units ≥ 128, filled on first sight: 0 unknown, 1 word, 2 not a word character. */
let bmpClass: Uint8Array | null = null;
/** `\w` class of astral code points seen so far. */
const astralClass = new Map<number, boolean>();
const CAPITAL_SIGMA = 0x3a3;

/**
 * Width in code units of the `\w` character at `i` (first unit `c` ≥ 128): 1 (BMP), 2 (a
 * surrogate pair), or 0 when it is not a word character (lone surrogates are not).
 */
function nonAsciiWordWidth(text: string, i: number, c: number): number {
  if (c >= 0xd800 && c <= 0xdfff) {
    if (c > 0xdbff || i + 1 >= text.length) return 0;
    const lo = text.charCodeAt(i + 1);
    if (lo < 0xdc00 || lo > 0xdfff) return 0;
    const cp = ((c - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
    let w = astralClass.get(cp);
    if (w === undefined) astralClass.set(cp, (w = WORD_CHAR_RE.test(String.fromCodePoint(cp))));
    return w ? 2 : 0;
  }
  const table = (bmpClass ??= new Uint8Array(0x10000));
  let k = table[c];
  if (k === 0) table[c] = k = WORD_CHAR_RE.test(String.fromCharCode(c)) ? 1 : 2;
  return k === 1 ? 1 : 0;
}

/** Token boundaries of one text, reused across calls (single-threaded). */
interface Runs {
  /** start, end (exclusive) and hash of run r at 3r, 3r+1, 3r+2. */
  data: Int32Array;
  count: number;
}

/**
 * Finds the maximal `\w` runs of `text` into `runs` with a non-zero hash of each run's code units
 * (FNV-1a, then a murmur-style finaliser so that the low bits index the memo well).
 * @returns false when a run contains `Σ` (U+03A3): the caller must use the reference path.
 */
function scanRuns(text: string, runs: Runs): boolean {
  const n = text.length;
  let data = runs.data;
  let count = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    let width: number;
    if (c < 128) {
      if (ASCII_WORD[c] === 0) {
        i++;
        continue;
      }
      width = 1;
    } else {
      width = nonAsciiWordWidth(text, i, c);
      if (width === 0) {
        i++;
        continue;
      }
    }
    const start = i;
    let h = 0x811c9dc5 | 0;
    for (;;) {
      h = Math.imul(h ^ c, 0x01000193);
      if (width === 2) h = Math.imul(h ^ text.charCodeAt(i + 1), 0x01000193);
      else if (c === CAPITAL_SIGMA) return false;
      i += width;
      if (i >= n) break;
      c = text.charCodeAt(i);
      if (c < 128) {
        if (ASCII_WORD[c] === 0) break;
        width = 1;
      } else {
        width = nonAsciiWordWidth(text, i, c);
        if (width === 0) break;
      }
    }
    if (3 * count + 3 > data.length) {
      const grown = new Int32Array(data.length * 2);
      grown.set(data);
      runs.data = data = grown;
    }
    data[3 * count] = start;
    data[3 * count + 1] = i;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    data[3 * count + 2] = h === 0 ? 1 : h; // 0 marks a free memo slot
    count++;
  }
  runs.count = count;
  return true;
}

/**
 * Open-addressing hash table raw token (a substring of some text, matched by its code units
 * without being sliced) → value. Keys are stored as code units in one Uint16Array pool, so a
 * lookup compares typed-array loads against the text. Cleared when it reaches `maxSize` entries
 * (it is a cache).
 */
class RawTokenMemo<V> {
  private mask: number;
  /** Per slot: hash (0 = free; hashes are never 0), key offset in the pool, key length. */
  private hashes: Int32Array;
  private offs: Int32Array;
  private lens: Int32Array;
  private vals: (V | undefined)[];
  private pool: Uint16Array;
  private poolUsed = 0;
  size = 0;

  constructor(private readonly maxSize: number) {
    this.mask = 1023;
    this.hashes = new Int32Array(1024);
    this.offs = new Int32Array(1024);
    this.lens = new Int32Array(1024);
    this.vals = new Array<V | undefined>(1024).fill(undefined);
    this.pool = new Uint16Array(8192);
  }

  /** Slot holding text[start, end) (≥ 0), or -(free slot) - 1 when absent. */
  find(text: string, start: number, end: number, hash: number): number {
    const len = end - start;
    const { hashes, mask } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const h = hashes[slot];
      if (h === 0) return -slot - 1;
      if (h === hash && this.lens[slot] === len) {
        const pool = this.pool;
        const off = this.offs[slot] - start;
        let j = start;
        while (j < end && pool[off + j] === text.charCodeAt(j)) j++;
        if (j === end) return slot;
      }
    }
  }

  /** Value in a slot returned by {@link find}. */
  valueAt(slot: number): V {
    return this.vals[slot] as V;
  }

  /** Stores text[start, end) → value in the free slot `-(found) - 1` given by {@link find} for the same key. */
  insert(found: number, hash: number, text: string, start: number, end: number, value: V): void {
    if (this.size >= this.maxSize) {
      this.allocSlots(1024);
      this.pool = new Uint16Array(8192);
      this.poolUsed = 0;
      this.insert(-this.freeSlot(hash) - 1, hash, text, start, end, value);
      return;
    }
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const grown = new Uint16Array(Math.max(2 * this.pool.length, this.poolUsed + len));
      grown.set(this.pool.subarray(0, this.poolUsed));
      this.pool = grown;
    }
    for (let j = 0; j < len; j++) this.pool[this.poolUsed + j] = text.charCodeAt(start + j);
    const slot = -found - 1;
    this.hashes[slot] = hash;
    this.offs[slot] = this.poolUsed;
    this.lens[slot] = len;
    this.vals[slot] = value;
    this.poolUsed += len;
    this.size++;
    if (2 * this.size > this.mask) this.grow();
  }

  private freeSlot(hash: number): number {
    let slot = hash & this.mask;
    while (this.hashes[slot] !== 0) slot = (slot + 1) & this.mask;
    return slot;
  }

  /** Empty slot arrays of `capacity` (a power of 2); the pool is left as it is. */
  private allocSlots(capacity: number): void {
    this.mask = capacity - 1;
    this.hashes = new Int32Array(capacity);
    this.offs = new Int32Array(capacity);
    this.lens = new Int32Array(capacity);
    this.vals = new Array<V | undefined>(capacity).fill(undefined);
    this.size = 0;
  }

  private grow(): void {
    const { hashes, offs, lens, vals } = this;
    this.allocSlots(hashes.length * 2);
    for (let s = 0; s < hashes.length; s++) {
      if (hashes[s] === 0) continue;
      const slot = this.freeSlot(hashes[s]);
      this.hashes[slot] = hashes[s];
      this.offs[slot] = offs[s];
      this.lens[slot] = lens[s];
      this.vals[slot] = vals[s];
      this.size++;
    }
  }
}

/**
 * Largest number of raw tokens an analyzer memoises before it starts over (≈ 4 M; a memo entry
 * costs ~100 bytes, so ≤ ~0.5 GB). PubMed-scale vocabularies stay far below it after lowercasing;
 * the bound only keeps a pathological stream of distinct tokens from growing the memo forever.
 */
export const ANALYZER_MEMO_MAX = 1 << 22;

/**
 * Builds an analyzer with its own memo (raw token → term or "dropped").
 * Output is identical to {@link createReferenceAnalyzer} for every input (see the module doc).
 * @param config partial {@link AnalyzerConfig}; defaults: stop words on, stemming on, min length 2.
 * @param options `memoMax`: raw tokens memoised before the memo starts over (default
 *   {@link ANALYZER_MEMO_MAX}; ≥ 2; the output never depends on it).
 * @returns an {@link Analyzer}; `analyze("The patients were randomized")` → `["patient", "were", "random"]`.
 * @throws Error naming the key on an unknown key or a bad value; RangeError on a `memoMax` below 2.
 */
export function createAnalyzer(config: Partial<AnalyzerConfig> = {}, options: { memoMax?: number } = {}): Analyzer {
  const { cfg, id, stop } = settings(config);
  const memoMax = options.memoMax ?? ANALYZER_MEMO_MAX;
  if (!Number.isInteger(memoMax) || memoMax < 2) throw new RangeError(`createAnalyzer: memoMax must be an integer ≥ 2, got ${memoMax}`);
  const minLen = cfg.minTokenLength;
  const doStem = cfg.stem;
  /** Raw token → final term, or null when the token is dropped (short or a stop word). */
  const memo = new RawTokenMemo<string | null>(memoMax);
  const runs: Runs = { data: new Int32Array(3 * 256), count: 0 };

  /** Term of the lowercased token (null: dropped). */
  const termOfLower = (lower: string): string | null => (lower.length < minLen || stop.has(lower) ? null : doStem ? porter2(lower) : lower);
  /** Term of the run text[start, end) with hash h, through the memo. */
  const termOfRun = (text: string, start: number, end: number, h: number): string | null => {
    const found = memo.find(text, start, end, h);
    if (found >= 0) return memo.valueAt(found);
    const raw = text.slice(start, end);
    const term = termOfLower(raw.toLowerCase());
    memo.insert(found, h, text, start, end, term);
    return term;
  };
  /** Stems for the reference path, taken by texts with a capital sigma in a run (memo lowercased token → stem). */
  const lowerStem = new Map<string, string>();
  const stemOfLower = (token: string): string => {
    let s = lowerStem.get(token);
    if (s === undefined) {
      s = doStem ? porter2(token) : token;
      if (lowerStem.size >= memoMax) lowerStem.clear();
      lowerStem.set(token, s);
    }
    return s;
  };

  const analyzeText = (text: string): string[] => {
    if (typeof text !== "string" || text.length === 0) return [];
    if (!scanRuns(text, runs)) return referenceAnalyze(text, cfg, stop, stemOfLower);
    const out: string[] = [];
    const data = runs.data;
    for (let r = 0, end = 3 * runs.count; r < end; r += 3) {
      const term = termOfRun(text, data[r], data[r + 1], data[r + 2]);
      if (term !== null) out.push(term);
    }
    return out;
  };

  return {
    id,
    config: cfg,
    get cacheSize() {
      return memo.size;
    },
    analyze: analyzeText,
    termIds(termIdOf) {
      /** Raw token → term id, or -1 when the token is dropped. */
      const idMemo = new RawTokenMemo<number>(memoMax);
      const ownRuns: Runs = { data: new Int32Array(3 * 256), count: 0 };
      let busy = false;
      const idOfTerm = (term: string): number => checkTermId(termIdOf(term), term);
      return {
        get cacheSize() {
          return idMemo.size;
        },
        analyzeInto(text: string, out: Int32Array): number {
          if (typeof text !== "string" || text.length === 0) return 0;
          if (out.length < text.length) throw new RangeError(`analyzeInto: out has ${out.length} entries, the text ${text.length} code units`);
          // termIdOf may call back into this analyzer: a nested call gets its own run buffer.
          const textRuns: Runs = busy ? { data: new Int32Array(3 * 256), count: 0 } : ownRuns;
          const outer = !busy;
          busy = true;
          try {
            if (!scanRuns(text, textRuns)) {
              const terms = referenceAnalyze(text, cfg, stop, stemOfLower);
              for (let i = 0; i < terms.length; i++) out[i] = idOfTerm(terms[i]);
              return terms.length;
            }
            const data = textRuns.data;
            let k = 0;
            for (let r = 0, end = 3 * textRuns.count; r < end; r += 3) {
              const start = data[r];
              const runEnd = data[r + 1];
              const h = data[r + 2];
              const found = idMemo.find(text, start, runEnd, h);
              let tid: number;
              if (found >= 0) tid = idMemo.valueAt(found);
              else {
                const term = termOfRun(text, start, runEnd, h);
                tid = term === null ? -1 : idOfTerm(term);
                const free = idMemo.find(text, start, runEnd, h); // again: termIdOf may have re-entered
                if (free < 0) idMemo.insert(free, h, text, start, runEnd, tid);
              }
              if (tid >= 0) out[k++] = tid;
            }
            return k;
          } finally {
            if (outer) busy = false;
          }
        },
      };
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
