/** Fixture builders for the workflow tests: real MedEvidence items, a scripted LLM, a BM25-like fake retriever. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { datasetFileSync } from "../../corpus/datasets/files.ts";
import { createGeneratorModel } from "../../models/registry.ts";
import type { ChatModel } from "../../models/types.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";
import type { ScriptedRequest, ScriptedServer } from "../helpers/scripted-openai-server.ts";

interface MedEvidenceRow {
  question_id: number;
  question: string;
  answer: string;
  relevant_sources: string[];
  sources: Record<string, { title: string; content: string }>;
}

/** The first `n` MedEvidence questions as SynthesisTasks with their golden abstracts. */
export function medEvidenceTasks(n: number): SynthesisTask[] {
  const rows = readFileSync(datasetFileSync("medevidence/med-evidence-abstract.jsonl"), "utf8")
    .trim()
    .split("\n")
    .slice(0, n)
    .map((l) => JSON.parse(l) as MedEvidenceRow);
  return rows.map((r) => ({
    id: `medevidence-${r.question_id}`,
    dataset: "medevidence",
    question: r.question,
    referenceConclusion: null,
    referenceAnswer: null,
    evidenceCertainty: null,
    goldenPmids: r.relevant_sources,
    goldenDocs: r.relevant_sources.filter((p) => r.sources[p]).map((p) => ({ id: p, title: r.sources[p].title, text: r.sources[p].content })),
  }));
}

/** Every MedEvidence abstract of the first `n` questions, deduplicated. */
export function medEvidenceDocs(n: number): CorpusDoc[] {
  const byId = new Map<string, CorpusDoc>();
  for (const t of medEvidenceTasks(n)) for (const d of t.goldenDocs) byId.set(d.id, d);
  return [...byId.values()];
}

/** A chat model on the scripted server with a fresh cache folder. */
export function scriptedModel(server: ScriptedServer, cacheDir = mkdtempSync(join(tmpdir(), "medsynth-graphs-"))): ChatModel {
  return createGeneratorModel(
    "openai:scripted-chat",
    { baseURL: server.baseURL, apiKeyEnv: "TEST_KEY", maxRetries: 0, timeoutMs: 5000, structuredMethod: "jsonSchema", structuredRetries: 0, concurrency: 8, requestsPerMinute: 0 },
    { cacheDir, env: { TEST_KEY: "sk-test" }, random: () => 0 },
  ) as ChatModel;
}

/** All message text of a request, joined. */
export function promptText(req: ScriptedRequest): string {
  return (req.body?.messages ?? []).map((m: { content: unknown }) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

/** A tiny term-overlap retriever (number of shared lower-case words ≥ 4 letters) over docs; ties by id. */
export function overlapRetriever(docs: CorpusDoc[]): Retriever & { queries: string[] } {
  const words = (t: string) => new Set(t.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const index = docs.map((d) => ({ d, w: words(`${d.title} ${d.text}`) }));
  const queries: string[] = [];
  return {
    id: "overlap-fake",
    queries,
    async search(query: string, k: number): Promise<SearchHit[]> {
      queries.push(query);
      const q = words(query);
      return index
        .map(({ d, w }) => ({ d, score: [...q].filter((x) => w.has(x)).length }))
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || a.d.id.localeCompare(b.d.id))
        .slice(0, k)
        .map((x, i) => ({ id: x.d.id, score: x.score, rank: i + 1, doc: x.d }));
    },
  };
}
