/**
 * Config of `medsynth retrieval sweep <config.yaml>` (issue 18 items 2–3): a grid over retriever
 * settings, the qrels dataset, the cutoffs, the tuning protocol and the statistics settings.
 * Checked once, here: every bad grid value is reported at once, one line per problem naming its
 * key (`grid.k1[1]: expected a number ≥ 0 (got "x")`), before any index is built.
 *
 * Example:
 * ```yaml
 * dataset: medevidence          # or cohen2006, beir:nfcorpus, beir:scifact, beir:trec-covid
 * corpus: bundled               # bundled | dataset (the dataset's own documents) | <corpus.jsonl> | lance:<store> (streamed)
 * k: [5, 10, 20]                # cutoffs of recall@K, nDCG@K, MRR@K
 * metric: ndcg@10               # the metric that picks the best setting
 * baseline: bm25                # name of the setting every other is tested against
 * split: dev-test               # or `folds: 5`, or none (default)
 * settings:
 *   - {name: bm25, mode: bm25}
 * grid:
 *   mode: [hybrid]
 *   fusion: [rrf, combmnz]
 *   candidates: [50, 100]
 * ```
 * Grid points where a key does not apply (e.g. `normalization` with RRF, `fusion` with bm25
 * alone) drop that key; points that become identical are run once.
 */
import { z } from "zod";
import { dirname, isAbsolute, resolve } from "node:path";
import stringify from "safe-stable-stringify";
import { readConfigValue } from "../../models/config-file.ts";
import { DEFAULT_RETRIEVER_EMBEDDER_ID } from "../../retrieval/embedders/registry.ts";
import { createFusionMethod, FUSION_METHOD_IDS, NORMALIZATIONS } from "../../retrieval/fusion-methods/registry.ts";
import { parseMetric } from "../../retrieval/eval/ir-metrics.ts";
import { medsynthCommand } from "../../corpus/paths.ts";

/** Retrieval modes a sweep can run: BM25 alone, dense alone, or the two fused. */
export const SWEEP_MODES = ["bm25", "dense", "hybrid"] as const;

/** Fusion methods that take a score normalisation. */
const TAKES_NORMALIZATION = new Set(["combsum", "combmnz", "combmax", "weighted-sum"]);
/** Fusion methods that take per-list weights. */
const TAKES_WEIGHTS = new Set(["rrf", "weighted-sum"]);

/**
 * One retriever setting. BM25 `k1`/`b` (defaults 1.5/0.75, the engine's), the fusion of the
 * hybrid (a `retrieval/fusion-methods` id) with its weights `[bm25, dense]`, normalisation and RRF
 * k, hits per component before fusion (`candidates`), and a reranker that reorders the top
 * `rerankDepth` first-stage hits (`none` = no reranking).
 */
export const SweepSettingSchema = z
  .object({
    name: z.string().min(1).optional(),
    mode: z.enum(SWEEP_MODES).default("bm25"),
    k1: z.number().min(0).default(1.5),
    b: z.number().min(0).max(1).default(0.75),
    fusion: z.enum(FUSION_METHOD_IDS as [string, ...string[]]).default("rrf"),
    weights: z.array(z.number().min(0)).length(2).optional(),
    normalization: z.enum(NORMALIZATIONS).optional(),
    rrfK: z.number().min(0).optional(),
    candidates: z.number().int().positive().default(100),
    reranker: z.string().min(1).default("none"),
    rerankDepth: z.number().int().positive().default(50),
  })
  .strict();
/** A setting as written. */
export type SweepSettingInput = z.input<typeof SweepSettingSchema>;

/** A setting after defaults, with the keys that do not apply to it removed, and its name. */
export interface SweepSetting {
  name: string;
  mode: (typeof SWEEP_MODES)[number];
  k1?: number;
  b?: number;
  fusion?: string;
  weights?: [number, number];
  normalization?: (typeof NORMALIZATIONS)[number];
  rrfK?: number;
  candidates?: number;
  reranker: string;
  rerankDepth?: number;
}

/** Keys of a setting a grid may sweep (every setting key except `name`). */
export const GRID_KEYS = ["mode", "k1", "b", "fusion", "weights", "normalization", "rrfK", "candidates", "reranker", "rerankDepth"] as const;

