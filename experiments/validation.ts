/**
 * Human–judge alignment experiment (`medsynth validate`): correlate reference metrics, an LLM
 * judge panel (optional) and the lexical direction classifier with the MSLR experts' ratings of
 * generated vs target Cochrane summaries.
 *
 * For every (metric or judge output) × derived human score it reports n, n dropped (a score
 * missing on either side — never turned into 0), Pearson r and Spearman ρ with p-values, and,
 * when both sides have a documented bounded scale, Bland–Altman bias with 95 % limits of agreement,
 * the paired t-test and Cohen's d_z computed on values **min–max rescaled to 0–1** (differences
 * d = score − human). Correlations are invariant to that rescaling. The direction classifier is
 * checked against the experts' effect-direction labels (accuracy, Cohen's κ).
 *
 * @see MedMeta (seed 001) §"Human evaluation": LLM judge vs experts with Pearson, Bland–Altman,
 *   paired t-tests and Cohen's d. Wang LL et al. 2023 (the MSLR annotation study) for the ratings.
 */
import { cohenKappa, type KappaResult } from "../judges/stats/kappa.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import pLimit from "p-limit";
import { z } from "zod";
import { EVIDENCE_ANSWERS, type EvidenceAnswer } from "../corpus/types.ts";
import { loadDataset } from "../corpus/datasets/registry.ts";
import { MSLR_ANNOTATIONS_DATASET, type MslrAnnotation, type Rating } from "../corpus/datasets/mslr-annotations.ts";
import { alignScores } from "../judges/alignment.ts";
import { createMetric, metricIds } from "../judges/metrics/registry.ts";
import type { TextEmbedder } from "../judges/metrics/embedding-cosine.ts";
import { createPanel, loadPanelConfig, missingRates, parsePanelConfig, type JudgeMissingRate, type JudgeModelFactory, type Panel } from "../judges/panel.ts";
import { coarseDirectionOfAnswer, coarseDirectionOfExpert, createLexicalDirectionClassifier, LEXICAL_DIRECTION_ID } from "../judges/answer-classifier.ts";
import type { JudgeVerdict } from "../judges/judge.ts";
import { EnvInterpolationError, interpolateEnv } from "../models/env-interpolation.ts";
import { ConfigError, readConfigFile } from "./config.ts";
import { sampleItems } from "./runner.ts";

/** Id of this experiment kind (default config `id`). */
export const VALIDATION_EXPERIMENT_ID = "judge-validation";

/** Inclusive scale of a score, used for min–max rescaling to 0–1. */
export interface ScoreScale {
  min: number;
  max: number;
}

// ---------------------------------------------------------------------------------------------
// Derived human scores

/** A human score derived from the MSLR expert ratings of one row. */
export interface HumanScoreDefinition {
  id: string;
  /** Exact definition from the annotation columns. */
  description: string;
  /** Scale of the derived score (min–max rescaled to 0–1 for Bland–Altman and paired t). */
  scale: ScoreScale;
  /** The score of one row; null when a rating it needs is N/A, other/uncertain or empty. */
  derive(row: MslrAnnotation): number | null;
}

const rated = (r: Rating): number | null => (r.status === "rated" && r.value !== null ? r.value : null);

/**
 * Effect-direction category of one rating: "-1" / "0" / "+1" when rated, "unspecified" for
 * "N/A: no effect direction is specified"; null for "Other / uncertain" or an empty cell.
 */
export function directionCategory(r: Rating): string | null {
  if (r.status === "not-applicable") return "unspecified";
  const v = rated(r);
  return v === null ? null : v > 0 ? "+1" : v < 0 ? "-1" : "0";
}

/**
 * The derived human scores (ids usable in a config's `humanScores`):
 * - `content-agreement` — mean of population, intervention and outcome agreement (each 0 No,
 *   1 Partially, 2 Yes); scale 0–2; missing unless all three are rated (an "N/A: No … in generated
 *   summary", "Other / uncertain" or empty cell → the row is dropped for this score).
 * - `population`, `intervention`, `outcome` — that single agreement rating; scale 0–2.
 * - `fluency` — fluency of the generated summary (0 No, 1 Somewhat, 2 Yes); scale 0–2.
 * - `direction-agreement` — 1 when the experts' effect direction of the generated summary equals
 *   that of the target, else 0, over four categories −1 / 0 / +1 / unspecified ("N/A: no effect
 *   direction is specified", which counts as its own category); missing when either is
 *   "Other / uncertain" or empty. Scale 0–1.
 * - `direction-agreement-rated` — the same but only where both directions are rated −1/0/+1
 *   (unspecified → missing). Scale 0–1.
 * - `claim-strength-agreement` — 1 − |target − generated| / 3 of the claim-strength ratings
 *   (0 not enough evidence … 3 strong), both rated; scale 0–1.
 */
