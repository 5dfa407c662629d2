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
const env = { MEDSYNTH_JUDGE_BASE_URL: "http://127.0.0.1:9/v1", MEDSYNTH_JUDGE_MODEL: "judge-a", MEDSYNTH_JUDGE_MODEL_2: "judge-b", MEDSYNTH_JUDGE_MODEL_3: "judge-c" };

describe("bundled experiment configs", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "judge-validation.yaml");
  it("include demo, medmeta, medconclusion, pubmed-rag, robustness and rwesummary", () => {
    expect(files.sort()).toEqual(["demo.yaml", "medconclusion.yaml", "medmeta.yaml", "pubmed-rag.yaml", "robustness.yaml", "rwesummary.yaml"]);
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
  it("medmeta.yaml follows the paper: three judges with reasoning at T = 0, sub-questions as Standard-RAG queries", () => {
    const cfg = loadExperimentConfig(join(dir, "medmeta.yaml"), env);
    const panel = loadPanelConfig(cfg.panel!, env).config;
    expect(panel.judges.map((j) => j.model)).toEqual(["openai:judge-a", "openai:judge-b", "openai:judge-c"]);
    for (const j of panel.judges) expect(j.params).toEqual({ temperature: 0, reasoningEffort: "medium" });
    expect(loadPanelConfig(cfg.panel!, { ...env, MEDSYNTH_JUDGE_REASONING_EFFORT: "high" }).config.judges[0].params.reasoningEffort).toBe("high");
    const std = cfg.workflows.find((w) => w.id === "standard-rag")!;
    const { k: _k, reranker, ...params } = std.params as Record<string, unknown>;
    expect(getWorkflow("standard-rag").configSchema.parse(params)).toMatchObject({ queryMode: "sub-questions", numQuestions: 5, candidatesPerQuery: 20 });
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
