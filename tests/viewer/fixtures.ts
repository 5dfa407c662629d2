/**
 * Run folders for the viewer tests: the real results of a small offline run
 * (tests/fixtures/viewer/results.jsonl — 3 items × Golden-RAG, Standard-RAG K=5/10, Negated-RAG
 * fraction 0/1 with the extractive baseline) plus cells built here: a judged P-CoT cell whose every
 * text field is an XSS payload (one judge ok with a rationale, one missing with its raw answer), a
 * failed cell, and two malformed lines.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunRecord } from "../../experiments/types.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "viewer", "results.jsonl");

/** Every XSS payload used; none of them may ever execute (they set window.__xss). */
export const XSS = {
  output: `<img src=x onerror="window.__xss='output'">Output with <b>tags</b>`,
  plan: `<script>window.__xss='plan'</script>plan`,
  rationale: `<svg onload="window.__xss='rationale'"></svg>rationale text`,
  raw: `</pre><iframe src="javascript:window.top.__xss='raw'"></iframe>`,
  question: `<img src=y onerror="window.__xss='question'">Does XSS run?`,
  reference: `<a href="javascript:window.__xss='ref'">reference</a>`,
};

/** The real records of the fixture file. */
export function realRecords(): RunRecord[] {
  return readFileSync(FIXTURE, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RunRecord);
}

/** A P-CoT cell whose texts are XSS payloads, judged by two judges (one missing). */
export function xssRecord(): RunRecord {
  return {
    key: "xss-pcot-cell",
    itemId: "xss:1",
    dataset: "xss",
    taskKind: "synthesis",
    model: "openai:gpt-test",
    workflow: "pcot",
    params: {},
    repeat: 0,
    status: "ok",
    output: XSS.output,
    reference: XSS.reference,
    itemMeta: { question: XSS.question },
    intermediate: {
      plan: XSS.plan,
      drafts: ["first <i>draft</i>", XSS.output],
      scores: [2, 4],
      evaluations: [],
      questions: [{ round: 1, question: "What is the pooled effect?" }],
      answers: [],
      revisions: 1,
      stopReason: "threshold",
    },
    generator: { calls: 4, inputTokens: 1000, outputTokens: 200, latencyMs: 1234, cached: false },
    judgeScores: [
      {
        judgeId: "judge-a",
        rubricId: "medmeta-semantic-equivalence",
        scores: { semantic_equivalence: 3 },
        status: "ok",
        raw: JSON.stringify({ rationale: XSS.rationale, scores: { semantic_equivalence: 3 } }),
      },
      { judgeId: "judge-b", rubricId: "medmeta-semantic-equivalence", scores: { semantic_equivalence: null }, status: "missing", raw: XSS.raw, error: "answer did not parse as JSON" },
    ],
    panel: { aggregation: "mean", scores: { "medmeta-semantic-equivalence": { semantic_equivalence: { value: 3, nPresent: 1, nJudges: 2 } } } },
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:00:01.000Z",
  };
}

/** A failed cell. */
export function failedRecord(): RunRecord {
  return {
    ...xssRecord(),
    key: "failed-cell",
    itemId: "xss:2",
    workflow: "pzs",
    status: "failed",
    output: null,
    error: "endpoint returned 500",
    judgeScores: undefined,
    panel: undefined,
    intermediate: {},
  };
}

/**
 * Write a run folder: the real records, the extra cells and two malformed lines (after the
 * 3rd real line and at the end), plus spec.json with the run name and a price for the test model
 * (2 $ / 8 $ per 1M input / output tokens).
 * @param opts.map rewrite records before writing (e.g. change one output for compare tests)
 * @returns the folder
 */
export function makeRunDir(opts: { extra?: RunRecord[]; malformed?: boolean; name?: string; map?: (r: RunRecord) => RunRecord } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-viewer-"));
  const lines = [...realRecords(), xssRecord(), failedRecord(), ...(opts.extra ?? [])].map((r) => JSON.stringify(opts.map ? opts.map(r) : r));
  if (opts.malformed !== false) {
    lines.splice(3, 0, "{this is not json");
    lines.push('{"no":"key"}');
  }
  writeFileSync(join(dir, "results.jsonl"), lines.join("\n") + "\n");
  writeFileSync(join(dir, "spec.json"), JSON.stringify({ config: { name: opts.name ?? "fixture-run", prices: { "openai:gpt-test": { input: 2, output: 8 } } } }));
  return dir;
}
