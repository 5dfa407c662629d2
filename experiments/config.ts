/**
 * Experiment configuration: one YAML or JSON file, checked once at the edge with zod `.strict()`
 * schemas. An unknown or misplaced key is an error naming its path (e.g. `workflows.1.params.kk`).
 *
 * Strings may reference environment variables as `${NAME}` or `${NAME:-default}` (resolved when the
 * file is loaded), so bundled configs can name an endpoint without holding it.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { z } from "zod";
import { readConfigValue } from "../models/config-file.ts";
import stringify from "safe-stable-stringify";
import { PAPER_IDS, PAPER_MODELS } from "./report/published/index.ts";
import { interpolateEnv as interpolateEnvValues, EnvInterpolationError, unsetEnvReferences } from "../models/env-interpolation.ts";

/** A scalar parameter value or a list of values to sweep over. */
const ParamValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ParamSweepSchema = z.union([ParamValueSchema, z.array(ParamValueSchema).min(1)]);

/** One dataset to draw items from. */
export const DatasetSelectionSchema = z
  .object({
    /** Dataset name from `medsynth datasets list` (e.g. "medevidence", "ms2", "pubmedqa"). */
    name: z.string().min(1),
    /** Number of items to sample (after `ids`); omitted = all. */
    sample: z.number().int().positive().optional(),
    /** Seed of the sample (default: the experiment seed). */
    seed: z.number().int().optional(),
    /** Explicit item ids to keep (applied before sampling). */
    ids: z.array(z.string()).optional(),
    /** Options passed to the dataset loader. */
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
/** {@link DatasetSelectionSchema} after parsing (defaults applied). */
export type DatasetSelection = z.infer<typeof DatasetSelectionSchema>;

/** Endpoint settings of an LLM (see models/ for every field); secrets only by env-var name. */
export const ModelSelectionSchema = z
  .object({
    /** `openai:<model>` or `extractive:<method>`. */
    id: z.string().min(1),
    /** Short label used in tables (default: the id). */
    label: z.string().optional(),
    /** Endpoint/sampling settings handed to the model factory (baseURL, apiKeyEnv, temperature …). */
    endpoint: z.record(z.string(), z.unknown()).optional(),
    /**
     * The paper row this model reproduces, as the paper's main table names it (e.g. "Gemma 27B",
     * "GPT-5.4", "Gemini 2.5 Pro"); turns on the report's "Paper vs this run" section.
     */
    paperModel: z
      .string()
      .min(1)
      .refine((m) => PAPER_IDS.some((p) => PAPER_MODELS[p].includes(m)), {
        message: `not a model of the papers' tables; one of: ${PAPER_IDS.map((p) => PAPER_MODELS[p].map((m) => `"${m}"`).join(", ")).join("; ")}`,
      })
      .optional(),
  })
  .strict();
/** {@link ModelSelectionSchema} after parsing (defaults applied). */
export type ModelSelection = z.infer<typeof ModelSelectionSchema>;

/** One workflow with its parameters; a list value sweeps (e.g. `k: [5, 10]`). */
export const WorkflowSelectionSchema = z
  .object({
    id: z.string().min(1),
    /** Workflow config; list values expand into one cell per value (Cartesian product). */
    params: z.record(z.string(), ParamSweepSchema).default({}),
    /** Restrict to these datasets (default: every dataset whose task kind fits the workflow). */
    datasets: z.array(z.string()).optional(),
  })
  .strict();
/** {@link WorkflowSelectionSchema} after parsing (defaults applied). */
export type WorkflowSelection = z.infer<typeof WorkflowSelectionSchema>;

/** The retrieval corpus and index used by Standard-RAG and by retrieval evaluation. */
export const RetrievalSettingsSchema = z
  .object({
    /** "bundled" = PubMedQA + MedEvidence sources + Cohen 2006 abstracts; a corpus store ("lance:<folder>", "s3://…"; storage options from $MEDSYNTH_STORAGE_OPTIONS); or a path to a corpus JSONL. */
    corpus: z.string().default("bundled"),
    /**
     * Retrieval mode; when absent, `defaultRetrievalMode` of the embedder: bm25 with the offline
     * word-vector embedder (it measured best on MedEvidence), hybrid with a real embedder.
     */
    mode: z.enum(["bm25", "dense", "hybrid", "lance-hybrid"]).optional(),
    /**
     * MedMeta-style noise corpus: the golden abstracts of `goldenFrom` (a dataset name) plus
     * `noiseCount` abstracts sampled with `seed` from `corpus` (golden ids excluded). MedMeta used
     * 2,250 golden + 22,750 noise = 25,000.
     */
    noise: z
      .object({ goldenFrom: z.string().min(1), noiseCount: z.number().int().min(0), seed: z.union([z.number().int(), z.string()]).default(0) })
      .strict()
      .optional(),
    /** Retriever settings passed to the retrieval registry (engine, embedder, fusion, weights …). */
    options: z.record(z.string(), z.unknown()).default({}),
    /**
     * Named retriever settings for a retrieval sweep inside Standard-RAG (issue 18.4): each is
     * `mode` and registry options laid over `options` (e.g. `bm25-k1-0.9: {mode: bm25, bm25: {k1: 0.9}}`).
     * Standard-RAG's `params.retrieval` names one; a list of names is a matrix axis like any
     * parameter, and the report relates each setting's golden recall to the synthesis scores.
     */
    settings: z.record(z.string().min(1), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();
/** {@link RetrievalSettingsSchema} after parsing (defaults applied). */
export type RetrievalSettings = z.infer<typeof RetrievalSettingsSchema>;

/** Retrieval evaluation block: recall@k, nDCG@k, MRR per mode against golden PMIDs. */
export const RetrievalEvalSchema = z
  .object({
    datasets: z.array(z.string()).min(1).default(["medevidence"]),
    modes: z
      .array(z.enum(["bm25", "dense", "hybrid"]))
      .min(1)
      .default(["bm25", "dense", "hybrid"]),
    k: z.array(z.number().int().positive()).min(1).default([5, 10]),
  })
  .strict();

/** A paired comparison between two groups of cells, matched by item (and repeat). */
export const ComparisonSchema = z
  .object({
    /** Metric id (e.g. "rougeL", "judge:medmeta-equivalence") to compare. */
    metric: z.string().min(1),
    /** Filters selecting group A and group B, by model / workflow / any param. */
    a: z.record(z.string(), ParamValueSchema),
    b: z.record(z.string(), ParamValueSchema),
    label: z.string().optional(),
  })
  .strict();
/** {@link ComparisonSchema} after parsing (defaults applied). */
export type Comparison = z.infer<typeof ComparisonSchema>;

/** Whole experiment. */
export const ExperimentConfigSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    /** Output folder (relative paths resolve against the config file's folder). */
    output: z.string().min(1),
    seed: z.number().int().default(42),
    datasets: z.array(DatasetSelectionSchema).min(1),
    models: z.array(ModelSelectionSchema).min(1),
    workflows: z.array(WorkflowSelectionSchema).min(1),
    repeats: z.number().int().positive().default(1),
    /** Cells run at the same time. */
    concurrency: z.number().int().positive().default(2),
    retrieval: RetrievalSettingsSchema.default({ corpus: "bundled", options: {} }),
    retrievalEval: RetrievalEvalSchema.optional(),
    /** Reference metrics computed for every record with a reference (ids from the metric registry). */
    metrics: z.array(z.string()).default([]),
    /** Judge panel: path to a panel YAML (relative to this file) or omitted. */
    panel: z.string().optional(),
    comparisons: z.array(ComparisonSchema).default([]),
    report: z
      .object({
        /** Item fields for subgroup tables (e.g. "medical_specialty", "year"). */
        subgroups: z.array(z.string()).default([]),
        /** Metric used for subgroup tables and charts. */
        primaryMetric: z.string().optional(),
        /**
         * MedConclusion §5 journal subgroups: a SCImago journal file (SCImago's own CSV export,
         * semicolon-separated) joined to each record by ISSN; relative to the config file.
         */
        scimago: z.string().min(1).optional(),
        /**
         * Papers of the "Paper vs this run" section (experiments/report/paper-section.ts); default:
         * those whose tables name the models' `paperModel` labels (no section when none has one);
         * `false` turns the section off.
         */
        papers: z.union([z.array(z.enum(PAPER_IDS)).min(1), z.literal(false)]).optional(),
      })
      .strict()
      .default({ subgroups: [] }),
    /** Folder of prompt templates overriding the bundled ones. */
    promptDir: z.string().optional(),
    /** Price per 1M tokens for the cost estimate, by model id: {input, output} in USD; `batchInput`/`batchOutput` for Batch API calls (default: half). */
    prices: z.record(z.string(), z.object({ input: z.number(), output: z.number(), batchInput: z.number().optional(), batchOutput: z.number().optional() }).strict()).default({}),
  })
  .strict();
/** {@link ExperimentConfigSchema} after parsing (defaults applied). */
export type ExperimentConfig = z.infer<typeof ExperimentConfigSchema>;

/** Error for a config that does not validate; message lists every offending path. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file: string | null,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Replace `${NAME}` / `${NAME:-default}` in every string of a parsed config
 * (models/env-interpolation.ts), reporting an unset variable as a {@link ConfigError}.
 * @throws ConfigError naming the field and the variable.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv = process.env, path = ""): unknown {
  const unset = unsetEnvReferences(value, env, path);
  if (unset.length > 1) {
    // Every unset variable at once, not one per attempt.
    const issues = unset.map((u) => ({ path: u.path || "(root)", message: `env ${u.variable} not set` }));
    throw new ConfigError(`environment variables not set (use \${NAME:-default} for a default):\n${issues.map((i) => `  - ${i.path}: ${i.message}`).join("\n")}`, null, issues);
  }
  try {
    return interpolateEnvValues(value, env, path);
  } catch (e) {
    if (e instanceof EnvInterpolationError) throw new ConfigError(e.message, null, [{ path: e.path, message: `env ${e.variable} not set` }]);
    throw e;
  }
}

/**
 * Validate a parsed config object.
 * @param raw parsed YAML/JSON.
 * @param file file name used in error messages.
 * @throws ConfigError naming each invalid path, e.g. `workflows.0.params: Unrecognized key "kk"`.
 */
export function parseExperimentConfig(raw: unknown, file: string | null = null, env: NodeJS.ProcessEnv = process.env): ExperimentConfig {
  let interpolated: unknown;
  try {
    interpolated = interpolateEnv(raw, env);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(`${file ?? "config"}: ${e.message}`, file, e.issues);
    throw e;
  }
  const res = ExperimentConfigSchema.safeParse(interpolated);
  if (!res.success) {
    const issues = res.error.issues.map((i) => {
      const base = i.path.join(".");
      const keys = (i as { keys?: string[] }).keys;
      const path = keys && keys.length ? keys.map((k) => (base ? `${base}.${k}` : k)).join(", ") : base || "(root)";
      return { path, message: i.message };
    });
    const lines = issues.map((i) => `  - ${i.path}: ${i.message}`).join("\n");
    throw new ConfigError(`${file ?? "config"}: invalid experiment config\n${lines}`, file, issues);
  }
  return res.data;
}

/**
 * Read and parse a YAML (`.yaml`, `.yml`) or JSON (`.json`) config file, not yet validated.
 * @throws ConfigError naming the file when it cannot be read or parsed (YAML errors carry line and column).
 */
export function readConfigFile(file: string): unknown {
  try {
    return readConfigValue(file);
  } catch (e) {
    throw new ConfigError((e as Error).message, file, []);
  }
}

/**
 * Read and validate an experiment config file (`.yaml`, `.yml` or `.json`).
 *
 * Path rule (docs/experiment-configs.md#paths-in-a-config): every relative path in the file is
 * relative to the file's folder — `output`, `panel`, `promptDir`, `report.scimago`, and the input
 * files `datasets[].options.path` and `retrieval.corpus` (a JSONL path; `bundled`, `prepared:…`
 * and store URIs such as `lance:…` and `s3://…` are left as they are). For the two inputs only, a
 * path found relative to the current folder and not to the file's folder is still used, with a
 * deprecation note (the rule up to 0.2.0; through `log`, default stderr).
 * @throws ConfigError on unreadable/unparseable files or invalid fields, and one naming the file,
 *   then each relative input path found in neither place with its field and both paths tried.
 */
export function loadExperimentConfig(file: string, env: NodeJS.ProcessEnv = process.env, log: (l: string) => void = (l) => console.error(l)): ExperimentConfig {
  const cfg = parseExperimentConfig(readConfigFile(file), file, env);
  const base = dirname(resolve(file));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const missing: { path: string; message: string }[] = [];
  const input = (p: string, field: string) => resolveInputPath(file, base, field, p, log, missing);
  const datasets = cfg.datasets.map((d, i) => {
    if (typeof d.options?.path !== "string") return d;
    const options = { ...d.options, path: input(d.options.path, `datasets[${i}].options.path`) };
    WRITTEN_PATHS.set(options, d.options.path);
    return { ...d, options };
  });
  const retrieval = isCorpusFilePath(cfg.retrieval.corpus) ? { ...cfg.retrieval, corpus: input(cfg.retrieval.corpus, "retrieval.corpus") } : cfg.retrieval;
  if (retrieval !== cfg.retrieval) WRITTEN_PATHS.set(retrieval, cfg.retrieval.corpus);
  if (missing.length)
    throw new ConfigError(
      `${file}: input files not found (relative paths are relative to the config file's folder; see docs/experiment-configs.md#paths-in-a-config)\n${missing.map((m) => `  - ${m.message}`).join("\n")}`,
      file,
      missing,
    );
  const loaded: ExperimentConfig = {
    ...cfg,
    output: abs(cfg.output),
    datasets,
    retrieval,
    panel: cfg.panel ? abs(cfg.panel) : undefined,
    promptDir: cfg.promptDir ? abs(cfg.promptDir) : undefined,
    report: cfg.report.scimago ? { ...cfg.report, scimago: abs(cfg.report.scimago) } : cfg.report,
  };
  CONFIG_FILES.set(loaded, file);
  return loaded;
}

/** The file each config returned by {@link loadExperimentConfig} was read from (for messages). */
const CONFIG_FILES = new WeakMap<ExperimentConfig, string>();

/** The file `cfg` was loaded from by {@link loadExperimentConfig}, or undefined (a config built in code, or a copy). */
export function configFileOf(cfg: ExperimentConfig): string | undefined {
  return CONFIG_FILES.get(cfg);
}

/**
 * The input paths as the config file wrote them, by the object {@link loadExperimentConfig} put
 * the resolved path in (a dataset's `options`, the `retrieval` block): {@link configHash} hashes
 * these, so a run's hash does not depend on where the checkout or the config file lies.
 */
const WRITTEN_PATHS = new WeakMap<object, string>();

/** Whether a `retrieval.corpus` value names a file (not "bundled", `prepared:<name>`, `lance:<uri>` or a URL). */
function isCorpusFilePath(corpus: string): boolean {
  return corpus !== "bundled" && !/^[a-z][a-z0-9+.-]+:/i.test(corpus);
}

/**
 * An input path of config `file` made absolute by the path rule of {@link loadExperimentConfig}:
 * absolute or URL-like (`scheme:`) as is; else relative to `base` (the file's folder) when it
 * exists there, else relative to the current folder when it exists there (deprecated: a note
 * through `log`); else the path relative to `base`, with an issue naming the file, `field` and
 * both paths tried pushed to `missing`.
 */
function resolveInputPath(file: string, base: string, field: string, p: string, log: (l: string) => void, missing: { path: string; message: string }[]): string {
  if (isAbsolute(p) || /^[a-z][a-z0-9+.-]+:/i.test(p)) return p;
  const fromFile = resolve(base, p);
  if (existsSync(fromFile)) return fromFile;
  const fromCwd = resolve(p);
  if (existsSync(fromCwd)) {
    log(
      `medsynth: deprecated: ${file}: ${field} "${p}" was found relative to the current folder (${fromCwd}), not to the config file's folder; relative paths in a config are relative to the config file's folder — write "${relative(base, fromCwd)}" or an absolute path (this fallback will be removed)`,
    );
    return fromCwd;
  }
  missing.push({ path: field, message: `${field}: "${p}" not found; tried ${fromFile} (relative to the config file's folder) and ${fromCwd} (relative to the current folder)` });
  return fromFile;
}

/**
 * Hash of the parts of a config that change results (everything except `output`, `concurrency`,
 * `description`, `report` and the models' `paperModel` labels, which only the report reads):
 * sha256 hex of the canonical JSON. Input paths enter as the file wrote them (see
 * {@link loadExperimentConfig}), so the hash is the same from any folder.
 */
export function configHash(cfg: ExperimentConfig): string {
  const { output: _o, concurrency: _c, description: _d, report: _r, ...rest } = cfg;
  const models = rest.models.map(({ paperModel: _p, ...m }) => m);
  const written = (o: object | undefined) => (o ? WRITTEN_PATHS.get(o) : undefined);
  const datasets = rest.datasets.map((d) => (written(d.options) !== undefined ? { ...d, options: { ...d.options, path: written(d.options) } } : d));
  const corpus = written(rest.retrieval) ?? rest.retrieval.corpus;
  return createHash("sha256")
    .update(stringify({ ...rest, models, datasets, retrieval: { ...rest.retrieval, corpus } }) ?? "")
    .digest("hex");
}
