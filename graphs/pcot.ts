/**
 * P-CoT, parametric chain-of-thought with a self-evaluation loop (MedMeta §3.2, Appendix C):
 *
 *   START → make_plan → answer → draft → evaluate ─┬→ END  (score ≥ threshold, or maxIterations revisions done)
 *                    ↑                        └→ newQuestions → answer → revise → evaluate …
 *
 * plan: background + `numQuestions` key questions + search strategy (structured);
 * answer: one call per current question, from parametric knowledge, each raising 2–3 sub-questions;
 * evaluate: 0–5 score with feedback (structured); newQuestions: `numNewQuestions` questions aimed at
 * the gaps. Every draft, score and question round is kept in state. The recursion limit is derived
 * from `maxIterations`. An extractive model is refused.
 */
import { z } from "zod";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import type { SynthesisTask } from "../corpus/types.ts";
import { chatStep, requireChatModel, structuredStep } from "./nodes/model-call.ts";
import { formatPlan, formatQuestions, makePlan, type ResearchPlan } from "./nodes/plan.ts";
import { loadWorkflowPrompt } from "./nodes/prompts.ts";
import { getRunContext, runGraph } from "./nodes/run-context.ts";
import { NO_CALLS, type CallBounds, type CallCountInput, type RunnableWorkflow, type WorkflowDefinition, type WorkflowDeps } from "./types.ts";

/** Workflow id. */
export const PCOT_ID = "pcot";

/** P-CoT options. */
export const PcotConfigSchema = z
  .object({
    /** Key questions asked by the plan step (paper: 5). */
    numQuestions: z.number().int().min(1).max(20).default(5),
    /** New questions per feedback round (paper: 5). */
    numNewQuestions: z.number().int().min(1).max(20).default(5),
    /** Stop when the self-evaluation score (0–5) is at least this. */
    threshold: z.number().min(0).max(5).default(4),
    /** Maximum number of revisions after the first draft. */
    maxIterations: z.number().int().min(0).max(10).default(2),
  })
  .strict();
/** {@link PcotConfigSchema} after parsing (defaults applied). */
export type PcotConfig = z.infer<typeof PcotConfigSchema>;

/** Structured answer of the self-evaluation step. */
export const SelfEvaluationSchema = z.object({
  evaluation: z.string(),
  gaps: z.array(z.string()),
  score: z.number().min(0).max(5),
});
/** {@link SelfEvaluationSchema} after parsing (defaults applied). */
export type SelfEvaluation = z.infer<typeof SelfEvaluationSchema>;

/** Structured answer of the new-questions step. */
export const NewQuestionsSchema = z.object({ questions: z.array(z.string().min(1)).min(1) });

/** One answered question. `round` 0 = key questions, n = after the n-th evaluation. */
export interface AnsweredQuestion {
  round: number;
  question: string;
  answer: string;
}

const append = <T>() => Annotation<T[]>({ reducer: (a, b) => a.concat(b), default: () => [] });
const PcotState = Annotation.Root({
  topic: Annotation<string>,
  plan: Annotation<ResearchPlan>,
  /** Questions of the current round. */
  questions: Annotation<string[]>,
  answers: append<AnsweredQuestion>(),
  drafts: append<string>(),
  evaluations: append<SelfEvaluation>(),
});
type S = typeof PcotState.State;

/**
 * Supersteps of a run with `maxIterations` revisions: plan, answer, draft, evaluate, then
 * (newQuestions, answer, revise, evaluate) per revision, plus a margin of 2.
 */
export function pcotRecursionLimit(maxIterations: number): number {
  return 4 + 4 * maxIterations + 2;
}

function feedbackText(e: SelfEvaluation): string {
  return [e.evaluation, ...(e.gaps.length ? ["Gaps:", ...e.gaps.map((g) => `- ${g}`)] : [])].join("\n");
}

function answersText(answers: AnsweredQuestion[]): string {
  return answers.map((a, i) => `Q${i + 1}. ${a.question}\n${a.answer}`).join("\n\n");
}

