/**
 * Reference metrics of run records: builds each configured metric once (from judges/metrics'
 * registry) and scores a record's output against its reference. A metric that cannot be computed
 * (no model available, empty text) is null with its reason in `notes` — never a substitute number.
 *
 * Metric specs: `"rouge"`, `"bleu"`, `"count-ratios"`, `"embedding-cosine"` (default embedder
 * `word-vectors`; `"embedding-cosine@transformers:Xenova/all-mpnet-base-v2"` picks another),
 * `"bertscore"`, `"perplexity"`; and the answer-level spec `"answer:lexical-direction"`: for items with
 * a categorical gold answer (MedEvidence: higher / lower / no difference / uncertain effect /
 * insufficient data), the output is classified by the offline lexical direction classifier and
 * `answer_correct_lexical` is 1 when the class equals the gold answer, else 0 (the predicted class
 * is kept in `labels.answer_label_lexical`).
 */
import { createMetric, metricIds } from "../judges/metrics/registry.ts";
import type { Metric } from "../judges/metrics/types.ts";
import { createEmbedder, EMBEDDER_IDS } from "../retrieval/registry.ts";
import { createLexicalDirectionClassifier, splitSentences } from "../judges/answer-classifier.ts";
import { lexicalGrounding, numericFidelity } from "../judges/metrics/grounding.ts";
import { llmGrounding, LLM_GROUNDING_SPEC } from "../judges/metrics/grounding-llm.ts";
import { createChatModel } from "../models/registry.ts";
import type { CallInfo, ChatModel } from "../models/types.ts";
import type { CallBounds } from "../graphs/types.ts";
import type { RunRecord } from "./types.ts";

const cache = new Map<string, Promise<Metric>>();
const lexical = createLexicalDirectionClassifier();

/**
 * Build (once per process) the metric for a spec `id[@embedder]`.
 * @throws Error listing the valid metric ids for an unknown id.
 */
export function metricFor(spec: string): Promise<Metric> {
  let m = cache.get(spec);
  if (!m) {
    const [id, embedderId] = spec.split("@");
    if (!metricIds().includes(id)) throw new Error(`metrics: unknown metric "${id}"; valid ids: ${metricIds().join(", ")}`);
    m = (async () => {
      if (id === "embedding-cosine") return createMetric(id, {}, { embedder: await createEmbedder(embedderId ?? "word-vectors") });
      return createMetric(id, {});
    })();
    cache.set(spec, m);
    m.catch(() => cache.delete(spec));
  }
  return m;
}

/** Answer-level metric specs (classifier of the conclusion vs the item's categorical answer). */
export const ANSWER_METRIC_SPECS = ["answer:lexical-direction"] as const;

/**
 * Record-level robustness spec: lexical grounding of the output in the evidence the workflow saw
 * (recorded by Perturbed-/Critic-RAG) — `grounding_supported`, `perturbation_uptake` (perturbed
 * spans: every recorded change, and every sentence of an inserted distractor or a retracted
 * study), `unsupported_claims` — and numeric fidelity (`numeric_fidelity`, `numbers_invented`,
 * `numbers_altered`) against that evidence with its perturbed spans put back (numbers the model
 * took from a perturbed span count as altered) or against the judged source text.
 */
export const GROUNDING_METRIC_SPEC = "grounding:lexical";

/**
 * The evidence a record's output is grounded in: the (perturbed) passages Perturbed-/Critic-RAG
 * recorded, as "title. text" with their ids, else the judged source text; and the recorded
 * perturbation changes with an `after` text. Null when the record carries neither.
 */
export function groundingEvidence(
  record: RunRecord,
): { passages: { id: string; text: string }[]; spans: { before: string; after: string }[]; insertedSpans: { before: string; after: string }[]; perturbed: boolean } | null {
  const p = record.intermediate.perturbation as
    | { evidence?: { id?: string; text: string; title: string; retracted?: boolean }[]; steps?: { op?: string; inserted?: string[]; changes: { before: string; after: string }[] }[] }
    | undefined;
  const spans = (p?.steps ?? []).flatMap((s) => s.changes).filter((c) => c.after);
  const passages =
    p?.evidence?.map((e, i) => ({ id: e.id ?? String(i + 1), text: `${e.title}. ${e.text}` })) ??
    (typeof record.intermediate.source === "string" ? [{ id: "source", text: record.intermediate.source }] : null);
  // A distractor or a retracted study is a perturbation as a whole (its change record names only
  // its title): every sentence of it counts as a perturbed span for uptake.
  const whole = new Set((p?.steps ?? []).filter((s) => s.op === "distract" || s.op === "retracted").flatMap((s) => s.inserted ?? []));
  for (const e of p?.evidence ?? []) if (e.retracted && e.id) whole.add(e.id);
  const insertedSpans = (p?.evidence ?? []).filter((e) => e.id && whole.has(e.id)).flatMap((e) => splitSentences(`${e.title}. ${e.text}`).map((after) => ({ before: "", after })));
  return passages ? { passages, spans, insertedSpans, perturbed: p !== undefined } : null;
}

