/**
 * Human–judge (or human–metric) alignment on per-item scores: Pearson, Spearman, Bland–Altman,
 * paired t-test and Cohen's d_z, after dropping items where either score is missing.
 *
 * @see MedMeta (seed 001), human validation: Pearson correlation, Bland–Altman limits of
 *   agreement, paired t-tests and Cohen's d between LLM-judge and human scores.
 */
import { blandAltman, type BlandAltman } from "./stats/bland-altman.ts";
import { pearson, spearman, type CorrelationResult } from "./stats/correlation.ts";
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
  pearson: CorrelationResult;
  spearman: CorrelationResult;
  blandAltman: BlandAltman;
  pairedT: PairedTTest;
  /** mean(judge − human) / sd(judge − human). */
  cohenDz: number;
  humanMean: number;
  judgeMean: number;
}

const missing = (v: number | null | undefined): boolean => v === null || v === undefined || Number.isNaN(v);

/**
 * Align judge/metric scores with human scores item by item.
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
  return {
    n: human.length,
    nDropped: droppedIds.length,
    droppedIds,
    pearson: pearson(judge, human),
    spearman: spearman(judge, human),
    blandAltman: blandAltman(judge, human),
    pairedT: pairedTTest(judge, human),
    cohenDz: cohenDz(judge, human),
    humanMean: human.reduce((a, b) => a + b, 0) / human.length,
    judgeMean: judge.reduce((a, b) => a + b, 0) / judge.length,
  };
}