export const HUMAN_SCORES: Readonly<Record<string, HumanScoreDefinition>> = Object.freeze(
  Object.fromEntries(
    (
      [
        {
          id: "content-agreement",
          description: "mean of population, intervention and outcome agreement (0 No, 1 Partially, 2 Yes); all three must be rated",
          scale: { min: 0, max: 2 },
          derive: (r) => {
            const v = [r.population, r.intervention, r.outcome].map(rated);
            return v.every((x): x is number => x !== null) ? (v[0] + v[1] + v[2]) / 3 : null;
          },
        },
        { id: "population", description: "population agreement (0 No, 1 Partially, 2 Yes)", scale: { min: 0, max: 2 }, derive: (r) => rated(r.population) },
        { id: "intervention", description: "intervention agreement (0 No, 1 Partially, 2 Yes)", scale: { min: 0, max: 2 }, derive: (r) => rated(r.intervention) },
        { id: "outcome", description: "outcome agreement (0 No, 1 Partially, 2 Yes)", scale: { min: 0, max: 2 }, derive: (r) => rated(r.outcome) },
        { id: "fluency", description: "fluency of the generated summary (0 No, 1 Somewhat, 2 Yes)", scale: { min: 0, max: 2 }, derive: (r) => rated(r.fluency) },
        {
          id: "direction-agreement",
          description: "1 if the experts' effect direction of generated = target over {-1, 0, +1, unspecified (N/A)}, else 0",
          scale: { min: 0, max: 1 },
          derive: (r) => {
            const t = directionCategory(r.effectDirectionTarget);
            const g = directionCategory(r.effectDirectionGenerated);
            return t === null || g === null ? null : t === g ? 1 : 0;
          },
        },
        {
          id: "direction-agreement-rated",
          description: "1 if the effect direction of generated = target, both rated -1/0/+1 (N/A → missing), else 0",
          scale: { min: 0, max: 1 },
          derive: (r) => {
            const t = rated(r.effectDirectionTarget);
            const g = rated(r.effectDirectionGenerated);
            return t === null || g === null ? null : t === g ? 1 : 0;
          },
        },
        {
          id: "claim-strength-agreement",
          description: "1 − |target − generated|/3 of claim strength (0 not enough evidence … 3 strong), both rated",
          scale: { min: 0, max: 1 },
          derive: (r) => {
            const t = rated(r.claimStrengthTarget);
            const g = rated(r.claimStrengthGenerated);
            return t === null || g === null ? null : 1 - Math.abs(t - g) / 3;
          },
        },
      ] satisfies HumanScoreDefinition[]
    ).map((d) => [d.id, d]),
  ),
);

/** Ids of {@link HUMAN_SCORES}. */
export const HUMAN_SCORE_IDS = Object.keys(HUMAN_SCORES) as readonly string[];

/**
 * Derive the requested human scores of one annotated row.
 * @returns id → score (null = missing)
 * @throws Error listing valid ids on an unknown id
 */
