/** Standard-, Golden- and Negated-RAG against a scripted LLM and a real BM25 over MedEvidence abstracts. */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getWorkflow } from "../../graphs/registry.ts";
import { chooseNegated } from "../../graphs/negated-rag.ts";
import { buildFastBm25 } from "../../retrieval/bm25/fast-engine.ts";
import { createGeneratorModel } from "../../models/registry.ts";
import { createLlmPointwiseReranker } from "../../retrieval/rerankers/llm-pointwise.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { medEvidenceDocs, medEvidenceTasks, promptText, scriptedModel } from "./fixtures.ts";

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

const QUERIES = ["retroperitoneal drainage lymphocyst", "donepezil memory multiple sclerosis", "drainage lymphadenectomy morbidity"];

describe("Standard-RAG", () => {
  it("by default retrieves with the plan's key questions (P-CoT sub-questions): no keyword-query call", async () => {
    const docs = medEvidenceDocs(12);
    const bm25 = buildFastBm25(docs);
    const questions = ["Does retroperitoneal drainage reduce lymphocyst formation?", "Does donepezil improve memory in multiple sclerosis?"];
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Write a concise research plan"))
        return { content: JSON.stringify({ background: "b", keyQuestions: [...questions, "a third question beyond numQuestions"], searchStrategy: "s" }) };
      if (t.includes("search queries")) return { content: JSON.stringify({ queries: QUERIES }) };
      return { content: "SYNTHESIS" };
    });
    const byId = new Map(docs.map((d) => [d.id, d]));
    const wf = getWorkflow("standard-rag").create({ model: scriptedModel(server), retriever: bm25, getDoc: (id) => byId.get(id) }, { numQuestions: 2, k: 2 });
    const r = await wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(r.intermediate.queries).toEqual(questions);
    expect((r.intermediate.retrieved as { query: string }[]).map((x) => x.query)).toEqual(questions);
    expect(server.chatRequests()).toHaveLength(2); // plan + synthesis
    expect(server.chatRequests().some((q) => promptText(q).includes("search queries"))).toBe(false);
  });

  it("fans out one retrieval per query with Send and merges by PMID with provenance", async () => {
    const docs = medEvidenceDocs(12);
    const bm25 = buildFastBm25(docs);
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Write a concise research plan")) return { content: JSON.stringify({ background: "b", keyQuestions: ["q1"], searchStrategy: "s" }) };
      if (t.includes("search queries")) return { content: JSON.stringify({ queries: QUERIES }) };
      return { content: "SYNTHESIS" };
    });
    const byId = new Map(docs.map((d) => [d.id, d]));
    const wf = getWorkflow("standard-rag").create({ model: scriptedModel(server), retriever: bm25, getDoc: (id) => byId.get(id) }, { queryMode: "keywords", numQueries: 3, k: 2 });
    const r = await wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(r.output).toBe("SYNTHESIS");
    expect(server.chatRequests()).toHaveLength(3);
    const expectedPerQuery = await Promise.all(QUERIES.map(async (q) => (await bm25.search(q, 2)).map((h) => h.id)));
    const retrieved = r.intermediate.retrieved as { query: string; ids: string[] }[];
    expect(retrieved.map((x) => x.query)).toEqual(QUERIES);
    expect(retrieved.map((x) => x.ids)).toEqual(expectedPerQuery);
    const evidence = r.intermediate.evidence as { id: string; provenance: { queryIndex: number; rank: number }[] }[];
    const union = [...new Set(expectedPerQuery.flat())];
    expect(evidence.map((e) => e.id).sort()).toEqual(union.sort());
    for (const e of evidence) expect(e.provenance.map((p) => p.queryIndex)).toEqual(expectedPerQuery.flatMap((ids, qi) => (ids.includes(e.id) ? [qi] : [])));
    const synthPrompt = promptText(server.chatRequests()[2]);
    for (const id of union) expect(synthPrompt).toContain(`PMID ${id}`);
    expect(r.intermediate.goldenRecall).toBe(medEvidenceTasks(1)[0].goldenPmids.filter((p) => union.includes(p)).length / medEvidenceTasks(1)[0].goldenPmids.length);
  });

  it("a failing Send branch is named with its query; the plan, the queries, the finished branches and the calls are kept", async () => {
    const docs = medEvidenceDocs(12);
    const bm25 = buildFastBm25(docs);
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Write a concise research plan")) return { content: JSON.stringify({ background: "b", keyQuestions: ["q1"], searchStrategy: "s" }) };
      if (t.includes("search queries")) return { content: JSON.stringify({ queries: QUERIES }) };
      return { content: "SYNTHESIS" };
    });
    const byId = new Map(docs.map((d) => [d.id, d]));
    // The third query's retrieval fails after the first two have finished.
    let finished = 0;
    let release: () => void = () => undefined;
    const othersDone = new Promise<void>((r) => (release = r));
    const flaky = {
      ...bm25,
      id: bm25.id,
      search: async (q: string, k: number) => {
        if (q === QUERIES[2]) {
          await othersDone;
          throw new Error("embedding endpoint refused the request (HTTP 503)");
        }
        const hits = await bm25.search(q, k);
        if (++finished === 2) setImmediate(release);
        return hits;
      },
    };
    const wf = getWorkflow("standard-rag").create({ model: scriptedModel(server), retriever: flaky, getDoc: (id) => byId.get(id) }, { queryMode: "keywords", numQueries: 3, k: 2 });
    const r = await wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("failed");
    expect(r.error).toBe(`retrieve[2]: branch 2 (query "${QUERIES[2]}") failed: embedding endpoint refused the request (HTTP 503)`);
    expect(r.failureReason).toBe("retrieval");
    expect(r.intermediate.failedStep).toBe("retrieve[2]");
    expect(r.intermediate.failedBranch).toEqual({ queryIndex: 2, query: QUERIES[2] });
    expect(r.intermediate.queries).toEqual(QUERIES);
    expect(r.intermediate.plan).toMatchObject({ keyQuestions: ["q1"] });
    const done = (r.intermediate.retrieved as { queryIndex: number; ids: string[] }[]).sort((a, b) => a.queryIndex - b.queryIndex);
    expect(done.map((d) => d.queryIndex)).toEqual([0, 1]);
    expect(done[0].ids).toEqual((await bm25.search(QUERIES[0], 2)).map((h) => h.id));
    expect(r.calls).toHaveLength(2); // plan + queries
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("refuses to build without a retriever", () => {
    expect(() => getWorkflow("standard-rag").create({ model: createGeneratorModel("extractive:mmr") }, {})).toThrow(/deps.retriever/);
  });
});

