import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { buildAnswerSchema, builtinRubricIds, loadRubricFile, parseRubric, resolveRubric, rubricPromptVariables } from "../../judges/rubric.ts";
import { loadJudgeTemplate, renderJudgeTemplate, judgePromptVariables } from "../../judges/judge.ts";

const FIX = join(import.meta.dirname, "..", "fixtures", "judges");

describe("built-in rubrics", () => {
  it("MedMeta: one 0-5 integer score, six criteria, anchors 5 = all met … 0 = contradictory", () => {
    const r = resolveRubric("medmeta-semantic-equivalence");
    expect(r.scale).toEqual({ min: 0, max: 5, type: "interval", integer: true });
    expect(r.dimensions.map((d) => d.id)).toEqual(["semantic_equivalence"]);
    expect(r.criteria.map((c) => c.id)).toEqual(["main_findings", "key_specifics", "nuance_limitations", "implications", "safety", "overall_equivalence"]);
    const a = Object.fromEntries(r.anchors.map((x) => [x.score, x.label]));
    expect(a[5]).toBe("Excellent equivalence");
    expect(a[0]).toBe("Contradictory");
    expect(r.anchors.map((x) => x.score).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("MedConclusion: five 0-100 dimensions in the paper's order", () => {
    const r = resolveRubric("medconclusion-dimensions");
    expect(r.scale.max).toBe(100);
    expect(r.dimensions.map((d) => d.id)).toEqual(["semantic_similarity", "writing_style_similarity", "non_contradiction", "numeric_consistency", "formality_similarity"]);
    expect(r.dimensions[2].description).toMatch(/100 = no contradiction/);
  });

  it("RWESummary: three binary rubrics, one dimension each, judged against the source", () => {
    for (const [id, dim] of [
      ["rwe-direction-of-effect", "direction_of_effect"],
      ["rwe-numbers-accurate", "numbers_accurate"],
      ["rwe-completeness", "completeness"],
    ]) {
      const r = resolveRubric(id);
      expect(r.scale.type).toBe("binary");
      expect(r.dimensions.map((d) => d.id)).toEqual([dim]);
      expect(r.inputs).toEqual(["source", "candidate"]);
      expect(r.prompt).toBe("rwe-binary");
      // Each instruction is a whole sentence (no sentence split over two list items).
      for (const line of r.instructions) expect(line).toMatch(/^[A-Z].*[.:]$/);
    }
    expect(resolveRubric("rwe-direction-of-effect").instructions).toContain("Mean differences are intervention minus comparator: a positive difference in a continuous outcome is an increase.");
  });

  it("every built-in rubric renders its default template with no leftover placeholder", () => {
    expect(builtinRubricIds()).toHaveLength(5);
    for (const id of builtinRubricIds()) {
      const r = resolveRubric(id);
      const t = loadJudgeTemplate(r.prompt);
      const msgs = renderJudgeTemplate(t, judgePromptVariables(r, { candidate: "CAND", reference: "REF", source: "SRC" }));
      const all = msgs.map((m) => m.content).join("\n");
      expect(all).not.toMatch(/\{\{/);
      expect(all).toContain("CAND");
      expect(all).toContain(r.inputs.includes("source") ? "SRC" : "REF");
      expect(msgs.map((m) => m.role)).toEqual(["system", "user"]);
    }
  });

  it("unknown rubric id lists the valid ids", () => {
    expect(() => resolveRubric("medmeta")).toThrow(/unknown rubric id "medmeta".*medmeta-semantic-equivalence, medconclusion-dimensions/);
  });
});

describe("answer schema", () => {
  it("accepts integer scores on the scale and rejects out-of-scale, fractional, missing or extra dimensions", () => {
    const s = buildAnswerSchema(resolveRubric("medmeta-semantic-equivalence"));
    expect(s.safeParse({ rationale: "ok", scores: { semantic_equivalence: 4 } }).success).toBe(true);
    expect(s.safeParse({ rationale: "ok", scores: { semantic_equivalence: 6 } }).success).toBe(false);
    expect(s.safeParse({ rationale: "ok", scores: { semantic_equivalence: 3.5 } }).success).toBe(false);
    expect(s.safeParse({ rationale: "ok", scores: {} }).success).toBe(false);
    expect(s.safeParse({ rationale: "ok", scores: { semantic_equivalence: 4, extra: 1 } }).success).toBe(false);
    const b = buildAnswerSchema(resolveRubric("rwe-completeness"));
    expect(b.safeParse({ rationale: "", scores: { completeness: 1 } }).success).toBe(true);
    expect(b.safeParse({ rationale: "", scores: { completeness: 2 } }).success).toBe(false);
  });

  it("answer_format names every dimension", () => {
    const v = rubricPromptVariables(resolveRubric("medconclusion-dimensions"));
    expect(v.answer_format).toContain('"non_contradiction": <whole number 0-100>');
    expect(v.anchors.split("\n")[0]).toBe("- 100 = Identical: Indistinguishable from the reference on this dimension.");
  });
});

describe("custom rubric files", () => {
  it("loads a custom YAML rubric (numeric version kept as text, candidate-only input)", () => {
    const r = loadRubricFile(join(FIX, "custom-rubric.yaml"));
    expect(r.id).toBe("custom-clarity");
    expect(r.version).toBe("2");
    expect(r.scale).toEqual({ min: 1, max: 7, type: "interval", integer: true });
    expect(r.prompt).toBe("generic-rubric");
    expect(r.inputs).toEqual(["candidate"]);
    const s = buildAnswerSchema(r);
    expect(s.safeParse({ rationale: "", scores: { clarity: 0, jargon_free: 7 } }).success).toBe(false);
    expect(s.safeParse({ rationale: "", scores: { clarity: 1, jargon_free: 7 } }).success).toBe(true);
    // resolvable by path relative to a base dir
    expect(resolveRubric("custom-rubric.yaml", FIX).id).toBe("custom-clarity");
  });

  it("a rubric with an unknown key fails naming the field and the file", () => {
    const f = join(FIX, "bad-rubric-unknown-key.yaml");
    expect(() => loadRubricFile(f)).toThrow(/bad-rubric-unknown-key\.yaml: scale: .*"integr"/);
  });

  it("names semantic errors: binary scale must be 0-1, anchors inside the scale, unique dimension ids", () => {
    const base = { id: "x", version: "1", title: "t", description: "d", dimensions: [{ id: "a", name: "A", description: "a" }] };
    expect(() => parseRubric({ ...base, scale: { min: 0, max: 5, type: "binary" } }, "x.yaml")).toThrow(/x\.yaml: scale\.type: a binary scale must be min 0, max 1/);
    expect(() => parseRubric({ ...base, scale: { min: 0, max: 5, type: "interval" }, anchors: [{ score: 9, label: "l", description: "d" }] })).toThrow(/anchors\.0\.score: anchor score 9 is outside/);
    expect(() => parseRubric({ ...base, scale: { min: 0, max: 5, type: "interval" }, dimensions: [base.dimensions[0], base.dimensions[0]] })).toThrow(/dimensions\.1\.id: duplicate dimension id "a"/);
    expect(() => parseRubric({ ...base, scale: { min: 0, max: 5, type: "interval" }, dimensions: [{ id: "Bad-Id", name: "n", description: "d" }] })).toThrow(
      /dimensions\.0\.id: dimension id must be snake_case/,
    );
  });
});

describe("judge prompt templates", () => {
  it("a template path overrides the rubric default; unknown ids list the folders searched", () => {
    const t = loadJudgeTemplate("../../judges/prompts/generic-rubric.md", { baseDir: import.meta.dirname });
    expect(t.id).toBe("judge-generic-rubric");
    const msgs = renderJudgeTemplate(t, judgePromptVariables(loadRubricFile(join(FIX, "custom-rubric.yaml")), { candidate: "Plain words." }));
    expect(msgs[1].content).toContain("CANDIDATE (the text to score):\n<<<\nPlain words.\n>>>");
    expect(msgs[1].content).not.toContain("REFERENCE");
    expect(msgs[1].content).toContain("- 7 = Very clear: A patient understands it at first reading.");
    expect(() => loadJudgeTemplate("no-such-template")).toThrow(/no-such-template.*not found/);
  });
});
