/** Human–judge alignment experiment (`medsynth validate`): derived human scores, alignment, κ, panel path, real config. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset } from "../../corpus/datasets/registry.ts";
import type { MslrAnnotation } from "../../corpus/datasets/mslr-annotations.ts";
import { createChatModel } from "../../models/registry.ts";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { validateCommand } from "../../experiments/cli/validate-commands.ts";
import {
  alignmentRow,
  alignmentTableRows,
  cohenKappa,
  deriveHumanScores,
  loadValidationConfig,
  parseValidationConfig,
  runValidation,
  type ValidationConfigInput,
  writeValidationOutputs,
} from "../../experiments/validation.ts";

const FIVE = join(import.meta.dirname, "..", "fixtures", "validation", "five-rows.tsv");
const REAL_CONFIG = join(import.meta.dirname, "..", "..", "experiments", "configs", "judge-validation.yaml");
const tmp = mkdtempSync(join(tmpdir(), "medsynth-validation-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Fixture config: five hand-made rows, ROUGE-1 F1 only, content agreement. */
const fiveRows = (over: Partial<ValidationConfigInput> = {}): ValidationConfigInput => ({
  dataset: { name: "mslr-annotations", path: FIVE },
  humanScores: ["content-agreement"],
  metrics: [{ id: "rouge", config: { types: ["rouge1"] } }],
  directionClassifier: false,
  ...over,
});

describe("derived human scores on real MSLR rows (hand-derived from the TSV cells)", () => {
  let byId: Map<string, MslrAnnotation>;
  beforeAll(async () => {
    byId = new Map(((await loadDataset("mslr-annotations")).items as MslrAnnotation[]).map((r) => [r.id, r]));
  });
  it("CD000123:01G9JE4STYHQ2136MCATAQ85CE — P 0, I 1, O 2; direction +1/+1; claim 2 vs 1; fluent", () => {
    const h = deriveHumanScores(byId.get("CD000123:01G9JE4STYHQ2136MCATAQ85CE")!);
    expect(h).toEqual({
      "content-agreement": 1,
      population: 0,
      intervention: 1,
      outcome: 2,
      fluency: 2,
      "direction-agreement": 1,
      "direction-agreement-rated": 1,
      "claim-strength-agreement": 1 - 1 / 3,
    });
  });
  it("CD000024:01G8WPZRN2E3EHA2WENHVNCH8M — P 2, I 1, O 1; direction −1 vs N/A; claim 2 vs 0", () => {
    const h = deriveHumanScores(byId.get("CD000024:01G8WPZRN2E3EHA2WENHVNCH8M")!, ["content-agreement", "direction-agreement", "direction-agreement-rated", "claim-strength-agreement"]);
    expect(h["content-agreement"]).toBeCloseTo(4 / 3, 15);
    expect(h["direction-agreement"]).toBe(0); // −1 vs unspecified
    expect(h["direction-agreement-rated"]).toBeNull(); // generated not rated on −1/0/+1
    expect(h["claim-strength-agreement"]).toBeCloseTo(1 / 3, 15);
  });
  it("CD002282:01GCRZERDX9XKMDWQ5GDSPNXTA — population N/A, outcome Other, both directions N/A, target claim N/A → missing, never 0", () => {
    const h = deriveHumanScores(byId.get("CD002282:01GCRZERDX9XKMDWQ5GDSPNXTA")!);
    expect(h["content-agreement"]).toBeNull();
    expect(h.population).toBeNull();
    expect(h.intervention).toBe(2);
    expect(h.outcome).toBeNull();
    expect(h["direction-agreement"]).toBe(1); // unspecified = unspecified
    expect(h["direction-agreement-rated"]).toBeNull();
    expect(h["claim-strength-agreement"]).toBeNull();
    expect(h.fluency).toBe(2);
  });
  it("an unknown score id throws listing the valid ones", () => {
    expect(() => deriveHumanScores(byId.get("CD000123:01G9JE4STYHQ2136MCATAQ85CE")!, ["pico"])).toThrow(/unknown human score "pico"; valid: content-agreement/);
  });
});