describe("Golden-RAG", () => {
  it("sends the golden abstracts and a second identical run makes 0 requests (cache)", async () => {
    server = await startScriptedServer([{ content: "GOLDEN CONCLUSION" }]);
    const cache = mkdtempSync(join(tmpdir(), "medsynth-golden-"));
    const task = medEvidenceTasks(2)[1];
    const r1 = await getWorkflow("golden-rag")
      .create({ model: scriptedModel(server, cache) }, {})
      .run(task, { repeat: 0 });
    expect(r1.status).toBe("ok");
    expect(r1.output).toBe("GOLDEN CONCLUSION");
    expect(server.chatRequests()).toHaveLength(1);
    const sent = promptText(server.chatRequests()[0]);
    for (const d of task.goldenDocs) expect(sent).toContain(`PMID ${d.id}: ${d.title}`);
    const r2 = await getWorkflow("golden-rag")
      .create({ model: scriptedModel(server, cache) }, {})
      .run(task, { repeat: 0 });
    expect(r2.output).toBe("GOLDEN CONCLUSION");
    expect(server.chatRequests()).toHaveLength(1);
    expect(r2.calls.map((c) => c.cached)).toEqual([true]);
  });

  it("skips an item without golden abstracts with 0 requests", async () => {
    server = await startScriptedServer([{ content: "never" }]);
    const task = { ...medEvidenceTasks(1)[0], goldenDocs: [] };
    const r = await getWorkflow("golden-rag")
      .create({ model: scriptedModel(server) }, {})
      .run(task, { repeat: 0 });
    expect(r.status).toBe("skipped");
    expect(r.output).toBeNull();
    expect(r.error).toMatch(/no golden abstracts/);
    expect(server.requests).toHaveLength(0);
  });

  it("with the extractive baseline outputs only evidence sentences (offline)", async () => {
    const task = medEvidenceTasks(3)[2];
    const r = await getWorkflow("golden-rag")
      .create({ model: createGeneratorModel("extractive:mmr") }, { targetWords: 60 })
      .run(task, { repeat: 0 });
    expect(r.status).toBe("ok");
    const extracted = r.intermediate.extractedSentences as { docId: string; text: string }[];
    expect(extracted.length).toBeGreaterThan(0);
    const texts = new Map(task.goldenDocs.map((d) => [d.id, d.text]));
    for (const s of extracted) expect(texts.get(s.docId)).toContain(s.text);
    let rest = r.output!;
    for (const s of extracted) rest = rest.replace(s.text, "");
    expect(rest.trim()).toBe("");
    expect(r.calls).toHaveLength(0);
  });
});