function create(deps: WorkflowDeps, rawConfig: z.input<typeof PcotConfigSchema>): RunnableWorkflow<"synthesis"> {
  const config = PcotConfigSchema.parse(rawConfig ?? {});
  const model = requireChatModel(deps.model, PCOT_ID);
  const p = {
    plan: loadWorkflowPrompt("research-plan", deps.promptDir),
    answer: loadWorkflowPrompt("pcot-answer", deps.promptDir),
    draft: loadWorkflowPrompt("pcot-draft", deps.promptDir),
    evaluate: loadWorkflowPrompt("pcot-evaluate", deps.promptDir),
    newQuestions: loadWorkflowPrompt("pcot-new-questions", deps.promptDir),
    revise: loadWorkflowPrompt("pcot-revise", deps.promptDir),
  };
  const graph = new StateGraph(PcotState)
    .addNode("make_plan", async (s, c) => {
      const plan = await makePlan(getRunContext(c), model, p.plan, s.topic, config.numQuestions);
      return { plan, questions: plan.keyQuestions };
    })
    .addNode("answer", async (s, c) => {
      const ctx = getRunContext(c);
      const round = s.evaluations.length;
      const answers = await Promise.all(s.questions.map((question) => chatStep(ctx, model, "answer", p.answer, { topic: s.topic, question })));
      return { answers: s.questions.map((question, i) => ({ round, question, answer: answers[i] })) };
    })
    .addNode("draft", async (s, c) => {
      const text = await chatStep(getRunContext(c), model, "draft", p.draft, { topic: s.topic, plan: formatPlan(s.plan), answers: answersText(s.answers) });
      return { drafts: [text] };
    })
    .addNode("evaluate", async (s, c) => {
      const e = await structuredStep(
        getRunContext(c),
        model,
        "evaluate",
        p.evaluate,
        { topic: s.topic, plan: formatPlan(s.plan), conclusion: s.drafts[s.drafts.length - 1] },
        SelfEvaluationSchema,
        "self_evaluation",
      );
      return { evaluations: [e] };
    })
    .addNode("newQuestions", async (s, c) => {
      const last = s.evaluations[s.evaluations.length - 1];
      const r = await structuredStep(
        getRunContext(c),
        model,
        "newQuestions",
        p.newQuestions,
        { topic: s.topic, previous_questions: formatQuestions(s.answers.map((a) => a.question)), feedback: feedbackText(last), num_questions: config.numNewQuestions },
        NewQuestionsSchema,
        "new_questions",
      );
      return { questions: r.questions.slice(0, config.numNewQuestions) };
    })
    .addNode("revise", async (s, c) => {
      const round = s.evaluations.length;
      const text = await chatStep(getRunContext(c), model, "revise", p.revise, {
        topic: s.topic,
        plan: formatPlan(s.plan),
        draft: s.drafts[s.drafts.length - 1],
        feedback: feedbackText(s.evaluations[s.evaluations.length - 1]),
        answers: answersText(s.answers.filter((a) => a.round === round)),
      });
      return { drafts: [text] };
    })
    .addEdge(START, "make_plan")
    .addEdge("make_plan", "answer")
    .addConditionalEdges("answer", (s: S) => (s.drafts.length === 0 ? "draft" : "revise"), ["draft", "revise"])
    .addEdge("draft", "evaluate")
    .addEdge("revise", "evaluate")
    .addConditionalEdges("evaluate", (s: S) => (stopReason(s, config) ? END : "newQuestions"), ["newQuestions", END])
    .addEdge("newQuestions", "answer")
    .compile();
  return {
    id: PCOT_ID,
    run: (task: SynthesisTask, opts) =>
      runGraph(graph, { topic: task.question }, { ...opts, recursionLimit: pcotRecursionLimit(config.maxIterations) }, (s: S) => ({
        output: s.drafts[s.drafts.length - 1],
        intermediate: {
          plan: s.plan,
          drafts: s.drafts,
          scores: s.evaluations.map((e) => e.score),
          evaluations: s.evaluations,
          questions: s.answers.map((a) => ({ round: a.round, question: a.question })),
          answers: s.answers,
          revisions: s.drafts.length - 1,
          stopReason: stopReason(s, config),
        },
      })),
  };
}

/** Why the loop stops after the latest evaluation, or null to go on. */
function stopReason(s: S, config: PcotConfig): "threshold" | "maxIterations" | null {
  const last = s.evaluations[s.evaluations.length - 1];
  if (last && last.score >= config.threshold) return "threshold";
  if (s.drafts.length - 1 >= config.maxIterations) return "maxIterations";
  return null;
}

/**
 * P-CoT's calls: plan + one answer per key question + draft + evaluate (structured: plan,
 * evaluate), then per revision new questions + one answer each + revise + evaluate (structured:
 * new questions, evaluate). `min`: the plan gives one question and the first draft passes.
 */
export function pcotCalls(c: PcotConfig, i: CallCountInput): CallBounds {
  if (!i.llm) return NO_CALLS;
  const first = 1 + c.numQuestions + 2;
  const round = 1 + c.numNewQuestions + 2;
  return { min: 4, max: first + c.maxIterations * round, structured: 2 + 2 * c.maxIterations };
}

/** P-CoT definition (task kind "synthesis"). */
export const pcotWorkflow: WorkflowDefinition<"synthesis", typeof PcotConfigSchema> = {
  id: PCOT_ID,
  taskKind: "synthesis",
  description: "P-CoT (MedMeta): plan → answer key questions → draft → self-evaluate 0–5 → new questions → revise (bounded)",
  configSchema: PcotConfigSchema,
  create,
  llmCalls: pcotCalls,
};
