/**
 * Panel diagnostics: how far the judges of a panel can be trusted, from their verdicts on a set of
 * run records (one rubric dimension at a time).
 * - inter-judge agreement: Krippendorff's alpha (interval; nominal for binary rubrics) and ICC(2,1)/ICC(2,k);
 * - calibration shift: each judge's mean offset from the panel mean (MedConclusion Table 5, §4.3);
 * - ranking stability: Kendall's τ-b between judges' rankings of the generating systems (§4.3);
 * - length bias: Pearson r and Spearman ρ of score vs output length in words;
 * - leave-one-judge-out panel means;
 * - self-preference risk: a judge sharing a model family with a generator.
 * Statistics come from judges/stats (each checked against scipy / the reference papers there).
 */
import { z } from "zod";
import { outputWordCount, type JudgeScoreEntry, type RunRecord } from "../results/run-record.ts";
import { krippendorffAlpha } from "./stats/krippendorff.ts";
import { iccByRater } from "./stats/icc.ts";
import { kendallTauB, pearson, spearman } from "./stats/correlation.ts";

/** Options of {@link panelDiagnostics}. */
export const DiagnosticsOptionsSchema = z
  .object({
    rubricId: z.string().min(1),
    /** Rubric dimension to analyse (default: the first dimension seen for the rubric). */
    dimension: z.string().min(1).optional(),
    /** Krippendorff level: "interval" (default) or "nominal" (binary rubrics). */
    level: z.enum(["interval", "nominal"]).default("interval"),
  })
  .strict();
/** What a caller may pass for {@link DiagnosticsOptionsSchema} (keys with defaults are optional). */
export type DiagnosticsOptions = z.input<typeof DiagnosticsOptionsSchema>;

/** The fields of a run record the diagnostics read. */
export type DiagnosticsRecord = Pick<RunRecord, "key" | "model" | "workflow" | "output" | "judgeScores"> & { params?: Record<string, unknown> };

/** A statistic that could not be computed carries the reason instead of a number. */
export type Maybe<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Per-judge calibration. */
export interface JudgeCalibration {
  judgeId: string;
  /** Units this judge scored. */
  n: number;
  /** Mean of the judge's scores. */
  meanScore: number | null;
  /** Mean over its units of (judge score − panel mean of that unit). Positive = more lenient. */
  meanOffset: number | null;
}

/** Panel means without one judge. */
export interface LeaveOneOut {
  judgeId: string;
  /** Mean over units of the panel mean without this judge (units left with no judge excluded). */
  meanScore: number | null;
  /** meanScore − full panel meanScore. */
  shift: number | null;
  /** Unit key → panel mean without this judge; built on each read (a getter: ~100 bytes a unit). */
  perUnit: Record<string, number | null>;
}

/** Kendall τ-b between two judges' system rankings. */
export interface RankingAgreement {
  judgeA: string;
  judgeB: string;
  /** Systems both judges scored. */
  nSystems: number;
  tau: Maybe<{ tau: number; p: number }>;
}

/** Length-bias correlations for one scorer (a judge or the panel). */
export interface LengthBias {
  scorer: string;
  n: number;
  pearson: Maybe<{ r: number; p: number }>;
  spearman: Maybe<{ rho: number; p: number }>;
}

/** Everything {@link panelDiagnostics} reports. */
export interface PanelDiagnostics {
  rubricId: string;
  dimension: string;
  judgeIds: string[];
  /** Units (records) with at least one score. */
  nUnits: number;
  /** Panel mean over units (each unit = mean of its present judges). */
  panelMean: number | null;
  /** judges × units matrix (null = missing), unit order = `unitKeys`; built on each read (a getter: the values are kept as one Float64Array per judge). */
  matrix: (number | null)[][];
  unitKeys: string[];
  krippendorffAlpha: Maybe<{ alpha: number; level: "interval" | "nominal"; nPairable: number }>;
  /** ICC on units every judge scored. */
  icc: Maybe<{ icc21: number; icc2k: number; n: number; k: number; droppedUnits: number }>;
  calibration: JudgeCalibration[];
  leaveOneOut: LeaveOneOut[];
  /** system → judge → mean score (system = `model | workflow` unless `systemOf` is given). */
  systemMeans: Record<string, Record<string, number | null>>;
  rankingAgreement: RankingAgreement[];
  lengthBias: LengthBias[];
}

const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
/** Words of a text (whitespace-separated tokens). */
export function wordCount(text: string | null | undefined): number {
  return text ? text.split(/\s+/).filter(Boolean).length : 0;
}

