/**
 * Robustness statistics over a run's records (issue 15): misleading rate, robustness curve with
 * Wilson CIs, and the oracle gap (Golden-RAG − Standard-RAG).
 *
 * Inputs are plain rows (one per finished cell) so the report, the CLI and tests share them:
 * `strength` is the perturbation strength of the cell (0 = clean evidence; Negated-RAG's
 * `fraction`, Perturbed-RAG's `strength`), `answer` the categorical answer read off the output
 * (e.g. the lexical direction classifier), `gold` the item's answer.
 */

/** One cell as robustness statistics see it. */
export interface RobustnessRow {
  item: string;
  model: string;
  workflow: string;
  strength: number;
  answer: string | null;
  gold: string | null;
  /** The workflow abstained (Critic-RAG): counted as eligible, never as misled. */
  abstained?: boolean;
  /** Whether the perturbation changed the evidence of this cell (absent = unknown / clean). */
  applied?: boolean;
}

/** Wilson score interval for k successes in n trials (z = 1.96 by default); [0, 0] bounds when n = 0 are null. */
export function wilsonInterval(k: number, n: number, z = 1.959963984540054): { low: number | null; high: number | null } {
  if (n === 0) return { low: null, high: null };
  const p = k / n;
  const den = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Direction a corrupted (negated/flipped) evidence set points to, for the two directional answers. */
export const FLIPPED_ANSWER: Readonly<Record<string, string>> = { higher: "lower", lower: "higher" };

/** Misleading rate of one (model, workflow, strength > 0) group. */
export interface MisleadingRow {
  model: string;
  workflow: string;
  strength: number;
  /** Items answered correctly on clean evidence (strength 0) and run at this strength. */
  eligible: number;
  /** Of those, answered incorrectly under perturbation. */
  misled: number;
  /** misled / eligible, with a Wilson 95% CI. */
  rate: number | null;
  low: number | null;
  high: number | null;
  /** Of those, answering exactly the flipped direction (higher ↔ lower): followed the corruption. */
  followedCorruption: number;
  /** Of the eligible, cells where the workflow abstained (not misled: it declined to conclude). */
  abstained: number;
  /** Of the eligible, cells whose evidence the perturbation actually changed (rows that say so). */
  applied: number;
}

const key = (...parts: (string | number)[]) => parts.join("\u0000");

/**
 * Misleading rate: among items a (model, workflow) answers correctly on clean evidence, the share
 * answered incorrectly when the evidence is perturbed at each strength > 0 (with the number that
 * switched to exactly the flipped direction). An abstention (Critic-RAG declining to conclude) is
 * eligible but not misled — it is counted apart, so a critic that abstains is not scored as
 * fooled. A workflow run at no strength 0 takes its clean
 * answers from `cleanFallback` (Golden-RAG: the same golden evidence unperturbed). Rows without an
 * answer or gold are ignored.
 */
export function misleadingRate(rows: readonly RobustnessRow[], cleanFallback = "golden-rag"): MisleadingRow[] {
  const clean = new Map<string, boolean>();
  for (const r of rows) if (r.strength === 0 && r.answer !== null && r.gold !== null) clean.set(key(r.model, r.workflow, r.item), r.answer === r.gold);
  const cleanOf = (r: RobustnessRow) => clean.get(key(r.model, r.workflow, r.item)) ?? clean.get(key(r.model, cleanFallback, r.item));
  const groups = new Map<string, MisleadingRow>();
  for (const r of rows) {
    if (r.strength === 0 || r.answer === null || r.gold === null) continue;
    if (cleanOf(r) !== true) continue;
    const k = key(r.model, r.workflow, r.strength);
    const g = groups.get(k) ?? {
      model: r.model,
      workflow: r.workflow,
      strength: r.strength,
      eligible: 0,
      misled: 0,
      rate: null,
      low: null,
      high: null,
      followedCorruption: 0,
      abstained: 0,
      applied: 0,
    };
    g.eligible++;
    if (r.applied === true) g.applied++;
    if (r.abstained === true) g.abstained++;
    else if (r.answer !== r.gold) g.misled++;
    if (FLIPPED_ANSWER[r.gold] !== undefined && r.answer === FLIPPED_ANSWER[r.gold]) g.followedCorruption++;
    groups.set(k, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, rate: g.eligible ? g.misled / g.eligible : null, ...wilsonInterval(g.misled, g.eligible) }))
    .sort((a, b) => a.model.localeCompare(b.model) || a.workflow.localeCompare(b.workflow) || a.strength - b.strength);
}

/** One point of a robustness curve. */
export interface CurvePoint {
  model: string;
  workflow: string;
  strength: number;
  n: number;
  correct: number;
  accuracy: number | null;
  low: number | null;
  high: number | null;
}

/** Answer accuracy by perturbation strength per (model, workflow), with Wilson 95% CIs. */
export function robustnessCurve(rows: readonly RobustnessRow[]): CurvePoint[] {
  const groups = new Map<string, CurvePoint>();
  for (const r of rows) {
    if (r.answer === null || r.gold === null) continue;
    const k = key(r.model, r.workflow, r.strength);
    const g = groups.get(k) ?? { model: r.model, workflow: r.workflow, strength: r.strength, n: 0, correct: 0, accuracy: null, low: null, high: null };
    g.n++;
    if (r.answer === r.gold) g.correct++;
    groups.set(k, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, accuracy: g.correct / g.n, ...wilsonInterval(g.correct, g.n) }))
    .sort((a, b) => a.model.localeCompare(b.model) || a.workflow.localeCompare(b.workflow) || a.strength - b.strength);
}

/** Oracle gap of one model on one metric. */
export interface OracleGap {
  model: string;
  /** Items with both a Golden-RAG and a Standard-RAG value. */
  n: number;
  golden: number | null;
  standard: number | null;
  /** Mean over paired items of golden − standard. */
  gap: number | null;
}

/**
 * Oracle gap: mean over items of (Golden-RAG value − Standard-RAG value), per model, paired by
 * item (items missing either side are left out). How much retrieval costs against perfect evidence.
 * @param rows `{item, model, workflow, value}`; workflow ids `golden-rag` and `standard-rag` (or the given ones)
 */
export function oracleGap(rows: readonly { item: string; model: string; workflow: string; value: number | null }[], golden = "golden-rag", standard = "standard-rag"): OracleGap[] {
  const by = new Map<string, { g?: number[]; s?: number[] }>();
  for (const r of rows) {
    if (r.value === null || (r.workflow !== golden && r.workflow !== standard)) continue;
    const k = key(r.model, r.item);
    const e = by.get(k) ?? {};
    if (r.workflow === golden) (e.g ??= []).push(r.value);
    else (e.s ??= []).push(r.value);
    by.set(k, e);
  }
  const perModel = new Map<string, { g: number[]; s: number[] }>();
  for (const [k, e] of by) {
    if (!e.g || !e.s) continue;
    const model = k.split("\u0000")[0];
    const m = perModel.get(model) ?? { g: [], s: [] };
    m.g.push(e.g.reduce((a, b) => a + b, 0) / e.g.length);
    m.s.push(e.s.reduce((a, b) => a + b, 0) / e.s.length);
    perModel.set(model, m);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return [...perModel.entries()]
    .map(([model, m]) => ({ model, n: m.g.length, golden: mean(m.g), standard: mean(m.s), gap: m.g.length ? mean(m.g.map((g, i) => g - m.s[i])) : null }))
    .sort((a, b) => a.model.localeCompare(b.model));
}
