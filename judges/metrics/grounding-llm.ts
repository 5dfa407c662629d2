/**
 * Grounding of a generated text in its evidence by an LLM judge — the model-backed counterpart of
 * the lexical baseline in grounding.ts (robustness suite, issue 15), metric spec `grounding:llm`.
 *
 * The output is split into sentences ("claims", as the lexical baseline does; sentences without
 * a content word are dropped), the evidence into numbered sentences tagged with their passage id.
 * The judge (rubric `judges/rubrics/grounding-attribution.yaml`, template
 * `judges/prompts/grounding-attribution.md`, temperature 0, structured answer) gives every claim a
 * verdict — supported or unsupported — and the evidence sentences it rests on. From that:
 * - supported share = supported claims / claims;
 * - perturbation uptake = claims that are supported and cite at least one *perturbed* evidence
 *   sentence / claims; an evidence sentence is perturbed when it contains the `after` text of a
 *   recorded perturbation change or lies inside it (the same spans the lexical baseline uses);
 * - unsupported = claims judged unsupported.
 * The result has the shape of {@link GroundingResult}. An answer that does not parse, skips or
 * repeats a claim, cites a sentence number that does not exist, or marks a claim supported without
 * citing anything is re-asked with the problem named (`attempts` calls in all, default 2; an answer
 * that does not parse is retried as is) and then reported as `missing` with the raw
 * answer and the reason — never as a default share. Every attempt's call (tokens) is returned.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { readConfigValue } from "../../models/config-file.ts";
import type { CallInfo, ChatModel } from "../../models/types.ts";
import { parseStructuredAnswer } from "../../models/structured.ts";
import { splitSentences } from "../answer-classifier.ts";
import { loadJudgeTemplate, renderJudgeTemplate, type JudgeTemplate } from "../judge.ts";
import { contentWords, type GroundingResult, type PerturbedSpan } from "./grounding.ts";

/** Metric spec of the LLM grounding judge (`grounding:llm` or `grounding:llm@openai:<model>`). */
export const LLM_GROUNDING_SPEC = "grounding:llm";

/** Path of the built-in attribution rubric. */
export const GROUNDING_RUBRIC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "..", "rubrics", "grounding-attribution.yaml");

/** An attribution rubric file (verdict labels and rules, not scored dimensions). */
export const AttributionRubricSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
    version: z.union([z.string().min(1), z.number()]).transform(String),
    title: z.string().min(1),
    description: z.string().min(1),
    source: z.string().optional(),
    /** Judge prompt template: an id in judges/prompts/ or a path. */
    prompt: z.string().min(1),
    verdicts: z
      .array(z.object({ id: z.enum(["supported", "unsupported"]), description: z.string().min(1) }).strict())
      .length(2)
      .refine((v) => new Set(v.map((x) => x.id)).size === 2, "verdicts must define supported and unsupported once each"),
    instructions: z.array(z.string().min(1)).default([]),
  })
  .strict();
/** A validated attribution rubric. */
export type AttributionRubric = z.output<typeof AttributionRubricSchema>;

/**
 * Load an attribution rubric (default: the built-in one).
 * @throws Error naming the file and the invalid field
 */
