/**
 * Where an abstract names its intervention, comparator and outcome (PICO's I, C, O) — for the
 * `swap` perturbation. Two extractors: documented rules (offline, below) and the LLM through the
 * call layer (prompt `pico-extract`, cached; see {@link createLlmPicoExtractor}). Both return
 * phrases that occur verbatim in the title or the abstract, so a swap can replace them exactly.
 *
 * Rules (title first, then the abstract; the first rule that finds an element wins):
 * - I/C "X versus|vs.|vs Y" — X is read backwards from "versus", Y forwards;
 * - I/C "comparing X with|to|and|versus Y";
 * - I/C "X (was) (as) compared with|to Y";
 * - I/C "either X (…) or Y" (e.g. "randomly assigned to receive either donepezil (10 mg) or placebo");
 * - I "patients receiving|treated with|randomi[sz]ed to|assigned to|allocated to (undergo|receive) X";
 * - O "effect|effects|impact|influence of … on Y", "in terms of Y", "primary outcome|end point was Y",
 *   "(risk|incidence|rate|rates|odds) of Y" (not "rate of patients|such|the …").
 * A phrase runs up to 6 words and stops at punctuation, a line break, or a function word
 * (backwards: of, comparing, between, by, to, after, for, the, a, trial, study …; forwards: for, in (before
 * "patients"/"the"/… for outcomes), on, among, after, following, during, with, was, were, had,
 * a finite verb such as "reduced" …); a leading article
 * or "either" is dropped. A phrase must look like a term ({@link plausibleTerm}): no clause or
 * methods word (was, were, died, these, analysis, patients …), no arm label ("group A"), not
 * starting with a number, not ending in "and"/"of"/….
 *
 * Known misses: elements named only in a sentence shape not above ("Drug X reduced Y" gives no
 * I/C, "Y was lower with X" no O); long names cut at 6 words or at an inner "of"/"in" ("pelvic
 * lymphadenectomy for invasive cervical cancer" ends at "for"); an abbreviation defined later is
 * a different phrase ("high-resolution colonoscopy (HRC)" swaps the long form only); an outcome
 * after "risk of" may be a secondary one. These are measured, not hidden: an abstract where no
 * element is found is recorded as not swapped with that reason.
 */
import { z } from "zod";
import type { ChatModel } from "../../models/types.ts";
import { structuredStep } from "../nodes/model-call.ts";
import { loadWorkflowPrompt, type WorkflowPrompt } from "../nodes/prompts.ts";
import type { RunContext } from "../nodes/run-context.ts";

/** The PICO elements a swap can replace. */
export const PICO_ELEMENTS = ["intervention", "comparator", "outcome"] as const;
/** One of {@link PICO_ELEMENTS}. */
export type PicoElement = (typeof PICO_ELEMENTS)[number];

/** Phrases found for one abstract (absent = not found), with the rule that found each. */
export type PicoTerms = Partial<Record<PicoElement, { text: string; rule: string }>>;

interface Tok {
  s: string;
  start: number;
  end: number;
  word: boolean;
}

