/**
 * Word- and sentence-count ratios candidate / reference (MedConclusion's length metrics).
 *
 * Tokenisation (documented, rule-based, language-agnostic):
 * - a word is a maximal run of Unicode letters or digits, joined across internal apostrophes,
 *   hyphens and decimal points/commas between digits ("don't", "follow-up", "0.05", "1,204" are
 *   one word each);
 * - a sentence ends at ".", "!" or "?" (optionally followed by closing quotes/brackets) that is
 *   followed by whitespace and then an uppercase letter, digit, opening quote/bracket, or the end
 *   of the text; a line break also ends a sentence. A period after a common abbreviation
 *   (e.g., i.e., et al., vs., Fig., approx., No.) or a single capital initial does not end one.
 *   Segments with no word are not sentences.
 *
 * @see MedConclusion (seed 000): word-count and sentence-count ratios of generated vs. original
 *   conclusions.
 */
import { z } from "zod";
import type { Metric, MetricPair, MetricScores } from "./types.ts";

/** Metric id in the registry. */
export const COUNT_RATIOS_METRIC_ID = "count-ratios";

/** Config of the count-ratio metric (no options). */
export const CountRatiosConfigSchema = z.object({}).strict();
/** Parsed config. */
export type CountRatiosConfig = z.infer<typeof CountRatiosConfigSchema>;

const WORD_RE = /[\p{L}\p{N}]+(?:(?:['’\-]|(?<=\p{N})[.,](?=\p{N}))[\p{L}\p{N}]+)*/gu;
const ABBREVIATIONS = new Set(["e.g", "i.e", "al", "vs", "fig", "figs", "approx", "no", "nos", "ref", "refs", "cf", "etc", "dr", "mr", "mrs", "ms", "prof", "st", "vol", "eq", "ca", "resp", "incl"]);

/** Words of `text` by the rule above. */
export function wordTokens(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

/** Number of words in `text`. */
export function countWords(text: string): number {
  return wordTokens(text).length;
}

/** Sentences of `text` by the rule above (trimmed, each containing at least one word). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    let start = 0;
    const re = /[.!?]+["'”’)\]]*(?=\s+["'“‘(\[]?[\p{Lu}\p{N}]|\s*$)/gu;
    let m: RegExpExecArray | null;
    while ((m = re.exec(line)) !== null) {
      const end = m.index + m[0].length;
      if (m[0].startsWith(".") && m[0].length === 1) {
        const before = line.slice(start, m.index);
        const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? "";
        if (ABBREVIATIONS.has(lastWord) || (/^\p{Lu}$/u.test(before.slice(-1)) && /(^|\s)\p{Lu}$/u.test(before))) continue;
      }
      const sent = line.slice(start, end).trim();
      if (countWords(sent) > 0) out.push(sent);
      start = end;
    }
    const rest = line.slice(start).trim();
    if (countWords(rest) > 0) out.push(rest);
  }
  return out;
}

/** Number of sentences in `text`. */
export function countSentences(text: string): number {
  return splitSentences(text).length;
}

/** Word- and sentence-count ratios of one pair; null (with a note) when the reference count is 0. */
export interface CountRatios {
  wordRatio: number | null;
  sentenceRatio: number | null;
  candidateWords: number;
  referenceWords: number;
  candidateSentences: number;
  referenceSentences: number;
}

/** Candidate/reference word- and sentence-count ratios (1 = same length). */
export function countRatios(reference: string, candidate: string): CountRatios {
  const rw = countWords(reference);
  const cw = countWords(candidate);
  const rs = countSentences(reference);
  const cs = countSentences(candidate);
  return { wordRatio: rw === 0 ? null : cw / rw, sentenceRatio: rs === 0 ? null : cs / rs, candidateWords: cw, referenceWords: rw, candidateSentences: cs, referenceSentences: rs };
}

/** Registry factory: a metric reporting `word_count_ratio` and `sentence_count_ratio`. */
export function createCountRatiosMetric(config: Partial<CountRatiosConfig> = {}): Metric {
  CountRatiosConfigSchema.parse(config);
  return {
    id: COUNT_RATIOS_METRIC_ID,
    outputs: ["word_count_ratio", "sentence_count_ratio"],
    async score(pairs: readonly MetricPair[]): Promise<MetricScores[]> {
      return pairs.map((p) => {
        const r = countRatios(p.reference, p.candidate);
        const empty = { value: null, note: "reference has no words" };
        return {
          word_count_ratio: r.wordRatio === null ? empty : { value: r.wordRatio },
          sentence_count_ratio: r.sentenceRatio === null ? { value: null, note: "reference has no sentence" } : { value: r.sentenceRatio },
        };
      });
    },
  };
}