function attempt<T>(fn: () => T): Maybe<T> {
  try {
    const value = fn();
    return { ok: true, value };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}
function finite<T extends Record<string, number>>(v: T, what: string): T {
  for (const [k, x] of Object.entries(v)) if (typeof x === "number" && !Number.isFinite(x)) throw new Error(`${what}: ${k} is undefined (constant input)`);
  return v;
}

/**
 * True when an object with these keys, set in this order, would list them in this order: every
 * key distinct and none an array index (a canonical integer below 2³² − 1, which objects list
 * first, in numeric order).
 */
function plainKeyOrder(keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) return false;
    seen.add(k);
    if (/^(?:0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1) return false;
  }
  return true;
}

/**
 * Compute the panel diagnostics for one rubric dimension.
 * A judge's value for a unit is the mean of its present repeats; missing verdicts are left out.
 * @param records run records with `judgeScores`
 * @param options rubric id, dimension, Krippendorff level
 * @param systemOf system label of a record (default `${model} | ${workflow}`)
 * @throws Error when no record carries a score for the rubric/dimension
 */
export function panelDiagnostics(records: DiagnosticsRecord[], options: DiagnosticsOptions, systemOf: (r: DiagnosticsRecord) => string = (r) => `${r.model} | ${r.workflow}`): PanelDiagnostics {
  const opt = DiagnosticsOptionsSchema.parse(options);
  const entries = (r: DiagnosticsRecord) => (r.judgeScores ?? []).filter((e: JudgeScoreEntry) => e.rubricId === opt.rubricId);
  let dimension = opt.dimension;
  if (dimension === undefined)
    search: for (const r of records)
      for (const e of entries(r)) {
        const first = Object.keys(e.scores)[0];
        if (first !== undefined) {
          dimension = first;
          break search;
        }
      }
  if (!dimension) throw new Error(`panelDiagnostics: no verdicts for rubric "${opt.rubricId}" in ${records.length} records`);
  const judgeIds: string[] = [];
  for (const r of records) for (const e of entries(r)) if (!judgeIds.includes(e.judgeId)) judgeIds.push(e.judgeId);
  const J = judgeIds.length;

  // Unit values, column-wise (10⁶ records at scale: no object or array per unit): one
  // Float64Array per judge holding per unit the mean of its present repeats (NaN = none); every
  // mean sums in the order of the old per-unit objects, so the numbers are the same.
  const cols: Float64Array[] = judgeIds.map(() => new Float64Array(records.length));
  const unitKeys: string[] = [];
  const unitSystems: string[] = [];
  const wordsOf = new Float64Array(records.length);
  const systemLabels = new Map<string, string>();
  const row = new Float64Array(J);
  for (const r of records) {
    const es = entries(r);
    let any = false;
    for (let jx = 0; jx < J; jx++) {
      let sum = 0;
      let n = 0;
      for (const e of es) {
        if (e.judgeId !== judgeIds[jx] || e.status !== "ok") continue;
        const x = e.scores[dimension];
        if (typeof x === "number" && Number.isFinite(x)) {
          sum += x;
          n++;
        }
      }
      row[jx] = n ? sum / n : Number.NaN;
      if (n) any = true;
    }
    if (!any) continue;
    const i = unitKeys.length;
    for (let jx = 0; jx < J; jx++) cols[jx][i] = row[jx];
    unitKeys.push(r.key);
    const label = systemOf(r);
    const shared = systemLabels.get(label) ?? label;
    systemLabels.set(label, shared);
    unitSystems.push(shared);
    wordsOf[i] = outputWordCount(r);
  }
  const nUnits = unitKeys.length;
  if (!nUnits) throw new Error(`panelDiagnostics: no usable score for rubric "${opt.rubricId}", dimension "${dimension}"`);
  const matrix = cols.map((c) => c.subarray(0, nUnits));
  const words = wordsOf.subarray(0, nUnits);
  /** Mean of unit i's present judges in panel order, leaving out judge `except` (-1: none); null when none. */
  const presentMean = (i: number, except: number): number | null => {
    let sum = 0;
    let n = 0;
    for (let jx = 0; jx < J; jx++) {
      const x = matrix[jx][i];
      if (jx === except || Number.isNaN(x)) continue;
      sum += x;
      n++;
    }
    return n ? sum / n : null;
  };
  const unitPanel = new Float64Array(nUnits);
  let panelSum = 0;
  for (let i = 0; i < nUnits; i++) {
    unitPanel[i] = presentMean(i, -1) as number;
    panelSum += unitPanel[i];
  }
  const panelMean = panelSum / nUnits;

  const alpha = attempt(() => {
    const a = krippendorffAlpha(matrix, opt.level);
    return finite({ alpha: a.alpha, nPairable: a.nPairable }, "Krippendorff's alpha");
  });
  const iccRes = attempt(() => {
    const r = iccByRater(matrix);
    return finite({ icc21: r.icc21, icc2k: r.icc2k, n: r.n, k: r.k, droppedUnits: r.droppedTargets }, "ICC");
  });

  const calibration: JudgeCalibration[] = judgeIds.map((j, jx) => {
    let n = 0;
    let sumX = 0;
    let sumOffset = 0;
    for (let i = 0; i < nUnits; i++) {
      const x = matrix[jx][i];
      if (Number.isNaN(x)) continue;
      n++;
      sumX += x;
      sumOffset += x - unitPanel[i];
    }
    return { judgeId: j, n, meanScore: n ? sumX / n : null, meanOffset: n ? sumOffset / n : null };
  });

  // Leave-one-out: the per-unit means are computed from the matrix when `perUnit` is read (an
  // object with a key per unit, ~100 bytes a unit, built only while report.json is written).
  // With distinct unit keys that are not array indices, the object lists the units in unit
  // order, so the mean sums them in that order without building it; otherwise (a key repeated or
  // integer-like: the object would reorder or merge them) it is built, as before.
  const perUnitOf = (jx: number): Record<string, number | null> => {
    const perUnit: Record<string, number | null> = {};
    for (let i = 0; i < nUnits; i++) perUnit[unitKeys[i]] = presentMean(i, jx);
    return perUnit;
  };
  const unitOrder = plainKeyOrder(unitKeys);
  const leaveOneOut: LeaveOneOut[] = judgeIds.map((j, jx) => {
    let m: number | null;
    if (unitOrder) {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < nUnits; i++) {
        const x = presentMean(i, jx);
        if (x === null) continue;
        sum += x;
        n++;
      }
      m = n ? sum / n : null;
    } else m = meanOf(Object.values(perUnitOf(jx)).filter((x): x is number => x !== null));
    return {
      judgeId: j,
      meanScore: m,
      shift: m !== null && panelMean !== null ? m - panelMean : null,
      get perUnit() {
        return perUnitOf(jx);
      },
    };
  });

  // Per system (first-seen order) and judge: the mean over its units, summed in unit order.
  const systems = [...new Set(unitSystems)];
  const sums = new Map(systems.map((sys) => [sys, { sum: new Float64Array(J), n: new Float64Array(J) }]));
  for (let i = 0; i < nUnits; i++) {
    const acc = sums.get(unitSystems[i]) as { sum: Float64Array; n: Float64Array };
    for (let jx = 0; jx < J; jx++) {
      const x = matrix[jx][i];
      if (Number.isNaN(x)) continue;
      acc.sum[jx] += x;
      acc.n[jx]++;
    }
  }
  const systemMeans: Record<string, Record<string, number | null>> = {};
  for (const sys of systems) {
    const acc = sums.get(sys) as { sum: Float64Array; n: Float64Array };
    systemMeans[sys] = {};
    judgeIds.forEach((j, jx) => (systemMeans[sys][j] = acc.n[jx] ? acc.sum[jx] / acc.n[jx] : null));
  }
  const rankingAgreement: RankingAgreement[] = [];
  for (let a = 0; a < judgeIds.length; a++) {
    for (let b = a + 1; b < judgeIds.length; b++) {
      const [ja, jb] = [judgeIds[a], judgeIds[b]];
      const common = systems.filter((s) => systemMeans[s][ja] !== null && systemMeans[s][jb] !== null);
      const tau = attempt(() => {
        if (common.length < 3) throw new Error(`Kendall tau needs at least 3 systems both judges scored, got ${common.length}`);
        const k = kendallTauB(
          common.map((s) => systemMeans[s][ja] as number),
          common.map((s) => systemMeans[s][jb] as number),
        );
        return finite({ tau: k.estimate, p: k.p }, "Kendall tau");
      });
      rankingAgreement.push({ judgeA: ja, judgeB: jb, nSystems: common.length, tau });
    }
  }

  const bias = (scorer: string, x: number[], y: number[]): LengthBias => {
    return {
      scorer,
      n: x.length,
      pearson: attempt(() => {
        const r = pearson(x, y);
        return finite({ r: r.estimate, p: r.p }, "Pearson r");
      }),
      spearman: attempt(() => {
        const r = spearman(x, y);
        return finite({ rho: r.estimate, p: r.p }, "Spearman rho");
      }),
    };
  };
  const lengthBias = [
    bias("panel", Array.from(words), Array.from(unitPanel)),
    ...judgeIds.map((j, jx) => {
      const x: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < nUnits; i++) {
        const v = matrix[jx][i];
        if (Number.isNaN(v)) continue;
        x.push(words[i]);
        y.push(v);
      }
      return bias(j, x, y);
    }),
  ];

  return {
    rubricId: opt.rubricId,
    dimension,
    judgeIds,
    nUnits,
    panelMean,
    // (number | null)[][] built from the typed columns on each read (report.json: written once).
    get matrix() {
      return matrix.map((c) => Array.from(c, (x) => (Number.isNaN(x) ? null : x)));
    },
    unitKeys,
    krippendorffAlpha: alpha.ok ? { ok: true, value: { ...alpha.value, level: opt.level } } : alpha,
    icc: iccRes,
    calibration,
    leaveOneOut,
    systemMeans,
    rankingAgreement,
    lengthBias,
  };
}

