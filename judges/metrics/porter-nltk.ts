/**
 * Porter stemmer, a TypeScript port of NLTK's `PorterStemmer` in its default
 * `NLTK_EXTENSIONS` mode (NLTK 3.8), which Google's rouge-score uses when `use_stemmer=True`.
 *
 * Differences from the 1980 paper are NLTK's: the irregular-forms pool, "ies"/"ied" on 4-letter
 * words, the `*o` condition accepting a 2-letter vowel–consonant stem, step 1c requiring a
 * consonant before the final y, "alli" handled first in step 2, "bli"→"ble", "fulli"→"ful",
 * "logi"→"log", and words of length ≤ 2 left unchanged.
 *
 * @see Porter M.F. (1980) An algorithm for suffix stripping. Program 14(3):130–137.
 * @see nltk/stem/porter.py (NLTK 3.8), mode NLTK_EXTENSIONS. Checked against the stemmed tokens
 *   of all 620 rows of tests/fixtures/parity/rouge-bleu-expected.jsonl.
 */

const IRREGULAR: Record<string, string> = {
  sky: "sky",
  skies: "sky",
  dying: "die",
  lying: "lie",
  tying: "tie",
  news: "news",
  innings: "inning",
  inning: "inning",
  outings: "outing",
  outing: "outing",
  cannings: "canning",
  canning: "canning",
  howe: "howe",
  proceed: "proceed",
  exceed: "exceed",
  succeed: "succeed",
};

function isVowelChar(ch: string): boolean {
  return ch === "a" || ch === "e" || ch === "i" || ch === "o" || ch === "u";
}

function isConsonant(word: string, i: number): boolean {
  const ch = word[i];
  if (isVowelChar(ch)) return false;
  if (ch === "y") return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** Porter's measure m: the number of VC sequences in the stem. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

function endsCvc(word: string): boolean {
  const n = word.length;
  return (
    (n >= 3 && isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && word[n - 1] !== "w" && word[n - 1] !== "x" && word[n - 1] !== "y") ||
    (n === 2 && !isConsonant(word, 0) && isConsonant(word, 1))
  );
}

type Rule = readonly [suffix: string, replacement: string, condition: ((stem: string) => boolean) | null];

/** First rule whose suffix matches decides: apply it if its condition holds, else stop. */
function applyRuleList(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === "*d" && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    if (word.endsWith(suffix)) {
      const stem = suffix === "" ? word : word.slice(0, -suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

const positive = (stem: string): boolean => measure(stem) > 0;
const gt1 = (stem: string): boolean => measure(stem) > 1;

function step1a(word: string): string {
  if (word.endsWith("ies") && word.length === 4) return word.slice(0, -3) + "ie";
  return applyRuleList(word, [
    ["sses", "ss", null],
    ["ies", "i", null],
    ["ss", "ss", null],
    ["s", "", null],
  ]);
}

function step1b(word: string): string {
  if (word.endsWith("ied")) return word.length === 4 ? word.slice(0, -3) + "ie" : word.slice(0, -3) + "i";
  if (word.endsWith("eed")) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + "ee" : word;
  }
  let intermediate: string | null = null;
  for (const suffix of ["ed", "ing"]) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      if (containsVowel(stem)) {
        intermediate = stem;
        break;
      }
    }
  }
  if (intermediate === null) return word;
  const last = intermediate[intermediate.length - 1];
  return applyRuleList(intermediate, [
    ["at", "ate", null],
    ["bl", "ble", null],
    ["iz", "ize", null],
    ["*d", last, () => last !== "l" && last !== "s" && last !== "z"],
    ["", "e", (stem) => measure(stem) === 1 && endsCvc(stem)],
  ]);
}

function step1c(word: string): string {
  return applyRuleList(word, [["y", "i", (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

function step2(word: string): string {
  if (word.endsWith("alli") && positive(word.slice(0, -4))) return step2(word.slice(0, -4) + "al");
  return applyRuleList(word, [
    ["ational", "ate", positive],
    ["tional", "tion", positive],
    ["enci", "ence", positive],
    ["anci", "ance", positive],
    ["izer", "ize", positive],
    ["bli", "ble", positive],
    ["alli", "al", positive],
    ["entli", "ent", positive],
    ["eli", "e", positive],
    ["ousli", "ous", positive],
    ["ization", "ize", positive],
    ["ation", "ate", positive],
    ["ator", "ate", positive],
    ["alism", "al", positive],
    ["iveness", "ive", positive],
    ["fulness", "ful", positive],
    ["ousness", "ous", positive],
    ["aliti", "al", positive],
    ["iviti", "ive", positive],
    ["biliti", "ble", positive],
    ["fulli", "ful", positive],
    ["logi", "log", () => positive(word.slice(0, -3))],
  ]);
}

function step3(word: string): string {
  return applyRuleList(word, [
    ["icate", "ic", positive],
    ["ative", "", positive],
    ["alize", "al", positive],
    ["iciti", "ic", positive],
    ["ical", "ic", positive],
    ["ful", "", positive],
    ["ness", "", positive],
  ]);
}

function step4(word: string): string {
  return applyRuleList(word, [
    ["al", "", gt1],
    ["ance", "", gt1],
    ["ence", "", gt1],
    ["er", "", gt1],
    ["ic", "", gt1],
    ["able", "", gt1],
    ["ible", "", gt1],
    ["ant", "", gt1],
    ["ement", "", gt1],
    ["ment", "", gt1],
    ["ent", "", gt1],
    ["ion", "", (stem) => measure(stem) > 1 && (stem.endsWith("s") || stem.endsWith("t"))],
    ["ou", "", gt1],
    ["ism", "", gt1],
    ["ate", "", gt1],
    ["iti", "", gt1],
    ["ous", "", gt1],
    ["ive", "", gt1],
    ["ize", "", gt1],
  ]);
}

function step5a(word: string): string {
  if (word.endsWith("e")) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1) return stem;
    if (m === 1 && !endsCvc(stem)) return stem;
  }
  return word;
}

function step5b(word: string): string {
  return applyRuleList(word, [["ll", "l", () => measure(word.slice(0, -1)) > 1]]);
}

/**
 * Stem one word as NLTK's `PorterStemmer().stem(word)` (NLTK_EXTENSIONS, lowercasing first).
 * @param word any string; callers normally pass lowercase [a-z0-9]+ tokens.
 * @returns the stem.
 */
export function porterStem(word: string): string {
  const lower = word.toLowerCase();
  const irregular = IRREGULAR[lower];
  if (irregular !== undefined && Object.prototype.hasOwnProperty.call(IRREGULAR, lower)) return irregular;
  if (lower.length <= 2) return lower;
  let s = step1a(lower);
  s = step1b(s);
  s = step1c(s);
  s = step2(s);
  s = step3(s);
  s = step4(s);
  s = step5a(s);
  s = step5b(s);
  return s;
}

/**
 * A memoising Porter stemmer: each distinct word is stemmed once. The cache is bounded
 * (`maxEntries`, default 200,000) and cleared when full.
 */
export function createMemoStemmer(maxEntries = 200_000): (word: string) => string {
  const cache = new Map<string, string>();
  return (word: string): string => {
    let s = cache.get(word);
    if (s === undefined) {
      if (cache.size >= maxEntries) cache.clear();
      s = porterStem(word);
      cache.set(word, s);
    }
    return s;
  };
}