describe("cohenKappa", () => {
  it("2×2 table [[20, 5], [10, 15]]: p_o 0.7, p_e 0.5, κ 0.4", () => {
    const a = [...Array(25).fill("yes"), ...Array(25).fill("no")];
    const b = [...Array(20).fill("yes"), ...Array(5).fill("no"), ...Array(10).fill("yes"), ...Array(15).fill("no")];
    const k = cohenKappa([...a, null], [...b, "yes"]);
    expect(k.n).toBe(50);
    expect(k.excluded).toBe(1);
    expect(k.observed).toBeCloseTo(0.7, 15);
    expect(k.expected).toBeCloseTo(0.5, 15); // (25·30 + 25·20) / 50²
    expect(k.kappa).toBeCloseTo(0.4, 15);
    expect(k.confusion).toEqual({ yes: { yes: 20, no: 5 }, no: { yes: 10, no: 15 } });
  });
  it("3 categories: p_o 6/10, p_e (4·4 + 3·3 + 3·3)/100 = 0.34 → κ = 0.26/0.66", () => {
    const a = ["x", "x", "x", "x", "y", "y", "y", "z", "z", "z"];
    const b = ["x", "x", "y", "z", "y", "y", "x", "z", "x", "z"];
    // b counts: x 4, y 3, z 3; a counts: x 4, y 3, z 3 → p_e = (16 + 9 + 9)/100 = 0.34
    const k = cohenKappa(a, b);
    expect(k.observed).toBeCloseTo(0.6, 15);
    expect(k.expected).toBeCloseTo(0.34, 15);
    expect(k.kappa).toBeCloseTo(0.26 / 0.66, 15);
  });
  it("undefined when both raters use one label; length mismatch throws", () => {
    expect(cohenKappa(["a", "a"], ["a", "a"]).kappa).toBeNull();
    expect(() => cohenKappa(["a"], [])).toThrow(/differ in length/);
  });
});

describe("alignment on the five-row fixture (hand-computed)", () => {
  // ROUGE-1 F1 vs "cat dog fox owl": 1, 2/3, 1/2, 0, 1/4. Content agreement: 2, 4/3, 1, 1/3, missing (population N/A).
  it("drops the N/A row, and r / ρ / bias / LoA / t / d_z equal hand values", async () => {
    const rep = await runValidation(fiveRows());
    expect(rep.dataset.rowsUsed).toBe(5);
    expect(rep.items.map((i) => i.scores.rouge1_fmeasure)).toEqual([1, 2 / 3, 0.5, 0, 0.25].map((v) => expect.closeTo(v, 12)));
    expect(rep.items.map((i) => i.human["content-agreement"])).toEqual([2, 4 / 3, 1, 1 / 3, null].map((v) => (v === null ? null : expect.closeTo(v, 12))));
    expect(rep.humanScores[0]).toMatchObject({ id: "content-agreement", present: 4, missing: 1 });
    const [row] = rep.alignment;
    expect(row).toMatchObject({ score: "rouge1_fmeasure", human: "content-agreement", n: 4, nDropped: 1, rescaled: true });
    // In 24ths: x = 24,16,12,0 (mean 13), y = 48,32,24,8 (mean 28): Sxy 496, Sxx 300, Syy 832.
    expect(row.pearson!.r).toBeCloseTo(496 / Math.sqrt(300 * 832), 12);
    expect(row.spearman!.rho).toBeCloseTo(1, 12);
    // Rescaled: human/2 = 1, 2/3, 1/2, 1/6; d = score − human = 0, 0, 0, −1/6 → bias −1/24, SD 1/12.
    expect(row.blandAltman!.bias).toBeCloseTo(-1 / 24, 12);
    expect(row.blandAltman!.sdDiff).toBeCloseTo(1 / 12, 12);
    expect(row.blandAltman!.loaLower).toBeCloseTo(-1 / 24 - 1.96 / 12, 12);
    expect(row.blandAltman!.loaUpper).toBeCloseTo(-1 / 24 + 1.96 / 12, 12);
    expect(row.pairedT!.t).toBeCloseTo(-1, 12); // (−1/24)/((1/12)/√4)
    expect(row.pairedT!.df).toBe(3);
    expect(row.cohenDz).toBeCloseTo(-0.5, 12);
    expect(rep.notes.some((n) => /no judge panel configured/.test(n))).toBe(true);
  });
  it("direction classifier wiring: no cue in the texts → all 'uncertain effect' (unspecified)", async () => {
    const rep = await runValidation(fiveRows({ directionClassifier: { id: "lexical-direction" }, humanScores: ["direction-agreement"], metrics: [] }));
    const d = rep.direction!;
    // generated experts: effect, no effect, effect, unspecified (N/A), effect → 1 of 5 agree; p_e = 1/5 → κ 0.
    expect(d.generated).toMatchObject({ n: 5, excluded: 0, accuracy: 0.2, kappa: 0 });
    // target experts: effect ×3, no effect, other (excluded) → 0 of 4 agree, κ 0.
    expect(d.target).toMatchObject({ n: 4, excluded: 1, accuracy: 0, kappa: 0 });
    // human direction-agreement 1,0,1,0,missing vs classifier agreement 1,1,1,1,1 → p_o .5, p_e .5.
    expect(d.agreementKappa).toMatchObject({ n: 4, excluded: 1, observed: 0.5, expected: 0.5, kappa: 0 });
  });
  it("an unbounded score gets correlations only; < 3 pairs gives no statistics", () => {
    const pairs = [1, 2, 3, 4].map((v, i) => ({ id: String(i), score: v * 10, human: v }));
    const r = alignmentRow("word_count_ratio", "fluency", pairs, { score: null, human: { min: 0, max: 2 } });
    expect(r.pearson!.r).toBeCloseTo(1, 12);
    expect(r.blandAltman).toBeNull();
    expect(r.note).toMatch(/correlations only/);
    const few = alignmentRow("bleu", "fluency", pairs.slice(0, 2), { score: { min: 0, max: 1 }, human: { min: 0, max: 2 } });
    expect(few).toMatchObject({ n: 2, pearson: null, note: "fewer than 3 complete pairs (2)" });
  });
});

