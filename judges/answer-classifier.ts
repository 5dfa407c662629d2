/**
 * Answer-level judges for MedEvidence: map a generated conclusion to one answer class
 * (higher / lower / no difference / uncertain effect / insufficient data), then score accuracy
 * against the gold answer, overall and per GRADE certainty. Two classifiers:
 * - `llm-answer-classifier` — a chat model with a structured answer (template
 *   `judges/prompts/answer-classifier.md`); unparseable after bounded attempts → `missing`.
 * - `lexical-direction` — an offline rule-based lexical classifier (cue phrases with negation and
 *   hedging rules). It is a transparent baseline named for what it is, not a model.
 * The same direction classes are checked against the MSLR experts' effect-direction labels
 * ({@link directionAgreement}).
 *
 * @see MedEvidence (med-evidence-abstract.jsonl: answer, evidence_certainty); MedMeta §2 (MedEvidence);
 *   Wang et al. 2023 (MSLR annotation study: effect direction −1/0/+1).
 */
import { isConflictError } from "../models/structured.ts";
import { z } from "zod";
import type { CallInfo, ChatModel } from "../models/types.ts";
import { mergeCalls } from "../models/usage.ts";
import { EVIDENCE_ANSWERS, type EvidenceAnswer } from "../corpus/types.ts";
import type { RunRecord } from "../results/run-record.ts";
import { extractJsonObject, loadJudgeTemplate, renderJudgeTemplate, type JudgeTemplate } from "./judge.ts";

/** Id of the LLM classifier (structured answer through the model layer). */
export const LLM_ANSWER_CLASSIFIER_ID = "llm-answer-classifier";
/** Id of the offline rule-based lexical direction classifier. */
export const LEXICAL_DIRECTION_ID = "lexical-direction";

/** What one classification produced. `label` is null only when `status` is "missing". */
export interface AnswerClassification {
  classifierId: string;
  label: EvidenceAnswer | null;
  status: "ok" | "missing";
  /** LLM: the model's explanation; lexical: the rule and the sentence that decided. */
  rationale?: string;
  raw?: string;
  error?: string;
  call?: CallInfo;
}

/** A conclusion → answer-class classifier. */
export interface AnswerClassifier {
  readonly id: string;
  readonly kind: "llm" | "lexical";
  /** Classify one conclusion; never throws for model failures (they become `missing`). */
  classify(input: { conclusion: string; question?: string | null }, opts?: { signal?: AbortSignal }): Promise<AnswerClassification>;
}

// ---------------------------------------------------------------------------------------------
// Lexical classifier

/** Settings of the lexical classifier. */
export const LexicalDirectionConfigSchema = z
  .object({
    /** Label when no cue is found (default "uncertain effect": the text commits to nothing). */
    fallback: z.enum(EVIDENCE_ANSWERS).default("uncertain effect"),
  })
  .strict();
/** What a caller may pass for {@link LexicalDirectionConfigSchema} (keys with defaults are optional). */
export type LexicalDirectionConfig = z.input<typeof LexicalDirectionConfigSchema>;

