/**
 * Standard-RAG (MedMeta §3.2): retrieval from a noisy corpus, then synthesis.
 *
 *   START → plan → queries ─Send×N→ retrieve (one task per query) → merge → synthesize → END
 *
 * plan: the research plan shared with P-CoT (structured); queries: by default the plan's key
 * questions themselves — the paper builds Standard-RAG's queries "following the P-CoT sub-question
 * generation approach" — or, with `queryMode: keywords`, an extra LLM step writing `numQueries`
 * keyword search queries from the plan (structured); retrieve: `deps.retriever` (hybrid BM25 + dense by default) fetches
 * `candidatesPerQuery` hits when a reranker is given and keeps its top `k`, otherwise fetches `k`
 * (paper: K = 5 or 10); the parallel results are merged by an array reducer; merge dedupes by
 * PMID keeping every (query, rank, score) that found a document, ordering documents by best rank
 * then by first query. Golden recall is recorded when the item knows its golden PMIDs.
 * With an extractive baseline (offline) there is no plan or query step: the question itself is the
 * single query (START ─Send→ retrieve → merge → synthesize).
 * Retracted papers and retraction notices (`CorpusDoc.retraction`) stay flagged on their passages:
 * with `retracted: keep-marked` (default) the synthesis prompt shows "[RETRACTED]" /
 * "[RETRACTION NOTICE]" before their titles; with `retracted: exclude` merge leaves them out. Either
 * way the record lists them in `flaggedEvidence`.
 */
