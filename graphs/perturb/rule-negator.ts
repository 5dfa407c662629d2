/**
 * Deterministic rule-based negator for Negated-RAG (MedMeta §3.2 "Negated-RAG", Appendix D does
 * the same with an LLM). It flips the findings of an abstract so that a synthesizer given the text
 * receives evidence contradicting the original, while background and methods stay untouched.
 *
 * Which sentences: in a structured abstract (CorpusDoc text with "LABEL: text" segments) the
 * sentences of RESULTS / FINDINGS / CONCLUSION(S) / INTERPRETATION segments; in an unstructured
 * abstract every sentence from the first "finding" sentence on (one with a significance claim, a
 * p-value, a direction word or a verb such as found/showed/observed), skipping objective
 * sentences ("To evaluate…", "The aim…", "We sought…").
 *
 * How (each sentence is negated once; earlier rules win and their output is not rewritten):
 * - Significance mode, when the sentence makes a significance claim (significant/NS/p-value/
 *   "no difference"/"did not differ"):
 *   1. "did not show|find|reach… (statistically) significant(ce)" → "showed … significant(ce)";
 *   2. "did not differ (significantly)" → "differed significantly";
 *   3. "no (statistically) significant" → "(statistically) significant";
 *   4. "no difference(s)" → "a significant difference" / "significant differences";
 *   5. "did|does|do not (statistically) significantly <verb>" → "(statistically) significantly
 *      <verb in the tense of the auxiliary>" ("did not significantly reduce" → "significantly reduced");
 *   6. "not (statistically) significant(ly)", "non-significant", "insignificant" → "significant(ly)";
 *   7. "was|were|is|are|remained (statistically) significant" → "… not … significant";
 *   8. "(statistically) significantly", grammatically for the verb form around it:
 *      - passive "was|were|is|are|been (statistically) significantly reduced" and predicative
 *        "was significantly lower" → "was not significantly reduced|lower";
 *      - passive with a trailing adverb "was reduced significantly" → "was not reduced significantly";
 *      - active past "X significantly reduced Y" → "X did not significantly reduce Y"; present
 *        "X significantly reduces Y" → "X does not significantly reduce Y"; plural/base
 *        "X significantly reduce Y" → "X do not significantly reduce Y";
 *      - trailing adverb "Pain decreased significantly" → "Pain did not decrease significantly",
 *        "differs significantly" → "does not differ significantly";
 *      - a reporting or linking verb before an adjective, "showed|had|remained significantly
 *        improved|higher …" → "did not show|have|remain significantly …" ("has|have significantly
 *        higher" → "does|do not have significantly higher");
 *      - "with significantly lower" → "with no significantly lower"; "a significantly lower" →
 *        "no significantly lower";
 *      - after a modal, "to" or a perfect "has|have|had <participle>": "may not significantly
 *        reduce", "has not significantly reduced";
 *      - otherwise (e.g. sentence-initial "Significantly fewer patients died") the old form
 *        "not significantly" is kept. Known misses: a verb outside the built-in list whose base
 *        form cannot be read off its "-ed" form (e.g. an unlisted "-nged"/"-ured" verb), and
 *        nouns ending in "-ed" placed before "significantly" (read as a verb);
 *   9. "(a) (statistically) significant" → "no (statistically) significant";
 *   10. "(NS)" → "(P < 0.05)";
 *   11. p-values: a significant one ("p < 0.001", "P = 0.03") → "P > 0.05"; a non-significant one
 *       ("p = 0.06", "p > 0.05") → "P < 0.05"; "p-value of 0.06" → "p-value below 0.05".
 * - Direction mode otherwise:
 *   1. negation removal: "did|does|do not improve|reduce|increase|…" → "improved|reduces|…",
 *      "was|were|is|are not associated|superior|…" → "… associated|superior", "does not support"
 *      → "supports", "no longer" → "still", "can be safely" → "cannot be safely"; when one of these
 *      fires, no word swap is applied to that sentence (a double flip would cancel out);
 *   2. otherwise word swaps: effect direction increased↔decreased, increase↔decrease,
 *      reduced/reduction→increased/increase, higher↔lower, highest↔lowest, improved↔worsened,
 *      improvement↔worsening, shorter↔longer, larger↔smaller, greater→smaller; comparatives
 *      more↔less, fewer→more, better↔worse, superior↔inferior, non-inferior→inferior,
 *      beneficial↔harmful, effective↔ineffective.
 * The initial capital of a replaced phrase is kept.
 */
