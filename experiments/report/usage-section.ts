/**
 * The report's "Tokens, cost and failures" section: generator and judge tokens and cost per model
 * and in total (experiments/usage-summary.ts, the same numbers the run prints), failures by
 * reason, and how many judge verdicts are missing.
 */
import type { RunRecord } from "../types.ts";
import { runUsage, fmtTokens, fmtTotalsCost, type PricedTotals } from "../usage-summary.ts";
import { failureSummary, shortenError } from "../failures.ts";
import type { ReportTable } from "./tables.ts";
import type { ReportSection } from "./render.ts";

function n(x: number): string {
  return x.toLocaleString("en-US");
}

function usageRow(role: string, model: string, t: PricedTotals): string[] {
  return [
    role,
    model,
    n(t.calls),
    n(t.requests),
    fmtTokens(t, "inputTokens"),
    fmtTokens(t, "outputTokens"),
    t.cachedCalls ? `${n(t.cachedCalls)} (${n(t.cachedInputTokens)} / ${n(t.cachedOutputTokens)})` : "0",
    t.unknownUsageCalls ? `${n(t.unknownUsageCalls)} (unknown)` : "0",
    fmtTotalsCost(t),
  ];
}

/**
 * Build the section.
 * @param spent every record written for the report's cells, superseded attempts included (their
 *   tokens were spent too).
 * @param latest the latest record per cell (for failures and verdicts).
 * @param prices the config's `prices` (USD per 1M tokens).
 * @param modelIdOf generator model id of a record (labels → ids).
 */
export function usageSection(
  spent: readonly RunRecord[],
  latest: readonly RunRecord[],
  prices: Record<string, { input: number; output: number }>,
  modelIdOf?: (r: RunRecord) => string,
): ReportSection {
  const u = runUsage(spent, prices, modelIdOf);
  const rows: string[][] = [];
  const values: Record<string, unknown>[] = [];
  for (const [role, r] of [
    ["generator", u.generator],
    ["judges", u.judge],
  ] as const) {
    for (const [m, t] of Object.entries(r.byModel)) {
      rows.push(usageRow(role, m, t));
      values.push({ role, model: m, ...t });
    }
    if (Object.keys(r.byModel).length > 1) {
      rows.push(usageRow(role, "all models", r.total));
      values.push({ role, model: "all", ...r.total });
    }
  }
  rows.push(usageRow("total", "", u.total));
  values.push({ role: "total", model: "", ...u.total });
  const usage: ReportTable = {
    id: "usage",
    title: "Tokens and cost: generator and judges",
    caption: `Tokens spent by requests made (every attempt and retry included; ${spent.length} records, superseded attempts included); cache hits reused stored answers and cost nothing. Cost from the config's prices (USD per 1M tokens)${u.unpriced.length ? `; not priced: ${u.unpriced.join(", ")}` : ""}. Calls whose server sent no usage are counted as unknown: totals are then a lower bound.`,
    header: ["role", "model", "calls", "requests", "input tokens", "output tokens", "cache hits (tokens not spent)", "no usage sent", "cost"],
    rows,
    values,
  };
  if (u.total.batchCalls)
    usage.caption += ` ${n(u.total.batchCalls)} of the calls went through Batch APIs (\`run --batch\`), priced at the batch rate (prices.batchInput/batchOutput, default half the online price).`;
  const tables: ReportTable[] = [usage];
  const failures = failureSummary(latest);
  if (failures.length) {
    tables.push({
      id: "failures",
      title: "Failed cells by reason",
      caption: "Latest record of each cell; re-run with --retry-failed after fixing the cause.",
      header: ["reason", "cells", "example error"],
      rows: failures.map((f) => [f.reason, String(f.count), shortenError(f.example)]),
      values: failures as unknown as Record<string, unknown>[],
    });
  }
  let total = 0;
  let missing = 0;
  for (const r of latest)
    for (const v of r.judgeScores ?? []) {
      total++;
      if (v.status === "missing") missing++;
    }
  const text = total ? `Judge verdicts: ${n(total - missing)} of ${n(total)} given, ${n(missing)} missing (raw answers kept in results.jsonl; a missing verdict is never scored).` : undefined;
  return { heading: "Tokens, cost and failures", ...(text ? { text } : {}), tables, charts: [] };
}