import { z } from "zod";
import { Annotation, END, Send, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import type { CorpusDoc, SynthesisTask } from "../corpus/types.ts";
import type { SearchHit } from "../retrieval/types.ts";
import type { EvidencePassage } from "../models/types.ts";
import { docToPassage, synthesizeFromEvidence, type SynthesisOutput } from "./nodes/evidence.ts";
import { isExtractiveModel, requireChatModel, structuredStep } from "./nodes/model-call.ts";
import { formatPlan, makePlan, type ResearchPlan } from "./nodes/plan.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, keepPartial, runGraph, StepFailure } from "./nodes/run-context.ts";
import type { CallBounds, CallCountInput, RunnableWorkflow, WorkflowDefinition, WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const STANDARD_RAG_ID = "standard-rag";

/** Standard-RAG options. */
export const StandardRagConfigSchema = z
  .object({
    /**
     * Where the retrieval queries come from: "key-questions" (default, MedMeta §3.2: the research
     * plan's key questions — the plan step P-CoT shares — used as the queries as they are; not the
     * 2–3 sub-questions P-CoT's answer step raises, which Standard-RAG never generates) or
     * "keywords" (an extra LLM step writes `numQueries` keyword queries from the plan).
     * "sub-questions", the former name of "key-questions", is read as "key-questions".
     */
    queryMode: z.preprocess((v) => (v === "sub-questions" ? "key-questions" : v), z.enum(["key-questions", "keywords"])).default("key-questions"),
    /** Search queries written by the keyword step (`queryMode: keywords` only). */
    numQueries: z.number().int().min(1).max(20).default(5),
    /** Key questions asked by the plan step (the queries in `queryMode: key-questions`). */
    numQuestions: z.number().int().min(1).max(20).default(5),
    /** Documents kept per query (paper: K = 5 or 10). */
    k: z.number().int().min(1).max(100).default(5),
    /** Hits fetched per query for the reranker to reorder (only used with a reranker; ≥ k). */
    candidatesPerQuery: z.number().int().min(1).max(1000).default(20),
    /** Length target (words) handed to extractive baselines; LLM prompts ignore it. */
    targetWords: z.number().int().positive().optional(),
    /**
     * Retrieved retracted papers and retraction notices: "keep-marked" (default: kept, the prompt
     * shows "[RETRACTED]" / "[RETRACTION NOTICE]" before the title) or "exclude" (left out of the
     * evidence). Both are listed in the record's `flaggedEvidence`.
     */
    retracted: z.enum(["keep-marked", "exclude"]).default("keep-marked"),
  })
  .strict()
  .refine((c) => c.candidatesPerQuery >= c.k, { message: "candidatesPerQuery must be at least k", path: ["candidatesPerQuery"] });
/** {@link StandardRagConfigSchema} after parsing (defaults applied). */
export type StandardRagConfig = z.infer<typeof StandardRagConfigSchema>;

/** Structured answer of the query step. */
export const SearchQueriesSchema = z.object({ queries: z.array(z.string().min(1)).min(1) });

/** One hit of one query. */
export interface QueryHit {
  id: string;
  rank: number;
  score: number;
}

/** The hits of one query (one parallel retrieve task). */
export interface QueryResult {
  queryIndex: number;
  query: string;
  hits: QueryHit[];
  /** Hits dropped because their document could not be found. */
  missingDocs: string[];
  docs: CorpusDoc[];
  /** Candidates the reranker could not grade (ranked last, never given a made-up grade). */
  rerankFailures?: { count: number; firstError: string };
}

/** A merged document with every (query, rank, score) that retrieved it. */
export interface MergedEvidence {
  passage: EvidencePassage;
  provenance: { queryIndex: number; query: string; rank: number; score: number }[];
}

/** A retrieved retracted paper or retraction notice, and what the workflow did with it. */
export interface FlaggedEvidence {
  id: string;
  retraction: "retracted" | "notice";
  /** "marked": kept in the evidence, marked in the prompt; "excluded": left out (`retracted: exclude`). */
  action: "marked" | "excluded";
}

/**
 * Apply the `retracted` option to merged evidence.
 * @param merged - {@link mergeQueryResults}' output.
 * @param mode - "keep-marked" keeps every passage (the prompt marks flagged ones); "exclude" drops
 *   retracted papers and retraction notices.
 * @returns the evidence to synthesise from and the flagged passages, in evidence order.
 */
export function applyRetractionPolicy(merged: MergedEvidence[], mode: StandardRagConfig["retracted"]): { evidence: MergedEvidence[]; flagged: FlaggedEvidence[] } {
  const flagged: FlaggedEvidence[] = [];
  const evidence: MergedEvidence[] = [];
  for (const e of merged) {
    const r = e.passage.retraction;
    if (r) flagged.push({ id: e.passage.id, retraction: r, action: mode === "exclude" ? "excluded" : "marked" });
    if (!r || mode === "keep-marked") evidence.push(e);
  }
  return { evidence, flagged };
}

/**
 * Merge per-query results: dedupe by document id, keep provenance, order by best rank (1 = best)
 * then by the first query that found the document.
 */
export function mergeQueryResults(results: QueryResult[]): MergedEvidence[] {
  const byId = new Map<string, MergedEvidence & { best: number; firstQuery: number }>();
  for (const r of [...results].sort((a, b) => a.queryIndex - b.queryIndex)) {
    const docs = new Map(r.docs.map((d) => [d.id, d]));
    for (const h of r.hits) {
      const doc = docs.get(h.id);
      if (!doc) continue;
      const prov = { queryIndex: r.queryIndex, query: r.query, rank: h.rank, score: h.score };
      const e = byId.get(h.id);
      if (e) {
        e.provenance.push(prov);
        e.best = Math.min(e.best, h.rank);
      } else byId.set(h.id, { passage: docToPassage(doc), provenance: [prov], best: h.rank, firstQuery: r.queryIndex });
    }
  }
  return [...byId.values()].sort((a, b) => a.best - b.best || a.firstQuery - b.firstQuery).map(({ passage, provenance }) => ({ passage, provenance }));
}

const StandardState = Annotation.Root({
  topic: Annotation<string>,
  plan: Annotation<ResearchPlan>,
  queries: Annotation<string[]>,
  retrieved: Annotation<QueryResult[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  evidence: Annotation<MergedEvidence[]>,
  flagged: Annotation<FlaggedEvidence[]>,
  synthesis: Annotation<SynthesisOutput>,
});
type S = typeof StandardState.State;

function create(deps: WorkflowDeps, rawConfig: z.input<typeof StandardRagConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = StandardRagConfigSchema.parse(rawConfig ?? {});
  const retriever = deps.retriever;
  if (!retriever) throw new Error(`workflow '${STANDARD_RAG_ID}' needs deps.retriever (e.g. createRetriever("hybrid", …) from retrieval/registry.ts)`);
  const reranker = deps.reranker;
  // An extractive baseline cannot plan or write queries: it retrieves with the question itself as
  // the only query (documented, honest offline variant) and synthesizes extractively.
  const extractive = isExtractiveModel(deps.model);
  const model = extractive ? null : requireChatModel(deps.model, STANDARD_RAG_ID);
  const p = { plan: loadWorkflowPrompt("research-plan", deps.promptDir), queries: loadWorkflowPrompt("rag-queries", deps.promptDir), synthesize: loadWorkflowPrompt("rag-synthesize", deps.promptDir) };

  /**
   * One Send branch. A failure (retriever or reranker error, an aborted branch) names the branch
   * and its query; the branches that finished are kept in the run context for the failed record.
   */
  const retrieve = async (input: { query: string; queryIndex: number }, c?: LangGraphRunnableConfig): Promise<{ retrieved: QueryResult[] }> => {
    try {
      const out = await retrieveOne(input, c);
      if (c) keepPartial(getRunContext(c), "retrieved", { queryIndex: input.queryIndex, query: input.query, ids: out.retrieved[0].hits.map((h) => h.id) }, true);
      return out;
    } catch (e) {
      if (e instanceof StepFailure) throw e;
      const msg = e instanceof Error ? e.message : String(e);
      throw new StepFailure(`retrieve[${input.queryIndex}]`, `branch ${input.queryIndex} (query "${input.query}") failed: ${msg}`, undefined, /abort/i.test(msg) ? "aborted" : "retrieval", {
        queryIndex: input.queryIndex,
        query: input.query,
      });
    }
  };

  const retrieveOne = async (input: { query: string; queryIndex: number }, c?: LangGraphRunnableConfig): Promise<{ retrieved: QueryResult[] }> => {
    const fetchN = reranker ? config.candidatesPerQuery : config.k;
    const raw = await retriever.search(input.query, fetchN);
    const docs: CorpusDoc[] = [];
    const missingDocs: string[] = [];
    for (const h of raw) {
      const d = h.doc ?? deps.getDoc?.(h.id);
      if (d) docs.push(d);
      else missingDocs.push(h.id);
    }
    let hits: QueryHit[];
    let rerankFailures: { count: number; firstError: string } | undefined;
    if (reranker) {
      let reranked: SearchHit[];
      let failed: { error: string }[];
      if (reranker.rerankDetailed) {
        const r = await reranker.rerankDetailed(input.query, docs, { topN: config.k });
        // Reranker model calls count towards the run's tokens, latency and cost.
        if (c) getRunContext(c).calls.push(...r.calls);
        reranked = r.hits;
        failed = r.errors; // every candidate it could not grade, kept or cut
      } else {
        reranked = await reranker.rerank(input.query, docs, { topN: config.k });
        failed = reranked.filter((h): h is SearchHit & { error: string } => !!h.error);
      }
      if (failed.length) rerankFailures = { count: failed.length, firstError: failed[0].error };
      hits = reranked.map((h) => ({ id: h.id, rank: h.rank, score: h.score }));
    } else
      hits = raw
        .filter((h) => !missingDocs.includes(h.id))
        .slice(0, config.k)
        .map((h) => ({ id: h.id, rank: h.rank, score: h.score }));
    return {
      retrieved: [{ queryIndex: input.queryIndex, query: input.query, hits, missingDocs, docs: docs.filter((d) => hits.some((h) => h.id === d.id)), ...(rerankFailures ? { rerankFailures } : {}) }],
    };
  };

  const graph = new StateGraph(StandardState)
    .addNode("make_plan", async (s, c) => {
      const plan = await makePlan(getRunContext(c), model!, p.plan, s.topic, config.numQuestions);
      keepPartial(getRunContext(c), "plan", plan);
      return { plan };
    })
    .addNode("write_queries", async (s, c) => {
      if (config.queryMode === "key-questions") return { queries: s.plan.keyQuestions };
      const r = await structuredStep(
        getRunContext(c),
        model!,
        "queries",
        p.queries,
        { topic: s.topic, plan: formatPlan(s.plan), num_queries: config.numQueries },
        SearchQueriesSchema,
        "search_queries",
      );
      const queries = r.queries.slice(0, config.numQueries);
      keepPartial(getRunContext(c), "queries", queries);
      return { queries };
    })
    .addNode("retrieve", retrieve as never)
    .addNode("merge", (s: S) => {
      const merged = mergeQueryResults(s.retrieved);
      if (merged.length === 0) throw new StepFailure("merge", `retrieval returned no documents for ${s.queries.length} queries`);
      const { evidence, flagged } = applyRetractionPolicy(merged, config.retracted);
      if (evidence.length === 0)
        throw new StepFailure("merge", `all ${merged.length} retrieved documents are retracted papers or retraction notices (${flagged.map((f) => f.id).join(", ")}), excluded by retracted: exclude`);
      return { evidence, flagged };
    })
    .addNode("synthesize", async (s, c) => ({
      synthesis: await synthesizeFromEvidence(getRunContext(c), deps.model, p.synthesize, { topic: s.topic, evidence: s.evidence.map((e) => e.passage), targetWords: config.targetWords }),
    }))
    .addConditionalEdges(START, (s: S) => (extractive ? [new Send("retrieve", { query: s.topic, queryIndex: 0 })] : "make_plan"), ["make_plan", "retrieve"])
    .addEdge("make_plan", "write_queries")
    .addConditionalEdges("write_queries", (s: S) => s.queries.map((query, queryIndex) => new Send("retrieve", { query, queryIndex })), ["retrieve"])
    .addEdge("retrieve", "merge")
    .addEdge("merge", "synthesize")
    .addEdge("synthesize", END)
    .compile();

  return {
    id: STANDARD_RAG_ID,
    run: (task: SynthesisTask, opts) =>
      runGraph(graph, { topic: task.question, ...(extractive ? { queries: [task.question] } : {}) }, { ...opts, recursionLimit: 8 }, (s: S) => {
        const ids = s.evidence.map((e) => e.passage.id);
        const golden = new Set(task.goldenPmids);
        return {
          output: s.synthesis.text,
          intermediate: {
            plan: s.plan ?? null,
            queries: s.queries,
            retriever: retriever.id,
            reranker: reranker?.id ?? null,
            retrieved: [...s.retrieved]
              .sort((a, b) => a.queryIndex - b.queryIndex)
              .map((r) => ({ query: r.query, ids: r.hits.map((h) => h.id), missingDocs: r.missingDocs, ...(r.rerankFailures ? { rerankFailures: r.rerankFailures } : {}) })),
            evidence: s.evidence.map((e) => ({ id: e.passage.id, ...(e.passage.retraction ? { retraction: e.passage.retraction } : {}), provenance: e.provenance })),
            flaggedEvidence: s.flagged ?? [],
            goldenRecall: golden.size ? ids.filter((id) => golden.has(id)).length / golden.size : null,
            ...(s.synthesis.sentences ? { extractedSentences: s.synthesis.sentences } : {}),
          },
        };
      }),
  };
}

/**
 * Standard-RAG's calls: the plan (structured), the keyword-query step (structured, `queryMode:
 * keywords` only), one synthesis call; with an LLM reranker (`llm-pointwise…`) one structured
 * call per candidate: queries × `candidatesPerQuery` at most. The extractive baseline makes none
 * (it retrieves with the question); its reranker still calls an LLM reranker's model when one is
 * configured. `min`: one query, no candidates.
 */
export function standardRagCalls(c: StandardRagConfig, i: CallCountInput): CallBounds {
  const llmRerank = typeof i.reranker === "string" && i.reranker.startsWith("llm");
  const queries = i.llm ? (c.queryMode === "keywords" ? c.numQueries : c.numQuestions) : 1;
  const rerank = llmRerank ? queries * c.candidatesPerQuery : 0;
  if (!i.llm) return { min: 0, max: rerank, structured: rerank };
  const steps = c.queryMode === "keywords" ? 3 : 2;
  return { min: steps, max: steps + rerank, structured: steps - 1 + rerank };
}

/** Standard-RAG definition (task kind "synthesis"). */
export const standardRagWorkflow: WorkflowDefinition<"synthesis", typeof StandardRagConfigSchema> = {
  id: STANDARD_RAG_ID,
  taskKind: "synthesis",
  description: "Standard-RAG (MedMeta): plan → its key questions as queries (or N keyword queries) → Send fan-out retrieval (K per query, optional reranker) → merge with provenance → synthesize",
  configSchema: StandardRagConfigSchema,
  create,
  llmCalls: standardRagCalls,
};