/** Whole sweep config (see the module comment for an example). */
export const SweepConfigSchema = z
  .object({
    name: z.string().min(1).default("retrieval-sweep"),
    /** Dataset with qrels: medevidence (default), cohen2006, or `beir:<name>`. */
    dataset: z.string().min(1).default("medevidence"),
    /** Options handed to the dataset loader (e.g. `{dir: ...}` for a BEIR folder). */
    datasetOptions: z.record(z.string(), z.unknown()).optional(),
    /** Corpus searched: `bundled`, `dataset` (the documents the dataset carries), a corpus JSONL path, or a corpus store `lance:<uri>` (streamed, never loaded). Default: bundled for medevidence, else dataset. */
    corpus: z.string().min(1).optional(),
    /** Embedder of dense and hybrid settings (vectors are computed once for the sweep). */
    embedder: z.string().min(1).default(DEFAULT_RETRIEVER_EMBEDDER_ID),
    /** Chat model for an `llm-pointwise` reranker (`openai:<model>`). */
    chatModel: z.string().min(1).optional(),
    /** Cutoffs K of recall@K, nDCG@K and MRR@K. */
    k: z.array(z.number().int().positive()).min(1).default([5, 10, 20]),
    /** Cutoffs of the recall-vs-K curve (default 1, 2, 3, 5, 10, 20, 50, 100 up to the largest K or 100). */
    curveK: z.array(z.number().int().positive()).min(1).optional(),
    /** Metric that picks the best setting and whose K sets the paired tests (default recall@<largest K>). */
    metric: z.string().optional(),
    /** Name of the baseline setting (default: the first). */
    baseline: z.string().min(1).optional(),
    /** `dev-test`: tune on a seeded, review-stratified dev half, report on test only. */
    split: z.enum(["none", "dev-test"]).default("none"),
    /** k-fold cross-validation (review-stratified): pick on k−1 folds, score the held-out fold. */
    folds: z.number().int().min(2).optional(),
    /** Share of questions on the dev side of `split: dev-test`. */
    devFraction: z.number().gt(0).lt(1).default(0.5),
    /** Seed of the split / folds. */
    splitSeed: z.string().default("medsynth"),
    /** Item meta field that groups questions (kept on one side); default original_review (MedEvidence's Cochrane review). */
    groupBy: z.string().min(1).default("original_review"),
    bootstrap: z
      .object({ iterations: z.number().int().min(100).default(1000), level: z.number().gt(0).lt(1).default(0.95), seed: z.string().default("medsynth") })
      .strict()
      .prefault({}),
    randomization: z
      .object({ iterations: z.number().int().min(100).default(10_000), seed: z.string().default("medsynth") })
      .strict()
      .prefault({}),
    /** Named settings run as written. */
    settings: z.array(z.unknown()).default([]),
    /** Keys of a setting, each with a list of values: the Cartesian product is run. */
    grid: z.record(z.string(), z.array(z.unknown()).min(1)).default({}),
    /** Results folder (relative to the config file); the CLI's --out wins. */
    output: z.string().min(1).optional(),
  })
  .strict();
/** Parsed top-level config (settings still raw). */
type RawSweepConfig = z.infer<typeof SweepConfigSchema>;

/** A checked sweep: the config with its distinct settings, the baseline and the selection metric. */
export interface SweepPlan extends Omit<RawSweepConfig, "settings" | "grid" | "metric" | "baseline" | "corpus"> {
  corpus: string;
  settings: SweepSetting[];
  baseline: string;
  metric: string;
  /** K of the selection metric: the paired tests compare recall, nDCG and MRR at this K. */
  testK: number;
  curveK: number[];
  /** Tuning protocol. */
  protocol: "none" | "dev-test" | "folds";
  /** Grid points that became identical to an earlier setting once inapplicable keys were dropped. */
  collapsed: number;
}

