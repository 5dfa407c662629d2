/**
 * Evidence perturbations (issue 15): each operator on hand-made abstracts with the exact expected
 * text, the record of what changed, "not applied" reasons, seeding and composition; Perturbed-RAG
 * offline; Critic-RAG against a scripted server (its check call sees both versions; abstention).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CorpusDoc, SynthesisTask } from "../../corpus/types.ts";
import { createGeneratorModel } from "../../models/registry.ts";
import { ABSTAIN_PREFIX } from "../../graphs/critic-rag.ts";
import { checkEvidence, numericInconsistencies } from "../../graphs/perturb/evidence-checks.ts";
import { alterNumbers } from "../../graphs/perturb/numeric.ts";
import { applyPerturbations, createPerturbation, evidenceHash } from "../../graphs/perturb/registry.ts";
import type { PerturbationContext, PerturbedPassage } from "../../graphs/perturb/types.ts";
import { perturbationSpecs, PerturbedRagConfigSchema } from "../../graphs/perturbed-rag.ts";
import { getWorkflow } from "../../graphs/registry.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { promptText, scriptedModel } from "./fixtures.ts";

const RESULTS = "Aspirin reduced stroke (OR 0.75, 95% CI 0.60-0.92, p = 0.01); stroke occurred in 12% vs 20%.";
const A: PerturbedPassage = {
  id: "1",
  title: "Aspirin and stroke",
  text: `BACKGROUND: Aspirin may prevent stroke. RESULTS: ${RESULTS} CONCLUSIONS: Aspirin significantly reduced the risk of stroke.`,
};
const B: PerturbedPassage = { id: "2", title: "Statins in heart failure", text: "RESULTS: Mortality did not differ between statin and placebo groups (HR 0.98, 95% CI 0.85 to 1.12; p = 0.74)." };
const ctx = (over: Partial<PerturbationContext> = {}): PerturbationContext => ({ itemId: "item-1", question: "Does aspirin reduce stroke?", seed: 3, goldenIds: new Set(["1", "2"]), ...over });

describe("numeric", () => {
  it("flips ratios and their CIs across 1, moves p across 0.05, reverses percentages (hand-checked)", () => {
    const r = alterNumbers(RESULTS, ["ratio", "p", "percent"]);
    // 1/0.75 = 1.333, 1/0.92 = 1.087, 1/0.60 = 1.667; "95% CI" is a label, not a percentage
    expect(r.text).toBe("Aspirin reduced stroke (OR 1.33, 95% CI 1.09-1.67, p = 0.32); stroke occurred in 88% vs 80%.");
    expect(r.changes).toEqual([
      { kind: "ratio", before: "OR 0.75, 95% CI 0.60-0.92", after: "OR 1.33, 95% CI 1.09-1.67" },
      { kind: "p", before: "p = 0.01", after: "p = 0.32" },
      { kind: "percent", before: "12%", after: "88%" },
      { kind: "percent", before: "20%", after: "80%" },
    ]);
    expect(alterNumbers("HR 0.98, 95% CI 0.85 to 1.12; p = 0.74", ["p"]).text).toBe("HR 0.98, 95% CI 0.85 to 1.12; p = 0.004");
    expect(alterNumbers("in 5 or 6 patients (OR 2.0 [1.5-2.7])", ["ratio"]).text).toBe("in 5 or 6 patients (OR 0.50 [0.37-0.67])");
  });
  it("records changes per passage; no numbers → not applied with the reason", async () => {
    const op = createPerturbation({ op: "numeric", strength: 1, targets: ["p"] });
    const r = await op.apply([A, B], ctx());
    expect(r.step.applied).toBe(true);
    expect(r.step.changes.map((c) => [c.docId, c.before, c.after])).toEqual([
      ["1", "p = 0.01", "p = 0.32"],
      ["2", "p = 0.74", "p = 0.004"],
    ]);
    const none = await op.apply([{ id: "x", title: "t", text: "No numbers here." }], ctx());
    expect(none.step).toMatchObject({ applied: false, reason: "no p numbers in the 1 selected passage(s)" });
  });
});

describe("negate, conflict, retracted, distract", () => {
  it("negate at finding level changes every finding sentence; sentence level only the first", async () => {
    const full = await createPerturbation({ op: "negate", strength: 1 }).apply([A], ctx());
    // the rule negator's significance rule: "p = 0.01" → "p > 0.05", "significantly reduced" → "did not significantly reduce"
    expect(full.evidence[0].text).toBe(
      "BACKGROUND: Aspirin may prevent stroke. RESULTS: Aspirin reduced stroke (OR 0.75, 95% CI 0.60-0.92, p > 0.05); stroke occurred in 12% vs 20%. CONCLUSIONS: Aspirin did not significantly reduce the risk of stroke.",
    );
    expect(full.step.changes.map((c) => c.after)).toEqual([
      "Aspirin reduced stroke (OR 0.75, 95% CI 0.60-0.92, p > 0.05); stroke occurred in 12% vs 20%.",
      "Aspirin did not significantly reduce the risk of stroke.",
    ]);
    const one = await createPerturbation({ op: "negate", strength: 1, level: "sentence" }).apply([A], ctx());
    expect(one.step.changes).toHaveLength(1);
    expect(one.step.changes[0].before).toBe(full.step.changes[0].before);
    const zero = await createPerturbation({ op: "negate", strength: 0 }).apply([A, B], ctx());
    expect(zero.step).toMatchObject({ applied: false, reason: "strength 0 selects no passage of 2" });
    expect(zero.evidence).toEqual([A, B]);
  });
  it("conflict inserts a negated copy right after its original", async () => {
    const r = await createPerturbation({ op: "conflict", strength: 1 }).apply([A], ctx());
    expect(r.evidence.map((p) => p.id)).toEqual(["1", "1~conflict"]);
    expect(r.evidence[1]).toMatchObject({ origin: "1", title: A.title });
    expect(r.evidence[1].text).toContain("Aspirin did not significantly reduce the risk of stroke.");
    expect(r.step.inserted).toEqual(["1~conflict"]);
  });
  it("retracted marks titles as PubMed does, or inserts flagged studies from the pool", async () => {
    const r = await createPerturbation({ op: "retracted", strength: 1 }).apply([A], ctx());
    expect(r.evidence[0]).toMatchObject({ title: "RETRACTED: Aspirin and stroke", retracted: true });
    const pool = [
      { id: "9", title: "Fraudulent trial", text: "x", retracted: true },
      { id: "8", title: "Fine", text: "y" },
    ] as unknown as CorpusDoc[];
    const ins = await createPerturbation({ op: "retracted", strength: 1, mode: "insert" }).apply([A], ctx({ pool }));
    expect(ins.evidence.map((p) => [p.id, p.title, p.retracted])).toEqual([
      ["1", A.title, undefined],
      ["9", "RETRACTED: Fraudulent trial", true],
    ]);
    const empty = await createPerturbation({ op: "retracted", strength: 1, mode: "insert" }).apply([A], ctx({ pool: [pool[1]] }));
    expect(empty.step).toMatchObject({ applied: false, reason: "only 0 of 1 retracted studies in the pool" });
  });
  it("distract adds near-topic non-golden hits (or seeded random ones) at a ratio; no corpus → not applied", async () => {
    const pool: CorpusDoc[] = ["1", "2", "3", "4", "5", "6"].map((id) => ({ id, title: `T${id}`, text: `text ${id}` }) as CorpusDoc);
    const search = async () => ["2", "5", "1", "3", "6"].map((id) => ({ id }));
    const near = await createPerturbation({ op: "distract", strength: 1 }).apply([A, B], ctx({ pool, search }));
    expect(near.step.inserted).toEqual(["5", "3"]); // golden 1 and 2 skipped
    expect(near.evidence.slice(2).map((p) => p.origin)).toEqual(["inserted", "inserted"]);
    const r1 = await createPerturbation({ op: "distract", strength: 1, source: "random" }).apply([A, B], ctx({ pool }));
    const r2 = await createPerturbation({ op: "distract", strength: 1, source: "random" }).apply([A, B], ctx({ pool }));
    expect(r1.step.inserted).toEqual(r2.step.inserted);
    expect(r1.step.inserted.every((id) => !["1", "2"].includes(id))).toBe(true);
    const none = await createPerturbation({ op: "distract", strength: 1, source: "random" }).apply([A], ctx());
    expect(none.step).toMatchObject({ applied: false, reason: "no document pool to draw random distractors from (the workflow has no retrieval corpus)" });
  });
  it("composition applies in order; the same seed gives the same evidence hash, another seed may not", async () => {
    const specs = perturbationSpecs(PerturbedRagConfigSchema.parse({ op: "numeric", strength: 1, also: "conflict:1,retracted:0.5" }));
    expect(specs.map((s) => s.op)).toEqual(["numeric", "conflict", "retracted"]);
    const ops = specs.map((s) => createPerturbation(s));
    const a = await applyPerturbations(ops, [A, B], ctx());
    const b = await applyPerturbations(ops, [A, B], ctx());
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toBe(evidenceHash(a.evidence));
    expect(a.steps.map((s) => s.op)).toEqual(["numeric", "conflict", "retracted"]);
    expect(a.evidence.some((p) => p.id === "1~conflict" && p.text.includes("OR 1.33"))).toBe(true);
    expect(() => perturbationSpecs(PerturbedRagConfigSchema.parse({ op: "numeric", also: "shuffle:1" }))).toThrow(/also: "shuffle:1"/);
  });
});

describe("evidence checks (critic rules)", () => {
  it("finds estimates outside their CI, p inconsistent with the CI, conflicts and retractions", () => {
    expect(numericInconsistencies("OR 1.33 (95% CI 0.60-0.92)")).toEqual(["estimate 1.33 lies outside its CI 0.60–0.92"]);
    expect(numericInconsistencies("HR 0.83 (95% CI 0.66 to 1.05; P=0.004)")).toEqual(["p = 0.004 but the CI 0.66–1.05 includes 1"]);
    expect(numericInconsistencies(RESULTS)).toEqual([]);
    const conflict = { ...A, id: "1~conflict", text: A.text.replace("significantly reduced", "did not significantly reduce") };
    const f = checkEvidence([A, conflict, { ...B, title: "RETRACTED: x", retracted: true }]);
    expect(f.map((x) => [x.kind, x.ids])).toEqual([
      ["conflict", ["1", "1~conflict"]],
      ["retracted", ["2"]],
    ]);
  });
});

const TASK: SynthesisTask = { id: "item-1", question: "Does aspirin reduce stroke?", goldenDocs: [A, B] as CorpusDoc[], referenceAnswer: "lower" } as unknown as SynthesisTask;

describe("Perturbed-RAG and Critic-RAG", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  it("Perturbed-RAG offline records steps, spans, evidence and its hash", async () => {
    const model = createGeneratorModel("extractive:mmr", {});
    const r = await getWorkflow("perturbed-rag").create({ model }, { op: "numeric", strength: 1 }).run(TASK, { repeat: 0 });
    expect(r.status).toBe("ok");
    const p = r.intermediate.perturbation as { steps: { applied: boolean; changes: unknown[] }[]; evidenceHash: string; evidence: { id: string; text: string }[] };
    expect(p.steps[0].applied).toBe(true);
    expect(p.evidence[0].text).toContain("OR 1.33");
    expect(p.evidenceHash).toMatch(/^[0-9a-f]{16}$/);
  });
  it("Critic-RAG: the check call sees both versions of a contradicted study; abstention is recorded", async () => {
    server = await startScriptedServer((req) => {
      const t = promptText(req);
      if (t.includes("Automatic checks already flagged"))
        return {
          content: JSON.stringify({
            findings: [{ pmids: ["1", "1~conflict"], issue: "opposite findings", action: "exclude" }],
            abstain: true,
            reason: "the only informative study contradicts itself",
          }),
        };
      return { content: "SHOULD NOT BE CALLED" };
    });
    const r = await getWorkflow("critic-rag")
      .create({ model: scriptedModel(server) }, { op: "conflict", strength: 1 })
      .run({ ...TASK, goldenDocs: [A] as CorpusDoc[] }, { repeat: 0 });
    expect(r.status).toBe("ok");
    expect(server.chatRequests()).toHaveLength(1);
    const sent = promptText(server.chatRequests()[0]);
    expect(sent).toContain("Aspirin significantly reduced the risk of stroke.");
    expect(sent).toContain("Aspirin did not significantly reduce the risk of stroke.");
    expect(sent).toContain("conflict: PMIDs 1, 1~conflict");
    expect(r.output).toBe(`${ABSTAIN_PREFIX} the only informative study contradicts itself`);
    expect(r.intermediate.critic).toMatchObject({ abstained: true, excludedIds: ["1", "1~conflict"] });
  });
  it("Critic-RAG offline excludes flagged passages by rule and synthesises from the rest", async () => {
    const model = createGeneratorModel("extractive:mmr", {});
    const r = await getWorkflow("critic-rag").create({ model }, { op: "retracted", strength: 0.5 }).run(TASK, { repeat: 0 });
    expect(r.status).toBe("ok");
    const c = r.intermediate.critic as { excludedIds: string[]; abstained: boolean };
    expect(c.excludedIds).toHaveLength(1);
    expect(c.abstained).toBe(false);
    expect(r.intermediate.evidenceIds).toEqual(["1", "2"].filter((id) => !c.excludedIds.includes(id)));
  });
});
