/**
 * Tokens and cost of a run, generator and judges apart, per model and in total, from the records'
 * call bookkeeping and the config's `prices` (USD per 1M tokens). Used by the runner's summary
 * (`--json`, the plain log) and by the report, so every place shows the same numbers.
 */
import { addTotals, costOf, emptyTotals, formatCostUsd, formatTokenCount, tokensUnknown, type TokenPrice, type UsageTotals } from "../models/usage.ts";
import type { RunRecord } from "./types.ts";

/** Totals of one model (or of a role) with its cost. */
export interface PricedTotals extends Omit<UsageTotals, "inputTokens" | "outputTokens"> {
  /** Input tokens spent; null when unknown (calls were made and none reported usage). */
  inputTokens: number | null;
  outputTokens: number | null;
  /** USD for the tokens spent; null when a model involved has no entry in `prices`, or when the tokens are unknown. */
  costUsd: number | null;
}

/** Spent tokens of priced totals as numbers (unknown counts as 0; see `unknownUsageCalls`). */
function numeric(t: PricedTotals): UsageTotals {
  return { ...t, inputTokens: t.inputTokens ?? 0, outputTokens: t.outputTokens ?? 0 };
}

/** One role (generator or judges): per model and in total. */
export interface RoleUsage {
  byModel: Record<string, PricedTotals>;
  total: PricedTotals;
}

/** Tokens and cost of a set of records. */
export interface RunUsage {
  generator: RoleUsage;
  judge: RoleUsage;
  total: PricedTotals;
  /** Models used without an entry in `prices` (their cost is not counted). */
  unpriced: string[];
}

type Prices = Record<string, TokenPrice>;

function priced(t: UsageTotals, price: TokenPrice | undefined): PricedTotals {
  if (tokensUnknown(t)) return { ...t, inputTokens: null, outputTokens: null, costUsd: null };
  return { ...t, costUsd: costOf(t, price) };
}

/** Sum of priced totals; the cost sums the priced parts (null only when no part with calls is priced). */
function sumPriced(xs: PricedTotals[]): PricedTotals {
  let t = emptyTotals();
  let cost = 0;
  let anyPriced = false;
  let anyCalls = false;
  for (const x of xs) {
    t = addTotals(t, numeric(x));
    if (x.costUsd !== null) {
      cost += x.costUsd;
      anyPriced = true;
    } else if (x.calls > 0 && x.inputTokens !== null) anyCalls = true;
  }
  if (tokensUnknown(t)) return { ...t, inputTokens: null, outputTokens: null, costUsd: null };
  return { ...t, costUsd: anyPriced || !anyCalls ? cost : null };
}

function role(byModelRaw: Map<string, UsageTotals>, prices: Prices): RoleUsage {
  const byModel: Record<string, PricedTotals> = {};
  for (const [m, t] of [...byModelRaw].sort(([a], [b]) => a.localeCompare(b))) byModel[m] = priced(t, prices[m]);
  return { byModel, total: sumPriced(Object.values(byModel)) };
}

/**
 * Sum the usage of records. The generator's model is the record's `modelId` (its config id,
 * which `prices` is keyed by); judge usage is split by the model behind each judge.
 * @param records run records (every record counts: a failed attempt's tokens were spent too).
 * @param prices the config's `prices`.
 * @param modelIdOf maps a record to its generator model id (default `record.model`; pass the
 *   label → id map when models carry labels).
 */
