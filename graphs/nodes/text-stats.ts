/**
 * Sentence splitting and word/sentence counts used by the workflows: the constrained
 * conclusion modes (MedConclusion §3.2, modes C/D take their targets from the reference) and the
 * rule-based negator (which works sentence by sentence).
 */

/** Abbreviations after which a period does not end a sentence (lower-case, without the period). */
const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "vs",
  "et al",
  "al",
  "fig",
  "figs",
  "approx",
  "ca",
  "cf",
  "dr",
  "no",
  "nos",
  "ref",
  "resp",
  "incl",
  "mr",
  "mrs",
  "ms",
  "st",
  "jr",
  "sr",
  "u.s",
  "min",
  "max",
  "mg",
  "ml",
  "kg",
  "yr",
  "yrs",
  "mo",
  "wk",
  "wks",
  "hr",
  "hrs",
]);

/**
 * Split a text into sentences.
 *
 * A sentence ends at `.`, `!` or `?` (optionally followed by a closing quote or bracket) when
 * whitespace and an upper-case letter, digit or opening bracket follow, unless the word before the
 * period is a known abbreviation (`e.g.`, `vs.`, `et al.` …) or a single capital letter (an
 * initial). Decimal numbers (`3.4`) never split because no whitespace follows their period.
 * @param text plain text (newlines count as whitespace)
 * @returns trimmed, non-empty sentences in order; `[]` for blank input
 */
export function splitSentences(text: string): string[] {
  const t = text.replace(/\s+/g, " ").trim();
  if (!t) return [];
  const out: string[] = [];
  let start = 0;
  const re = /[.!?]["'”’)\]]*\s+(?=[A-Z0-9(["'“‘])/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t))) {
    const end = m.index + 1;
    const before = t.slice(start, m.index);
    const lastWord = (before.match(/(\S+)$/)?.[1] ?? "").toLowerCase().replace(/^[("'[]+/, "");
    if (t[m.index] === "." && (ABBREVIATIONS.has(lastWord) || /^[a-z]$/.test(lastWord) || (before.endsWith(" et al") && true))) continue;
    const closing = m[0].slice(1).replace(/\s+$/, "");
    out.push(t.slice(start, end + closing.length).trim());
    start = m.index + m[0].length;
  }
  const rest = t.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/**
 * Number of words: whitespace-separated tokens that contain at least one letter or digit
 * (so "–" or "=" alone do not count).
 * @param text plain text
 * @returns a non-negative integer
 */
export function countWords(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/**
 * Number of sentences as split by {@link splitSentences}.
 * @param text plain text
 * @returns a non-negative integer
 */
export function countSentences(text: string): number {
  return splitSentences(text).length;
}
