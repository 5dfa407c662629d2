/**
 * One LLM judge = a chat model + a rubric + a prompt template. It asks the model for a structured
 * answer (`{rationale, scores}` built from the rubric), retries a bounded number of times, and
 * returns a {@link JudgeScoreEntry}: `ok` with one score per rubric dimension, or `missing` with
 * the raw text and the error. A judge that could not be parsed is never turned into 0 and never
 * dropped (DEVELOPERS.md "Rules"; STYLE.md "Errors").
 *
 * @see MedMeta §3 (LLM-J panel, temperature 0), MedConclusion §3.2, RWESummary "Evaluations".
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { CallInfo, ChatMessage, ChatModel } from "../models/types.ts";
import type { JudgeScoreEntry } from "../results/run-record.ts";
import { extractJsonText, isConflictError, parseStructuredAnswer } from "../models/structured.ts";
import { mergeCalls } from "../models/usage.ts";
import { loadPromptTemplate, renderPrompt, resolvePromptTemplate, type PromptTemplate } from "../models/prompt-template.ts";
import { buildAnswerSchema, rubricPromptVariables, type Rubric, type RubricAnswer, type RubricInput } from "./rubric.ts";

/** Folder of the built-in judge prompt templates. */
export const BUILTIN_PROMPT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "prompts");

/** A judge prompt template (the model layer's {@link PromptTemplate}). */
export type JudgeTemplate = PromptTemplate;

/**
 * Load a judge prompt template: a path to a file (contains `/` or ends in `.md`), or an id looked
 * up as `<id>.md` in `overrideDir` (when given) and then in the built-in `judges/prompts/`.
 * @param ref template id or path
 * @param opts `baseDir` for relative paths (default cwd); `overrideDir` whose files replace built-ins
 * @throws Error naming the file or the folders searched
 */
export function loadJudgeTemplate(ref: string, opts: { baseDir?: string; overrideDir?: string } = {}): JudgeTemplate {
  if (/[\\/]/.test(ref) || ref.endsWith(".md")) return loadPromptTemplate(resolve(opts.baseDir ?? process.cwd(), ref));
  return resolvePromptTemplate(ref, { bundledDir: BUILTIN_PROMPT_DIR, overrideDir: opts.overrideDir });
}

/**
 * Fill a judge template. Judges supply every rubric block, so variables the template does not use
 * are allowed; a variable the template declares but the judge cannot supply is an error.
 * @throws Error naming the template and the variable
 */
export function renderJudgeTemplate(t: JudgeTemplate, vars: Record<string, string>): ChatMessage[] {
  return renderPrompt(t, vars, { allowExtra: true });
}

/** The texts a judge sees for one record. */
export interface JudgeInput {
  /** The generated text being judged. */
  candidate: string;
  /** Reference text (published conclusion / summary). */
  reference?: string | null;
  /** Source the candidate was written from (e.g. the RWE study input). */
  source?: string | null;
  /** Question or title of the item. */
  question?: string | null;
}

/** Sampling parameters of a judge call (temperature 0 by default, as in MedMeta). */
export const JudgeParamsSchema = z
  .object({
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
    reasoningEffort: z.enum(["low", "medium", "high"]).optional(),
  })
  .strict()
  .default({ temperature: 0 });