import { z } from "zod";
import { splitSentences } from "../nodes/text-stats.ts";

/** Id of the rule negator (config value `negator: "rule"`). */
export const RULE_NEGATOR_ID = "rule";

/** One changed sentence. `index` counts the sentences of the whole text (0-based). */
export interface NegatedSentence {
  index: number;
  original: string;
  negated: string;
  mode: "significance" | "direction";
}

/** Output of a negator on one text. */
export interface NegationResult {
  text: string;
  changed: NegatedSentence[];
}

/** Config of the rule negator (no options today; `.strict()` so typos fail). */
export const RuleNegatorConfigSchema = z.object({}).strict();
/** {@link RuleNegatorConfigSchema} after parsing (defaults applied). */
export type RuleNegatorConfig = z.infer<typeof RuleNegatorConfigSchema>;

interface Rule {
  re: RegExp;
  to: (m: RegExpExecArray) => string;
}

const PAST: Record<string, string> = {
  show: "showed",
  find: "found",
  demonstrate: "demonstrated",
  reveal: "revealed",
  reach: "reached",
  achieve: "achieved",
  observe: "observed",
  detect: "detected",
  improve: "improved",
  reduce: "reduced",
  increase: "increased",
  decrease: "decreased",
  lower: "lowered",
  raise: "raised",
  change: "changed",
  affect: "affected",
  alter: "altered",
  prevent: "prevented",
  worsen: "worsened",
  support: "supported",
  differ: "differed",
};
const THIRD: Record<string, string> = {
  show: "shows",
  find: "finds",
  demonstrate: "demonstrates",
  reveal: "reveals",
  reach: "reaches",
  achieve: "achieves",
  observe: "observes",
  detect: "detects",
  improve: "improves",
  reduce: "reduces",
  increase: "increases",
  decrease: "decreases",
  lower: "lowers",
  raise: "raises",
  change: "changes",
  affect: "affects",
  alter: "alters",
  prevent: "prevents",
  worsen: "worsens",
  support: "supports",
  differ: "differs",
};
/** Regular past tense of a base verb ("reduce" → "reduced", "delay" → "delayed", "modify" → "modified"). */
function pastOf(v: string): string {
  if (PAST[v]) return PAST[v];
  if (v.endsWith("e")) return `${v}d`;
  if (/[^aeiou]y$/.test(v)) return `${v.slice(0, -1)}ied`;
  return `${v}ed`;
}
/** Third person singular of a base verb ("reduce" → "reduces", "modify" → "modifies"). */
function thirdOf(v: string): string {
  if (THIRD[v]) return THIRD[v];
  if (/(?:s|sh|ch|x|z)$/.test(v)) return `${v}es`;
  if (/[^aeiou]y$/.test(v)) return `${v.slice(0, -1)}ies`;
  return `${v}s`;
}
/** "did"/"does"/"do" + base verb → positive form in the same tense. */
function conjugate(aux: string, verb: string): string {
  const a = aux.toLowerCase();
  const v = verb.toLowerCase();
  return a === "did" ? pastOf(v) : a === "does" ? thirdOf(v) : v;
}

/**
 * Base verbs the significance rule recognises in the present tense (and whose past form it can
 * undo exactly); other "-ed" words are read as past tenses by spelling (see {@link baseOfPast}).
 */
const VERBS = new Set([
  ...Object.keys(PAST),
  ...(
    "accelerate affect alleviate alter attenuate augment benefit boost change correlate cut decline delay diminish double elevate enhance exceed extend favour favor halve " +
    "influence inhibit lengthen lessen mitigate modify outperform predict prolong promote raise relieve remain restore shorten slow stabilize stabilise suppress " +
    "exhibit experience produce yield report have"
  ).split(" "),
]);
const IRREGULAR_PAST: Record<string, string> = {
  ...Object.fromEntries(Object.entries(PAST).map(([b, p]) => [p, b])),
  found: "find",
  had: "have",
  rose: "rise",
  fell: "fall",
  grew: "grow",
  cut: "cut",
  led: "lead",
  showed: "show",
  shown: "show",
};