// ---------------------------------------------------------------------------------------------
// Model families

/**
 * Model families by developer, matched on the model name (after an endpoint prefix such as
 * `openai:` / `ollama:` and an organisation path such as `meta-llama/`):
 * gpt-*, chatgpt, o1/o3/o4…, gpt-oss, davinci → openai; claude → anthropic; gemini, gemma,
 * medgemma, palm → google; llama, codellama → meta; qwen, qwq → qwen; mistral, mixtral,
 * ministral, codestral, magistral → mistral; deepseek → deepseek; phi → microsoft; grok → xai;
 * command, aya → cohere; glm, chatglm → zhipu; kimi, moonshot → moonshot; granite → ibm;
 * nemotron → nvidia. Order matters: a fine-tune named for its base (e.g. "medgemma") takes the base family.
 */
export const MODEL_FAMILY_RULES: readonly [family: string, pattern: RegExp][] = [
  ["openai", /(?:^|[^a-z])(?:gpt|chatgpt|davinci)(?:[^a-z]|$)|^o[1-9](?:[^a-z0-9]|$)|gpt-oss/],
  ["anthropic", /claude/],
  ["google", /gemini|gemma|palm|bard/],
  ["meta", /llama/],
  ["qwen", /qwen|qwq/],
  ["mistral", /mistral|mixtral|ministral|codestral|magistral|pixtral/],
  ["deepseek", /deepseek/],
  ["microsoft", /(?:^|[^a-z])phi-?\d/],
  ["xai", /grok/],
  ["cohere", /command-?r|(?:^|[^a-z])aya(?:[^a-z]|$)/],
  ["zhipu", /(?:^|[^a-z])(?:chat)?glm/],
  ["moonshot", /kimi|moonshot/],
  ["ibm", /granite/],
  ["nvidia", /nemotron/],
];

