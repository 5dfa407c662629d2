/**
 * Standard-RAG keeps the retraction flags of retrieved documents: the synthesis prompt marks them
 * ([RETRACTED] / [RETRACTION NOTICE]), `retracted: exclude` leaves them out, and the record lists
 * every flagged passage (scripted LLM, real MedEvidence abstracts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { getWorkflow } from "../../graphs/registry.ts";
import { docToPassage, formatEvidence } from "../../graphs/nodes/evidence.ts";
import type { CorpusDoc } from "../../corpus/types.ts";
import type { Retriever, SearchHit } from "../../retrieval/types.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { medEvidenceDocs, medEvidenceTasks, promptText, scriptedModel } from "./fixtures.ts";

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

/** The first four MedEvidence abstracts; the second is flagged retracted, the third a retraction notice. */
function flaggedDocs(): CorpusDoc[] {
  const docs = medEvidenceDocs(3).slice(0, 4);
  expect(docs).toHaveLength(4);
  return docs.map((d, i) => (i === 1 ? { ...d, retraction: "retracted" as const } : i === 2 ? { ...d, retraction: "notice" as const } : d));
}

/** Returns the given docs in order for every query. */
function fixedRetriever(docs: CorpusDoc[]): Retriever {
  return { id: "fixed", search: async (_q: string, k: number): Promise<SearchHit[]> => docs.slice(0, k).map((d, i) => ({ id: d.id, rank: i + 1, score: 1 / (i + 1), doc: d })) };
}

async function runWith(docs: CorpusDoc[], config: Record<string, unknown>) {
  server = await startScriptedServer((req) => {
    const t = promptText(req);
    if (t.includes("Write a concise research plan")) return { content: JSON.stringify({ background: "b", keyQuestions: ["q1"], searchStrategy: "s" }) };
    return { content: "SYNTHESIS" };
  });
  const wf = getWorkflow("standard-rag").create({ model: scriptedModel(server), retriever: fixedRetriever(docs) }, { numQuestions: 1, k: 4, ...config });
  return wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
}

describe("Standard-RAG and retracted evidence", () => {
  it("docToPassage keeps the flag and formatEvidence marks it before the title", () => {
    const [a, b, c] = flaggedDocs();
    expect(docToPassage(b)).toEqual({ id: b.id, title: b.title, text: b.text, retraction: "retracted" });
    expect(docToPassage(a)).toEqual({ id: a.id, title: a.title, text: a.text });
    expect(formatEvidence([a, b, c].map(docToPassage))).toBe(
      `[1] PMID ${a.id}: ${a.title}\n${a.text}\n\n[2] PMID ${b.id}: [RETRACTED] ${b.title}\n${b.text}\n\n[3] PMID ${c.id}: [RETRACTION NOTICE] ${c.title}\n${c.text}`,
    );
  });

  it("keep-marked (default): flagged passages reach the prompt marked; the record lists them", async () => {
    const docs = flaggedDocs();
    const r = await runWith(docs, {});
    expect(r.status).toBe("ok");
    const synth = promptText(server!.chatRequests()[1]);
    expect(synth).toContain(`[1] PMID ${docs[0].id}: ${docs[0].title}\n`);
    expect(synth).toContain(`[2] PMID ${docs[1].id}: [RETRACTED] ${docs[1].title}\n`);
    expect(synth).toContain(`[3] PMID ${docs[2].id}: [RETRACTION NOTICE] ${docs[2].title}\n`);
    expect(r.intermediate.flaggedEvidence).toEqual([
      { id: docs[1].id, retraction: "retracted", action: "marked" },
      { id: docs[2].id, retraction: "notice", action: "marked" },
    ]);
    expect((r.intermediate.evidence as { id: string; retraction?: string }[]).map((e) => [e.id, e.retraction ?? null])).toEqual([
      [docs[0].id, null],
      [docs[1].id, "retracted"],
      [docs[2].id, "notice"],
      [docs[3].id, null],
    ]);
  });

  it("exclude: flagged passages are left out of the evidence and the prompt, and listed as excluded", async () => {
    const docs = flaggedDocs();
    const r = await runWith(docs, { retracted: "exclude" });
    expect(r.status).toBe("ok");
    const synth = promptText(server!.chatRequests()[1]);
    expect(synth).toContain(`[1] PMID ${docs[0].id}: ${docs[0].title}\n`);
    expect(synth).toContain(`[2] PMID ${docs[3].id}: ${docs[3].title}\n`);
    expect(synth).not.toContain(`PMID ${docs[1].id}`);
    expect(synth).not.toContain(`PMID ${docs[2].id}`);
    expect(r.intermediate.flaggedEvidence).toEqual([
      { id: docs[1].id, retraction: "retracted", action: "excluded" },
      { id: docs[2].id, retraction: "notice", action: "excluded" },
    ]);
    expect((r.intermediate.evidence as { id: string }[]).map((e) => e.id)).toEqual([docs[0].id, docs[3].id]);
  });

  it("exclude with only flagged evidence fails the item at merge, naming them, without a synthesis call", async () => {
    const docs = flaggedDocs().slice(1, 3);
    const r = await runWith(docs, { retracted: "exclude" });
    expect(r.status).toBe("failed");
    expect(r.error).toBe(`merge: all 2 retrieved documents are retracted papers or retraction notices (${docs[0].id}, ${docs[1].id}), excluded by retracted: exclude`);
    expect(server!.chatRequests()).toHaveLength(1);
  });

  it("rejects an unknown retracted mode", () => {
    expect(() => getWorkflow("standard-rag").configSchema.parse({ retracted: "drop" })).toThrow(/keep-marked/);
  });
});