const IMPORTANT = "(?:statistically |clinically )?(?:significant(?:ly)? |clear(?:ly)? |important |meaningful |appreciable |relevant |obvious |substantial )?";
const DIR_VERBS = "(?:differ|reduce|increase|improve|decrease|lower|raise|change|affect|alter|prevent|worsen)";
/** Ordered rules: the first sentence with any cue decides; within it, earlier rules win. */
const RULES: { label: EvidenceAnswer; name: string; re: RegExp }[] = [
  {
    label: "insufficient data",
    name: "insufficient-data",
    re: new RegExp(
      [
        "\\b(?:insufficient|inadequate|not enough|too (?:little|few)|scarce|limited) (?:high[- ]quality |reliable |good[- ]quality )?(?:evidence|data|information|trials|studies|research)",
        "\\bno (?:eligible |relevant |randomi[sz]ed |included |suitable )?(?:studies|trials|rcts|data|evidence) (?:were |was |have been |has been )?(?:found|identified|available|included|reported|eligible)",
        "\\b(?:did not|could not|were unable to|was unable to|unable to) (?:find|identify|include) any",
        "\\b(?:lack|absence|paucity|dearth) of (?:\\w+ ){0,2}(?:evidence|data|trials|studies)",
        "\\bno (?:\\w+ ){0,2}(?:studies|trials) (?:met|reported|assessed|measured)",
        "\\b(?:evidence|data) (?:is|are|was|were|remain|remains) (?:lacking|absent|insufficient|sparse)",
        "\\b(?:not|no) (?:possible|able) to (?:draw|reach|make) (?:any |firm )?conclusions?",
        "\\bno conclusions? (?:can|could) be (?:drawn|made|reached)",
      ].join("|"),
      "i",
    ),
  },
  {
    label: "uncertain effect",
    name: "uncertain",
    re: /\b(?:(?:very )?uncertain(?:ty about| whether| if)?|unclear (?:whether|if)|it is unclear|inconclusive|very low[- ](?:certainty|quality)|may (?:or may not|have little or no)|cannot (?:be )?(?:ruled? out|determine|say|conclude)|not (?:be )?possible to (?:determine|say|conclude|tell)|conflicting (?:evidence|results))/i,
  },
  {
    label: "no difference",
    name: "no-difference",
    re: new RegExp(
      [
        `\\b(?:no|little or no|little to no|without(?: any| a)?) ${IMPORTANT}(?:difference|differences|effect|effects|benefit|change|association|impact|increase|decrease|reduction|improvement)`,
        `\\b(?:did|does|do|was|were|is|are|could|can) not (?:statistically |significantly |clearly |appreciably |meaningfully |substantially )*${DIR_VERBS}`,
        "\\bnot (?:statistically |significantly )*(?:different|associated|superior|inferior|better|worse)",
        "\\b(?:similar|comparable|equivalent|non-?inferior|equally effective)\\b",
        "\\bneither\\b.*\\bnor\\b",
        "\\bma(?:de|kes?) (?:little|no) (?:or no )?difference",
        "\\bno (?:\\w+ ){0,2}evidence (?:of (?:an? )?(?:\\w+ )?(?:effect|benefit|difference)|that|to (?:support|show|suggest))",
        "\\b(?:did not|does not|do not|failed to) (?:find|show|demonstrate|support|produce|provide)",
        "\\bnot (?:be )?(?:sufficient|effective|beneficial)",
      ].join("|"),
      "i",
    ),
  },
  {
    label: "higher",
    name: "higher",
    re: /\b(?:increas(?:e|es|ed|ing)|higher|more (?:\w+ )?(?:likely|frequent|often|common|effective)|greater|improv(?:e|es|ed|ing|ement)|rais(?:e|es|ed)|elevat(?:e|es|ed)|enhanc(?:e|es|ed)|boost(?:s|ed)?|prolong(?:s|ed)?|doubl(?:e|es|ed))\b/i,
  },
  {
    label: "lower",
    name: "lower",
    re: /\b(?:reduc(?:e|es|ed|ing|tion|tions)|lower(?:s|ed)?|decreas(?:e|es|ed|ing)|fewer|less (?:\w+ )?(?:likely|frequent|often|common)|declin(?:e|es|ed)|diminish(?:es|ed)?|prevent(?:s|ed|ing|ion)?|shorten(?:s|ed)?|cut(?:s)?|halv(?:e|es|ed))\b/i,
  },
  {
    // A claim of benefit or harm with no rate direction in the same sentence (e.g. "X is
    // effective"): read as more of the beneficial outcome. Applies only when no higher/lower cue
    // is present, so explicit directions win.
    label: "higher",
    name: "benefit-claim",
    re: /\b(?:effective|efficacious|efficacy|beneficial|benefits?|better|superior|preferable|advantage(?:s|ous)?)\b/i,
  },
];