/** Grounding metrics of one record (empty when it carries no evidence or source). */
export function groundingMetrics(record: RunRecord): Record<string, number | null> {
  const g0 = groundingEvidence(record);
  const p = g0?.perturbed;
  const spans = g0?.spans ?? [];
  const evidence = g0?.passages.map((x) => x.text) ?? null;
  if (!evidence || !record.output) return {};
  const g = lexicalGrounding(record.output, evidence, [...spans, ...(g0?.insertedSpans ?? [])]);
  // numbers are judged against the evidence before perturbation: every changed span put back
  const original = evidence.map((t) => spans.reduce((acc, c) => (c.before ? acc.split(c.after).join(c.before) : acc), t));
  const n = numericFidelity(
    record.output,
    original.join("\n"),
    spans.map((c) => c.after),
  );
  return {
    grounding_supported: g.supportedShare,
    perturbation_uptake: p ? g.uptakeShare : null,
    unsupported_claims: g.unsupported,
    numeric_fidelity: n.fidelity,
    numbers_invented: n.invented,
    numbers_altered: n.altered,
  };
}

/**
 * LLM grounding spec (judges/metrics/grounding-llm.ts): `grounding:llm` judges with the record's
 * own generator when it is an LLM (self-judging; a record of an extractive baseline gets null
 * values with a note), `grounding:llm@openai:<model>` with a fixed judge model. Values
 * `grounding_supported_llm`, `perturbation_uptake_llm` (perturbed records only),
 * `unsupported_claims_llm`; an unusable answer makes them null with the reason and raw answer in
 * the notes; the judge calls' tokens are returned with the metrics (the runner adds them to the
 * record's judge usage).
 */
export { LLM_GROUNDING_SPEC };

/**
 * Model calls the metric specs make for one scored record (status ok, text output): `grounding:llm`
 * asks its judge once (structured; a second whole call only when the first answer is unusable),
 * every other metric none. Embedding requests of `embedding-cosine@openai:…` are not model calls.
 */
export function metricLlmCalls(specs: readonly string[]): CallBounds {
  const n = specs.filter(isLlmGroundingSpec).length;
  return n ? { min: 0, max: n, structured: n, retryCalls: n } : { min: 0, max: 0, structured: 0 };
}

/** True for `grounding:llm` and `grounding:llm@<model id>`. */
const isLlmGroundingSpec = (s: string) => s === LLM_GROUNDING_SPEC || s.startsWith(`${LLM_GROUNDING_SPEC}@`);
/** Specs computed here rather than through the reference-metric registry. */
const isRecordSpec = (s: string) => (ANSWER_METRIC_SPECS as readonly string[]).includes(s) || s === GROUNDING_METRIC_SPEC || isLlmGroundingSpec(s);

/** Check metric specs early (unknown ids throw before any cell runs). */
export function validateMetricSpecs(specs: string[]): void {
  for (const s of specs) {
    if (isLlmGroundingSpec(s) && s !== LLM_GROUNDING_SPEC && !/^grounding:llm@openai:.+$/.test(s))
      throw new Error(`metrics: "${s}": the grounding judge must be an LLM id "openai:<model>" (grounding:llm@openai:<model>), or leave out @… to judge with each record's own LLM`);
    if (isRecordSpec(s)) continue;
    const [id, embedderId] = s.split("@");
    if (!metricIds().includes(id)) throw new Error(`metrics: unknown metric "${id}"; valid ids: ${metricIds().join(", ")}`);
    if (embedderId !== undefined) {
      if (id !== "embedding-cosine") throw new Error(`metrics: "${s}": only embedding-cosine takes an @<embedder id>`);
      if (!/^(word-vectors(:[a-z0-9-]+)?|transformers:.+|openai:.+)$/.test(embedderId)) throw new Error(`metrics: "${s}": unknown embedder id "${embedderId}"; valid ids: ${EMBEDDER_IDS.join(", ")}`);
    }
  }
}

/** What the metric stage may need besides the record: the LLM behind a model id (grounding:llm). */
export interface MetricStageDeps {
  /** Build the chat model for a model id or label (default: `createChatModel(id)` with env settings for `openai:*`, null otherwise). */
  chatModel?: (id: string) => ChatModel | null;
  /** Aborts the metric's model calls (the run was interrupted). */
  signal?: AbortSignal;
}

const defaultChatModels = new Map<string, ChatModel>();
function defaultChatModel(id: string): ChatModel | null {
  if (!id.startsWith("openai:")) return null;
  let m = defaultChatModels.get(id);
  if (!m) defaultChatModels.set(id, (m = createChatModel(id)));
  return m;
}

