/**
 * Human–judge (or human–metric) alignment on per-item scores: Pearson, Spearman, Bland–Altman,
 * paired t-test and Cohen's d_z, after dropping items where either score is missing.
 *
 * @see MedMeta (seed 001), human validation: Pearson correlation, Bland–Altman limits of
 *   agreement, paired t-tests and Cohen's d between LLM-judge and human scores.
 */
import { blandAltman, type BlandAltman } from "./stats/bland-altman.ts";
import { isConstant, pearson, spearman, type CorrelationResult } from "./stats/correlation.ts";
import { cohenDz, pairedTTest, type PairedTTest } from "./stats/paired-tests.ts";

/** One item's human and judge/metric scores; null/undefined/NaN means missing. */
export interface AlignmentItem {
  id: string;
  human: number | null | undefined;
  judge: number | null | undefined;
}

/** Alignment statistics; differences are d = judge − human (positive bias = judge scores higher). */
export interface AlignmentResult {
  /** Items with both scores. */
  n: number;
  /** Items dropped because a score was missing, and their ids. */
  nDropped: number;
  droppedIds: string[];
  /** Pearson r with p; estimate and p NaN when either series is constant (`constant`). */
  pearson: CorrelationResult;
  /** Spearman ρ with p; estimate and p NaN when either series is constant. */
  spearman: CorrelationResult;
  blandAltman: BlandAltman;
  /** Paired t-test on judge − human; t and p NaN when all differences are equal (sd 0). */
  pairedT: PairedTTest;
  /** mean(judge − human) / sd(judge − human); NaN when all differences are equal (sd 0). */
  cohenDz: number;
  humanMean: number;
  judgeMean: number;
  /**
   * Zero-variance inputs: `judge` / `human` series constant (correlations undefined), or all
   * differences equal (`differences`: paired t and d_z undefined; Bland–Altman still reports the
   * bias, with sd 0 and LoA = bias).
   */
  constant: { judge: boolean; human: boolean; differences: boolean };
  /** Why statistics are undefined, e.g. "constant judge scores: Pearson and Spearman undefined". */
  notes: string[];
}

const missing = (v: number | null | undefined): boolean => v === null || v === undefined || Number.isNaN(v);

/**
 * True when all differences d = judge − human are equal up to floating-point noise: max − min ≤
 * 1e−12 · max(1, largest |score|). Exact equality is not enough here: a judge scoring one point
 * above the human on 0–5, rescaled to 0–1, gives differences 0.2 ± 1e−17, whose sd of ~1e−17 would
 * turn into a paired t of ~1e16.
 */
function differencesConstant(judge: readonly number[], human: readonly number[]): boolean {
  let lo = Infinity;
  let hi = -Infinity;
  let scale = 1;
  for (let i = 0; i < judge.length; i++) {
    const d = judge[i] - human[i];
    if (d < lo) lo = d;
    if (d > hi) hi = d;
    scale = Math.max(scale, Math.abs(judge[i]), Math.abs(human[i]));
  }
  return hi - lo <= 1e-12 * scale;
}

/**
 * Align judge/metric scores with human scores item by item. Statistics that are undefined for the
 * data are NaN, never a number: Pearson/Spearman when the judge or the human scores are constant
 * (zero variance, as scipy), paired t and d_z when all differences are equal (sd 0); `constant`
 * and `notes` say which and why.
 * @param items per-item scores (ids must be unique).
 * @throws Error on a duplicate id, or when fewer than 3 items have both scores.
 */
export function alignScores(items: readonly AlignmentItem[]): AlignmentResult {
  const seen = new Set<string>();
  const human: number[] = [];
  const judge: number[] = [];
  const droppedIds: string[] = [];
  for (const it of items) {
    if (seen.has(it.id)) throw new Error(`alignScores: duplicate item id "${it.id}"`);
    seen.add(it.id);
    if (missing(it.human) || missing(it.judge)) droppedIds.push(it.id);
    else {
      human.push(it.human as number);
      judge.push(it.judge as number);
    }
  }
  if (human.length < 3) throw new Error(`alignScores: need at least 3 items with both scores, got ${human.length} (${droppedIds.length} dropped)`);
  const constant = { judge: isConstant(judge), human: isConstant(human), differences: differencesConstant(judge, human) };
  const notes: string[] = [];
  if (constant.judge || constant.human) {
    const which = constant.judge && constant.human ? "judge and human" : constant.judge ? "judge" : "human";
    notes.push(`constant ${which} scores: Pearson and Spearman undefined`);
  }
  let pairedT = pairedTTest(judge, human);
  let dz = cohenDz(judge, human);
  if (constant.differences) {
    pairedT = { ...pairedT, t: Number.NaN, p: Number.NaN };
    dz = Number.NaN;
    notes.push("all differences equal (sd 0): paired t and d_z undefined");
  }
  return {
    n: human.length,
    nDropped: droppedIds.length,
    droppedIds,
    pearson: pearson(judge, human),
    spearman: spearman(judge, human),
    blandAltman: blandAltman(judge, human),
    pairedT,
    cohenDz: dz,
    humanMean: human.reduce((a, b) => a + b, 0) / human.length,
    judgeMean: judge.reduce((a, b) => a + b, 0) / judge.length,
    constant,
    notes,
  };
}
