/**
 * ROUGE-N, ROUGE-L and ROUGE-Lsum precision / recall / F1, reproducing Google's `rouge-score`
 * (`rouge_scorer.RougeScorer(types, use_stemmer).score(target=reference, prediction=candidate)`,
 * release 0.1.2) to the last bit on the parity fixtures.
 *
 * Tokenisation (rouge_score `tokenize.tokenize`): lowercase (JS `toLowerCase`, same as Python's
 * `str.lower()` for every character that lowercases into [a-z0-9]); every run of characters other
 * than [a-z0-9] becomes a space; split on spaces; with stemming, NLTK's Porter stemmer is applied
 * only to tokens longer than 3 characters.
 * ROUGE-N: clipped n-gram overlap; precision = overlap / max(#candidate n-grams, 1), recall =
 * overlap / max(#reference n-grams, 1). ROUGE-L: LCS length over token sequences. ROUGE-Lsum:
 * the text is split into sentences on "\n" only, and the summary-level union-LCS of Lin (2004)
 * is computed with rouge_score's counting that prevents double-counting of tokens.
 * F1 = 2PR/(P+R), or 0 when P + R = 0.
 *
 * Non-Latin text: rouge-score's tokenizer drops every character outside [a-z0-9], so Thai,
 * Chinese or Greek text has no tokens at all. That stays the default (parity), but the registry
 * metric flags it: a pair where either text has letters or digits yet no token survives gets
 * `null` with the note `empty-after-tokenization` (identical Thai texts used to score a silent 0).
 * The `tokenizer: "unicode"` option instead splits words with `Intl.Segmenter` (Unicode word
 * boundaries, ICU dictionaries for Thai/CJK), lowercases them and stems only [a-z0-9] tokens —
 * documented as not comparable with rouge-score numbers.
 *
 * Speed: tokens are interned to integer ids through a memoised stemmer; n-gram overlap uses
 * typed arrays (unigrams) and sorted numeric codes (bigrams); LCS uses two Int32Array rows.
 *
 * @see Lin C.-Y. (2004) ROUGE: A Package for Automatic Evaluation of Summaries.
 * @see https://github.com/google-research/google-research/tree/master/rouge (rouge_scorer.py,
 *   tokenize.py). Checked against all 620 rows of tests/fixtures/parity/rouge-bleu-expected.jsonl.
 */
import { z } from "zod";
import { createMemoStemmer } from "./porter-nltk.ts";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const ROUGE_METRIC_ID = "rouge";

/** ROUGE variant names accepted: rouge1 … rouge9, rougeL, rougeLsum. */
export const RougeTypeSchema = z.string().regex(/^rouge([1-9]|L|Lsum)$/, "expected rouge1..rouge9, rougeL or rougeLsum");
/** A ROUGE variant name. */
export type RougeType = z.infer<typeof RougeTypeSchema>;

/** Config of the ROUGE metric. */
export const RougeConfigSchema = z
  .object({
    /** Variants to compute. */
    types: z.array(RougeTypeSchema).min(1).default(["rouge1", "rouge2", "rougeL"]),
    /** Porter-stem tokens longer than 3 characters (rouge_score `use_stemmer`). */
    useStemmer: z.boolean().default(true),
    /**
     * `rouge-score` (default): rouge-score's [a-z0-9] tokenizer, bit-for-bit parity. `unicode`:
     * Unicode word segmentation (`Intl.Segmenter`), for non-Latin text; not rouge-score-comparable.
     */
    tokenizer: z.enum(["rouge-score", "unicode"]).default("rouge-score"),
    /** Which of precision / recall / fmeasure the registry metric reports. */
    report: z
      .array(z.enum(["precision", "recall", "fmeasure"]))
      .min(1)
      .default(["fmeasure"]),
  })
  .strict();
/** Parsed ROUGE config. */
export type RougeConfig = z.infer<typeof RougeConfigSchema>;

/** Tokenizer of {@link RougeScorer}: rouge-score's [a-z0-9] runs, or Unicode word segmentation. */
export type RougeTokenizer = "rouge-score" | "unicode";