describe("Standard-RAG with the LLM pointwise reranker", () => {
  const run = async (gradeOk: boolean) => {
    const docs = medEvidenceDocs(12);
    const bm25 = buildFastBm25(docs);
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Write a concise research plan")) return { content: JSON.stringify({ background: "b", keyQuestions: ["q1"], searchStrategy: "s" }) };
      if (t.includes("search queries")) return { content: JSON.stringify({ queries: QUERIES.slice(0, 1) }) };
      if (JSON.stringify(req.body.response_format ?? "").includes("relevance")) return { content: gradeOk ? JSON.stringify({ relevance: 7 }) : "not json" };
      return { content: "SYNTHESIS" };
    });
    const byId = new Map(docs.map((d) => [d.id, d]));
    const chat = scriptedModel(server);
    const wf = getWorkflow("standard-rag").create(
      { model: chat, retriever: bm25, reranker: createLlmPointwiseReranker(chat), getDoc: (id) => byId.get(id) },
      { queryMode: "keywords", numQueries: 1, k: 2, candidatesPerQuery: 4 },
    );
    return wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
  };

  it("counts the reranker's calls in the run's calls (tokens, latency, cost)", async () => {
    const r = await run(true);
    expect(r.status).toBe("ok");
    expect(r.calls).toHaveLength(3 + 4); // plan + queries + synthesis, and one grade per candidate (4, of which k = 2 kept)
    expect((r.intermediate.retrieved as { rerankFailures?: unknown }[])[0].rerankFailures).toBeUndefined();
  });

  it("records the grades it could not get instead of hiding them", async () => {
    const r = await run(false);
    expect(r.status).toBe("ok");
    const f = (r.intermediate.retrieved as { rerankFailures?: { count: number; firstError: string } }[])[0].rerankFailures!;
    expect(f.count).toBe(4); // all 4 candidates, not only the k = 2 kept
    expect(f.firstError).toMatch(/relevance/);
  });
});

describe("Negated-RAG", () => {
  it("sends the negated sentence, not the original, and records what changed", async () => {
    server = await startScriptedServer([{ content: "NEGATED CONCLUSION" }]);
    const task = medEvidenceTasks(1)[0];
    const r = await getWorkflow("negated-rag")
      .create({ model: scriptedModel(server) }, { negator: "rule", fraction: 1 })
      .run(task, { repeat: 0 });
    expect(r.status).toBe("ok");
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain("A significant difference in the incidence of postoperative lymphocyst formation or postoperative complications was found between the two study arms.");
    expect(sent).not.toContain("No difference in the incidence of postoperative lymphocyst formation");
    expect(r.intermediate.negatedIds).toEqual(["17466514"]);
    const rec = (r.intermediate.negation as { id: string; changed: { index: number }[] }[])[0];
    expect(rec.changed.map((c) => c.index)).toEqual([7, 9, 11]);
  });

  it("negates round(fraction·n) abstracts chosen by the seed, and none at fraction 0", async () => {
    const ids = ["a", "b", "c", "d", "e"];
    expect(chooseNegated(ids, 0.4, 7, "item").size).toBe(2);
    expect([...chooseNegated(ids, 0.4, 7, "item")]).toEqual([...chooseNegated(ids, 0.4, 7, "item")]);
    expect(chooseNegated(ids, 0, 7, "item").size).toBe(0);
    expect(chooseNegated(ids, 1, 7, "item").size).toBe(5);
    server = await startScriptedServer([{ content: "X" }]);
    const task = medEvidenceTasks(1)[0];
    const r = await getWorkflow("negated-rag")
      .create({ model: scriptedModel(server) }, { fraction: 0 })
      .run(task, { repeat: 0 });
    expect(r.intermediate.negatedIds).toEqual([]);
    expect(promptText(server.chatRequests()[0])).toContain("No difference in the incidence of postoperative lymphocyst formation");
  });

  it("LLM negator sends each abstract through the negate template before synthesis", async () => {
    server = await startScriptedServer((req) => (promptText(req).includes("results and conclusions are reversed") ? { content: "Drainage caused more lymphocysts." } : { content: "SYN" }));
    const task = medEvidenceTasks(1)[0];
    const r = await getWorkflow("negated-rag")
      .create({ model: scriptedModel(server) }, { negator: "llm" })
      .run(task, { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(server.chatRequests()).toHaveLength(2);
    expect(promptText(server.chatRequests()[1])).toContain("Drainage caused more lymphocysts.");
    expect(() => getWorkflow("negated-rag").create({ model: createGeneratorModel("extractive:mmr") }, { negator: "llm" })).toThrow(/extractive/);
  });
});
