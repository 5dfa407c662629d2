/**
 * Turns the tokenised, PICO-tagged text of MS² / MSLR2022 back into readable text.
 *
 * The MS² release (DeYoung et al. 2021, allenai/ms2) stores abstracts as space-separated tokens
 * ("trials ( n = 226 ) .", "did n't") with inline PICO spans (`<pop>` population, `<int>`
 * intervention, `<out>` outcome) and, in MSLR2022, `<background>`, `<ref>`, `<sep>` markers. Its
 * tokeniser also split every word containing "and" around it ("r and omized", "st and ard",
 * "underst and ing"). Each step below is a small documented rule; nothing is paraphrased.
 */

/** PICO / structure tags found in MS² and MSLR text (opening and closing forms). */
export const MSLR_TAG_NAMES = ["pop", "int", "out", "background", "ref"] as const;

const TAG_RE = new RegExp(`</?(?:${MSLR_TAG_NAMES.join("|")})>`, "g");

/**
 * Remove PICO and structure tags (`<pop> </pop> <int> </int> <out> </out> <background>
 * </background> <ref> </ref>`), keeping the text between them. Unbalanced tags (a span that
 * crosses a sentence split) are removed the same way. `<sep>` is left for
 * {@link splitTitleAbstract}.
 */
export function removePicoTags(text: string): string {
  return text.replace(TAG_RE, " ");
}

/**
 * Words containing "and" that the MS² tokeniser split as "x and y" (case-insensitive, with a
 * closed set of suffixes so that a real "and" between words is never glued). Curated from the
 * bundled MS² / MSLR files ("r and omized", "st and ard", "underst and ing", "postpr and ial",
 * "prer and omization") plus common medical words of the same shape.
 */
const AND_SPLIT_WORD_RE =
  /^(?:pre-?|post-?|non-?|un)?(?:random(?:ly|ness|i[sz](?:e|es|ed|ing|ation|ations))?|standard(?:s|i[sz](?:e|es|ed|ing|ation))?|(?:mis)?understand(?:s|ing|able|ably)?|prandial(?:ly)?|candid(?:a|ae|al|emia|aemia|iasis|ate|ates|acy)|glands?|glandular|ligands?|expand(?:s|ed|ing)?|demand(?:s|ed|ing)?|mandator(?:y|ily)|abandon(?:s|ed|ing|ment)?|thousands?|islands?|husbands?|androgen(?:s|ic)?|scandinavian?|netherlands|england|finland|poland|thailand|switzerland|ireland|scotland|maryland|rwanda|uganda|sandwich(?:es)?|bandages?|landmarks?)$/i;

/**
 * Re-join words the MS² tokeniser split around "and" ("r and omized" → "randomized",
 * "underst and the" → "understand the"). A genuine conjunction is kept: the join happens only
 * when the glued word is in a curated list (see `AND_SPLIT_WORD_RE`).
 * @param text whitespace-tokenised text.
 */
export function rejoinAndSplitWords(text: string): string {
  const tokens = text.split(" ");
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    const left = out.length > 0 ? out[out.length - 1] : undefined;
    if (tok === "and" && left !== undefined && /^[A-Za-z-]+$/.test(left)) {
      const right = tokens[i + 1] ?? "";
      const m = /^([A-Za-z-]*)(.*)$/.exec(right);
      const rightWord = m?.[1] ?? "";
      const rightRest = m?.[2] ?? "";
      if (rightWord && AND_SPLIT_WORD_RE.test(`${left}and${rightWord}`)) {
        out[out.length - 1] = `${left}and${rightWord}${rightRest}`;
        i += 1;
        continue;
      }
      if (AND_SPLIT_WORD_RE.test(`${left}and`)) {
        out[out.length - 1] = `${left}and`;
        continue;
      }
    }
    out.push(tok);
  }
  return out.join(" ");
}

