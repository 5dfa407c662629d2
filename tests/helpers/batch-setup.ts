/**
 * The P-ZS + 3-judge-panel setup that `medsynth run --batch` is checked on, shared by the batch
 * end-to-end test (tests/experiments/batch-e2e.test.ts, 5 items) and the batch bench
 * (experiments/bench/batch.ts, 10,000 items): synthesis items, a judge panel file, experiment
 * configs, and the scripted answers of the fake Batch API server (tests/helpers/fake-batch-server.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import type { ScriptedReply } from "./scripted-openai-server.ts";

/** Score each judge model of the panel gives (0–5 semantic equivalence): judge-a 4, judge-b 3, judge-c 5. */
export const BATCH_JUDGE_SCORES: Readonly<Record<string, number>> = { "judge-a": 4, "judge-b": 3, "judge-c": 5 };

/**
 * Scripted answer to a chat body of the setup: the generator (`gen-model`) concludes that the
 * drug named in its prompt reduced the outcome (100 + 10 tokens); a judge answers its score of
 * {@link BATCH_JUDGE_SCORES} as rubric JSON (200 + 20 tokens; 0 for an unknown model).
 */
export function batchPanelResponder(body: any): ScriptedReply {
  if (body.model === "gen-model")
    return { content: `Compared with placebo, drug ${/drug (\w+)/.exec(JSON.stringify(body.messages))?.[1] ?? "X"} reduced the outcome.`, usage: { prompt_tokens: 100, completion_tokens: 10 } };
  const score = BATCH_JUDGE_SCORES[body.model as string] ?? 0;
  return { content: JSON.stringify({ rationale: "same finding", scores: { semantic_equivalence: score } }), usage: { prompt_tokens: 200, completion_tokens: 20 } };
}

/** What {@link writeBatchSetup} writes. */
export interface BatchSetupOptions {
  /** Folder receiving `<dataset>.jsonl`, `panel.yaml` and `<config>.yaml` per config name. */
  dir: string;
  /** Base URL of the fake Batch API server (OpenAI-compatible, also answering online calls). */
  baseURL: string;
  /** Number of synthesis items, ids t<firstId>, t<firstId + 1>, … */
  items: number;
  /** Id of the first item (default 1). */
  firstId?: number;
  /** Dataset name on the items, also the items file's name. */
  dataset: string;
  /** Environment variable holding the (fake) API key. */
  apiKeyEnv: string;
  /** Config names, each also its output folder (e.g. online, batch). */
  configs: readonly string[];
  /** Endpoint retries (default 1). */
  maxRetries?: number;
  /** When set: the endpoint's and the run's concurrency. */
  concurrency?: number;
}

/**
 * Write the setup: `<dataset>.jsonl` of synthesis items (question "Does drug D<i> help?", one
 * golden doc), `panel.yaml` (panel p3: judges a, b, c = `openai:judge-a|b|c` on the `judges`
 * endpoint, rubric medmeta-semantic-equivalence), and per config name a config running P-ZS with
 * `openai:gen-model` on the items, judged by that panel, the generator priced 2 / 8 USD per 1M
 * input / output tokens.
 * @returns the items file and the endpoint object written into the configs.
 */
export function writeBatchSetup(o: BatchSetupOptions): { itemsPath: string; endpoint: Record<string, unknown> } {
  const first = o.firstId ?? 1;
  const items = Array.from({ length: o.items }, (_, j) => ({
    kind: "synthesis",
    id: `t${first + j}`,
    dataset: o.dataset,
    question: `Does drug D${first + j} help?`,
    referenceConclusion: "The intervention reduced the outcome compared with placebo.",
    referenceAnswer: "lower",
    evidenceCertainty: "moderate",
    goldenPmids: ["1"],
    goldenDocs: [{ id: "1", title: "Trial", text: "RESULTS: It reduced the outcome." }],
  }));
  const itemsPath = join(o.dir, `${o.dataset}.jsonl`);
  writeFileSync(itemsPath, items.map((x) => JSON.stringify(x)).join("\n") + "\n");
  const endpoint = { baseURL: o.baseURL, apiKeyEnv: o.apiKeyEnv, maxRetries: o.maxRetries ?? 1, retryBaseMs: 1, ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }) };
  writeFileSync(
    join(o.dir, "panel.yaml"),
    YAML.stringify({
      id: "p3",
      rubric: "medmeta-semantic-equivalence",
      endpoints: { judges: endpoint },
      judges: ["a", "b", "c"].map((j) => ({ id: j, model: `openai:judge-${j}`, endpoint: "judges" })),
    }),
  );
  for (const name of o.configs) {
    writeFileSync(
      join(o.dir, `${name}.yaml`),
      YAML.stringify({
        name,
        output: name,
        ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
        datasets: [{ name: "jsonl", options: { path: itemsPath } }],
        models: [{ id: "openai:gen-model", endpoint }],
        workflows: [{ id: "pzs" }],
        panel: "panel.yaml",
        prices: { "openai:gen-model": { input: 2, output: 8 } },
      }),
    );
  }
  return { itemsPath, endpoint };
}
