/**
 * Synthetic demo-like run records for the results-at-scale benchmark (results-scale.ts) and the
 * viewer's large-run browser test: deterministic, ~5.5 KB a line like the demo's records —
 * Standard-RAG evidence with provenance, extracted sentences, a 3-judge panel with raw answers and
 * call info, the panel aggregate, reference metrics, labels and usage; 1 cell in 97 failed.
 */
import type { RunRecord } from "../../results/run-record.ts";

/** Generator models of the synthetic matrix. */
export const MODELS = ["openai:gpt-4o-mini", "openai:gpt-4.1", "ollama:llama3.1:8b", "ollama:qwen2.5:14b"];
/** Workflow configurations of the synthetic matrix (the demo's seven). */
export const CONFIGS: { workflow: string; params: Record<string, unknown> }[] = [
  { workflow: "golden-rag", params: {} },
  { workflow: "standard-rag", params: { k: 5 } },
  { workflow: "standard-rag", params: { k: 10 } },
  { workflow: "negated-rag", params: { fraction: 0 } },
  { workflow: "negated-rag", params: { fraction: 1 } },
  { workflow: "pzs", params: {} },
  { workflow: "pcot", params: {} },
];
const VOCAB =
  "patients treatment trial outcome mortality risk reduced increased significant evidence randomized placebo dose week cohort analysis hazard ratio confidence interval infants protein intake growth preterm fortifier breast milk weight circumference length height measured group controlled higher lower moderate certainty review".split(
    " ",
  );
const JUDGES = ["judge-a", "judge-b", "judge-c"];

function text(seed: number, words: number): string {
  const out: string[] = [];
  for (let w = 0; w < words; w++) out.push(VOCAB[(seed * 7 + w * 13 + ((w * w) % 11)) % VOCAB.length]);
  return out.join(" ") + ".";
}

/** Deterministic demo-like record number i (items × 7 configurations × 4 models). */
export function syntheticRecord(i: number): RunRecord {
  const cfg = CONFIGS[i % CONFIGS.length];
  const model = MODELS[Math.floor(i / CONFIGS.length) % MODELS.length];
  const item = Math.floor(i / (CONFIGS.length * MODELS.length));
  const failed = i % 97 === 0;
  const score = (i * 37) % 6;
  const evidence = [1, 2, 3, 4, 5].map((r) => ({ id: String(30000000 + item * 5 + r), provenance: [{ queryIndex: r % 2, query: `query ${r % 2} for item ${item}`, rank: r, score: 1 / (60 + r) }] }));
  const judgeScores = JUDGES.map((j, k) => {
    const missing = (i + k) % 53 === 0;
    return {
      judgeId: j,
      rubricId: "medmeta-semantic-equivalence",
      scores: { semantic_equivalence: missing ? null : (score + k) % 6 },
      status: missing ? ("missing" as const) : ("ok" as const),
      raw: `{"semantic_equivalence": ${(score + k) % 6}, "rationale": "${text(i + k, 40)}"}`,
      call: { modelId: `judge-model-${k}`, cached: false, attempts: 1, latencyMs: 800 + k, usage: { inputTokens: 900 + k, outputTokens: 60 } },
    };
  });
  return {
    key: `c${i.toString(16).padStart(10, "0")}`,
    itemId: `medevidence:${item}`,
    dataset: "medevidence",
    taskKind: "synthesis",
    model,
    workflow: cfg.workflow,
    params: cfg.params,
    repeat: 0,
    status: failed ? "failed" : "ok",
    output: failed ? null : text(i, 90 + (i % 40)),
    ...(failed ? { error: "HTTP 500 from the endpoint", failureReason: "http" } : {}),
    reference: text(item, 60),
    itemMeta: {
      medical_specialty: ["Cardiology", "Oncology", "Pediatrics & Neonatology"][item % 3],
      review_year: 2015 + (item % 8),
      question: `Is outcome ${item} higher, lower, or the same with treatment?`,
      referenceAnswer: ["higher", "lower", "same"][item % 3],
      evidenceCertainty: "low",
    },
    intermediate: {
      queries: [`query 0 for item ${item}`, `query 1 for item ${item}`],
      evidence,
      extractedSentences: evidence.slice(0, 3).map((e, k) => ({ docId: e.id, text: text(i + k * 3, 25) })),
    },
    generator: { calls: 1, inputTokens: 800 + (i % 400), outputTokens: 120 + (i % 80), latencyMs: 500 + (i % 1000), cached: false },
    judge: { calls: 3, inputTokens: 2703, outputTokens: 180, latencyMs: 2403 },
    judgeScores,
    panel: { aggregation: "mean", scores: { "medmeta-semantic-equivalence": { semantic_equivalence: { value: score, nPresent: 3, nJudges: 3 } } } },
    metrics: failed ? {} : { rougeL_fmeasure: ((i * 61) % 1000) / 1000, bleu: ((i * 17) % 1000) / 1000, answer_correct_lexical: i % 2, word_count_ratio: 0.5 + (i % 100) / 100 },
    labels: failed ? {} : { answer_label_lexical: ["higher", "lower", "same"][i % 3] },
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:00:01.000Z",
  } as unknown as RunRecord;
}