/** LLM grounding of one record into `metrics`/`notes`; returns the judge calls made. */
async function llmGroundingMetrics(record: RunRecord, spec: string, deps: MetricStageDeps, metrics: Record<string, number | null>, notes: Record<string, string>): Promise<CallInfo[]> {
  const g = groundingEvidence(record);
  if (!g || !record.output) return [];
  const names = ["grounding_supported_llm", ...(g.perturbed ? ["perturbation_uptake_llm"] : []), "unsupported_claims_llm"];
  const fail = (why: string) => {
    for (const n of names) metrics[n] = null;
    notes.grounding_supported_llm = why;
  };
  const judgeId = spec.includes("@") ? spec.slice(spec.indexOf("@") + 1) : record.model;
  let model: ChatModel | null;
  try {
    model = (deps.chatModel ?? defaultChatModel)(judgeId);
  } catch (e) {
    fail(`grounding:llm: could not build judge model ${judgeId}: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  }
  if (!model) {
    fail(`grounding:llm needs an LLM judge: the record's model ${judgeId} is not one; name one with grounding:llm@openai:<model>`);
    return [];
  }
  const r = await llmGrounding(
    model,
    { output: record.output, evidence: g.passages, spans: [...g.spans, ...g.insertedSpans], question: typeof record.itemMeta.question === "string" ? record.itemMeta.question : null },
    { repeat: record.repeat, ...(deps.signal ? { signal: deps.signal } : {}) },
  );
  if (r.status === "missing") {
    fail(`grounding:llm answer missing after ${r.attempts} attempt(s): ${r.error}${r.raw !== null ? `; raw: ${r.raw.slice(0, 400)}` : ""}`);
    return r.calls;
  }
  metrics.grounding_supported_llm = r.result.supportedShare;
  if (g.perturbed) metrics.perturbation_uptake_llm = r.result.uptakeShare;
  metrics.unsupported_claims_llm = r.result.unsupported;
  return r.calls;
}

/**
 * Score one record (output vs reference) with every metric spec.
 * @param deps how to reach an LLM for `grounding:llm` (see {@link MetricStageDeps})
 * @returns metric values by output name (e.g. `rougeL_fmeasure`, `bleu`), notes for nulls, labels,
 *   and the model calls a metric made (LLM grounding), for usage accounting.
 */
export async function computeRecordMetrics(
  record: RunRecord,
  specs: string[],
  deps: MetricStageDeps = {},
): Promise<{ metrics: Record<string, number | null>; notes: Record<string, string>; labels: Record<string, string>; calls: CallInfo[] }> {
  const metrics: Record<string, number | null> = {};
  const notes: Record<string, string> = {};
  const labels: Record<string, string> = {};
  const calls: CallInfo[] = [];
  // Whitespace only is no output (as ""): no metric is computed for it.
  if (!record.output?.trim()) return { metrics, notes, labels, calls };
  const gold = record.itemMeta.referenceAnswer;
  if (specs.includes("answer:lexical-direction") && typeof gold === "string") {
    const c = await lexical.classify({ conclusion: record.output, question: typeof record.itemMeta.question === "string" ? record.itemMeta.question : null });
    if (c.status === "ok" && c.label) {
      labels.answer_label_lexical = c.label;
      metrics.answer_correct_lexical = c.label === gold ? 1 : 0;
    } else {
      metrics.answer_correct_lexical = null;
      notes.answer_correct_lexical = c.error ?? "classifier gave no label";
    }
  }
  if (specs.includes(GROUNDING_METRIC_SPEC)) Object.assign(metrics, groundingMetrics(record));
  for (const spec of specs.filter(isLlmGroundingSpec)) calls.push(...(await llmGroundingMetrics(record, spec, deps, metrics, notes)));
  if (!record.reference?.trim()) return { metrics, notes, labels, calls };
  for (const spec of specs) {
    if (isRecordSpec(spec)) continue;
    let metric: Metric;
    try {
      metric = await metricFor(spec);
    } catch (e) {
      notes[spec] = `could not build metric: ${e instanceof Error ? e.message : String(e)}`;
      continue;
    }
    let row: Awaited<ReturnType<Metric["score"]>>[number] | undefined;
    try {
      [row] = await metric.score([{ id: record.key, reference: record.reference, candidate: record.output }]);
    } catch (e) {
      for (const name of metric.outputs) metrics[name] = null;
      notes[spec] = `metric failed: ${e instanceof Error ? e.message : String(e)}`;
      continue;
    }
    for (const [name, v] of Object.entries(row ?? {})) {
      metrics[name] = v.value;
      if (v.value === null && v.note) notes[name] = v.note;
    }
  }
  return { metrics, notes, labels, calls };
}