/** Error of a sweep config: every problem, one line each naming its key. */
export class SweepConfigError extends Error {
  constructor(
    readonly problems: string[],
    file: string | null,
  ) {
    super(`${file ? `${file}: ` : ""}invalid sweep config:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "SweepConfigError";
  }
}

function zodLines(issues: readonly z.core.$ZodIssue[], prefix: string, value: (path: PropertyKey[]) => unknown): string[] {
  return issues.flatMap((i) => {
    const path = i.path.map(String);
    if (i.code === "unrecognized_keys") return i.keys.map((k) => `${[prefix, ...path, k].filter(Boolean).join(".")}: unknown key`);
    const v = value(i.path as PropertyKey[]);
    return [`${[prefix, ...path].filter(Boolean).join(".")}: ${i.message}${v === undefined ? "" : ` (got ${JSON.stringify(v)})`}`];
  });
}

/**
 * Drop the keys that do not apply to a setting's mode and fusion method, so equal retrievers get
 * equal canonical settings: BM25 keys need bm25/hybrid; fusion keys need hybrid; normalisation
 * and weights only where the fusion method takes them; `rrfK` only with RRF; `rerankDepth` only
 * with a reranker.
 */
export function canonicalSetting(s: z.infer<typeof SweepSettingSchema>): Omit<SweepSetting, "name"> {
  const out: Omit<SweepSetting, "name"> = { mode: s.mode, reranker: s.reranker };
  if (s.mode !== "dense") Object.assign(out, { k1: s.k1, b: s.b });
  if (s.mode === "hybrid") {
    out.fusion = s.fusion;
    out.candidates = s.candidates;
    if (TAKES_WEIGHTS.has(s.fusion) && s.weights) out.weights = [s.weights[0], s.weights[1]];
    if (TAKES_NORMALIZATION.has(s.fusion)) out.normalization = s.normalization ?? "min-max";
    if (s.fusion === "rrf") out.rrfK = s.rrfK ?? 60;
  }
  if (s.reranker !== "none") out.rerankDepth = s.rerankDepth;
  return out;
}

/** Fusion config of a canonical hybrid setting, as `createFusionMethod` takes it. */
export function fusionConfigOf(s: Omit<SweepSetting, "name">): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  if (s.fusion === "rrf") c.k = s.rrfK;
  if (s.weights) c.weights = s.weights;
  if (s.normalization) c.normalization = s.normalization;
  return c;
}

function show(v: unknown): string {
  return Array.isArray(v) ? v.join("/") : String(v);
}

/** Cartesian product of the grid, keys in file order. */
function gridPoints(grid: Record<string, unknown[]>): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(grid)) out = out.flatMap((p) => values.map((v) => ({ ...p, [key]: v })));
  return Object.keys(grid).length ? out : [];
}

/**
 * Check a parsed sweep config and expand it into its distinct settings.
 * @param raw the parsed YAML/JSON value.
 * @param file file name for messages and relative paths (null: none).
 * @returns the plan.
 * @throws SweepConfigError listing every problem, each naming its key (`grid.fusion[1]: …`,
 *   `settings[0].k1: …`, `baseline: no setting named "x"; settings: …`).
 */
export function planSweep(raw: unknown, file: string | null = null): SweepPlan {
  const top = SweepConfigSchema.safeParse(raw);
  if (!top.success) {
    const lines = zodLines(top.error.issues, "", (p) => valueAt(raw, p));
    // An experiment config given to `retrieval sweep` by mistake: say what it is and what runs it.
    const looksLikeExperiment = raw !== null && typeof raw === "object" && ["models", "workflows"].every((k) => k in (raw as object));
    if (looksLikeExperiment) lines.push(`(this file has \`models\` and \`workflows\`: it is an experiment config — run it with \`${medsynthCommand()} run <file>\`)`);
    throw new SweepConfigError(lines, file);
  }
  const c = top.data;
  const problems: string[] = [];
  // Each grid value alone, so a bad value is named by key and position.
  for (const [key, values] of Object.entries(c.grid)) {
    if (!(GRID_KEYS as readonly string[]).includes(key)) {
      problems.push(`grid.${key}: unknown key; valid keys: ${GRID_KEYS.join(", ")}`);
      continue;
    }
    values.forEach((v, i) => {
      const r = SweepSettingSchema.safeParse({ [key]: v });
      if (!r.success) problems.push(...zodLines(r.error.issues, "", () => v).map((l) => l.replace(new RegExp(`^${key}`), `grid.${key}[${i}]`)));
    });
  }
  const parsed: { setting: z.infer<typeof SweepSettingSchema>; where: string }[] = [];
  c.settings.forEach((s, i) => {
    const r = SweepSettingSchema.safeParse(s);
    if (!r.success) problems.push(...zodLines(r.error.issues, `settings[${i}]`, (p) => valueAt(s, p)));
    else parsed.push({ setting: r.data, where: `settings[${i}]` });
  });
  if (problems.length === 0) {
    gridPoints(c.grid).forEach((p, i) => parsed.push({ setting: SweepSettingSchema.parse(p), where: `grid point ${i + 1}` }));
  }
  // Rerankers other than the known ids, and llm-pointwise without a chat model.
  for (const { setting, where } of parsed) {
    if (!/^(none|cross-encoder(:.+)?|llm-pointwise)$/.test(setting.reranker))
      problems.push(`${where}.reranker: unknown reranker "${setting.reranker}"; valid: none, cross-encoder, cross-encoder:<model id>, llm-pointwise`);
    else if (setting.reranker === "llm-pointwise" && !c.chatModel) problems.push(`${where}.reranker: llm-pointwise needs chatModel (openai:<model>)`);
    if (setting.mode === "hybrid") {
      try {
        createFusionMethod(setting.fusion, fusionConfigOf(canonicalSetting(setting)));
      } catch (e) {
        problems.push(`${where}.fusion: ${(e as Error).message}`);
      }
    }
  }
  if (parsed.length === 0 && problems.length === 0) problems.push("settings / grid: no setting to run; give `settings` or `grid`");
  if (c.folds !== undefined && c.split !== "none") problems.push("split / folds: choose one tuning protocol (split: dev-test or folds: k), not both");
  const ks = [...new Set(c.k)].sort((a, b) => a - b);
  const metric = c.metric ?? `recall@${ks[ks.length - 1]}`;
  let testK = ks[ks.length - 1];
  try {
    const m = parseMetric(metric);
    if (!["recall", "ndcg", "mrr"].includes(m.family) || !ks.includes(m.k)) problems.push(`metric: expected recall@K, ndcg@K or mrr@K with K in k (${ks.join(", ")}) (got "${metric}")`);
    else testK = m.k;
  } catch (e) {
    problems.push(`metric: ${(e as Error).message}`);
  }
  // Distinct settings, named.
  const settings: SweepSetting[] = [];
  const byCanon = new Map<string, string>();
  let collapsed = 0;
  const gridKeys = Object.keys(c.grid);
  for (const { setting, where } of parsed) {
    const canon = canonicalSetting(setting);
    const key = stringify(canon) ?? "";
    const name =
      setting.name ??
      (gridKeys
        .filter((k) => (canon as Record<string, unknown>)[k] !== undefined)
        .map((k) => `${k}=${show((canon as Record<string, unknown>)[k])}`)
        .join(" ") ||
        canon.mode);
    if (byCanon.has(key)) {
      if (setting.name && byCanon.get(key) !== setting.name) problems.push(`${where}: "${setting.name}" is the same retriever as "${byCanon.get(key)}"`);
      collapsed++;
      continue;
    }
    if (settings.some((s) => s.name === name)) {
      problems.push(`${where}: duplicate setting name "${name}"`);
      continue;
    }
    byCanon.set(key, name);
    settings.push({ name, ...canon });
  }
  const baseline = c.baseline ?? settings[0]?.name ?? "";
  if (settings.length && !settings.some((s) => s.name === baseline)) problems.push(`baseline: no setting named "${baseline}"; settings: ${settings.map((s) => s.name).join(", ")}`);
  if (problems.length) throw new SweepConfigError(problems, file);
  const maxK = ks[ks.length - 1];
  const curveK = [...new Set(c.curveK ?? [1, 2, 3, 5, 10, 20, 50, 100].filter((x) => x <= Math.max(maxK, 100)))].sort((a, b) => a - b);
  const corpus = c.corpus ?? (c.dataset === "medevidence" ? "bundled" : "dataset");
  const { settings: _s, grid: _g, metric: _m, baseline: _b, corpus: _c, ...rest } = c;
  const output = rest.output && file && !isAbsolute(rest.output) ? resolve(dirname(file), rest.output) : rest.output;
  return { ...rest, output, corpus, settings, baseline, metric, testK, curveK, protocol: c.folds !== undefined ? "folds" : c.split === "dev-test" ? "dev-test" : "none", collapsed };
}

/** Value at `path` inside `obj`, or undefined. */
function valueAt(obj: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = obj;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * Read and check a sweep config file (YAML, or JSON by extension).
 * @throws Error naming the file when it cannot be read or parsed; {@link SweepConfigError}.
 */
export function loadSweepConfig(path: string): SweepPlan {
  return planSweep(readConfigValue(path, "sweep config"), path);
}
