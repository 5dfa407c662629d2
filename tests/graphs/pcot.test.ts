/** P-CoT loops exactly until the threshold or the iteration limit (scripted LLM). */
import { afterEach, describe, expect, it } from "vitest";
import { getWorkflow } from "../../graphs/registry.ts";
import { pcotRecursionLimit } from "../../graphs/pcot.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { medEvidenceTasks, promptText, scriptedModel } from "./fixtures.ts";

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

/** A responder playing every P-CoT step; self-scores come from `scores` in order. */
function pcotResponder(scores: number[]) {
  let evals = 0;
  let revisions = 0;
  return (req: { body: any }) => {
    const t = promptText(req as never);
    if (t.includes("Write a concise research plan")) return { content: JSON.stringify({ background: "bg", keyQuestions: ["KQ1", "KQ2", "KQ3"], searchStrategy: "ss" }) };
    if (t.includes("Judge the conclusion")) return { content: JSON.stringify({ evaluation: `eval ${evals}`, gaps: [`gap ${evals}`], score: scores[evals++] }) };
    if (t.includes("Rewrite the conclusion so that it fixes")) return { content: `DRAFT-${++revisions}` };
    if (t.includes("Questions already asked")) return { content: JSON.stringify({ questions: [`NQ${evals}a`, `NQ${evals}b`] }) };
    if (t.includes("Answers to the research questions")) return { content: "DRAFT-0" };
    if (t.includes("Research question:")) return { content: `answer to ${t.match(/Research question: (\S+)/)![1]}` };
    return { status: 500 };
  };
}

describe("P-CoT", () => {
  it("stops when the self-score reaches the threshold (2, 3, 5 → 3 evaluations)", async () => {
    server = await startScriptedServer(pcotResponder([2, 3, 5, 5]));
    const wf = getWorkflow("pcot").create({ model: scriptedModel(server) }, { numQuestions: 3, numNewQuestions: 2, threshold: 4, maxIterations: 3 });
    const r = await wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(r.output).toBe("DRAFT-2");
    expect(r.intermediate.drafts).toEqual(["DRAFT-0", "DRAFT-1", "DRAFT-2"]);
    expect(r.intermediate.scores).toEqual([2, 3, 5]);
    expect(r.intermediate.stopReason).toBe("threshold");
    // plan 1 + 3 answers + draft + eval = 6; each revision: newQ + 2 answers + revise + eval = 5 → 6 + 2·5
    expect(server.chatRequests()).toHaveLength(16);
    expect(r.calls).toHaveLength(16);
    const revisePrompt = server
      .chatRequests()
      .map(promptText)
      .find((t) => t.includes("Rewrite the conclusion so that it fixes"))!;
    expect(revisePrompt).toContain("gap 0");
    expect(revisePrompt).toContain("answer to NQ1a");
  });

  it("stops at the iteration limit when every score is low", async () => {
    server = await startScriptedServer(pcotResponder([1, 1, 1, 1, 1, 1]));
    const wf = getWorkflow("pcot").create({ model: scriptedModel(server) }, { numQuestions: 3, numNewQuestions: 2, maxIterations: 2 });
    const r = await wf.run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(r.intermediate.scores).toEqual([1, 1, 1]);
    expect(r.intermediate.drafts).toEqual(["DRAFT-0", "DRAFT-1", "DRAFT-2"]);
    expect(r.intermediate.stopReason).toBe("maxIterations");
    expect(server.chatRequests()).toHaveLength(16);
  });

  it("with maxIterations 0 makes one draft and one evaluation", async () => {
    server = await startScriptedServer(pcotResponder([0]));
    const r = await getWorkflow("pcot")
      .create({ model: scriptedModel(server) }, { numQuestions: 3, maxIterations: 0 })
      .run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.intermediate.drafts).toEqual(["DRAFT-0"]);
    expect(server.chatRequests()).toHaveLength(6);
    expect(pcotRecursionLimit(2)).toBe(14);
  });

  it("turns a malformed structured answer into a failure carrying the raw text", async () => {
    server = await startScriptedServer((req) => (promptText(req).includes("research plan") ? { content: "not json at all" } : { content: "x" }));
    const r = await getWorkflow("pcot")
      .create({ model: scriptedModel(server) }, {})
      .run(medEvidenceTasks(1)[0], { repeat: 0 });
    expect(r.status).toBe("failed");
    expect(r.output).toBeNull();
    expect(r.raw).toBe("not json at all");
    expect(r.error).toMatch(/^plan: /);
    expect(r.calls).toHaveLength(1);
  });
});