export function loadAttributionRubric(path = GROUNDING_RUBRIC_PATH): AttributionRubric {
  const r = AttributionRubricSchema.safeParse(readConfigValue(path, "grounding rubric"));
  if (!r.success) throw new Error(`grounding rubric ${path}: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  return r.data;
}

/** The judge's structured answer. */
export const AttributionAnswerSchema = z.object({
  claims: z.array(
    z.object({
      claim: z.number().int(),
      verdict: z.enum(["supported", "unsupported"]),
      evidence: z.array(z.number().int()),
    }),
  ),
});
/** {@link AttributionAnswerSchema} after parsing. */
export type AttributionAnswer = z.infer<typeof AttributionAnswerSchema>;

/** Outcome of {@link llmGrounding}: a result, or missing with the reason and the raw answer. */
export type LlmGroundingOutcome =
  | { status: "ok"; result: Omit<GroundingResult, "perSentence"> & { perSentence: (GroundingResult["perSentence"][number] & { cited: number[] })[] }; calls: CallInfo[]; attempts: number }
  | { status: "missing"; error: string; raw: string | null; calls: CallInfo[]; attempts: number };

/**
 * Why an answer cannot be used for `nClaims` claims and `nEvidence` evidence sentences, or null
 * when it can: every claim 1..n exactly once, cited numbers within 1..m, supported ⇒ cites ≥ 1.
 */
export function attributionProblem(a: AttributionAnswer, nClaims: number, nEvidence: number): string | null {
  const seen = new Set<number>();
  for (const c of a.claims) {
    if (c.claim < 1 || c.claim > nClaims) return `claim ${c.claim} does not exist (1–${nClaims})`;
    if (seen.has(c.claim)) return `claim ${c.claim} answered twice`;
    seen.add(c.claim);
    const bad = c.evidence.find((e) => e < 1 || e > nEvidence);
    if (bad !== undefined) return `claim ${c.claim} cites evidence sentence ${bad}, which does not exist (1–${nEvidence})`;
    if (c.verdict === "supported" && c.evidence.length === 0) return `claim ${c.claim} is supported but cites no evidence sentence`;
  }
  const missing = Array.from({ length: nClaims }, (_, i) => i + 1).filter((i) => !seen.has(i));
  return missing.length ? `no verdict for claim(s) ${missing.join(", ")}` : null;
}

/** Whether an evidence sentence carries a perturbed span (contains its `after` text or lies inside it). */
export function isPerturbedSentence(sentence: string, spans: readonly PerturbedSpan[]): boolean {
  return spans.some((s) => s.after && (sentence.includes(s.after) || (sentence.length >= 20 && s.after.includes(sentence))));
}

/** Inputs of one grounding judgement. */
export interface LlmGroundingInput {
  output: string;
  /** Evidence passages as the workflow saw them. */
  evidence: readonly { id: string; text: string }[];
  spans?: readonly PerturbedSpan[];
  question?: string | null;
}

/** Options of {@link llmGrounding}. */
export interface LlmGroundingOptions {
  rubric?: AttributionRubric;
  template?: JudgeTemplate;
  /** Whole structured calls before the answer is missing (default 2). */
  attempts?: number;
  /** Repeat index (enters the call cache key). */
  repeat?: number;
  signal?: AbortSignal;
}

/**
 * Judge the grounding of `input.output` in `input.evidence` with `model` (see the file comment).
 * Never throws for model or answer failures: they become `status: "missing"`.
 * @returns shares over the output's claims (null shares when it has none; no call is made then)
 */
export async function llmGrounding(model: ChatModel, input: LlmGroundingInput, opts: LlmGroundingOptions = {}): Promise<LlmGroundingOutcome> {
  const rubric = opts.rubric ?? loadAttributionRubric();
  const template = opts.template ?? loadJudgeTemplate(rubric.prompt);
  const spans = input.spans ?? [];
  const claims = splitSentences(input.output).filter((s) => contentWords(s).size > 0);
  const ev = input.evidence.flatMap((p) => splitSentences(p.text).map((s) => ({ id: p.id, s })));
  if (claims.length === 0) return { status: "ok", result: { sentences: 0, supportedShare: null, uptakeShare: null, unsupported: 0, perSentence: [] }, calls: [], attempts: 0 };
  if (ev.length === 0) return { status: "missing", error: "no evidence sentences to attribute the claims to", raw: null, calls: [], attempts: 0 };
  const vars = {
    rubric_title: rubric.title,
    rubric_description: rubric.description,
    verdicts: rubric.verdicts.map((v) => `- ${v.id}: ${v.description}`).join("\n"),
    instructions: rubric.instructions.map((i) => `- ${i}`).join("\n"),
    question: input.question ?? "(not given)",
    evidence: ev.map((e, i) => `E${i + 1} [${e.id}] ${e.s}`).join("\n"),
    claims: claims.map((c, i) => `C${i + 1} ${c}`).join("\n"),
    answer_format: `Answer with a JSON object {"claims": [{"claim": <claim number>, "verdict": "supported" | "unsupported", "evidence": [<evidence sentence numbers>]}]} with one entry per claim, claims 1 to ${claims.length}, evidence numbers between 1 and ${ev.length}.`,
  };
  const first = renderJudgeTemplate(template, vars);
  let messages = first;
  const calls: CallInfo[] = [];
  const attempts = opts.attempts ?? 2;
  let lastError = "no attempt made";
  let lastRaw: string | null = null;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let answer: AttributionAnswer | null = null;
    try {
      const res = await model.structured(messages, AttributionAnswerSchema, {
        meta: { promptId: template.id, promptVersion: `${template.version}+${rubric.id}@${rubric.version}`, repeat: opts.repeat ?? 0 },
        params: { temperature: 0 },
        schemaName: "grounding_attribution",
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      calls.push(res.call);
      if (res.ok) answer = res.value;
      else {
        lastError = res.error;
        lastRaw = res.raw;
        if (res.raw !== null && res.reason !== "truncated") {
          const rec = parseStructuredAnswer(res.raw, AttributionAnswerSchema);
          if (rec.ok) answer = rec.value;
        }
      }
    } catch (e) {
      lastError = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    if (answer) {
      const problem = attributionProblem(answer, claims.length, ev.length);
      if (!problem) {
        const byClaim = new Map(answer.claims.map((c) => [c.claim, c]));
        const perSentence = claims.map((sentence, i) => {
          const c = byClaim.get(i + 1)!;
          const supported = c.verdict === "supported";
          const cited = supported ? c.evidence : [];
          return {
            sentence,
            support: supported ? 1 : 0,
            evidence: cited.length ? cited.map((k) => ev[k - 1].s).join(" ") : null,
            uptake: supported && cited.some((k) => isPerturbedSentence(ev[k - 1].s, spans)),
            cited,
          };
        });
        const n = perSentence.length;
        const supported = perSentence.filter((p) => p.support === 1).length;
        return {
          status: "ok",
          result: { sentences: n, supportedShare: supported / n, uptakeShare: perSentence.filter((p) => p.uptake).length / n, unsupported: n - supported, perSentence },
          calls,
          attempts: attempt,
        };
      }
      lastError = `unusable attribution: ${problem}`;
      lastRaw = JSON.stringify(answer);
      // Re-ask with the problem named (a different conversation, so the call cache does not
      // hand back the same answer).
      messages = [...first, { role: "assistant", content: lastRaw }, { role: "user", content: `That answer cannot be used: ${problem}. ${vars.answer_format}` }];
    }
    if (opts.signal?.aborted) break;
  }
  return { status: "missing", error: lastError, raw: lastRaw, calls, attempts };
}
