/**
 * Flattening of PubMed inline markup to plain text.
 *
 * PubMed `AbstractText`, `ArticleTitle`, `VernacularTitle` and `Keyword` elements may carry inline
 * tags (`<i> <b> <u> <sub> <sup>`, occasionally `<sc>`) and MathML (`<mml:math>…</mml:math>`).
 * The XML parser keeps these elements as raw text (fast-xml-parser `stopNodes`), and this module
 * turns that raw text into plain text:
 * - inline tags are removed without adding spaces, so `H<sub>2</sub>O` → `H2O` and
 *   `<i>in vivo</i> study` → `in vivo study` (the spaces that are in the text are kept);
 * - MathML is flattened to the concatenation of its token elements' text (`<mml:mi>`, `<mml:mn>`,
 *   `<mml:mo>`, `<mml:mtext>` …) with the indentation between tags removed, so a pretty-printed
 *   `V̇O2max` becomes `V.O2max`;
 * - XML character references and entities (`&lt;` `&#176;` `&#xe0;` `&nbsp;` …) are decoded after
 *   the tags are removed (so an escaped `&lt;` never turns into a tag);
 * - runs of whitespace (including newlines of pretty-printed XML) collapse to one space; the
 *   result is trimmed.
 */

const MATHML_RE = /<((?:[A-Za-z][\w.-]*:)?math)\b[^>]*>([\s\S]*?)<\/\1\s*>/g;
const BETWEEN_TAGS_WS_RE = />\s+</g;
const TAG_RE = /<\/?[A-Za-z!?][^>]*>/g;
/** Whitespace runs other than a lone space (a lone space needs no rewrite). */
const WS_RE = /[^\S ]\s*| \s+/g;
const ENTITY_RE = /&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g;

/**
 * Named entities decoded besides the five XML ones: the HTML entities that occur in PubMed text.
 * (PubMed XML is normally delivered with numeric references; these cover hand-made or older files.)
 */
export const NAMED_ENTITIES: Readonly<Record<string, string>> = Object.freeze({
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  ndash: "\u2013",
  mdash: "\u2014",
  hellip: "\u2026",
  middot: "\u00b7",
  deg: "\u00b0",
  plusmn: "\u00b1",
  times: "\u00d7",
  divide: "\u00f7",
  micro: "\u00b5",
  le: "\u2264",
  ge: "\u2265",
  ne: "\u2260",
  asymp: "\u2248",
  minus: "\u2212",
  alpha: "\u03b1",
  beta: "\u03b2",
  gamma: "\u03b3",
  delta: "\u03b4",
  epsilon: "\u03b5",
  kappa: "\u03ba",
  lambda: "\u03bb",
  mu: "\u03bc",
  pi: "\u03c0",
  sigma: "\u03c3",
  tau: "\u03c4",
  chi: "\u03c7",
  omega: "\u03c9",
  Delta: "\u0394",
  Sigma: "\u03a3",
  Omega: "\u03a9",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  laquo: "\u00ab",
  raquo: "\u00bb",
  copy: "\u00a9",
  reg: "\u00ae",
  trade: "\u2122",
  sect: "\u00a7",
  para: "\u00b6",
  bull: "\u2022",
  prime: "\u2032",
  Prime: "\u2033",
  larr: "\u2190",
  rarr: "\u2192",
  uarr: "\u2191",
  darr: "\u2193",
  sup2: "\u00b2",
  sup3: "\u00b3",
  frac12: "\u00bd",
  frac14: "\u00bc",
  frac34: "\u00be",
  auml: "\u00e4",
  ouml: "\u00f6",
  uuml: "\u00fc",
  Auml: "\u00c4",
  Ouml: "\u00d6",
  Uuml: "\u00dc",
  eacute: "\u00e9",
  egrave: "\u00e8",
  aacute: "\u00e1",
  agrave: "\u00e0",
  oacute: "\u00f3",
  iacute: "\u00ed",
  uacute: "\u00fa",
  ccedil: "\u00e7",
  ntilde: "\u00f1",
  szlig: "\u00df",
});

/**
 * Decode XML/HTML character references and the named entities of {@link NAMED_ENTITIES}.
 * Unknown named entities are left as they are.
 * @param text - text that may contain `&…;` references.
 * @returns the decoded text.
 */
export function decodeEntities(text: string): string {
  if (text.indexOf("&") < 0) return text;
  return text.replace(ENTITY_RE, (whole, body: string) => {
    if (body.charCodeAt(0) === 35 /* # */) {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code < 0 || code > 0x10ffff) return whole;
      try {
        return String.fromCodePoint(code);
      } catch {
        return whole;
      }
    }
    const named = NAMED_ENTITIES[body];
    return named === undefined ? whole : named;
  });
}

/**
 * Flatten one MathML element's inner markup: drop the whitespace between tags, then the tags.
 * @param innerXml - the content between `<math …>` and `</math>`.
 * @returns the concatenated token text, e.g. `V.O2max`.
 */
export function flattenMathMl(innerXml: string): string {
  return innerXml.replace(BETWEEN_TAGS_WS_RE, "><").replace(TAG_RE, "").trim();
}

/**
 * Turn raw element content with inline markup into plain text (see the module comment).
 * @param raw - the raw inner XML of an element (tags and entities not yet processed).
 * @returns plain text with single spaces, trimmed; `""` for empty input.
 * @example flattenInlineMarkup("H<sub>2</sub>O and <i>in vivo</i> &lt;5&#176;C") === "H2O and in vivo <5°C"
 */
export function flattenInlineMarkup(raw: string): string {
  let text = raw;
  if (text.indexOf("<") >= 0) {
    if (text.indexOf("math") >= 0) text = text.replace(MATHML_RE, (_w, _tag, inner: string) => flattenMathMl(inner));
    text = text.replace(TAG_RE, "");
  }
  text = decodeEntities(text);
  return text.replace(WS_RE, " ").trim();
}
