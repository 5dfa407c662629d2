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
import { createLexicalDirectionClassifier } from "../judges/answer-classifier.ts";
import { lexicalGrounding, numericFidelity } from "../judges/metrics/grounding.ts";
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
 * (recorded by Perturbed-/Critic-RAG) — `grounding_supported`, `perturbation_uptake`,
 * `unsupported_claims` — and numeric fidelity (`numeric_fidelity`, `numbers_invented`,
 * `numbers_altered`) against that evidence with its perturbed spans put back (numbers the model
 * took from a perturbed span count as altered) or against the judged source text.
 */
export const GROUNDING_METRIC_SPEC = "grounding:lexical";

/** Grounding metrics of one record (empty when it carries no evidence or source). */
export function groundingMetrics(record: RunRecord): Record<string, number | null> {
  const p = record.intermediate.perturbation as { evidence?: { text: string; title: string }[]; steps?: { changes: { before: string; after: string }[] }[] } | undefined;
  const spans = (p?.steps ?? []).flatMap((s) => s.changes).filter((c) => c.after);
  const evidence = p?.evidence?.map((e) => `${e.title}. ${e.text}`) ?? (typeof record.intermediate.source === "string" ? [record.intermediate.source] : null);
  if (!evidence || !record.output) return {};
  const g = lexicalGrounding(record.output, evidence, spans);
  // numbers are judged against the evidence before perturbation: every changed span put back
  const original = evidence.map((t) => spans.reduce((acc, c) => (c.before ? acc.split(c.after).join(c.before) : acc), t));
  const n = numericFidelity(record.output, original.join("\n"), spans.map((c) => c.after));
  return { grounding_supported: g.supportedShare, perturbation_uptake: p ? g.uptakeShare : null, unsupported_claims: g.unsupported, numeric_fidelity: n.fidelity, numbers_invented: n.invented, numbers_altered: n.altered };
}

/** Check metric specs early (unknown ids throw before any cell runs). */
export function validateMetricSpecs(specs: string[]): void {
  for (const s of specs) {
    if ((ANSWER_METRIC_SPECS as readonly string[]).includes(s) || s === GROUNDING_METRIC_SPEC) continue;
    const [id, embedderId] = s.split("@");
    if (!metricIds().includes(id)) throw new Error(`metrics: unknown metric "${id}"; valid ids: ${metricIds().join(", ")}`);
    if (embedderId !== undefined) {
      if (id !== "embedding-cosine") throw new Error(`metrics: "${s}": only embedding-cosine takes an @<embedder id>`);
      if (!/^(word-vectors(:[a-z0-9-]+)?|transformers:.+|openai:.+)$/.test(embedderId)) throw new Error(`metrics: "${s}": unknown embedder id "${embedderId}"; valid ids: ${EMBEDDER_IDS.join(", ")}`);
    }
  }
}

/**
 * Score one record (output vs reference) with every metric spec.
 * @returns metric values by output name (e.g. `rougeL_fmeasure`, `bleu`) and notes for nulls.
 */
export async function computeRecordMetrics(record: RunRecord, specs: string[]): Promise<{ metrics: Record<string, number | null>; notes: Record<string, string>; labels: Record<string, string> }> {
  const metrics: Record<string, number | null> = {};
  const notes: Record<string, string> = {};
  const labels: Record<string, string> = {};
  if (!record.output) return { metrics, notes, labels };
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
  if (!record.reference) return { metrics, notes, labels };
  for (const spec of specs) {
    if ((ANSWER_METRIC_SPECS as readonly string[]).includes(spec) || spec === GROUNDING_METRIC_SPEC) continue;
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
  return { metrics, notes, labels };
}