describe("alignment rows with zero-variance inputs (constant scores, equal differences)", () => {
  const humans = [0, 1, 2, 2, 1, 0, 2, 1];
  const judge4 = humans.map((h, i) => ({ id: String(i), score: 4, human: h }));
  const scales = { score: { min: 0, max: 5 }, human: { min: 0, max: 2 } };
  it("a judge that always scores 4: r and ρ null with a 'constant scores' note, '– constant' in the table, null in JSON", () => {
    const row = alignmentRow("judge:j1:rubric.overall", "fluency", judge4, scales);
    expect(row.pearson).toBeNull();
    expect(row.spearman).toBeNull();
    expect(row.note).toBe("constant scores (judge:j1:rubric.overall): r and ρ undefined");
    // Bland–Altman / t / d_z stay defined: d = 0.8 − h/2 varies. mean(h/2) = 9/16 → bias 0.8 − 0.5625.
    expect(row.blandAltman!.bias).toBeCloseTo(0.8 - 9 / 16, 12);
    expect(Number.isFinite(row.pairedT!.t)).toBe(true);
    const [cells] = alignmentTableRows([row]);
    expect(cells.slice(4, 6)).toEqual(["– constant", "– constant"]);
    expect(cells.join(" ")).not.toMatch(/-0\.000|1\.0000/);
    const out = writeValidationOutputs(
      {
        id: "t",
        createdAt: "x",
        config: {} as never,
        dataset: { name: "d", rowsLoaded: 8, rowsUsed: 8, warnings: [], skipped: { count: 0, reasons: {} } },
        humanScores: [],
        scores: [],
        alignment: [row],
        direction: null,
        panel: null,
        notes: [],
        items: [],
        timing: { totalMs: 0, metricsMs: 0, panelMs: 0, classifierMs: 0 },
      },
      join(tmp, "constant"),
    );
    const json = JSON.parse(readFileSync(out.json, "utf8"));
    expect(json.alignment[0]).toMatchObject({ pearson: null, spearman: null, note: row.note });
    expect(readFileSync(out.md, "utf8")).toContain("- judge:j1:rubric.overall × fluency: constant scores (judge:j1:rubric.overall): r and ρ undefined");
  });
  it("all differences equal: paired t and d_z null with a note ('– sd 0'); bias kept", () => {
    // score on 0–5 = 2.5·human + 1, i.e. rescaled score = human/2 + 0.2 → d = 0.2 for every item.
    const pairs = humans.map((h, i) => ({ id: String(i), score: 2.5 * h + 1, human: h }));
    const row = alignmentRow("bleu", "fluency", pairs, scales);
    expect(row.pairedT).toBeNull();
    expect(row.cohenDz).toBeNull();
    expect(row.blandAltman!.bias).toBeCloseTo(0.2, 12);
    expect(row.pearson!.r).toBeCloseTo(1, 12);
    expect(row.note).toBe("all differences equal (sd 0): paired t and d_z undefined");
    const [cells] = alignmentTableRows([row]);
    expect(cells.slice(8)).toEqual(["– sd 0", "– sd 0"]);
  });
});

describe("config", () => {
  it("unknown keys, metrics and human scores are errors naming the path", () => {
    expect(() => parseValidationConfig({ dataset: { name: "mslr-annotations", smaple: 3 } }, "v.yaml")).toThrow(/v\.yaml: invalid validation config[\s\S]*dataset\.smaple/);
    expect(() => parseValidationConfig({ metrics: ["rouge", "meteor"] }, "v.yaml")).toThrow(/metrics\.1: unknown metric "meteor"/);
    expect(() => parseValidationConfig({ humanScores: ["pico"] }, "v.yaml")).toThrow(/humanScores\.0: unknown human score/);
  });
  it("the bundled config is offline: defaults + no panel; an unset ${ENV} in a panel block is named", () => {
    const { config } = loadValidationConfig(REAL_CONFIG);
    expect(config.panel).toBeUndefined();
    expect(config.metrics).toEqual(["rouge", "bleu", "count-ratios", "embedding-cosine"]);
    expect(config.dataset.sample).toBeUndefined();
    expect(() => parseValidationConfig({ panel: { rubric: "x", judges: [{ id: "j", model: "openai:${MEDSYNTH_TEST_UNSET_VAR}" }] } }, "v.yaml", {})).toThrow(
      /v\.yaml: panel\.judges\.0\.model: environment variable MEDSYNTH_TEST_UNSET_VAR is not set/,
    );
  });
});

