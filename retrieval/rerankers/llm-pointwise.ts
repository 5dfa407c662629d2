/**
 * LLM pointwise reranker: asks a {@link ChatModel} (models/ call layer: cache, retries, rate
 * limits) for a 0–10 relevance grade of each (query, doc) pair separately, validated by zod
 * (`{"relevance": integer 0..10}`), and sorts by the grade. The prompt is a replaceable template
 * file in the models/ prompt-template format (default `prompts/llm-pointwise.md`; variables
 * `query`, `title`, `text`); its front-matter id and version are the call's cache meta.
 *
 * Ties (grades are coarse integers) keep the input (retriever) order. A doc whose grade could not
 * be obtained (endpoint failure, unparseable answer after the call layer's retries) is never given
 * a plausible grade: it is ranked after every graded doc, in input order, with
 * `score = -Infinity`, no `scores.llm`, and `error` set.
 */
import { fileURLToPath } from "node:url";
import pLimit from "p-limit";
import { z } from "zod";
import type { CorpusDoc } from "../../corpus/types.ts";
import { loadPromptTemplate, promptMeta, renderPrompt, type PromptTemplate } from "../../models/prompt-template.ts";
import type { CallInfo, ChatModel } from "../../models/types.ts";
import type { Reranker, SearchHit } from "../types.ts";

/** Reranker id prefix: `llm-pointwise:<chat model id>`. */
export const LLM_POINTWISE_PREFIX = "llm-pointwise";

/** Default prompt template file. */
export const DEFAULT_POINTWISE_PROMPT = fileURLToPath(new URL("./prompts/llm-pointwise.md", import.meta.url));

/** The structured answer expected from the model. */
export const RelevanceAnswerSchema = z.object({ relevance: z.number().int().min(0).max(10) }).strict();

/** Config of the LLM pointwise reranker. */
export const LlmPointwiseConfigSchema = z
  .object({
    /** Prompt template file (models/ prompt-template format; variables `query`, `title`, `text`). */
    promptPath: z.string().default(DEFAULT_POINTWISE_PROMPT),
    /** Calls in flight at once (the call layer may limit further). */
    concurrency: z.number().int().positive().default(4),
    /** Doc text is cut to this many characters before it enters the prompt. */
    maxDocChars: z.number().int().positive().default(4000),
    /** Sampling temperature sent with each call. */
    temperature: z.number().min(0).max(2).default(0),
  })
  .strict();
/** What a caller may pass for {@link LlmPointwiseConfigSchema} (keys with defaults are optional). */
export type LlmPointwiseConfig = z.input<typeof LlmPointwiseConfigSchema>;

/**
 * Build the reranker around a chat model.
 * @param model the {@link ChatModel} (from the models/ registry, or a test model on the scripted server).
 * @param config {@link LlmPointwiseConfigSchema}.
 * @returns a {@link Reranker} with id `llm-pointwise:<model id>`; hits carry `scores.llm` (0–10).
 * @throws when the template file cannot be read or parsed, or does not use `query` and `text`.
 */
export function createLlmPointwiseReranker(model: ChatModel, config: LlmPointwiseConfig = {}): Reranker {
  const cfg = LlmPointwiseConfigSchema.parse(config);
  const template: PromptTemplate = loadPromptTemplate(cfg.promptPath);
  for (const v of ["query", "text"]) {
    if (!template.variables.includes(v)) throw new Error(`llm-pointwise reranker: prompt template ${template.source} must declare and use the variable "${v}"`);
  }
  const meta = promptMeta(template);
  const reranker = {
    id: `${LLM_POINTWISE_PREFIX}:${model.id}`,
    async rerank(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<SearchHit[]> {
      return (await reranker.rerankDetailed(query, docs, opts)).hits;
    },
    async rerankDetailed(query: string, docs: CorpusDoc[], opts: { topN: number }): Promise<{ hits: SearchHit[]; calls: CallInfo[]; errors: { id: string; error: string }[] }> {
      if (typeof query !== "string" || query.trim() === "" || !(opts.topN > 0) || docs.length === 0) return { hits: [], calls: [], errors: [] };
      const limit = pLimit(cfg.concurrency);
      const results = await Promise.all(
        docs.map((doc) =>
          limit(async () => {
            const vars: Record<string, string> = { query, title: doc.title ?? "", text: doc.text.slice(0, cfg.maxDocChars) };
            const messages = renderPrompt(template, Object.fromEntries(Object.entries(vars).filter(([k]) => template.variables.includes(k))));
            const r = await model.structured(messages, RelevanceAnswerSchema, {
              meta,
              params: { temperature: cfg.temperature },
              schemaName: "relevance",
            });
            return r.ok ? { grade: r.value.relevance, error: null, call: r.call } : { grade: null, error: r.error, call: r.call };
          }),
        ),
      );
      const graded = docs.map((d, i) => ({ d, i, ...results[i] }));
      graded.sort((a, b) => {
        if (a.grade === null || b.grade === null) return a.grade === null && b.grade === null ? a.i - b.i : a.grade === null ? 1 : -1;
        return b.grade - a.grade || a.i - b.i;
      });
      const hits = graded.slice(0, Math.floor(opts.topN)).map((g, r): SearchHit => {
        if (g.grade === null) return { id: g.d.id, score: Number.NEGATIVE_INFINITY, rank: r + 1, doc: g.d, scores: {}, error: g.error ?? "no grade" };
        return { id: g.d.id, score: g.grade, rank: r + 1, doc: g.d, scores: { llm: g.grade } };
      });
      const errors = graded.filter((g) => g.grade === null).map((g) => ({ id: g.d.id, error: g.error ?? "no grade" }));
      return { hits, calls: results.map((x) => x.call), errors };
    },
  };
  return reranker;
}
