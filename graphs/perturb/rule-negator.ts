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
 *   5. "not (statistically) significant(ly)", "non-significant", "insignificant" → "significant(ly)";
 *   6. "was|were|is|are|remained (statistically) significant" → "… not … significant";
 *   7. "(statistically) significantly" → "not (statistically) significantly";
 *   8. "(a) (statistically) significant" → "no (statistically) significant";
 *   9. "(NS)" → "(P < 0.05)";
 *   10. p-values: a significant one ("p < 0.001", "P = 0.03") → "P > 0.05"; a non-significant one
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

const PAST: Record<string, string> = { show: "showed", find: "found", demonstrate: "demonstrated", reveal: "revealed", reach: "reached", achieve: "achieved", observe: "observed", detect: "detected", improve: "improved", reduce: "reduced", increase: "increased", decrease: "decreased", lower: "lowered", raise: "raised", change: "changed", affect: "affected", alter: "altered", prevent: "prevented", worsen: "worsened", support: "supported", differ: "differed" };
const THIRD: Record<string, string> = { show: "shows", find: "finds", demonstrate: "demonstrates", reveal: "reveals", reach: "reaches", achieve: "achieves", observe: "observes", detect: "detects", improve: "improves", reduce: "reduces", increase: "increases", decrease: "decreases", lower: "lowers", raise: "raises", change: "changes", affect: "affects", alter: "alters", prevent: "prevents", worsen: "worsens", support: "supports", differ: "differs" };
/** "did"/"does"/"do" + base verb → positive form in the same tense. */
function conjugate(aux: string, verb: string): string {
  const a = aux.toLowerCase();
  const v = verb.toLowerCase();
  return a === "did" ? PAST[v] ?? `${v}ed` : a === "does" ? THIRD[v] ?? `${v}s` : v;
}

const SIG_CUE = /\bsignifican|\bNS\b|\bp\s*(?:[<>=≤≥]|-value)|\bno (?:\w+ )?differences?\b|\b(?:did|does|do) not differ/i;
const FINDING_CUE = /\bsignifican|\bNS\b|\bp\s*(?:[<>=≤≥]|-value)|\bno (?:\w+ )?differences?\b|\bnot differ|\b(?:found|showed|shows|demonstrated|observed|revealed|associated|conclud\w*|increased|decreased|reduced|higher|lower|improved|worsened|superior|inferior)\b/i;
const OBJECTIVE = /^(?:to |the (?:aim|goal|objective|purpose)|(?:we|this (?:study|trial))\s+(?:aimed|sought|hypothesi[sz]ed|was designed))|\b(?:is|are) (?:warranted|needed)\b|\bfurther (?:research|studies|trials)\b/i;
const FINDING_LABEL = /^(?:results?|findings?|conclusions?|interpretation|main results?|authors'? conclusions?)$/i;

const verbAlt = Object.keys(PAST).join("|");
const SIGNIFICANCE_RULES: Rule[] = [
  { re: /\b(did|does|do) not (show|find|demonstrate|reveal|reach|achieve|observe|detect) (?:a |any )?(statistical(?:ly)? )?(significan(?:t|ce))\b/gi, to: (m) => `${conjugate(m[1], m[2])} ${m[3] ?? ""}${m[4]}` },
  { re: /\b(did|does|do) not differ(?: significantly)?\b/gi, to: (m) => `${conjugate(m[1], "differ")} significantly` },
  { re: /\bno (statistically )?significant\b/gi, to: (m) => `${m[1] ?? ""}significant` },
  { re: /\bno differences\b/gi, to: () => "significant differences" },
  { re: /\bno difference\b/gi, to: () => "a significant difference" },
  { re: /\bnot (statistically )?(significant(?:ly)?)\b/gi, to: (m) => `${m[1] ?? ""}${m[2]}` },
  { re: /\b(?:non-?|in)(significant(?:ly)?)\b/gi, to: (m) => m[1] },
  { re: /\b(was|were|is|are|remained|remains|be|been|became) (statistically )?significant\b(?!ly)/gi, to: (m) => `${m[1]} not ${m[2] ?? ""}significant` },
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
  increased: "decreased", decreased: "increased", increase: "decrease", decrease: "increase", increases: "decreases", decreases: "increases", increasing: "decreasing", decreasing: "increasing",
  reduced: "increased", reduce: "increase", reduces: "increases", reducing: "increasing", reduction: "increase", reductions: "increases",
  higher: "lower", lower: "higher", highest: "lowest", lowest: "highest",
  improved: "worsened", worsened: "improved", improve: "worsen", worsen: "improve", improves: "worsens", worsens: "improves", improvement: "worsening", improvements: "worsening", worsening: "improvement",
  shorter: "longer", longer: "shorter", larger: "smaller", smaller: "larger", greater: "smaller",
  more: "less", less: "more", fewer: "more", better: "worse", worse: "better",
  superior: "inferior", inferior: "superior", "non-inferior": "inferior", noninferior: "inferior",
  beneficial: "harmful", harmful: "beneficial", effective: "ineffective", ineffective: "effective",
};
const SWAP_RULE: Rule = {
  re: new RegExp(`(?<![\\w-])(${Object.keys(SWAPS).sort((a, b) => b.length - a.length).join("|")})(?![\\w-])`, "gi"),
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