describe("the real config on 20 sampled rows (offline)", () => {
  it("finishes in seconds with finite correlations and writes validation.json/.md", async () => {
    const cfgPath = join(tmp, "judge-validation.yaml");
    writeFileSync(cfgPath, readFileSync(REAL_CONFIG, "utf8").replace("# sample: 20 ", "sample: 20   "));
    const lines: string[] = [];
    const t0 = Date.now();
    const { report, json, md } = await validateCommand(cfgPath, { out: join(tmp, "out") }, (l) => lines.push(l));
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(report.dataset).toMatchObject({ rowsLoaded: 265, rowsUsed: 20 });
    const rows = report.alignment.filter((r) => ["rouge1_fmeasure", "rougeL_fmeasure", "bleu", "embedding_cosine"].includes(r.score) && r.human === "content-agreement");
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      expect(r.n + r.nDropped).toBe(20);
      expect(Number.isFinite(r.pearson!.r) && Number.isFinite(r.spearman!.rho) && Number.isFinite(r.blandAltman!.bias)).toBe(true);
    }
    expect(report.direction!.target.n + report.direction!.target.excluded).toBe(20);
    expect(existsSync(md) && readFileSync(md, "utf8").includes("| rougeL_fmeasure | content-agreement |")).toBe(true);
    expect(JSON.parse(readFileSync(json, "utf8")).items).toHaveLength(20);
    expect(lines[0]).toMatch(/^score\s+human\s+n\s+dropped/);
  }, 60_000);
});

describe("judge panel path against a scripted server", () => {
  let server: ScriptedServer;
  // Score per generated summary; "cat dog pig hen" (row 3) gets garbage.
  const SCRIPT: Record<string, string> = {
    "cat dog fox owl": JSON.stringify({ rationale: "same", scores: { semantic_equivalence: 5 } }),
    "cat dog": JSON.stringify({ rationale: "half", scores: { semantic_equivalence: 3 } }),
    "cat dog pig hen": "I would say it is fairly close, maybe a four?",
    "pig hen ant bee": JSON.stringify({ rationale: "none", scores: { semantic_equivalence: 1 } }),
    "cat pig hen ant": JSON.stringify({ rationale: "little", scores: { semantic_equivalence: 2 } }),
  };
  beforeAll(async () => {
    server = await startScriptedServer((req) => {
      const user = req.body.messages.map((m: { content: unknown }) => String(m.content)).join("\n");
      const cand = /GENERATED conclusion:\n<<<\n([\s\S]*?)\n>>>/.exec(user)?.[1] ?? "";
      return { content: SCRIPT[cand] ?? "?" };
    });
  });
  afterAll(async () => server.close());

  it("a garbage answer makes that row's judge score missing (excluded, n drops), never 0", async () => {
    const rep = await runValidation(
      fiveRows({
        metrics: [],
        panel: {
          id: "p",
          rubric: "medmeta-semantic-equivalence",
          endpoints: { local: { baseURL: server.baseURL, apiKeyEnv: "MEDSYNTH_TEST_NO_KEY", cache: false, maxRetries: 0 } },
          judges: [{ id: "j1", model: "openai:scripted-judge", endpoint: "local", attempts: 2 }],
        },
      }),
      { modelFor: (spec, endpoint) => createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }) },
    );
    const key = "panel:medmeta-semantic-equivalence.semantic_equivalence";
    expect(rep.items.map((i) => i.scores[key])).toEqual([5, 3, null, 1, 2]);
    expect(rep.items[2].notes?.[key]).toMatch(/no judge answer could be parsed/);
    const row = rep.alignment.find((r) => r.score === key && r.human === "content-agreement")!;
    // Complete pairs: rows 1, 2, 4 (row 3 judge missing, row 5 human missing).
    expect(row).toMatchObject({ n: 3, nDropped: 2, rescaled: true });
    expect(row.scoreMean).toBeCloseTo((1 + 0.6 + 0.2) / 3, 12); // 5/5, 3/5, 1/5 — a 0 for row 3 would change it
    expect(row.humanMean).toBeCloseTo((1 + 2 / 3 + 1 / 6) / 3, 12);
    expect(rep.panel!.missingRates[0]).toMatchObject({ judgeId: "j1", total: 5, missing: 1 });
    expect(rep.notes.some((n) => /judge j1: 1 of 5 verdicts missing/.test(n))).toBe(true);
  }, 30_000);
});
