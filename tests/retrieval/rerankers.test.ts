import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChatModel } from "../../models/registry.ts";
import type { ChatModel } from "../../models/types.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import { createNoneReranker } from "../../retrieval/rerankers/none.ts";
import { createLlmPointwiseReranker } from "../../retrieval/rerankers/llm-pointwise.ts";
import { createReranker, RERANKER_IDS } from "../../retrieval/rerankers/registry.ts";
import { createEmbedder } from "../../retrieval/embedders/registry.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";

const doc = (id: string, title: string): CorpusDoc => ({ id, title, text: `Abstract of ${title}.` });
const DOCS = [doc("1", "ALPHA trial"), doc("2", "BRAVO trial"), doc("3", "CHARLIE trial"), doc("4", "DELTA trial")];
/** Grade the scripted "LLM" gives per title; CHARLIE gets an unparseable answer. */
const GRADES: Record<string, string> = { ALPHA: '{"relevance": 3}', BRAVO: '{"relevance": 9}', CHARLIE: "I cannot say.", DELTA: '{"relevance": 9}' };

describe("none reranker", () => {
  it("keeps the input order, cuts to topN, score = 1/rank", async () => {
    const r = createNoneReranker();
    const hits = await r.rerank("q", DOCS, { topN: 3 });
    expect(hits.map((h) => [h.id, h.rank, h.score])).toEqual([
      ["1", 1, 1],
      ["2", 2, 0.5],
      ["3", 3, 1 / 3],
    ]);
    expect(await r.rerank("", DOCS, { topN: 3 })).toEqual([]);
  });
});

describe("llm-pointwise reranker (scripted OpenAI-compatible server)", () => {
  let server: ScriptedServer;
  let model: ChatModel;
  let cache: string;
  beforeAll(async () => {
    server = await startScriptedServer((req) => {
      const text = JSON.stringify(req.body?.messages ?? []);
      const key = Object.keys(GRADES).find((t) => text.includes(`${t} trial`));
      return { content: key ? GRADES[key] : '{"relevance": 0}' };
    });
    cache = mkdtempSync(join(tmpdir(), "medsynth-rerank-"));
    model = createChatModel("openai:scripted-judge", { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", maxRetries: 0, structuredRetries: 0, cache: false }, { cacheDir: cache });
  });
  afterAll(async () => {
    await server.close();
    rmSync(cache, { recursive: true, force: true });
  });

  it("sorts by the 0–10 grade (ties keep input order); an unparseable answer ranks last with error, never a grade", async () => {
    const r = createLlmPointwiseReranker(model);
    expect(r.id).toBe("llm-pointwise:openai:scripted-judge");
    const hits = await r.rerank("Does BRAVO work?", DOCS, { topN: 4 });
    expect(hits.map((h) => [h.id, h.score])).toEqual([
      ["2", 9],
      ["4", 9],
      ["1", 3],
      ["3", Number.NEGATIVE_INFINITY],
    ]);
    expect(hits.map((h) => h.rank)).toEqual([1, 2, 3, 4]);
    expect(hits[0].scores).toEqual({ llm: 9 });
    expect(hits[3].error).toBeTruthy();
    expect(hits[3].scores).toEqual({});
    const reqs = server.chatRequests();
    expect(reqs).toHaveLength(4);
    const prompt = JSON.stringify(reqs[0].body.messages);
    expect(prompt).toContain("Does BRAVO work?");
    expect(prompt).toContain("Abstract of ALPHA trial.");
    expect((await r.rerank("Does BRAVO work?", DOCS, { topN: 1 })).map((h) => h.id)).toEqual(["2"]);
  });

  it("uses a user-supplied template file and rejects one without {{query}}", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-tpl-"));
    const good = join(dir, "mine.md");
    writeFileSync(good, "---\nid: my-rerank\nversion: 7\nvariables: [query, text]\n---\n## user\nQ={{query}} DOC={{text}} answer JSON\n");
    const n0 = server.chatRequests().length;
    const r = createLlmPointwiseReranker(model, { promptPath: good });
    await r.rerank("my question", [DOCS[0]], { topN: 1 });
    expect(JSON.stringify(server.chatRequests()[n0].body.messages)).toContain("Q=my question DOC=Abstract of ALPHA trial.");
    const bad = join(dir, "bad.md");
    writeFileSync(bad, "---\nid: bad\nversion: 1\nvariables: [text]\n---\n## user\n{{text}}\n");
    expect(() => createLlmPointwiseReranker(model, { promptPath: bad })).toThrow(/must declare and use the variable "query"/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("reranker and embedder registries", () => {
  it("unknown reranker id lists the valid ids", async () => {
    await expect(createReranker("bm42")).rejects.toThrow(`unknown reranker id "bm42"; valid ids: ${RERANKER_IDS.join(", ")}`);
    expect(RERANKER_IDS).toEqual(["none", "cross-encoder", "cross-encoder:<model id>", "llm-pointwise"]);
  });
  it("llm-pointwise needs a chat model", async () => {
    await expect(createReranker("llm-pointwise")).rejects.toThrow(/needs a chat model/);
  });
  it("a cross-encoder missing offline fails fast naming the folder looked in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-models-"));
    await expect(createReranker("cross-encoder:Xenova/ms-marco-MiniLM-L-6-v2", { modelDir: dir })).rejects.toThrow(
      `model Xenova/ms-marco-MiniLM-L-6-v2 not found locally (looked in ${join(dir, "Xenova/ms-marco-MiniLM-L-6-v2")})`,
    );
    await expect(createEmbedder("transformers:Xenova/bge-small-en-v1.5:cls", { modelDir: dir })).rejects.toThrow(
      `model Xenova/bge-small-en-v1.5 not found locally (looked in ${join(dir, "Xenova/bge-small-en-v1.5")})`,
    );
    rmSync(dir, { recursive: true, force: true });
  });
  it("unknown embedder id lists the valid ids", async () => {
    await expect(createEmbedder("glove")).rejects.toThrow(
      'unknown embedder id "glove"; valid ids: word-vectors, word-vectors:sg-100d-mean, word-vectors:sg-100d-sif, word-vectors:sg-100d-sif-corpus-pc1, transformers:<model id>[:mean|:cls], openai:<model>[@<dims>]',
    );
  });
});