function tokens(text: string): Tok[] {
  const out: Tok[] = [];
  for (const m of text.matchAll(/[A-Za-z0-9][\w'’+/-]*(?:\.\d+)?|\n|[^\sA-Za-z0-9]/g)) out.push({ s: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, word: /^[A-Za-z0-9]/.test(m[0]) });
  return out;
}

const BACK_STOP = new Set(
  "of comparing compare compared between by to in on for from after following during among at who the a an and or trial trials study studies randomized randomised controlled effect effects efficacy safety whether if that receive received receiving undergo either versus vs".split(
    " ",
  ),
);
const FWD_STOP = new Set(
  "for on among after following during with without was were is are in at as by from than versus vs compared who which that to or had has have did does do showed shows reduced increased improved decreased may can could would will".split(
    " ",
  ),
);
const OUTCOME_FWD_STOP = new Set("on among after following during with without was were is are at as by from than versus vs compared who which that between and or to".split(" "));
const IN_TAIL = /^(?:patients?|the|those|a|an|all|both|each|children|adults|women|men|subjects|people|participants|infants|elderly|group|groups)$/i;
const LEADING = /^(?:the|a|an|either|both)$/i;
const MAX_WORDS = 6;

/** Phrase ending just before token index `i` (exclusive), read backwards. */
function back(toks: Tok[], i: number, text: string): string | null {
  let j = i - 1;
  let first = -1;
  let n = 0;
  while (j >= 0 && n < MAX_WORDS) {
    const t = toks[j];
    if (!t.word && t.s !== "-") break;
    if (t.word && BACK_STOP.has(t.s.toLowerCase())) break;
    first = j;
    if (t.word) n++;
    j--;
  }
  if (first < 0) return null;
  return text.slice(toks[first].start, toks[i - 1].end).trim() || null;
}

/** Phrase starting at token index `i`, read forwards. */
function fwd(toks: Tok[], i: number, text: string, stops = FWD_STOP): string | null {
  let j = i;
  while (j < toks.length && toks[j].word && LEADING.test(toks[j].s)) j++;
  const first = j;
  let last = -1;
  let n = 0;
  while (j < toks.length && n < MAX_WORDS) {
    const t = toks[j];
    if (!t.word) break;
    const w = t.s.toLowerCase();
    if (stops.has(w)) break;
    if (w === "in" && (stops === OUTCOME_FWD_STOP ? IN_TAIL.test(toks[j + 1]?.s ?? "") : true)) break;
    if (w === "and" && stops === FWD_STOP && n > 0 && toks[j + 1] && /^(?:its|their|in|of)$/i.test(toks[j + 1].s)) break;
    last = j;
    n++;
    j++;
  }
  if (last < first) return null;
  return text.slice(toks[first].start, toks[last].end).trim() || null;
}

/** Drop a leading article / "either" from a backwards phrase. */
function trimLead(p: string | null): string | null {
  if (p === null) return null;
  const t = p.replace(/^(?:(?:the|a|an|either|both)\s+)+/i, "").trim();
  return t || null;
}

const lower = (t: Tok | undefined) => (t ? t.s.toLowerCase() : "");

/** Words that show a phrase is a clause or a methods fragment, not a PICO term. */
const NOT_A_TERM = new Set(
  "was were is are be been being has have had did do does died confirm refute enter evaluate evaluated assigned randomized randomised observed compared these those this that data study studies analysis variance test chi patients patient subjects participants percent because presence who which whether there remains remained results day days baseline efficacy safety prior such only".split(
    " ",
  ),
);

/**
 * Whether a phrase can be a PICO term: starts with a letter, has no clause or methods word
 * ({@link NOT_A_TERM}), is not an arm label ("group A", "arm 2") or a bare generic word ("treatment",
 * "clinical"), and does not end in a
 * conjunction or preposition ("conjugated estrogens and").
 */
export function plausibleTerm(phrase: string): boolean {
  if (!/^[A-Za-z]/.test(phrase)) return false;
  const ws = phrase.toLowerCase().split(/[\s/]+/);
  if (ws.some((w) => NOT_A_TERM.has(w))) return false;
  if (/^(?:group|arm|cohort)\s+\S{1,2}$/i.test(phrase) || /^(?:group|arm|cohort|clinical|incomplete|treatment|therapy|intervention|outcome)$/i.test(phrase)) return false;
  return !/^(?:and|or|of|the|with|to|in|for|plus|a|an)$/.test(ws[ws.length - 1]);
}

/** Rule-based I/C/O of one text (a title or an abstract). */
function extractFrom(text: string): PicoTerms {
  const out: PicoTerms = {};
  const set = (k: PicoElement, v: string | null, rule: string) => {
    if (!out[k] && v && plausibleTerm(v)) out[k] = { text: v, rule };
  };
  const toks = tokens(text);
  for (let i = 0; i < toks.length; i++) {
    const w = lower(toks[i]);
    // X versus Y / X vs. Y
    if (w === "versus" || w === "vs") {
      const after = toks[i + 1]?.s === "." ? i + 2 : i + 1;
      set("intervention", trimLead(back(toks, i, text)), "versus");
      set("comparator", fwd(toks, after, text), "versus");
    }
    // comparing X with|to|and|versus Y
    if (w === "comparing") {
      const start = i + 1;
      let k = start;
      while (k < toks.length && toks[k].word && !/^(?:with|to|and|versus|vs)$/i.test(toks[k].s) && k - start < MAX_WORDS) k++;
      if (k < toks.length && /^(?:with|to|and|versus|vs)$/i.test(toks[k].s) && k > start) {
        set("intervention", trimLead(text.slice(toks[start].start, toks[k - 1].end)), "comparing");
        set("comparator", fwd(toks, k + 1, text), "comparing");
      }
    }
    // X (was) (as) compared with|to Y
    if (w === "compared" && /^(?:with|to)$/.test(lower(toks[i + 1]))) {
      let end = i;
      if (lower(toks[end - 1]) === "as") end--;
      if (/^(?:was|were|is|are)$/.test(lower(toks[end - 1]))) end--;
      if (toks[end - 1]?.s === ",") end--;
      set("intervention", trimLead(back(toks, end, text)), "compared with");
      set("comparator", fwd(toks, i + 2, text), "compared with");
    }
    // either X (…) or Y
    if (w === "either") {
      const x = fwd(toks, i + 1, text);
      let k = i + 1;
      while (k < toks.length && toks[k].word && lower(toks[k]) !== "or") k++;
      if (toks[k]?.s === "(") while (k < toks.length && toks[k].s !== ")") k++;
      if (toks[k]?.s === ")") k++;
      if (lower(toks[k]) === "or" && x) {
        set("intervention", x, "either-or");
        set("comparator", fwd(toks, k + 1, text), "either-or");
      }
    }
    // patients receiving / treated with / randomised to / assigned to X
    if (
      (w === "receiving" || (w === "with" && lower(toks[i - 1]) === "treated") || (w === "to" && /^(?:randomi[sz]ed|assigned|allocated)$/.test(lower(toks[i - 1])))) &&
      !/^(?:either|one|two|three|a|an|the|groups?|arms?)$/.test(lower(toks[i + 1]))
    ) {
      set("intervention", fwd(toks, /^(?:undergo|receive)$/.test(lower(toks[i + 1])) ? i + 2 : i + 1, text), "receiving");
    }
    // outcomes
    if ((w === "effect" || w === "effects" || w === "impact" || w === "influence") && lower(toks[i + 1]) === "of") {
      let k = i + 2;
      while (k < toks.length && toks[k].word && lower(toks[k]) !== "on" && k - i < 10) k++;
      if (lower(toks[k]) === "on") set("outcome", fwd(toks, k + 1, text, OUTCOME_FWD_STOP), "effect of … on");
    }
    if (w === "terms" && lower(toks[i - 1]) === "in" && lower(toks[i + 1]) === "of") set("outcome", fwd(toks, i + 2, text, OUTCOME_FWD_STOP), "in terms of");
    if (
      (w === "outcome" || w === "endpoint" || (w === "point" && lower(toks[i - 1]) === "end")) &&
      /^(?:was|were)$/.test(lower(toks[i + 1])) &&
      /primary/.test(text.slice(Math.max(0, toks[i].start - 20), toks[i].start).toLowerCase())
    ) {
      set("outcome", fwd(toks, i + 2, text, OUTCOME_FWD_STOP), "primary outcome was");
    }
    if (
      /^(?:risk|incidence|rate|rates|odds)$/.test(w) &&
      lower(toks[i + 1]) === "of" &&
      toks[i + 2]?.word &&
      !/^(?:patients|the|a|an|this|these|those|such|bias|randomi[sz]ed|studies|trials)$/i.test(toks[i + 2].s)
    )
      set("outcome", fwd(toks, i + 2, text, OUTCOME_FWD_STOP), "risk of");
  }
  return out;
}

/**
 * Rule-based PICO terms of an abstract (see the file comment): elements found in the title win
 * over those of the abstract text.
 * @returns the found elements, each a verbatim phrase of the title or the text
 */
export function extractPicoRules(title: string, text: string): PicoTerms {
  const t = extractFrom(title);
  const a = extractFrom(text);
  const out: PicoTerms = {};
  for (const k of PICO_ELEMENTS) {
    const v = t[k] ?? a[k];
    if (v) out[k] = v;
  }
  // a comparator equal to the intervention is no comparator
  if (out.comparator && out.intervention && out.comparator.text.toLowerCase() === out.intervention.text.toLowerCase()) delete out.comparator;
  return out;
}

/** Structured answer of the LLM extractor. */
export const PicoAnswerSchema = z.object({
  intervention: z.string().nullable(),
  comparator: z.string().nullable(),
  outcome: z.string().nullable(),
});

/** A PICO extractor: rules (sync) or the LLM (through a run context). */
export interface PicoExtractor {
  readonly id: "rule" | "llm";
  extract(passage: { title: string; text: string }, run?: RunContext): Promise<PicoTerms>;
}

/** The rule extractor as a {@link PicoExtractor}. */
export const rulePicoExtractor: PicoExtractor = { id: "rule", extract: async (p) => extractPicoRules(p.title, p.text) };

/**
 * LLM PICO extractor (prompt `pico-extract`, structured answer, cached by the call layer). A
 * phrase the model returns that is not verbatim (case-insensitive) in the title or abstract is
 * dropped, so a swap never "replaces" text that is not there.
 * @throws StepFailure when the call fails; Error without a run context
 */
export function createLlmPicoExtractor(model: ChatModel, promptDir?: string): PicoExtractor & { prompt: WorkflowPrompt } {
  const prompt = loadWorkflowPrompt("pico-extract", promptDir);
  return {
    id: "llm",
    prompt,
    async extract(p, run) {
      if (!run) throw new Error("pico-extract: the LLM extractor needs a run context");
      const a = await structuredStep(run, model, "pico", prompt, { title: p.title, abstract: p.text }, PicoAnswerSchema, "pico_terms");
      const hay = `${p.title}\n${p.text}`.toLowerCase();
      const out: PicoTerms = {};
      for (const k of PICO_ELEMENTS) {
        const v = a[k]?.trim();
        if (v && hay.includes(v.toLowerCase())) out[k] = { text: v, rule: "llm" };
      }
      return out;
    },
  };
}