export function deriveHumanScores(row: MslrAnnotation, ids: readonly string[] = HUMAN_SCORE_IDS): Record<string, number | null> {
  return Object.fromEntries(
    ids.map((id) => {
      const d = HUMAN_SCORES[id];
      if (!d) throw new Error(`unknown human score "${id}"; valid: ${HUMAN_SCORE_IDS.join(", ")}`);
      return [id, d.derive(row)];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Scales of metric outputs

/**
 * Documented scale of each reference-metric output, or null when it is unbounded (count ratios,
 * perplexity: no Bland–Altman / paired t on them, correlations only). ROUGE P/R/F and BLEU lie in
 * [0, 1]; cosine-based scores (embedding cosine, BERTScore without baseline rescaling) in [−1, 1].
 */
export function metricOutputScale(output: string): ScoreScale | null {
  if (/^rouge(\d|L|Lsum)_(precision|recall|fmeasure)$/.test(output) || output === "bleu") return { min: 0, max: 1 };
  if (output === "embedding_cosine" || /^bertscore_/.test(output)) return { min: -1, max: 1 };
  return null;
}

/**
 * Min–max rescale to 0–1: (v − min) / (max − min).
 * @throws RangeError when max ≤ min
 */
export function rescale(v: number, scale: ScoreScale): number {
  if (!(scale.max > scale.min)) throw new RangeError(`rescale: max (${scale.max}) must exceed min (${scale.min})`);
  return (v - scale.min) / (scale.max - scale.min);
}

// ---------------------------------------------------------------------------------------------
// Cohen's kappa

export { cohenKappa, type KappaResult } from "../judges/stats/kappa.ts";

// ---------------------------------------------------------------------------------------------
// Config

const MetricSpecSchema = z.union([z.string().min(1), z.object({ id: z.string().min(1), config: z.record(z.string(), z.unknown()).default({}) }).strict()]);

/**
 * `judge-validation.yaml`. Strings may use `${ENV}` / `${ENV:-default}`.
 * ```yaml
 * dataset: { name: mslr-annotations, sample: 20, seed: 42 }   # sample omitted = all rows
 * humanScores: [content-agreement, direction-agreement, fluency]
 * metrics: [rouge, bleu, count-ratios, embedding-cosine]       # or {id, config}
 * embedder: word-vectors                                       # for embedding-cosine
 * directionClassifier: { id: lexical-direction }               # or false
 * panel: path/to/panel.yaml                                    # or an inline panel block; omitted = no judge
 * output: ../../runs/judge-validation                          # relative to the config file
 * ```
 */
export const ValidationConfigSchema = z
  .object({
    id: z.string().min(1).default(VALIDATION_EXPERIMENT_ID),
    description: z.string().optional(),
    dataset: z
      .object({
        name: z.literal(MSLR_ANNOTATIONS_DATASET).default(MSLR_ANNOTATIONS_DATASET),
        /** TSV path overriding the bundled file (same columns). */
        path: z.string().min(1).optional(),
        /** Rows to sample (seeded); omitted = all. */
        sample: z.number().int().positive().optional(),
        seed: z.number().int().default(42),
      })
      .strict()
      .default({ name: MSLR_ANNOTATIONS_DATASET, seed: 42 }),
    humanScores: z
      .array(z.string().refine((s) => s in HUMAN_SCORES, { message: `unknown human score; valid: ${Object.keys(HUMAN_SCORES).join(", ")}` }))
      .min(1)
      .default(["content-agreement", "direction-agreement", "fluency"]),
    metrics: z
      .array(MetricSpecSchema)
      .default(["rouge", "bleu", "count-ratios", "embedding-cosine"])
      .superRefine((specs, ctx) => {
        specs.forEach((s, i) => {
          const id = typeof s === "string" ? s : s.id;
          if (!metricIds().includes(id)) ctx.addIssue({ code: "custom", path: [i], message: `unknown metric "${id}"; valid ids: ${metricIds().join(", ")}` });
        });
      }),
    /** Embedder id (retrieval registry) for embedding-cosine. */
    embedder: z.string().min(1).default("word-vectors"),
    directionClassifier: z
      .union([
        z.literal(false),
        z
          .object({
            id: z.literal(LEXICAL_DIRECTION_ID).default(LEXICAL_DIRECTION_ID),
            /** Label when no cue is found (see the classifier). */
            fallback: z.enum(EVIDENCE_ANSWERS).optional(),
          })
          .strict(),
      ])
      .default({ id: LEXICAL_DIRECTION_ID }),
    /** Judge panel: a panel file path or an inline panel block (see judges/panel.ts); omitted = no judge. */
    panel: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    /** Rows judged at once when a panel is set. */
    panelConcurrency: z.number().int().min(1).max(64).default(4),
    /** Output folder (relative to the config file when loaded from one). */
    output: z.string().min(1).default(join("runs", VALIDATION_EXPERIMENT_ID)),
  })
  .strict();
/** Parsed validation config. */
export type ValidationConfig = z.infer<typeof ValidationConfigSchema>;
/** Validation config as written. */
export type ValidationConfigInput = z.input<typeof ValidationConfigSchema>;

/**
 * Validate a parsed validation config (after `${ENV}` interpolation).
 * @throws ConfigError naming the file and each invalid path
 */
export function parseValidationConfig(raw: unknown, file: string | null = null, env: NodeJS.ProcessEnv = process.env): ValidationConfig {
  let data: unknown;
  try {
    data = interpolateEnv(raw ?? {}, env);
  } catch (e) {
    if (e instanceof EnvInterpolationError) throw new ConfigError(`${file ?? "config"}: ${e.message}`, file, [{ path: e.path, message: `env ${e.variable} not set` }]);
    throw e;
  }
  const res = ValidationConfigSchema.safeParse(data);
  if (!res.success) {
    const issues = res.error.issues.map((i) => {
      const base = i.path.join(".");
      const keys = (i as { keys?: string[] }).keys;
      return { path: keys?.length ? keys.map((k) => (base ? `${base}.${k}` : k)).join(", ") : base || "(root)", message: i.message };
    });
    throw new ConfigError(`${file ?? "config"}: invalid validation config\n${issues.map((i) => `  - ${i.path}: ${i.message}`).join("\n")}`, file, issues);
  }
  return res.data;
}

/**
 * Read a `judge-validation.yaml` (or `.json`). Relative `output`, `dataset.path` and a `panel`
 * path resolve against the file's folder.
 * @returns the config and `baseDir` (the file's folder; pass it as `panelBaseDir` so an inline
 *   panel's rubric/template paths resolve against it)
 * @throws ConfigError on an unreadable/unparseable file or invalid fields
 */
export function loadValidationConfig(file: string, env: NodeJS.ProcessEnv = process.env): { config: ValidationConfig; baseDir: string } {
  const cfg = parseValidationConfig(readConfigFile(file), file, env);
  const base = dirname(resolve(file));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const config: ValidationConfig = {
    ...cfg,
    output: abs(cfg.output),
    dataset: { ...cfg.dataset, ...(cfg.dataset.path ? { path: abs(cfg.dataset.path) } : {}) },
    panel: typeof cfg.panel === "string" ? abs(cfg.panel) : cfg.panel,
  };
  return { config, baseDir: base };
}

// ---------------------------------------------------------------------------------------------
// Results

/** A score aligned with human ratings: a metric output, a panel (or single-judge) score, or a classifier score. */
export interface ScoreDefinition {
  id: string;
  kind: "metric" | "judge" | "classifier";
  /** Documented scale; null = unbounded (correlations only). */
  scale: ScoreScale | null;
  description: string;
}

/** One (score × human score) line of the alignment table. Differences are score − human, both rescaled to 0–1. */
export interface AlignmentRow {
  score: string;
  human: string;
  n: number;
  /** Rows dropped because the score or the human rating was missing. */
  nDropped: number;
  pearson: { r: number; p: number } | null;
  spearman: { rho: number; p: number } | null;
  /** True when Bland–Altman / t / d_z were computed on 0–1 min–max rescaled values. */
  rescaled: boolean;
  blandAltman: { bias: number; sdDiff: number; loaLower: number; loaUpper: number } | null;
  pairedT: { t: number; df: number; p: number } | null;
  cohenDz: number | null;
  /** Means of the complete pairs, on the 0–1 rescaled scale when `rescaled`, else raw. */
  scoreMean: number | null;
  humanMean: number | null;
  /** Why some statistics are null (unbounded scale, too few pairs, constant scores, all differences equal). */
  note?: string;
}

/** Accuracy and κ of the direction classifier against the experts (coarse: effect / no effect / unspecified). */
export interface DirectionCheck {
  n: number;
  /** Rows whose expert label is "Other / uncertain"/empty, or whose prediction is missing. */
  excluded: number;
  accuracy: number | null;
  kappa: number | null;
  /** expert → predicted → count. */
  confusion: Record<string, Record<string, number>>;
}

/** The classifier section of the report. */
export interface DirectionReport {
  classifierId: string;
  /** How classes and expert labels were coarsened. */
  mapping: string;
  target: DirectionCheck;
  generated: DirectionCheck;
  pooled: DirectionCheck;
  /** κ between the classifier's target-vs-generated agreement (0/1) and the human `direction-agreement`. */
  agreementKappa: KappaResult;
}

/** Per-row values, kept in validation.json for re-analysis. */
export interface ValidationItem {
  id: string;
  reviewId: string;
  system: string | null;
  human: Record<string, number | null>;
  scores: Record<string, number | null>;
  /** Why a score is null (metric note, judge error). */
  notes?: Record<string, string>;
  direction?: { target: EvidenceAnswer | null; generated: EvidenceAnswer | null };
}

/** Everything `medsynth validate` writes to validation.json. */
export interface ValidationReport {
  id: string;
  createdAt: string;
  config: ValidationConfig;
  dataset: { name: string; rowsLoaded: number; rowsUsed: number; warnings: string[]; skipped: { count: number; reasons: Record<string, number> } };
  humanScores: (Omit<HumanScoreDefinition, "derive"> & { present: number; missing: number })[];
  scores: ScoreDefinition[];
  alignment: AlignmentRow[];
  direction: DirectionReport | null;
  panel: { id: string; judgeIds: string[]; rubrics: string[]; missingRates: JudgeMissingRate[] } | null;
  notes: string[];
  items: ValidationItem[];
  timing: { totalMs: number; metricsMs: number; panelMs: number; classifierMs: number };
}

/**
 * One alignment line. Pearson/Spearman on the raw values; when both scales are known,
 * Bland–Altman, paired t and d_z on values min–max rescaled to 0–1 (d = score − human).
 * Fewer than 3 complete pairs → statistics null with a note (never a made-up number); so are
 * r and ρ when either side is constant ("constant scores"), and paired t and d_z when all
 * differences are equal (sd 0).
 */
export function alignmentRow(
  scoreId: string,
  humanId: string,
  pairs: readonly { id: string; score: number | null; human: number | null }[],
  scales: { score: ScoreScale | null; human: ScoreScale | null },
): AlignmentRow {
  const both = scales.score !== null && scales.human !== null;
  const items = pairs.map((p) => ({
    id: p.id,
    judge: p.score === null ? null : both ? rescale(p.score, scales.score!) : p.score,
    human: p.human === null ? null : both ? rescale(p.human, scales.human!) : p.human,
  }));
  const base: AlignmentRow = {
    score: scoreId,
    human: humanId,
    n: 0,
    nDropped: 0,
    pearson: null,
    spearman: null,
    rescaled: both,
    blandAltman: null,
    pairedT: null,
    cohenDz: null,
    scoreMean: null,
    humanMean: null,
  };
  const complete = items.filter((i) => i.judge !== null && i.human !== null && Number.isFinite(i.judge) && Number.isFinite(i.human)).length;
  if (complete < 3) return { ...base, n: complete, nDropped: items.length - complete, note: `fewer than 3 complete pairs (${complete})` };
  const r = alignScores(items);
  // Zero-variance inputs make r/ρ (constant scores) or t/d_z (all differences equal) undefined:
  // reported as null with a note, never as a number (alignScores returns NaN for them).
  const notes: string[] = [];
  const row: AlignmentRow = {
    ...base,
    n: r.n,
    nDropped: r.nDropped,
    pearson: Number.isFinite(r.pearson.estimate) ? { r: r.pearson.estimate, p: r.pearson.p } : null,
    spearman: Number.isFinite(r.spearman.estimate) ? { rho: r.spearman.estimate, p: r.spearman.p } : null,
    scoreMean: r.judgeMean,
    humanMean: r.humanMean,
  };
  if (r.constant.judge || r.constant.human) {
    const sides = [r.constant.judge ? scoreId : null, r.constant.human ? humanId : null].filter((x) => x !== null).join(", ");
    notes.push(`constant scores (${sides}): r and ρ undefined`);
  }
  if (both) {
    row.blandAltman = { bias: r.blandAltman.bias, sdDiff: r.blandAltman.sdDiff, loaLower: r.blandAltman.loaLower, loaUpper: r.blandAltman.loaUpper };
    if (r.constant.differences) notes.push("all differences equal (sd 0): paired t and d_z undefined");
    else {
      row.pairedT = { t: r.pairedT.t, df: r.pairedT.df, p: r.pairedT.p };
      row.cohenDz = Number.isFinite(r.cohenDz) ? r.cohenDz : null;
    }
  } else notes.push("score has no bounded scale: correlations only");
  if (notes.length) row.note = notes.join("; ");
  return row;
}

function directionCheck(pairs: { predicted: EvidenceAnswer | null; expert: Rating }[]): DirectionCheck {
  const expert = pairs.map((p) => coarseDirectionOfExpert(p.expert));
  const pred = pairs.map((p) => (p.predicted === null ? null : coarseDirectionOfAnswer(p.predicted)));
  const k = cohenKappa(expert, pred);
  return { n: k.n, excluded: k.excluded, accuracy: k.observed, kappa: k.kappa, confusion: k.confusion };
}

/** Dependencies of {@link runValidation} (all optional; tests inject them). */
export interface ValidationDeps {
  /** Embedder for embedding-cosine (default `createEmbedder(config.embedder)`). */
  embedder?: TextEmbedder;
  /** Builds each judge's chat model (required when a panel is configured; the CLI passes createChatModel). */
  modelFor?: JudgeModelFactory;
  /** Folder relative rubric/template paths of an inline panel resolve against (default cwd). */
  panelBaseDir?: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** Records `note` on the item under `key` (why its score `key` is null). */
const noteOf = (it: ValidationItem, key: string, note: string) => ((it.notes ??= {})[key] = note);

/** What a step of {@link runValidation} shares: the config, the sampled rows, their items (filled in place), run notes and the log. */
interface ValidationStepContext {
  cfg: ValidationConfig;
  rows: MslrAnnotation[];
  items: ValidationItem[];
  notes: string[];
  log: (line: string) => void;
}

/**
 * Step 1 of {@link runValidation}: load the annotations, sample them (seeded) and derive each
 * row's human scores.
 */
async function loadValidationRows(cfg: ValidationConfig, log: (line: string) => void) {
  const ds = await loadDataset(cfg.dataset.name, cfg.dataset.path ? { path: cfg.dataset.path } : {});
  const all = ds.items as MslrAnnotation[];
  const rows = sampleItems(all, { sample: cfg.dataset.sample }, cfg.dataset.seed);
  log(`validate: ${rows.length} of ${all.length} annotated pairs${cfg.dataset.sample ? ` (sample, seed ${cfg.dataset.seed})` : ""}`);
  const items: ValidationItem[] = rows.map((r) => ({ id: r.id, reviewId: r.reviewId, system: r.system, human: deriveHumanScores(r, cfg.humanScores), scores: {} }));
  return { ds, all, rows, items };
}

/**
 * Step 2: reference metrics (target summary = reference, generated summary = candidate). A null
 * value keeps its note on the item and is counted in a run note.
 * @returns the metric scores' definitions, in config order.
 */
async function scoreReferenceMetrics(ctx: ValidationStepContext, deps: ValidationDeps): Promise<ScoreDefinition[]> {
  const { cfg, rows, items, notes, log } = ctx;
  const scores: ScoreDefinition[] = [];
  for (const spec of cfg.metrics) {
    const id = typeof spec === "string" ? spec : spec.id;
    const mcfg = typeof spec === "string" ? {} : spec.config;
    // The embedder registry is imported here, when needed, so loading a config stays light (`medsynth validate` start-up).
    const embedder = id === "embedding-cosine" ? (deps.embedder ?? (await (await import("../retrieval/embedders/registry.ts")).createEmbedder(cfg.embedder))) : undefined;
    const metric = createMetric(id, mcfg, embedder ? { embedder } : {});
    const out = await metric.score(rows.map((r) => ({ id: r.id, reference: r.targetSummary, candidate: r.generatedSummary })));
    for (const name of metric.outputs) {
      let nulls = 0;
      let firstNote: string | undefined;
      out.forEach((row, i) => {
        const v = row[name];
        const value = v && v.value !== null && Number.isFinite(v.value) ? v.value : null;
        items[i].scores[name] = value;
        if (value === null) {
          nulls++;
          const n = v?.note ?? "not computed";
          firstNote ??= n;
          noteOf(items[i], name, n);
        }
      });
      if (nulls) notes.push(`metric ${name}: ${nulls} of ${rows.length} rows null (${firstNote})`);
      const scale = metricOutputScale(name);
      scores.push({ id: name, kind: "metric", scale, description: `${id}${embedder ? ` (${embedder.id})` : ""}: generated vs target summary` });
    }
    log(`validate: metric ${id} done`);
  }
  return scores;
}

/**
 * Step 3: the judge panel, when one is configured (inline or a file): every row judged (bounded
 * concurrency), the panel's aggregate per rubric dimension (and each judge's own score when
 * there are several) stored on the items; missing verdicts are noted, never 0.
 * @throws Error when a panel is configured but `deps.modelFor` is absent.
 */
async function judgeWithPanel(ctx: ValidationStepContext, deps: ValidationDeps): Promise<{ scores: ScoreDefinition[]; panel: ValidationReport["panel"] }> {
  const { cfg, rows, items, notes, log } = ctx;
  const scores: ScoreDefinition[] = [];
  if (cfg.panel === undefined) {
    notes.push("no judge panel configured: judge rows skipped (add a `panel:` block or file to the config to align an LLM judge)");
    return { scores, panel: null };
  }
  if (!deps.modelFor) throw new Error("validate: a panel is configured but no model factory (deps.modelFor) was given");
  let panelCfg: unknown = cfg.panel;
  let baseDir = deps.panelBaseDir ?? process.cwd();
  if (typeof cfg.panel === "string") {
    const loaded = loadPanelConfig(cfg.panel);
    panelCfg = loaded.config;
    baseDir = loaded.baseDir;
  }
  const panel: Panel = createPanel(parsePanelConfig(panelCfg, typeof cfg.panel === "string" ? cfg.panel : "validation config `panel`"), { modelFor: deps.modelFor, baseDir });
  const limit = pLimit(cfg.panelConcurrency);
  const verdicts: JudgeVerdict[][] = await Promise.all(rows.map((r) => limit(() => panel.judgeInput({ candidate: r.generatedSummary, reference: r.targetSummary, source: null, question: null }))));
  const multi = panel.judgeIds.length > 1;
  for (const rubric of panel.rubrics) {
    for (const dim of rubric.dimensions) {
      const key = `panel:${rubric.id}.${dim.id}`;
      const scale = { min: rubric.scale.min, max: rubric.scale.max };
      scores.push({ id: key, kind: "judge", scale, description: `panel ${panel.id} (${panel.aggregation} of ${panel.judgeIds.join(", ")}), ${rubric.id} ${dim.id} ${scale.min}–${scale.max}` });
      if (multi)
        for (const j of panel.judgeIds) scores.push({ id: `judge:${j}:${rubric.id}.${dim.id}`, kind: "judge", scale, description: `judge ${j}, ${rubric.id} ${dim.id} ${scale.min}–${scale.max}` });
    }
  }
  verdicts.forEach((vs, i) => {
    const agg = panel.aggregate(vs);
    for (const [rubricId, dims] of Object.entries(agg)) {
      for (const [dimId, a] of Object.entries(dims)) {
        const key = `panel:${rubricId}.${dimId}`;
        items[i].scores[key] = a.value;
        if (a.value === null) {
          const errs = vs.filter((v) => v.rubricId === rubricId && v.status === "missing").map((v) => `${v.judgeId}: ${v.error ?? "missing"}`);
          noteOf(items[i], key, `no judge answer could be parsed (${errs.join("; ") || "missing"})`);
        }
        if (multi) for (const [j, v] of Object.entries(a.perJudge)) items[i].scores[`judge:${j}:${rubricId}.${dimId}`] = v;
      }
    }
  });
  const rates = missingRates(verdicts.flat());
  for (const r of rates) if (r.missing) notes.push(`judge ${r.judgeId}: ${r.missing} of ${r.total} verdicts missing (excluded, never 0)`);
  log(`validate: panel ${panel.id} judged ${rows.length} rows`);
  return { scores, panel: { id: panel.id, judgeIds: panel.judgeIds, rubrics: panel.rubrics.map((r) => r.id), missingRates: rates } };
}

/**
 * Step 4: the direction classifier (unless disabled): target and generated summaries classified,
 * their coarse-direction agreement stored as a 0/1 score, and the classifier checked against the
 * experts' effect directions (Cohen's κ per side and pooled, and on agreement).
 */
async function classifyDirections(ctx: ValidationStepContext): Promise<{ scores: ScoreDefinition[]; direction: DirectionReport | null }> {
  const { cfg, rows, items } = ctx;
  if (cfg.directionClassifier === false) return { scores: [], direction: null };
  const clf = createLexicalDirectionClassifier(cfg.directionClassifier.fallback ? { fallback: cfg.directionClassifier.fallback } : {});
  const preds: { target: EvidenceAnswer | null; generated: EvidenceAnswer | null }[] = [];
  for (const r of rows) {
    const t = await clf.classify({ conclusion: r.targetSummary });
    const g = await clf.classify({ conclusion: r.generatedSummary });
    preds.push({ target: t.label, generated: g.label });
  }
  const scoreId = `${clf.id}:agreement`;
  const scores: ScoreDefinition[] = [
    { id: scoreId, kind: "classifier", scale: { min: 0, max: 1 }, description: `1 if ${clf.id} gives target and generated the same coarse direction (effect / no effect / unspecified), else 0` },
  ];
  const agreeLabels: (string | null)[] = [];
  const humanAgree: (string | null)[] = [];
  preds.forEach((p, i) => {
    items[i].direction = p;
    const v = p.target === null || p.generated === null ? null : coarseDirectionOfAnswer(p.target) === coarseDirectionOfAnswer(p.generated) ? 1 : 0;
    items[i].scores[scoreId] = v;
    agreeLabels.push(v === null ? null : String(v));
    const h = HUMAN_SCORES["direction-agreement"].derive(rows[i]);
    humanAgree.push(h === null ? null : String(h));
  });
  const target = directionCheck(rows.map((r, i) => ({ predicted: preds[i].target, expert: r.effectDirectionTarget })));
  const generated = directionCheck(rows.map((r, i) => ({ predicted: preds[i].generated, expert: r.effectDirectionGenerated })));
  const pooled = directionCheck(
    rows.flatMap((r, i) => [
      { predicted: preds[i].target, expert: r.effectDirectionTarget },
      { predicted: preds[i].generated, expert: r.effectDirectionGenerated },
    ]),
  );
  const direction: DirectionReport = {
    classifierId: clf.id,
    mapping:
      "classes higher/lower → effect, no difference → no effect, uncertain effect/insufficient data → unspecified; experts ±1 → effect, 0 → no effect, N/A → unspecified, other/empty → excluded",
    target,
    generated,
    pooled,
    agreementKappa: cohenKappa(humanAgree, agreeLabels),
  };
  return { scores, direction };
}

/** Step 5: one {@link alignmentRow} per score × human score. */
function alignScoresWithHumans(scores: readonly ScoreDefinition[], items: readonly ValidationItem[], humanScores: ValidationConfig["humanScores"]): AlignmentRow[] {
  const alignment: AlignmentRow[] = [];
  for (const s of scores) {
    for (const h of humanScores) {
      const def = HUMAN_SCORES[h];
      alignment.push(
        alignmentRow(
          s.id,
          h,
          items.map((it) => ({ id: it.id, score: it.scores[s.id] ?? null, human: it.human[h] })),
          { score: s.scale, human: def.scale },
        ),
      );
    }
  }
  return alignment;
}

/**
 * Run the validation experiment: load (and sample) the annotations, derive human scores, compute
 * metrics, judge with the panel (if any), classify directions, and align everything.
 * Nothing is written; see {@link writeValidationOutputs}.
 * @throws Error for an invalid config, an unknown embedder, a panel without `modelFor`
 */
export async function runValidation(config: ValidationConfigInput | ValidationConfig, deps: ValidationDeps = {}): Promise<ValidationReport> {
  const t0 = Date.now();
  const cfg = ValidationConfigSchema.parse(config);
  const log = deps.log ?? (() => {});
  const notes: string[] = [];
  const { ds, all, rows, items } = await loadValidationRows(cfg, log);
  const ctx: ValidationStepContext = { cfg, rows, items, notes, log };

  const tm = Date.now();
  const metricScores = await scoreReferenceMetrics(ctx, deps);
  const metricsMs = Date.now() - tm;

  const tp = Date.now();
  const judged = await judgeWithPanel(ctx, deps);
  const panelMs = Date.now() - tp;

  const tc = Date.now();
  const classified = await classifyDirections(ctx);
  const classifierMs = Date.now() - tc;

  const scores = [...metricScores, ...judged.scores, ...classified.scores];
  const alignment = alignScoresWithHumans(scores, items, cfg.humanScores);
  notes.push("Bland–Altman, paired t and d_z use both scores min–max rescaled to 0–1 by their documented scales (d = score − human); Pearson/Spearman use raw values (invariant to that rescaling).");

  return {
    id: cfg.id,
    createdAt: new Date().toISOString(),
    config: cfg,
    dataset: { name: ds.name, rowsLoaded: all.length, rowsUsed: rows.length, warnings: ds.warnings, skipped: ds.skipped },
    humanScores: cfg.humanScores.map((h) => {
      const { derive: _d, ...def } = HUMAN_SCORES[h];
      const present = items.filter((it) => it.human[h] !== null).length;
      return { ...def, present, missing: items.length - present };
    }),
    scores,
    alignment,
    direction: classified.direction,
    panel: judged.panel,
    notes,
    items,
    timing: { totalMs: Date.now() - t0, metricsMs, panelMs, classifierMs },
  };
}

// ---------------------------------------------------------------------------------------------
// Formatting and output

const f = (v: number | null | undefined, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(d));
const fp = (p: number | null | undefined) => (p === null || p === undefined || !Number.isFinite(p) ? "–" : p < 1e-4 ? p.toExponential(1) : p.toFixed(4));

/** Header of the alignment table (text and Markdown). */
export const ALIGNMENT_TABLE_HEADER = ["score", "human", "n", "dropped", "r (p)", "ρ (p)", "bias₀₁", "LoA₀₁", "t (p)", "d_z"];

/** Note fragments of {@link alignmentRow} for zero-variance inputs. */
const CONSTANT_SCORES_NOTE = /constant scores/;
const EQUAL_DIFFERENCES_NOTE = /all differences equal/;

/**
 * Alignment rows as table cells (numbers formatted; "–" where undefined; "– constant" for r/ρ of
 * constant scores and "– sd 0" for t/d_z when all differences are equal).
 */
export function alignmentTableRows(rows: readonly AlignmentRow[]): string[][] {
  return rows.map((r) => {
    const constant = CONSTANT_SCORES_NOTE.test(r.note ?? "");
    const sd0 = EQUAL_DIFFERENCES_NOTE.test(r.note ?? "");
    return [
      r.score,
      r.human,
      String(r.n),
      String(r.nDropped),
      r.pearson ? `${f(r.pearson.r)} (${fp(r.pearson.p)})` : constant ? "– constant" : "–",
      r.spearman ? `${f(r.spearman.rho)} (${fp(r.spearman.p)})` : constant ? "– constant" : "–",
      r.blandAltman ? f(r.blandAltman.bias) : "–",
      r.blandAltman ? `[${f(r.blandAltman.loaLower)}, ${f(r.blandAltman.loaUpper)}]` : "–",
      r.pairedT ? `${f(r.pairedT.t, 2)} (${fp(r.pairedT.p)})` : sd0 ? "– sd 0" : "–",
      r.cohenDz === null && sd0 ? "– sd 0" : f(r.cohenDz, 2),
    ];
  });
}

/** Fixed-width text table (first column left-aligned). */
export function formatTextTable(header: readonly string[], rows: readonly string[][]): string {
  const cells = [header, ...rows];
  const w = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i <= 1 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ");
  return [line(header), w.map((x) => "-".repeat(x)).join("  "), ...rows.map(line)].join("\n");
}

/** Markdown report: dataset, human-score definitions, the alignment table, direction check, notes. */
export function formatValidationMarkdown(rep: ValidationReport): string {
  const md = (header: readonly string[], rows: readonly string[][]) =>
    [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`)].join("\n");
  const out: string[] = [];
  out.push(`# Human–judge alignment: ${rep.id}`, "");
  out.push(`Dataset \`${rep.dataset.name}\`: ${rep.dataset.rowsUsed} of ${rep.dataset.rowsLoaded} annotated (target, generated) summary pairs. Created ${rep.createdAt}.`, "");
  out.push("## Human scores", "");
  out.push(
    md(
      ["id", "definition", "scale", "present", "missing"],
      rep.humanScores.map((h) => [h.id, h.description, `${h.scale.min}–${h.scale.max}`, String(h.present), String(h.missing)]),
    ),
    "",
  );
  out.push("## Scores aligned", "");
  out.push(
    md(
      ["id", "kind", "scale", "what"],
      rep.scores.map((s) => [s.id, s.kind, s.scale ? `${s.scale.min}–${s.scale.max}` : "unbounded", s.description]),
    ),
    "",
  );
  out.push("## Alignment", "");
  out.push(
    "r = Pearson, ρ = Spearman (raw values). bias₀₁, LoA₀₁ (bias ± 1.96·SD), paired t and d_z on both scores min–max rescaled to 0–1, d = score − human; “–” = not defined (unbounded scale or too few pairs; “– constant”: a side's scores are all equal, so r and ρ are undefined; “– sd 0”: all differences are equal, so t and d_z are undefined).",
    "",
  );
  out.push(md(ALIGNMENT_TABLE_HEADER, alignmentTableRows(rep.alignment)), "");
  const undefinedRows = rep.alignment.filter((r) => CONSTANT_SCORES_NOTE.test(r.note ?? "") || EQUAL_DIFFERENCES_NOTE.test(r.note ?? ""));
  if (undefinedRows.length) out.push("Undefined because of zero variance:", "", ...undefinedRows.map((r) => `- ${r.score} × ${r.human}: ${r.note}`), "");
  if (rep.direction) {
    const d = rep.direction;
    out.push(`## Direction classifier (${d.classifierId}) vs experts`, "", d.mapping, "");
    const row = (name: string, c: DirectionCheck) => [name, String(c.n), String(c.excluded), f(c.accuracy), f(c.kappa)];
    out.push(md(["texts", "n", "excluded", "accuracy", "Cohen's κ"], [row("target", d.target), row("generated", d.generated), row("pooled", d.pooled)]), "");
    const k = d.agreementKappa;
    out.push(`Classifier agreement (target vs generated) vs human \`direction-agreement\`: n ${k.n}, excluded ${k.excluded}, observed agreement ${f(k.observed)}, κ ${f(k.kappa)}.`, "");
  }
  if (rep.panel) {
    out.push(`## Judge panel ${rep.panel.id}`, "");
    out.push(
      md(
        ["judge", "verdicts", "missing", "rate"],
        rep.panel.missingRates.map((r) => [r.judgeId, String(r.total), String(r.missing), f(r.rate)]),
      ),
      "",
    );
  }
  if (rep.notes.length) out.push("## Notes", "", ...rep.notes.map((n) => `- ${n}`), "");
  return out.join("\n");
}

/**
 * Write `<outDir>/validation.json` (NaN/Infinity → null) and `<outDir>/validation.md`.
 * @returns the two paths
 */
export function writeValidationOutputs(rep: ValidationReport, outDir: string): { json: string; md: string } {
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, "validation.json");
  const mdPath = join(outDir, "validation.md");
  writeFileSync(json, JSON.stringify(rep, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) + "\n");
  writeFileSync(mdPath, formatValidationMarkdown(rep));
  return { json, md: mdPath };
}