/** Split text into sentences (on . ! ? followed by space and a capital/digit, or newlines). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9(])|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Rule-based lexical classification of one conclusion (synchronous core of `lexical-direction`).
 * Sentences are read in order; the first sentence containing any cue decides. Within a sentence
 * the rules apply in precedence: insufficient data > uncertain effect > no difference (including
 * negated direction verbs such as "did not reduce", "no evidence of benefit") > higher/lower
 * (whichever explicit cue comes first) > a bare claim of benefit ("is effective") → higher.
 * @returns the label and the deciding rule + sentence
 */
export function classifyDirectionLexically(conclusion: string, fallback: EvidenceAnswer = "uncertain effect"): { label: EvidenceAnswer; rule: string; sentence: string | null } {
  for (const sentence of splitSentences(conclusion)) {
    const hits = RULES.map((r) => ({ r, m: r.re.exec(sentence) })).filter((h) => h.m);
    if (!hits.length) continue;
    const top = hits[0];
    if (top.r.label === "higher" || top.r.label === "lower") {
      const explicit = hits.filter((h) => h.r.name === "higher" || h.r.name === "lower");
      const dir = (explicit.length ? explicit : hits).sort((a, b) => a.m!.index - b.m!.index)[0];
      return { label: dir.r.label, rule: dir.r.name, sentence };
    }
    return { label: top.r.label, rule: top.r.name, sentence };
  }
  return { label: fallback, rule: "fallback", sentence: null };
}

/**
 * Create the offline `lexical-direction` classifier.
 * @param config {@link LexicalDirectionConfigSchema}
 */