/** Note on a ROUGE value that is null because a text with letters or digits kept no token. */
export const EMPTY_AFTER_TOKENIZATION = "empty-after-tokenization";

const ASCII_TOKEN = /^[a-z0-9]+$/;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Precision, recall and F1 of one ROUGE variant, each in [0, 1]. */
export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

function fmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

const ZERO: RougeScore = Object.freeze({ precision: 0, recall: 0, fmeasure: 0 });

/**
 * A reusable ROUGE scorer with its own token-id vocabulary and stemmer cache. Not thread-shared;
 * create one per worker. Scores are identical to rouge-score's.
 */
export class RougeScorer {
  readonly types: readonly RougeType[];
  readonly useStemmer: boolean;
  readonly tokenizer: RougeTokenizer;
  private readonly stem: (w: string) => string;
  private segmenter: Intl.Segmenter | null = null;
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  private counts = new Int32Array(1024);
  private rowA = new Int32Array(256);
  private rowB = new Int32Array(256);

  /**
   * @param types ROUGE variants (default rouge1, rouge2, rougeL).
   * @param useStemmer stem tokens longer than 3 chars with NLTK's Porter stemmer (default true).
   * @param tokenizer `rouge-score` (default, parity) or `unicode` (see the module header).
   * @throws ZodError on an unknown variant name.
   */
  constructor(types: readonly string[] = ["rouge1", "rouge2", "rougeL"], useStemmer = true, tokenizer: RougeTokenizer = "rouge-score") {
    this.types = types.map((t) => RougeTypeSchema.parse(t));
    this.useStemmer = useStemmer;
    this.tokenizer = tokenizer;
    this.stem = createMemoStemmer();
  }

  /**
   * Tokens exactly as rouge_score scores them (lowercase, [a-z0-9] runs, stemmed when > 3 chars).
   */
  tokenize(text: string): string[] {
    return Array.from(this.tokenIds(text), (id) => this.words[id]);
  }

  private intern(raw: string): number {
    let id = this.ids.get(raw);
    if (id === undefined) {
      const word = this.useStemmer && raw.length > 3 && ASCII_TOKEN.test(raw) ? this.stem(raw) : raw;
      let wid = this.ids.get("\u0000" + word);
      if (wid === undefined) {
        wid = this.words.length;
        this.words.push(word);
        this.ids.set("\u0000" + word, wid);
      }
      id = wid;
      this.ids.set(raw, id);
    }
    return id;
  }

  /**
   * True when `text` has a letter or digit (any script) but the tokenizer kept no token — e.g.
   * Thai text under the rouge-score tokenizer. ROUGE of such a pair is undefined, not 0.
   */
  emptyAfterTokenization(text: string): boolean {
    return HAS_LETTER_OR_DIGIT.test(text) && this.tokenIds(text).length === 0;
  }