/** Base form of a past-tense verb: exact for listed verbs, else by spelling ("attenuated" → "attenuate", "inhibited" → "inhibit"). */
function baseOfPast(word: string): string {
  const w = word.toLowerCase();
  if (IRREGULAR_PAST[w]) return IRREGULAR_PAST[w];
  if (w.endsWith("ied")) return `${w.slice(0, -3)}y`;
  for (const cand of [w.slice(0, -1), w.slice(0, -2)]) if (VERBS.has(cand)) return cand;
  if (/([bdgmnprt])\1ed$/.test(w)) return w.slice(0, -3);
  if (/(?:at|iz|is|uc|[^s]s|v|c|bl|pl|g|ur)ed$/.test(w)) return w.slice(0, -1);
  return w.slice(0, -2);
}
/** Base form of a present-tense (third person) listed verb, or null. */
function baseOfThird(word: string): string | null {
  const w = word.toLowerCase();
  for (const cand of [w.slice(0, -1), w.slice(0, -2), w.endsWith("ies") ? `${w.slice(0, -3)}y` : ""]) if (cand && VERBS.has(cand)) return cand;
  return null;
}
/** Comparatives and "-ed" words that read as adjectives, not verbs, after "significantly". */
const COMPARATIVE = /^(?:higher|lower|greater|fewer|more|less|better|worse|shorter|longer|larger|smaller|reduced|increased|decreased|elevated|improved|prolonged|impaired|lower-risk)$/i;
const BE = /^(?:was|were|is|are|be|been|being|am|get|gets|got|became|become|becomes|seemed|seems|appeared|appears)$/i;
const MODAL = /^(?:may|might|can|could|will|would|shall|should|must|to|cannot)$/i;
const HAVE = /^(?:has|have|had)$/i;
const LINKING =
  /^(?:show|shows|showed|shown|demonstrate|demonstrates|demonstrated|find|finds|found|report|reports|reported|observe|observes|observed|reveal|reveals|revealed|experience|experiences|experienced|exhibit|exhibits|exhibited|achieve|achieves|achieved|yield|yields|yielded|produce|produces|produced|remain|remains|remained)$/i;

/** Verb phrase "do/does/did not <base>" for a finite verb (past, third person or base form), or null when `word` is not one. */
function negatedFinite(word: string): { aux: string; base: string } | null {
  const w = word.toLowerCase();
  if (/ed$/.test(w) || IRREGULAR_PAST[w]) return { aux: "did", base: baseOfPast(w) };
  const third = /s$/.test(w) ? baseOfThird(w) : null;
  if (third) return { aux: "does", base: third };
  if (VERBS.has(w)) return { aux: "do", base: w };
  return null;
}

/**
 * Negate one "significantly" with the words around it (rule 8 of the file comment).
 * Groups: 1 word before, 2 separator, 3 "statistically ", 4 word after.
 */