/**
 * Undo Penn-Treebank-style tokenisation: whitespace collapsed (newlines become spaces); no
 * space before `. , ; : ! ? % ) ]` or after `( [`; contractions re-attached (" n't", " 's",
 * " 're", " 've", " 'll", " 'd", " 'm"); plural possessive ("infants ' mucosal" →
 * "infants' mucosal"); split hyphenated words re-joined ("meta- analysis" → "meta-analysis",
 * but "galacto- and fructo-" kept); numeric ranges "7 - 14" → "7-14"; spaces around "/"
 * removed ("and /or" → "and/or"); PTB quotes `` '' → ".
 * @param text tokenised text.
 * @returns readable text, trimmed.
 */
export function detokenize(text: string): string {
  let s = text.replace(/\s+/g, " ").trim();
  s = rejoinAndSplitWords(s);
  s = s.replace(/``\s*/g, '"').replace(/\s*''/g, '"');
  s = s.replace(/([([])\s+/g, "$1");
  s = s.replace(/\s+([.,;:!?%)\]])/g, "$1");
  s = s.replace(/\s+(n't)\b/gi, "$1");
  s = s.replace(/\s+(['’](?:s|re|ve|ll|d|m))\b/gi, "$1");
  s = s.replace(/(\ws) ' (?=\w)/g, "$1' ");
  s = s.replace(/(\w)- (?!(?:and|or|to|and\/or|versus|vs)\b)(\w)/g, "$1-$2");
  s = s.replace(/(\d) - (?=\d)/g, "$1-");
  s = s.replace(/\s*\/\s*(?=\S)/g, (m, offset: number, whole: string) => (/[+]$/.test(whole.slice(0, offset)) ? m : "/"));
  return s.replace(/\s+/g, " ").trim();
}

/** {@link removePicoTags} then {@link detokenize}: MS²/MSLR text → readable text. */
export function cleanMslrText(text: string): string {
  return detokenize(removePicoTags(text));
}

/**
 * Split an MSLR `title_abstract` ("<ref> TITLE <sep> ABSTRACT </ref>") into cleaned title and
 * abstract. Without `<sep>` the whole text is the abstract and the title is "".
 */
export function splitTitleAbstract(titleAbstract: string): { title: string; abstract: string } {
  const idx = titleAbstract.indexOf("<sep>");
  if (idx < 0) return { title: "", abstract: cleanMslrText(titleAbstract) };
  return { title: cleanMslrText(titleAbstract.slice(0, idx)), abstract: cleanMslrText(titleAbstract.slice(idx + 5)) };
}

/** Upper-case section headings of structured abstracts, longest first (matched as whole words). */
export const SECTION_HEADINGS = [
  "MAIN OUTCOME MEASURES",
  "IMPLICATIONS FOR PRACTICE",
  "DATA SOURCES",
  "STUDY SELECTION",
  "DATA EXTRACTION",
  "DATA SYNTHESIS",
  "AUTHORS' CONCLUSIONS",
  "CONCLUSIONS",
  "CONCLUSION",
  "BACKGROUND",
  "OBJECTIVES",
  "OBJECTIVE",
  "PURPOSE",
  "METHODS",
  "RESULTS",
  "DESIGN",
  "CONTEXT",
  "AIMS",
  "AIM",
] as const;

/**
 * Remove upper-case section headings ("BACKGROUND", "OBJECTIVE", "CONCLUSIONS" …) that start a
 * sentence, e.g. "… BP. CONCLUSIONS Glucomannan appears …" → "… BP. Glucomannan appears …".
 * Only whole upper-case words at the start of the text or after sentence punctuation match.
 */
export function stripSectionHeadings(text: string): string {
  const alt = SECTION_HEADINGS.map((h) => h.replace(/'/g, "['’]")).join("|");
  const re = new RegExp(`(^|[.!?:]\\s+)(?:${alt})(?:\\s*:)?\\s+(?=\\S)`, "g");
  return text.replace(re, "$1").trim();
}