  /** Token ids of `text` (ids are stable for the lifetime of this scorer). */
  tokenIds(text: string): Int32Array {
    if (this.tokenizer === "unicode") {
      this.segmenter ??= new Intl.Segmenter("und", { granularity: "word" });
      const out: number[] = [];
      for (const seg of this.segmenter.segment(text.toLowerCase())) if (seg.isWordLike) out.push(this.intern(seg.segment));
      return Int32Array.from(out);
    }
    const lower = text.toLowerCase();
    const out: number[] = [];
    let start = -1;
    const n = lower.length;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? lower.charCodeAt(i) : 32;
      const isTok = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
      if (isTok) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        out.push(this.intern(lower.slice(start, i)));
        start = -1;
      }
    }
    return Int32Array.from(out);
  }

  private ensureCounts(): void {
    if (this.counts.length < this.words.length) {
      const next = new Int32Array(Math.max(this.words.length * 2, 1024));
      next.set(this.counts);
      this.counts = next;
    }
  }

  private unigramOverlap(ref: Int32Array, cand: Int32Array): number {
    this.ensureCounts();
    const counts = this.counts;
    for (let i = 0; i < ref.length; i++) counts[ref[i]]++;
    let overlap = 0;
    for (let i = 0; i < cand.length; i++) {
      const t = cand[i];
      if (counts[t] > 0) {
        counts[t]--;
        overlap++;
      }
    }
    for (let i = 0; i < ref.length; i++) counts[ref[i]] = 0;
    return overlap;
  }

  private static ngramCodes(tokens: Int32Array, n: number): Float64Array | string[] {
    const m = tokens.length - n + 1;
    if (m <= 0) return new Float64Array(0);
    if (n === 2) {
      const codes = new Float64Array(m);
      for (let i = 0; i < m; i++) codes[i] = tokens[i] * 67108864 + tokens[i + 1];
      return codes.sort();
    }
    const keys: string[] = new Array(m);
    for (let i = 0; i < m; i++) keys[i] = Array.prototype.join.call(tokens.subarray(i, i + n), ",");
    return keys.sort();
  }

  private static sortedOverlap(a: ArrayLike<number | string>, b: ArrayLike<number | string>): number {
    let i = 0;
    let j = 0;
    let overlap = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        overlap++;
        i++;
        j++;
      } else if (a[i] < b[j]) i++;
      else j++;
    }
    return overlap;
  }

  private rougeN(ref: Int32Array, cand: Int32Array, n: number): RougeScore {
    const refCount = Math.max(ref.length - n + 1, 0);
    const candCount = Math.max(cand.length - n + 1, 0);
    let overlap: number;
    if (n === 1) overlap = this.unigramOverlap(ref, cand);
    else overlap = RougeScorer.sortedOverlap(RougeScorer.ngramCodes(ref, n), RougeScorer.ngramCodes(cand, n));
    const precision = overlap / Math.max(candCount, 1);
    const recall = overlap / Math.max(refCount, 1);
    return { precision, recall, fmeasure: fmeasure(precision, recall) };
  }

  /** LCS length of two id sequences, O(|a|·|b|) time, O(|b|) memory. */
  lcsLength(a: Int32Array, b: Int32Array): number {
    const cols = b.length;
    if (this.rowA.length <= cols) {
      this.rowA = new Int32Array(cols * 2 + 1);
      this.rowB = new Int32Array(cols * 2 + 1);
    }
    let prev = this.rowA;
    let cur = this.rowB;
    prev.fill(0, 0, cols + 1);
    cur[0] = 0;
    for (let i = 0; i < a.length; i++) {
      const ai = a[i];
      for (let j = 1; j <= cols; j++) {
        if (ai === b[j - 1]) cur[j] = prev[j - 1] + 1;
        else {
          const up = prev[j];
          const left = cur[j - 1];
          cur[j] = up > left ? up : left;
        }
      }
      const t = prev;
      prev = cur;
      cur = t;
    }
    return prev[cols];
  }

  private rougeL(ref: Int32Array, cand: Int32Array): RougeScore {
    if (ref.length === 0 || cand.length === 0) return { ...ZERO };
    const lcs = this.lcsLength(ref, cand);
    const precision = lcs / cand.length;
    const recall = lcs / ref.length;
    return { precision, recall, fmeasure: fmeasure(precision, recall) };
  }

  /** Indices into `ref` of one LCS, chosen by rouge_score's `_backtrack_norec`. */
  private static lcsIndices(ref: Int32Array, can: Int32Array): number[] {
    const rows = ref.length;
    const cols = can.length;
    const w = cols + 1;
    const t = new Int32Array((rows + 1) * w);
    for (let i = 1; i <= rows; i++) {
      for (let j = 1; j <= cols; j++) {
        if (ref[i - 1] === can[j - 1]) t[i * w + j] = t[(i - 1) * w + j - 1] + 1;
        else t[i * w + j] = Math.max(t[(i - 1) * w + j], t[i * w + j - 1]);
      }
    }
    const out: number[] = [];
    let i = rows;
    let j = cols;
    while (i > 0 && j > 0) {
      if (ref[i - 1] === can[j - 1]) {
        out.push(i - 1);
        i--;
        j--;
      } else if (t[i * w + j - 1] > t[(i - 1) * w + j]) j--;
      else i--;
    }
    return out.reverse();
  }

  private rougeLsum(reference: string, candidate: string): RougeScore {
    const sents = (text: string): Int32Array[] =>
      text
        .split("\n")
        .filter((s) => s.length > 0)
        .map((s) => this.tokenIds(s));
    const refSents = sents(reference);
    const canSents = sents(candidate);
    if (refSents.length === 0 || canSents.length === 0) return { ...ZERO };
    const m = refSents.reduce((a, s) => a + s.length, 0);
    const n = canSents.reduce((a, s) => a + s.length, 0);
    if (m === 0 || n === 0) return { ...ZERO };
    const cntR = new Map<number, number>();
    const cntC = new Map<number, number>();
    for (const s of refSents) for (const t of s) cntR.set(t, (cntR.get(t) ?? 0) + 1);
    for (const s of canSents) for (const t of s) cntC.set(t, (cntC.get(t) ?? 0) + 1);
    let hits = 0;
    for (const r of refSents) {
      const union = new Set<number>();
      for (const c of canSents) for (const idx of RougeScorer.lcsIndices(r, c)) union.add(idx);
      const sorted = [...union].sort((a, b) => a - b);
      for (const idx of sorted) {
        const t = r[idx];
        const cc = cntC.get(t) ?? 0;
        const cr = cntR.get(t) ?? 0;
        if (cc > 0 && cr > 0) {
          hits++;
          cntC.set(t, cc - 1);
          cntR.set(t, cr - 1);
        }
      }
    }
    const recall = hits / m;
    const precision = hits / n;
    return { precision, recall, fmeasure: fmeasure(precision, recall) };
  }

  /**
   * Score one candidate against one reference.
   * @returns variant name → {precision, recall, fmeasure}.
   */
  score(reference: string, candidate: string): Record<string, RougeScore> {
    const out: Record<string, RougeScore> = {};
    let ref: Int32Array | null = null;
    let cand: Int32Array | null = null;
    for (const type of this.types) {
      if (type === "rougeLsum") {
        out[type] = this.rougeLsum(reference, candidate);
        continue;
      }
      ref ??= this.tokenIds(reference);
      cand ??= this.tokenIds(candidate);
      out[type] = type === "rougeL" ? this.rougeL(ref, cand) : this.rougeN(ref, cand, Number(type.slice(5)));
    }
    return out;
  }
}