function negateSignificantly(m: RegExpExecArray): string {
  const prev = m[1];
  const sep = m[2] ?? "";
  const stat = m[3] ?? "";
  const next = m[4];
  const tail = next !== undefined ? ` ${next}` : "";
  const generic = `${prev !== undefined ? prev + sep : ""}not ${stat}significantly${tail}`;
  const direct = sep === " ";
  if (prev !== undefined && direct) {
    if (BE.test(prev) || MODAL.test(prev)) return `${prev} not ${stat}significantly${tail}`;
    if (HAVE.test(prev)) {
      if (next !== undefined && COMPARATIVE.test(next) && !/ed$/i.test(next)) {
        const aux = /^had$/i.test(prev) ? "did" : /^has$/i.test(prev) ? "does" : "do";
        return `${aux} not have ${stat}significantly${tail}`;
      }
      return `${prev} not ${stat}significantly${tail}`;
    }
    if (/^with$/i.test(prev)) return `with no ${stat}significantly${tail}`;
    if (/^an?$/i.test(prev)) return `no ${stat}significantly${tail}`;
    if (LINKING.test(prev) || (/ed$/i.test(prev) && next === undefined) || (/ed$/i.test(prev) && !/ed$/i.test(next ?? ""))) {
      const f = negatedFinite(prev);
      if (f) return `${f.aux} not ${f.base} ${stat}significantly${tail}`;
    }
    if (/s$/i.test(prev) && baseOfThird(prev) && (next === undefined || !negatedFinite(next))) return `does not ${baseOfThird(prev)} ${stat}significantly${tail}`;
  }
  // "X significantly reduced Y": a finite verb after "significantly" (not a comparative such as
  // "higher", and not an "-ed" adjective after a preposition or article: "of significantly reduced")
  const adjective = next !== undefined && COMPARATIVE.test(next) && !/ed$/i.test(next);
  const afterFunctionWord = prev !== undefined && direct && /^(?:the|of|in|on|for|by|from|at|as|than|to|into)$/i.test(prev);
  const f = next !== undefined && !adjective && !afterFunctionWord ? negatedFinite(next) : null;
  if (f) return `${prev !== undefined ? prev + sep : ""}${f.aux} not ${stat}significantly ${f.base}`;
  return generic;
}

const SIG_CUE = /\bsignifican|\bNS\b|\bp\s*(?:[<>=≤≥]|-value)|\bno (?:\w+ )?differences?\b|\b(?:did|does|do) not differ/i;
const FINDING_CUE =
  /\bsignifican|\bNS\b|\bp\s*(?:[<>=≤≥]|-value)|\bno (?:\w+ )?differences?\b|\bnot differ|\b(?:found|showed|shows|demonstrated|observed|revealed|associated|conclud\w*|increased|decreased|reduced|higher|lower|improved|worsened|superior|inferior)\b/i;
const OBJECTIVE =
  /^(?:to |the (?:aim|goal|objective|purpose)|(?:we|this (?:study|trial))\s+(?:aimed|sought|hypothesi[sz]ed|was designed))|\b(?:is|are) (?:warranted|needed)\b|\bfurther (?:research|studies|trials)\b/i;