/**
 * Family of a model id.
 * @param modelId e.g. "openai:gpt-4o-mini", "ollama:qwen2.5:7b", "openai:meta-llama/Llama-3.1-8B"
 * @returns the family name, or null when no rule matches (no flag is raised for unknown models)
 */
export function modelFamily(modelId: string): string | null {
  let name = modelId.trim().toLowerCase();
  const m = /^([a-z][a-z0-9_-]*):(.+)$/.exec(name);
  if (m) name = m[2];
  name = name.split("/").pop() ?? name;
  for (const [family, re] of MODEL_FAMILY_RULES) if (re.test(name)) return family;
  return null;
}

/** A judge that shares a model family with one or more generators (self-preference risk). */
export interface FamilyFlag {
  judgeId: string;
  judgeModel: string;
  family: string;
  generators: string[];
}

/**
 * Flag judges whose model family matches a generator's.
 * @param judges judge id → model id
 * @param generatorModels generator model ids (e.g. the distinct `RunRecord.model` values)
 * @returns one flag per judge that shares a family, listing the generators concerned
 */
export function familyOverlapFlags(judges: Record<string, string>, generatorModels: Iterable<string>): FamilyFlag[] {
  const gens = [...new Set(generatorModels)];
  const out: FamilyFlag[] = [];
  for (const [judgeId, judgeModel] of Object.entries(judges)) {
    const family = modelFamily(judgeModel);
    if (!family) continue;
    const same = gens.filter((g) => modelFamily(g) === family);
    if (same.length) out.push({ judgeId, judgeModel, family, generators: same });
  }
  return out;
}