/**
 * One-off ROUGE scores (builds a scorer each call; use {@link RougeScorer} for many pairs).
 * @param reference the reference (target) text; @param candidate the generated text.
 */
export function rougeScores(reference: string, candidate: string, types: readonly string[] = ["rouge1", "rouge2", "rougeL"], useStemmer = true): Record<string, RougeScore> {
  return new RougeScorer(types, useStemmer).score(reference, candidate);
}

/**
 * Registry factory: a metric reporting `<type>_<field>` values (e.g. `rouge1_fmeasure`). A pair
 * where the reference or the candidate has letters or digits but no token after tokenization gets
 * `{value: null, note: "empty-after-tokenization"}` for every output (see the module header); an
 * empty or punctuation-only text still scores 0, as in rouge-score.
 * @throws ZodError on a bad config.
 */
export function createRougeMetric(config: Partial<RougeConfig> = {}): Metric {
  const c = RougeConfigSchema.parse(config);
  const scorer = new RougeScorer(c.types, c.useStemmer, c.tokenizer);
  const outputs = c.types.flatMap((t) => c.report.map((f) => `${t}_${f}`));
  return {
    id: ROUGE_METRIC_ID,
    outputs,
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      return pairs.map((p) => {
        const row: MetricScores = {};
        if (scorer.emptyAfterTokenization(p.reference) || scorer.emptyAfterTokenization(p.candidate)) {
          for (const o of outputs) row[o] = { value: null, note: EMPTY_AFTER_TOKENIZATION };
          return row;
        }
        const s = scorer.score(p.reference, p.candidate);
        for (const t of c.types) for (const f of c.report) row[`${t}_${f}`] = { value: s[t][f] };
        return row;
      });
    },
  };
}
