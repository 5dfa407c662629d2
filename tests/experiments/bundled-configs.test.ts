import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadExperimentConfig } from "../../experiments/config.ts";
import { loadPanelConfig } from "../../judges/panel.ts";
import { getWorkflow } from "../../graphs/registry.ts";
import { datasetNames } from "../../corpus/datasets/registry.ts";
import { validateMetricSpecs } from "../../experiments/metrics-stage.ts";
import { RetrieverConfigSchema } from "../../retrieval/registry.ts";

const dir = resolve(__dirname, "../../experiments/configs");
const env = {
  MEDSYNTH_JUDGE_BASE_URL: "http://127.0.0.1:9/v1",
  MEDSYNTH_JUDGE_MODEL: "judge-a",
  MEDSYNTH_JUDGE_MODEL_2: "judge-b",
  MEDSYNTH_JUDGE_MODEL_3: "judge-c",
  MEDCONCLUSION_HF_PATH: "/data/medconclusion-30k.parquet",
};

describe("bundled experiment configs", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "judge-validation.yaml");
  it("include demo, medmeta, medconclusion, pubmed-rag, robustness, rwesummary and the three paper protocols", () => {
    expect(files.sort()).toEqual([
      "demo.yaml",
      "medconclusion.yaml",
      "medmeta.yaml",
      "paper-medconclusion.yaml",
      "paper-medmeta.yaml",
      "paper-rwesummary.yaml",
      "pubmed-rag.yaml",
      "robustness.yaml",
      "rwesummary.yaml",
    ]);
  });
  it("pubmed-rag.yaml: Standard-RAG with BM25 and hybrid settings over a lance: corpus store, retriever options valid", () => {
    const cfg = loadExperimentConfig(join(dir, "pubmed-rag.yaml"), {});
    expect(cfg.retrieval.corpus).toBe("lance:runs/pubmed-store");
    expect(loadExperimentConfig(join(dir, "pubmed-rag.yaml"), { MEDSYNTH_PUBMED_STORE: "/data/pubmed" }).retrieval.corpus).toBe("lance:/data/pubmed");
    expect(cfg.workflows.map((w) => [w.id, (w.params as { retrieval: string[] }).retrieval])).toEqual([["standard-rag", ["bm25", "hybrid"]]]);
    for (const [name, setting] of Object.entries(cfg.retrieval.settings!)) {
      const parsed = RetrieverConfigSchema.parse({ ...cfg.retrieval.options, ...setting });
      expect(parsed.mode).toBe(name);
      expect(parsed.disk.ann.index).toBe("ivf_pq");
      expect(parsed.engine).toBe("auto");
    }
  });
  it.each([
    [
      "paper-medmeta.yaml",
      "medmeta",
      ["Gemini Flash 2.5", "O4 Mini", "MedGemma 27B", "Gemma 27B", "Qwen3 8B", "Qwen3 8B (reasoning)", "Qwen3 8B-DeepSeek"],
      ["gemini-2.5-pro", "o4-mini", "qwen3-235b"],
    ],
    ["paper-medconclusion.yaml", "medconclusion", ["GPT-5.4", "Gemini 3.1 Pro", "Gemini 3 Flash", "Gemma-3-27B", "Llama-3.1-8B"], ["primary", "secondary"]],
    [
      "paper-rwesummary.yaml",
      "rwesummary",
      ["Gemini 2.5 Flash", "Gemini 2.5 Pro", "Gemini 2.0 Flash", "o4-mini", "o3", "Claude 4 Sonnet", "GPT-4.1", "Claude 3.7 Sonnet", "Claude 4 Opus"],
      ["o4-mini", "claude-sonnet-4", "gemini-2.5-pro"],
    ],
  ])("%s labels every model with the paper row it reproduces, one endpoint variable each, and the paper's judges", (f, paper, rows, judges) => {
    const cfg = loadExperimentConfig(join(dir, f), env);
    expect(cfg.models.map((m) => m.paperModel)).toEqual(rows);
    for (const m of cfg.models) expect(m.id).toMatch(/^openai:/);
    expect(new Set(cfg.models.map((m) => m.label)).size).toBe(cfg.models.length);
    expect(cfg.report.papers).toEqual([paper]);
    expect(loadPanelConfig(cfg.panel!, env).config.judges.map((j) => j.id)).toEqual(judges);
    // Each model's name comes from its own variable.
    const other = loadExperimentConfig(join(dir, f), { ...env, GEMMA_27B_MODEL: "my-gemma", GPT_54_MODEL: "my-gpt", O3_MODEL: "my-o3" });
    expect(other.models.map((m) => m.id)).toContain(paper === "medmeta" ? "openai:my-gemma" : paper === "medconclusion" ? "openai:my-gpt" : "openai:my-o3");
  });
  it("paper-medmeta.yaml runs the paper's six workflows on all MedMeta items; paper-medconclusion.yaml the 30K sample in modes A–D", () => {
    const mm = loadExperimentConfig(join(dir, "paper-medmeta.yaml"), env);
    expect(mm.datasets).toEqual([{ name: "medmeta" }]);
    expect(mm.workflows.map((w) => w.id)).toEqual(["pzs", "pcot", "golden-rag", "standard-rag", "negated-rag"]);
    expect(mm.workflows.find((w) => w.id === "standard-rag")!.params.k).toEqual([5, 10]);
    expect(mm.workflows.find((w) => w.id === "negated-rag")!.params).toEqual({ negator: "llm", fraction: 1 });
    expect(mm.metrics).toEqual(["bertscore"]);
    const mc = loadExperimentConfig(join(dir, "paper-medconclusion.yaml"), env);
    expect(mc.datasets[0]).toMatchObject({ name: "medconclusion-hf", sample: 30000, options: { path: "/data/medconclusion-30k.parquet" } });
    expect(mc.workflows.map((w) => w.id)).toEqual(["conclusion-a", "conclusion-b", "conclusion-c", "conclusion-d"]);
  });
  it.each(files)("%s validates and names only known datasets, workflows, metrics and panels", (f) => {
    const cfg = loadExperimentConfig(join(dir, f), env);
    for (const d of cfg.datasets) expect(datasetNames()).toContain(d.name);
    for (const w of cfg.workflows) expect(getWorkflow(w.id).id).toBe(w.id);
    expect(() => validateMetricSpecs(cfg.metrics)).not.toThrow();
    if (cfg.panel) expect(loadPanelConfig(cfg.panel, env).config.judges.length).toBeGreaterThan(0);
  });
  it("demo.yaml is offline: only the extractive baseline and no panel", () => {
    const cfg = loadExperimentConfig(join(dir, "demo.yaml"), {});
    expect(cfg.models.map((m) => m.id)).toEqual(["extractive:mmr"]);
    expect(cfg.panel).toBeUndefined();
  });
  it("medmeta.yaml follows the paper: three judges with reasoning at T = 0, the plan's key questions as Standard-RAG queries", () => {
    const cfg = loadExperimentConfig(join(dir, "medmeta.yaml"), env);
    const panel = loadPanelConfig(cfg.panel!, env).config;
    expect(panel.judges.map((j) => j.model)).toEqual(["openai:judge-a", "openai:judge-b", "openai:judge-c"]);
    for (const j of panel.judges) expect(j.params).toEqual({ temperature: 0, reasoningEffort: "medium" });
    expect(loadPanelConfig(cfg.panel!, { ...env, MEDSYNTH_JUDGE_REASONING_EFFORT: "high" }).config.judges[0].params.reasoningEffort).toBe("high");
    const std = cfg.workflows.find((w) => w.id === "standard-rag")!;
    const { k: _k, reranker, ...params } = std.params as Record<string, unknown>;
    expect(getWorkflow("standard-rag").configSchema.parse(params)).toMatchObject({ queryMode: "key-questions", numQuestions: 5, candidatesPerQuery: 20 });
    // Reranking on by default (the paper reranks with a BGE cross-encoder), more candidates than K.
    expect(reranker).toBe("cross-encoder:Xenova/bge-reranker-base");
    expect(cfg.retrieval.corpus).toBe("prepared:medmeta");
    expect(cfg.metrics).toContain("bertscore"); // beside the judges, as the authors report it
  });
  it("medconclusion.yaml generates with maxTokens 1024 at T = 0 (MedConclusion Appendix H)", () => {
    const cfg = loadExperimentConfig(join(dir, "medconclusion.yaml"), env);
    for (const m of cfg.models) expect(m.endpoint).toMatchObject({ temperature: 0, maxTokens: 1024 });
  });
  it("a panel naming an unset variable fails naming the field", () => {
    expect(() => loadPanelConfig(join(dir, "panels/medmeta-panel.yaml"), {})).toThrow(/endpoints\.judges\.baseURL: environment variable MEDSYNTH_JUDGE_BASE_URL is not set/);
  });
});