const FINDING_LABEL = /^(?:results?|findings?|conclusions?|interpretation|main results?|authors'? conclusions?)$/i;

const verbAlt = Object.keys(PAST).join("|");
const SIGNIFICANCE_RULES: Rule[] = [
  {
    re: /\b(did|does|do) not (show|find|demonstrate|reveal|reach|achieve|observe|detect) (?:a |any )?(statistical(?:ly)? )?(significan(?:t|ce))\b/gi,
    to: (m) => `${conjugate(m[1], m[2])} ${m[3] ?? ""}${m[4]}`,
  },
  { re: /\b(did|does|do) not differ(?: significantly)?\b/gi, to: (m) => `${conjugate(m[1], "differ")} significantly` },
  { re: /\bno (statistically )?significant\b/gi, to: (m) => `${m[1] ?? ""}significant` },
  { re: /\bno differences\b/gi, to: () => "significant differences" },
  { re: /\bno difference\b/gi, to: () => "a significant difference" },
  { re: /\b(did|does|do) not (statistically )?significantly ([a-z]+)\b/gi, to: (m) => `${m[2] ?? ""}significantly ${conjugate(m[1], m[3])}` },
  { re: /\bnot (statistically )?(significant(?:ly)?)\b/gi, to: (m) => `${m[1] ?? ""}${m[2]}` },
  { re: /\b(?:non-?|in)(significant(?:ly)?)\b/gi, to: (m) => m[1] },
  { re: /\b(was|were|is|are|remained|remains|be|been|became) (statistically )?significant\b(?!ly)/gi, to: (m) => `${m[1]} not ${m[2] ?? ""}significant` },
  { re: /\b(was|were|is|are|been|being|be) ([a-z]+ed) (statistically )?significantly\b/gi, to: (m) => `${m[1]} not ${m[2]} ${m[3] ?? ""}significantly` },
  { re: /(?:\b([A-Za-z][a-z-]*)(,? ))?\b(statistically )?significantly\b(?: ([a-z][a-z-]*)\b)?/gi, to: negateSignificantly },
  { re: /\b(statistically )?significantly\b/gi, to: (m) => `not ${m[1] ?? ""}significantly` },
  { re: /\b(?:an? )?(statistically )?significant\b/gi, to: (m) => `no ${m[1] ?? ""}significant` },
  { re: /\(NS\)/g, to: () => "(P < 0.05)" },
  { re: /\b([pP])\s*(<=|>=|<|>|=|≤|≥)\s*(0?\.\d+|\d(?:\.\d+)?)(?:\s*[x×]\s*10\s*[-−]\s*(\d+))?/g, to: pValueFlip },
  { re: /\b([pP]-value) of (0?\.\d+|\d(?:\.\d+)?)/g, to: (m) => (Number(m[2]) < 0.05 ? `${m[1]} above 0.05` : `${m[1]} below 0.05`) },
];

function pValueFlip(m: RegExpExecArray): string {
  const op = m[2];
  const value = Number(m[3]) * (m[4] ? 10 ** -Number(m[4]) : 1);
  const significant = op === "<" || op === "<=" || op === "≤" ? value <= 0.05 : op === "=" ? value < 0.05 : false;
  return significant ? `${m[1]} > 0.05` : `${m[1]} < 0.05`;
}

const NEGATION_REMOVAL: Rule[] = [
  { re: new RegExp(`\\b(did|does|do) not (${verbAlt})\\b`, "gi"), to: (m) => conjugate(m[1], m[2]) },
  { re: /\b(was|were|is|are) not (associated|superior|inferior|effective|beneficial|different|related)\b/gi, to: (m) => `${m[1]} ${m[2]}` },
  { re: /\bno longer\b/gi, to: () => "still" },
  { re: /\bcan be safely\b/gi, to: () => "cannot be safely" },
];

const SWAPS: Record<string, string> = {
  increased: "decreased",
  decreased: "increased",
  increase: "decrease",
  decrease: "increase",
  increases: "decreases",
  decreases: "increases",
  increasing: "decreasing",
  decreasing: "increasing",
  reduced: "increased",
  reduce: "increase",
  reduces: "increases",
  reducing: "increasing",
  reduction: "increase",
  reductions: "increases",
  higher: "lower",
  lower: "higher",
  highest: "lowest",
  lowest: "highest",
  improved: "worsened",
  worsened: "improved",
  improve: "worsen",
  worsen: "improve",
  improves: "worsens",
  worsens: "improves",
  improvement: "worsening",
  improvements: "worsening",
  worsening: "improvement",
  shorter: "longer",
  longer: "shorter",
  larger: "smaller",
  smaller: "larger",
  greater: "smaller",
  more: "less",
  less: "more",
  fewer: "more",
  better: "worse",
  worse: "better",
  superior: "inferior",
  inferior: "superior",
  "non-inferior": "inferior",
  noninferior: "inferior",
  beneficial: "harmful",
  harmful: "beneficial",
  effective: "ineffective",
  ineffective: "effective",
};
const SWAP_RULE: Rule = {
  re: new RegExp(
    `(?<![\\w-])(${Object.keys(SWAPS)
      .sort((a, b) => b.length - a.length)
      .join("|")})(?![\\w-])`,
    "gi",
  ),
  to: (m) => SWAPS[m[1].toLowerCase()],
};

/** Keep the case of the first letter of `from` on `to`. */
function matchCase(from: string, to: string): string {
  return /^[A-Z]/.test(from) && /^[a-z]/.test(to) ? to[0].toUpperCase() + to.slice(1) : to;
}

/** Apply rules in order; replaced spans become placeholders so later rules cannot touch them. */
function applyRules(sentence: string, rules: Rule[]): { text: string; fired: number } {
  const saved: string[] = [];
  let s = sentence;
  for (const rule of rules) {
    s = s.replace(rule.re, (...args: unknown[]) => {
      // String.replace passes (match, g1..gn, offset, string); keep match + groups.
      const idx = args.findIndex((a) => typeof a === "number");
      const arr = args.slice(0, idx).map((a) => (a === undefined ? undefined : String(a))) as string[];
      const mm = Object.assign(arr, { index: args[idx] as number, input: s }) as unknown as RegExpExecArray;
      saved.push(matchCase(arr[0], rule.to(mm)));
      return `\u0000${saved.length - 1}\u0000`;
    });
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks the protected spans set aside above (it cannot occur in abstract text)
  return { text: s.replace(/\u0000(\d+)\u0000/g, (_, i) => saved[Number(i)]), fired: saved.length };
}

/**
 * Negate one sentence (no sentence selection).
 * @param sentence one finding sentence
 * @returns the negated sentence (identical when no rule applies) and the mode used
 */
export function negateSentence(sentence: string): { text: string; mode: "significance" | "direction" } {
  if (SIG_CUE.test(sentence)) return { text: applyRules(sentence, SIGNIFICANCE_RULES).text, mode: "significance" };
  const removal = applyRules(sentence, NEGATION_REMOVAL);
  if (removal.fired > 0) return { text: removal.text, mode: "direction" };
  return { text: applyRules(sentence, [SWAP_RULE]).text, mode: "direction" };
}

/** Split "LABEL: text" segments (labels in capitals) of a flattened structured abstract. */
function segments(text: string): { label: string | null; text: string }[] {
  const re = /(?:^|\s)([A-Z][A-Z '&/-]{2,40}):\s/g;
  const marks: { label: string; start: number; bodyStart: number }[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) marks.push({ label: m[1].trim(), start: m.index, bodyStart: m.index + m[0].length });
  if (!marks.some((x) => FINDING_LABEL.test(x.label))) return [{ label: null, text }];
  const out: { label: string | null; text: string }[] = [];
  if (marks[0].start > 0) out.push({ label: null, text: text.slice(0, marks[0].start) });
  marks.forEach((x, i) => out.push({ label: x.label, text: text.slice(x.bodyStart, marks[i + 1]?.start ?? text.length) }));
  return out;
}

/**
 * Negate the findings of an abstract with the documented rules (see the file comment).
 * @param text abstract text (plain, or "LABEL: text" segments)
 * @returns the text rebuilt from its sentences (whitespace normalised; labels kept) and the
 *   changed sentences; `changed` is empty when no rule applied
 */
export function negateAbstract(text: string): NegationResult {
  const segs = segments(text);
  const structured = segs.some((s) => s.label !== null);
  const changed: NegatedSentence[] = [];
  const parts: string[] = [];
  let index = 0;
  let inFindings = false;
  for (const seg of segs) {
    const sentences = splitSentences(seg.text);
    const segIsFinding = structured && seg.label !== null && FINDING_LABEL.test(seg.label);
    const out = sentences.map((sentence) => {
      const i = index++;
      let eligible: boolean;
      if (structured) eligible = segIsFinding;
      else {
        if (!inFindings && !OBJECTIVE.test(sentence) && FINDING_CUE.test(sentence)) inFindings = true;
        eligible = inFindings && !OBJECTIVE.test(sentence);
      }
      if (!eligible) return sentence;
      const r = negateSentence(sentence);
      if (r.text !== sentence) changed.push({ index: i, original: sentence, negated: r.text, mode: r.mode });
      return r.text;
    });
    const body = out.join(" ");
    parts.push(seg.label ? `${seg.label}: ${body}` : body);
  }
  return { text: parts.filter((p) => p.trim()).join(" "), changed };
}

/**
 * Factory of the rule negator (registered as {@link RULE_NEGATOR_ID}).
 * @param config validated by {@link RuleNegatorConfigSchema}
 * @returns an object whose `negate` is {@link negateAbstract}
 * @throws ZodError on an unknown config key
 */
export function createRuleNegator(config: z.input<typeof RuleNegatorConfigSchema> = {}): { id: string; negate: (text: string) => NegationResult } {
  RuleNegatorConfigSchema.parse(config);
  return { id: RULE_NEGATOR_ID, negate: negateAbstract };
}
