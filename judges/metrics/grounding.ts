/**
 * Grounding of a generated text in its evidence — the offline lexical-entailment baseline of the
 * robustness suite (issue 15) — and numeric fidelity (RWESummary).
 *
 * Grounding: the output is split into sentences; each sentence's content words (lower-cased,
 * stop words removed) are compared with every evidence sentence; its support is the best share of
 * its content words found in one evidence sentence. A sentence is *supported* when that share is
 * ≥ `threshold` (default 0.5), else *unsupported*. A supported sentence *takes up a perturbation*
 * when its best evidence sentence carries a perturbed span (≥ 90 % of the words of the `after`
 * text of a recorded change) and it shares more words with that span than with the original
 * (`before`). Reported: share of
 * sentences supported, share taking up a perturbation, count unsupported. Lexical overlap is a
 * baseline, not entailment: a negated copy shares most words with its original, which is exactly
 * why uptake compares against both versions.
 *
 * Numeric fidelity: every number in the output (years 1900–2099 and the "95" of "95% CI" excluded)
 * is *exact* (a source number with the same value), *rounded* (a source number rounds to it at
 * the output's decimals), *altered* (it matches only a number of a perturbed span) or *invented*.
 */
import { splitSentences } from "../answer-classifier.ts";

const STOP = new Set(
  "a an the of and or in on to with for was were is are be been by at from as that this these those than not no but it its their there which who whom whose we our they them he she his her also may might can could would should will".split(
    " ",
  ),
);

/** Content words of a text (lower case, stop words removed). */
export function contentWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9][a-z0-9.-]*/g) ?? []).map((w) => w.replace(/\.$/, "")).filter((w) => w && !STOP.has(w)));
}

function coverage(sentence: Set<string>, other: Set<string>): number {
  if (sentence.size === 0) return 0;
  let n = 0;
  for (const w of sentence) if (other.has(w)) n++;
  return n / sentence.size;
}

/** A perturbed span: the text after the change and before it. */
export interface PerturbedSpan {
  before: string;
  after: string;
}

/** Result of {@link lexicalGrounding}. */
export interface GroundingResult {
  sentences: number;
  supportedShare: number | null;
  uptakeShare: number | null;
  unsupported: number;
  perSentence: { sentence: string; support: number; evidence: string | null; uptake: boolean }[];
}

/**
 * Lexical grounding of `output` in `evidence` texts.
 * @param spans the perturbation changes recorded on the run (may be empty)
 * @returns shares over the output's sentences; null shares when the output has no sentence
 */
export function lexicalGrounding(output: string, evidence: readonly string[], spans: readonly PerturbedSpan[] = [], threshold = 0.5): GroundingResult {
  const evSentences = evidence.flatMap((t) => splitSentences(t)).map((s) => ({ s, w: contentWords(s) }));
  const spanAfter = spans.filter((c) => c.after).map((c) => ({ after: contentWords(c.after), before: contentWords(c.before), text: c.after }));
  const perSentence = splitSentences(output)
    .map((sentence) => ({ sentence, w: contentWords(sentence) }))
    .filter((x) => x.w.size > 0)
    .map(({ sentence, w }) => {
      let best = 0;
      let bestText: string | null = null;
      for (const e of evSentences) {
        const c = coverage(w, e.w);
        if (c > best) [best, bestText] = [c, e.s];
      }
      let uptake = false;
      if (best >= threshold && bestText !== null) {
        const bestWords = contentWords(bestText);
        for (const sp of spanAfter) {
          const isSpan = coverage(sp.after, bestWords) >= 0.9; // the evidence sentence carries the perturbed span
          if (isSpan && coverage(w, sp.after) > coverage(w, sp.before)) uptake = true;
        }
      }
      return { sentence, support: best, evidence: bestText, uptake };
    });
  const n = perSentence.length;
  const supported = perSentence.filter((p) => p.support >= threshold).length;
  return { sentences: n, supportedShare: n ? supported / n : null, uptakeShare: n ? perSentence.filter((p) => p.uptake).length / n : null, unsupported: n - supported, perSentence };
}

const NUMBER_RE = /(?<![\w.])[-−]?\d+(?:\.\d+)?/g;

/** Numbers of a text as written (years 1900–2099 and the 95 of "95% CI" dropped). */
export function numbersIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    const s = m[0].replace("−", "-");
    const after = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 12);
    if (/^(19|20)\d\d$/.test(s)) continue;
    if (s === "95" && /^\s*%\s*(CI|confidence)/i.test(after)) continue;
    out.push(s);
  }
  return out;
}

/** Classification counts of {@link numericFidelity}. */
export interface NumericFidelity {
  total: number;
  exact: number;
  rounded: number;
  altered: number;
  invented: number;
  /** (exact + rounded) / total; null when the output has no number. */
  fidelity: number | null;
  perNumber: { value: string; kind: "exact" | "rounded" | "altered" | "invented" }[];
}

/**
 * Classify the numbers of `output` against the numbers of `source`.
 * @param alteredSpans texts of perturbed spans (`after`); numbers found only there are "altered"
 */
export function numericFidelity(output: string, source: string, alteredSpans: readonly string[] = []): NumericFidelity {
  const src = numbersIn(source).map(Number);
  const altered = new Set(alteredSpans.flatMap(numbersIn).map(Number));
  const perNumber = numbersIn(output).map((value) => {
    const v = Number(value);
    const d = value.includes(".") ? value.split(".")[1].length : 0;
    let kind: "exact" | "rounded" | "altered" | "invented";
    if (altered.has(v) && !src.includes(v)) kind = "altered";
    else if (src.includes(v)) kind = "exact";
    else if (src.some((x) => Number(x.toFixed(d)) === v)) kind = "rounded";
    else kind = "invented";
    return { value, kind };
  });
  const count = (k: string) => perNumber.filter((p) => p.kind === k).length;
  const total = perNumber.length;
  return {
    total,
    exact: count("exact"),
    rounded: count("rounded"),
    altered: count("altered"),
    invented: count("invented"),
    fidelity: total ? (count("exact") + count("rounded")) / total : null,
    perNumber,
  };
}