export function createLexicalDirectionClassifier(config: LexicalDirectionConfig = {}): AnswerClassifier {
  const cfg = LexicalDirectionConfigSchema.parse(config);
  return {
    id: LEXICAL_DIRECTION_ID,
    kind: "lexical",
    async classify({ conclusion }) {
      const r = classifyDirectionLexically(conclusion, cfg.fallback);
      return { classifierId: LEXICAL_DIRECTION_ID, label: r.label, status: "ok", rationale: `${r.rule}${r.sentence ? `: ${r.sentence}` : ""}` };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// LLM classifier

/** Settings of the LLM classifier. */
export const LlmAnswerClassifierConfigSchema = z
  .object({
    /** Template id or path (default `answer-classifier`). */
    template: z.string().min(1).default("answer-classifier"),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().positive().optional(),
    attempts: z.number().int().min(1).max(5).default(2),
    /** Per-HTTP-attempt timeout in ms; unset = the endpoint's `timeoutMs`. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
/** What a caller may pass for {@link LlmAnswerClassifierConfigSchema} (keys with defaults are optional). */
export type LlmAnswerClassifierConfig = z.input<typeof LlmAnswerClassifierConfigSchema>;

/** Structured answer of the LLM classifier. */
export const AnswerClassSchema = z.object({ rationale: z.string(), answer: z.enum(EVIDENCE_ANSWERS) }).strict();

/**
 * Create the `llm-answer-classifier`.
 * @param config {@link LlmAnswerClassifierConfigSchema}
 * @param deps the chat model; optionally a preloaded template
 * @throws Error for an invalid config or template
 */
export function createLlmAnswerClassifier(config: LlmAnswerClassifierConfig, deps: { model: ChatModel; template?: JudgeTemplate }): AnswerClassifier {
  const cfg = LlmAnswerClassifierConfigSchema.parse(config);
  const template = deps.template ?? loadJudgeTemplate(cfg.template);
  const labels = EVIDENCE_ANSWERS.map((a) => `- ${a}`).join("\n");
  return {
    id: LLM_ANSWER_CLASSIFIER_ID,
    kind: "llm",
    async classify({ conclusion, question }, opts = {}) {
      const messages = renderJudgeTemplate(template, { question: question ?? "(not given)", candidate: conclusion, labels });
      let raw: string | null = null;
      let error = "no attempt made";
      // Every attempt's tokens count (one merged record, as judges do), not only the last one's.
      const calls: CallInfo[] = [];
      const merged = (): CallInfo | undefined => (calls.length ? mergeCalls(calls) : undefined);
      for (let attempt = 1; attempt <= cfg.attempts; attempt++) {
        try {
          const res = await deps.model.structured(messages, AnswerClassSchema, {
            meta: { promptId: template.id, promptVersion: template.version },
            params: { temperature: cfg.temperature, ...(cfg.maxTokens ? { maxTokens: cfg.maxTokens } : {}) },
            ...(cfg.timeoutMs !== undefined ? { timeoutMs: cfg.timeoutMs } : {}),
            ...(opts.signal ? { signal: opts.signal } : {}),
            schemaName: "answer_class",
          });
          calls.push(res.call);
          if (res.ok) return { classifierId: LLM_ANSWER_CLASSIFIER_ID, label: res.value.answer, status: "ok", rationale: res.value.rationale, call: merged()! };
          error = res.error;
          if (res.raw !== null) raw = res.raw;
          // several different valid answers: none is picked (the call layer re-asked already)
          if (isConflictError(res.error)) break;
          if (res.raw !== null) {
            const rec = AnswerClassSchema.safeParse(extractJsonObject(res.raw));
            if (rec.success) return { classifierId: LLM_ANSWER_CLASSIFIER_ID, label: rec.data.answer, status: "ok", rationale: rec.data.rationale, call: merged()! };
          }
        } catch (err) {
          error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        }
        if (opts.signal?.aborted) break;
      }
      const call = merged();
      return { classifierId: LLM_ANSWER_CLASSIFIER_ID, label: null, status: "missing", ...(raw !== null ? { raw } : {}), error, ...(call ? { call } : {}) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Accuracy

/** One scored item: gold answer, predicted class (null = classifier missing) and GRADE certainty. */
export interface AnswerRow {
  itemId?: string;
  gold: EvidenceAnswer;
  predicted: EvidenceAnswer | null;
  /** GRADE certainty ("high", "moderate", "low", "very low"); empty/null → "unspecified". */
  certainty: string | null;
}

/** Accuracy of one group. */
export interface AccuracyCell {
  n: number;
  correct: number;
  /** Predictions that were missing (counted as wrong in `accuracy`). */
  missing: number;
  /** correct / n — missing predictions count as wrong, never dropped. */
  accuracy: number | null;
  /** correct / (n − missing): accuracy over the items the classifier answered. */
  accuracyAnswered: number | null;
}

/** Overall and per-certainty accuracy. */
export interface AnswerAccuracy {
  overall: AccuracyCell;
  byCertainty: Record<string, AccuracyCell>;
  /** gold → predicted ("missing" for null) → count. */
  confusion: Record<string, Record<string, number>>;
}

/**
 * Answer accuracy overall and per GRADE certainty (MedEvidence).
 * @param rows scored items
 * @returns accuracy cells; a group with n = 0 has null accuracies
 */
export function answerAccuracy(rows: AnswerRow[]): AnswerAccuracy {
  const cell = (): AccuracyCell => ({ n: 0, correct: 0, missing: 0, accuracy: null, accuracyAnswered: null });
  const overall = cell();
  const byCertainty: Record<string, AccuracyCell> = {};
  const confusion: Record<string, Record<string, number>> = {};
  for (const r of rows) {
    const key = r.certainty && r.certainty.trim() ? r.certainty.trim().toLowerCase() : "unspecified";
    for (const c of [overall, (byCertainty[key] ??= cell())]) {
      c.n++;
      if (r.predicted === null) c.missing++;
      else if (r.predicted === r.gold) c.correct++;
    }
    const row = (confusion[r.gold] ??= {});
    const p = r.predicted ?? "missing";
    row[p] = (row[p] ?? 0) + 1;
  }
  for (const c of [overall, ...Object.values(byCertainty)]) {
    c.accuracy = c.n ? c.correct / c.n : null;
    c.accuracyAnswered = c.n - c.missing ? c.correct / (c.n - c.missing) : null;
  }
  return { overall, byCertainty, confusion };
}

/**
 * Classify the outputs of MedEvidence run records and pair them with their gold answers.
 * Reads `itemMeta.referenceAnswer` (gold class) and `itemMeta.evidenceCertainty` (GRADE); a
 * record without a valid gold answer is skipped and counted; a failed record (no output) is a
 * missing prediction.
 * @returns rows for {@link answerAccuracy}, the classifications by record key, and skip counts
 */
export async function classifyRecords(
  records: RunRecord[],
  classifier: AnswerClassifier,
  opts: { signal?: AbortSignal } = {},
): Promise<{ rows: AnswerRow[]; classifications: Record<string, AnswerClassification>; skipped: { noGoldAnswer: number } }> {
  const rows: AnswerRow[] = [];
  const classifications: Record<string, AnswerClassification> = {};
  let noGold = 0;
  for (const rec of records) {
    const gold = rec.itemMeta?.referenceAnswer;
    if (typeof gold !== "string" || !(EVIDENCE_ANSWERS as readonly string[]).includes(gold)) {
      noGold++;
      continue;
    }
    const cert = rec.itemMeta?.evidenceCertainty;
    let predicted: EvidenceAnswer | null = null;
    if (rec.status === "ok" && typeof rec.output === "string" && rec.output.trim()) {
      const q = rec.itemMeta?.question;
      const c = await classifier.classify({ conclusion: rec.output, question: typeof q === "string" ? q : null }, opts);
      classifications[rec.key] = c;
      predicted = c.label;
    }
    rows.push({ itemId: rec.itemId, gold: gold as EvidenceAnswer, predicted, certainty: typeof cert === "string" ? cert : null });
  }
  return { rows, classifications, skipped: { noGoldAnswer: noGold } };
}

// ---------------------------------------------------------------------------------------------
// MSLR check

/** Coarse effect direction shared by MedEvidence classes and the MSLR experts' labels. */
export type CoarseDirection = "effect" | "no effect" | "unspecified";

/**
 * Map an answer class to the coarse direction the MSLR experts rated: higher/lower → "effect"
 * (MSLR's +1/−1 rate benefit vs harm, which a rate direction alone cannot tell), no difference →
 * "no effect", uncertain effect / insufficient data → "unspecified" (MSLR "N/A: no effect
 * direction is specified").
 */
export function coarseDirectionOfAnswer(a: EvidenceAnswer): CoarseDirection {
  return a === "higher" || a === "lower" ? "effect" : a === "no difference" ? "no effect" : "unspecified";
}

/**
 * Map an MSLR expert effect-direction rating (value −1/0/+1, or status not-applicable) to the
 * coarse direction; "other"/"missing" ratings → null (excluded and counted).
 */
export function coarseDirectionOfExpert(rating: { value: number | null; status: string }): CoarseDirection | null {
  if (rating.status === "not-applicable") return "unspecified";
  if (rating.status !== "rated" || rating.value === null) return null;
  return rating.value === 0 ? "no effect" : "effect";
}

/** Agreement of a classifier's coarse direction with expert labels. */
export interface DirectionAgreement {
  n: number;
  agree: number;
  accuracy: number | null;
  /** Expert labels that were "other"/missing, or predictions missing — left out and counted. */
  excluded: number;
  /** expert → predicted → count. */
  confusion: Record<string, Record<string, number>>;
}

/**
 * Agreement between predicted answer classes (coarsened) and expert effect-direction ratings.
 * @param pairs predicted class (null = missing) and the expert rating of the same text
 */
export function directionAgreement(pairs: { predicted: EvidenceAnswer | null; expert: { value: number | null; status: string } }[]): DirectionAgreement {
  const out: DirectionAgreement = { n: 0, agree: 0, accuracy: null, excluded: 0, confusion: {} };
  for (const p of pairs) {
    const e = coarseDirectionOfExpert(p.expert);
    if (e === null || p.predicted === null) {
      out.excluded++;
      continue;
    }
    const g = coarseDirectionOfAnswer(p.predicted);
    out.n++;
    if (g === e) out.agree++;
    const row = (out.confusion[e] ??= {});
    row[g] = (row[g] ?? 0) + 1;
  }
  out.accuracy = out.n ? out.agree / out.n : null;
  return out;
}