export function runUsage(records: readonly RunRecord[], prices: Prices = {}, modelIdOf: (r: RunRecord) => string = (r) => r.model): RunUsage {
  const gen = new Map<string, UsageTotals>();
  const jud = new Map<string, UsageTotals>();
  for (const r of records) {
    const m = modelIdOf(r);
    gen.set(m, addTotals(gen.get(m) ?? emptyTotals(), r.generator));
    if (r.judge?.byModel) for (const [jm, t] of Object.entries(r.judge.byModel)) jud.set(jm, addTotals(jud.get(jm) ?? emptyTotals(), t));
    else if (r.judge && r.judge.calls) jud.set("(judges)", addTotals(jud.get("(judges)") ?? emptyTotals(), r.judge));
  }
  const generator = role(gen, prices);
  const judge = role(jud, prices);
  const used = new Set([...gen.keys(), ...jud.keys()].filter((m) => !m.startsWith("extractive:")));
  const unpriced = [...used].filter((m) => !prices[m] && (gen.get(m)?.inputTokens ?? 0) + (jud.get(m)?.inputTokens ?? 0) + (gen.get(m)?.calls ?? 0) + (jud.get(m)?.calls ?? 0) > 0).sort();
  // records carry null tokens when unknown: addTotals counted them as 0 and unknownUsageCalls says so
  return { generator, judge, total: sumPriced([generator.total, judge.total]), unpriced };
}

/** "1,234" */
function n(x: number): string {
  return x.toLocaleString("en-US");
}

/** "$0.0123", or "not priced" for null. */
export function fmtCost(x: number | null): string {
  return x === null ? "not priced" : `$${x.toFixed(4)}`;
}

/** The cost of totals as shown: "$0.0123", "≥ $0.0123" (some usage unknown), "–" (all unknown), "not priced". */
export function fmtTotalsCost(t: PricedTotals): string {
  return formatCostUsd(t.costUsd, t.unknownUsageCalls, t.inputTokens === null);
}

/** Input / output tokens of totals as shown ({@link formatTokenCount}): exact, "≥ N (k calls unknown)" or "–". */
export function fmtTokens(t: PricedTotals, which: "inputTokens" | "outputTokens"): string {
  return formatTokenCount(t[which], t.unknownUsageCalls);
}

/**
 * One line of totals: spent tokens, cache hits apart, calls with unknown usage, cost.
 * E.g. `12 calls (14 requests), 3,200 in / 410 out tokens, 2 cache hits (600/80 tokens not spent), 1 call with unknown usage, $0.0123`.
 */
export function formatTotals(t: PricedTotals): string {
  const tokens =
    t.inputTokens === null || t.outputTokens === null
      ? "tokens unknown"
      : `${t.unknownUsageCalls ? "≥ " : ""}${n(t.inputTokens)} in / ${t.unknownUsageCalls ? "≥ " : ""}${n(t.outputTokens)} out tokens`;
  const parts = [`${n(t.calls)} calls (${n(t.requests)} requests)`, tokens];
  if (t.cachedCalls) parts.push(`${n(t.cachedCalls)} cache hits (${n(t.cachedInputTokens)} / ${n(t.cachedOutputTokens)} tokens not spent)`);
  if (t.unknownUsageCalls)
    parts.push(t.inputTokens === null ? `${n(t.unknownUsageCalls)} with unknown usage (the server sent none)` : `${n(t.unknownUsageCalls)} with unknown usage (tokens and cost are a lower bound)`);
  if (t.batchCalls) parts.push(`${n(t.batchCalls)} through Batch APIs (at the batch rate)`);
  parts.push(fmtTotalsCost(t));
  return parts.join(", ");
}

/** Lines for the plain log / terminal: generator and judges per model, then the total. */
export function formatRunUsage(u: RunUsage): string[] {
  if (!u.total.calls) return ["no model calls (extractive baselines or every cell already finished)"];
  const lines: string[] = [];
  for (const [label, r] of [
    ["generator", u.generator],
    ["judges", u.judge],
  ] as const) {
    if (!r.total.calls) continue;
    lines.push(`${label}: ${formatTotals(r.total)}`);
    const models = Object.entries(r.byModel);
    if (models.length > 1) for (const [m, t] of models) lines.push(`  ${m}: ${formatTotals(t)}`);
    else if (models.length === 1) lines[lines.length - 1] += ` [${models[0][0]}]`;
  }
  lines.push(`total: ${formatTotals(u.total)}`);
  if (u.unpriced.length) lines.push(`not priced (no entry in prices): ${u.unpriced.join(", ")}`);
  return lines;
}