/** Judge settings. */
export const JudgeConfigSchema = z
  .object({
    /** Judge id as stored in `JudgeScoreEntry.judgeId` (e.g. "gemini-judge"). */
    id: z.string().min(1),
    /** Sampling parameters (MedMeta fixes temperature at 0). */
    params: JudgeParamsSchema,
    /** Whole structured calls tried before the answer is `missing` (the model layer may retry inside each). */
    attempts: z.number().int().min(1).max(5).default(2),
    /** Per-HTTP-attempt timeout in ms; unset = the endpoint's `timeoutMs` (env MEDSYNTH_OPENAI_TIMEOUT_MS). Timeouts are retried by the model layer. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
/** What a caller may pass for {@link JudgeConfigSchema} (keys with defaults are optional). */
export type JudgeConfig = z.input<typeof JudgeConfigSchema>;

/** A judge's verdict on one record, as stored in `RunRecord.judgeScores` (extra fields are additive). */
export interface JudgeVerdict extends JudgeScoreEntry {
  /** Repeat index (0-based) of this sample. */
  repeat: number;
  /** The judge's explanation when the answer parsed. */
  rationale?: string;
  /** Model id behind the judge. */
  modelId: string;
  /** Structured calls made (0 when the record lacked an input the rubric needs). */
  attempts: number;
  /** True when the answer was recovered from fenced/embedded JSON after the structured call failed. */
  recovered?: boolean;
}

/** A ready judge. */
export interface Judge {
  readonly id: string;
  readonly modelId: string;
  readonly rubric: Rubric;
  readonly template: JudgeTemplate;
  /**
   * Judge one input. Never throws for model/endpoint failures: they become `status: "missing"`.
   * @param input texts to judge
   * @param opts repeat index (enters the call cache key) and an abort signal
   */
  score(input: JudgeInput, opts?: { repeat?: number; signal?: AbortSignal }): Promise<JudgeVerdict>;
}

/**
 * Recover a JSON object from a model answer that wraps it in reasoning, a Markdown fence or prose:
 * reasoning blocks (`<think>…</think>`) are removed and the LAST complete JSON object is taken
 * (models/structured.ts {@link extractJsonText}), so an example quoted early does not win.
 * @returns the parsed value, or undefined when no JSON object can be found
 */
export function extractJsonObject(text: string): unknown {
  const t = extractJsonText(text);
  if (t === null) return undefined;
  try {
    const v = JSON.parse(t);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Build the template variables for a rubric + input: the rubric blocks
 * ({@link rubricPromptVariables}), the texts, and `inputs_block` (all texts the rubric asks for,
 * labelled) for generic templates.
 */
export function judgePromptVariables(rubric: Rubric, input: JudgeInput): Record<string, string> {
  const labels: Record<RubricInput, string> = { question: "QUESTION", source: "SOURCE", reference: "REFERENCE", candidate: "CANDIDATE (the text to score)" };
  const text = (k: RubricInput) => (k === "candidate" ? input.candidate : (input[k] ?? "")) ?? "";
  const order: RubricInput[] = ["question", "source", "reference", "candidate"];
  const inputsBlock = order
    .filter((k) => rubric.inputs.includes(k))
    .map((k) => `${labels[k]}:\n<<<\n${text(k)}\n>>>`)
    .join("\n\n");
  return {
    ...rubricPromptVariables(rubric),
    candidate: input.candidate,
    reference: input.reference ?? "",
    source: input.source ?? "",
    question: input.question ?? "",
    inputs_block: inputsBlock,
  };
}

/**
 * Create a judge.
 * @param config judge settings ({@link JudgeConfigSchema})
 * @param deps the chat model, the rubric, and the template (default: the rubric's `prompt`)
 * @returns a {@link Judge}
 * @throws Error when the config is invalid or a template placeholder is not provided by the rubric/input
 */
export function createJudge(config: JudgeConfig, deps: { model: ChatModel; rubric: Rubric; template?: JudgeTemplate }): Judge {
  const parsed = JudgeConfigSchema.safeParse(config);
  if (!parsed.success) throw new Error(`judge ${(config as { id?: string }).id ?? "?"}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const cfg = parsed.data;
  const { model, rubric } = deps;
  const template = deps.template ?? loadJudgeTemplate(rubric.prompt);
  const known = new Set(Object.keys(judgePromptVariables(rubric, { candidate: "" })));
  const unknownVars = template.variables.filter((v) => !known.has(v));
  if (unknownVars.length) throw new Error(`judge ${cfg.id}: template ${template.id} uses variables no judge provides: ${unknownVars.join(", ")}`);
  const schema = buildAnswerSchema(rubric);
  const schemaName = `judge_${rubric.id.replace(/[^a-zA-Z0-9_]/g, "_")}`;
  const promptVersion = `${template.version}+${rubric.id}@${rubric.version}`;

  const missing = (repeat: number, attempts: number, error: string, raw: string | null, call?: CallInfo): JudgeVerdict => ({
    judgeId: cfg.id,
    rubricId: rubric.id,
    modelId: model.id,
    repeat,
    scores: Object.fromEntries(rubric.dimensions.map((d) => [d.id, null])),
    status: "missing",
    ...(raw !== null ? { raw } : {}),
    error,
    ...(call ? { call } : {}),
    attempts,
  });
  const ok = (repeat: number, attempts: number, answer: RubricAnswer, call: CallInfo, recovered: boolean): JudgeVerdict => ({
    judgeId: cfg.id,
    rubricId: rubric.id,
    modelId: model.id,
    repeat,
    scores: Object.fromEntries(rubric.dimensions.map((d) => [d.id, answer.scores[d.id]])),
    status: "ok",
    rationale: answer.rationale,
    call,
    attempts,
    ...(recovered ? { recovered: true } : {}),
  });

  return {
    id: cfg.id,
    modelId: model.id,
    rubric,
    template,
    async score(input, opts = {}) {
      const repeat = opts.repeat ?? 0;
      for (const need of rubric.inputs) {
        const v = need === "candidate" ? input.candidate : input[need];
        if (typeof v !== "string" || !v.trim()) return missing(repeat, 0, `input "${need}" is empty; rubric ${rubric.id} needs it`, null);
      }
      const messages = renderJudgeTemplate(template, judgePromptVariables(rubric, input));
      let lastRaw: string | null = null;
      let lastError = "no attempt made";
      // Every attempt's tokens count, not only the last one's.
      const calls: CallInfo[] = [];
      const merged = (): CallInfo | undefined => (calls.length ? mergeCalls(calls) : undefined);
      for (let attempt = 1; attempt <= cfg.attempts; attempt++) {
        try {
          // The judge's time limit applies per HTTP attempt (retried by the model layer); the
          // caller's signal stays a real abort.
          const res = await model.structured(messages, schema, {
            meta: { promptId: template.id, promptVersion, repeat },
            params: cfg.params,
            ...(cfg.timeoutMs !== undefined ? { timeoutMs: cfg.timeoutMs } : {}),
            ...(opts.signal ? { signal: opts.signal } : {}),
            schemaName,
          });
          calls.push(res.call);
          if (res.ok) return ok(repeat, attempt, res.value as RubricAnswer, merged()!, false);
          lastError = res.error;
          // Several different valid verdicts in one answer: the call layer has re-asked already;
          // asking the whole question again would only pick among guesses — the verdict is missing.
          if (isConflictError(res.error)) {
            if (res.raw !== null) lastRaw = res.raw;
            return missing(repeat, attempt, lastError, lastRaw, merged());
          }
          if (res.raw !== null) {
            lastRaw = res.raw;
            // A cut-off answer is kept raw and is not read: its scores may be unfinished.
            if (res.reason !== "truncated") {
              const recovered = parseStructuredAnswer(res.raw, schema);
              if (recovered.ok) return ok(repeat, attempt, recovered.value as RubricAnswer, merged()!, true);
            }
          }
        } catch (err) {
          lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        }
        if (opts.signal?.aborted) break;
      }
      return missing(repeat, cfg.attempts, lastError, lastRaw, merged());
    },
  };
}
