/**
 * Issue 25 item 7: a configured reranker that was not available (offline cross-encoder: the
 * records say `intermediate.reranker: null`) is not named as if it ran — the report's labels say
 * `reranker=none (<id> unavailable)`; cells that did rerank keep the configured label; comparing
 * two runs still pairs cells by their configuration.
 */
import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../../experiments/types.ts";
import { buildSections } from "../../../experiments/report/build.ts";
import { variantLabel } from "../../../experiments/report/columns.ts";

const CE = "cross-encoder:Xenova/ms-marco-MiniLM-L-6-v2";
function rec(itemId: string, ran: string | null): RunRecord {
  return {
    key: `${itemId}-${ran}`,
    itemId,
    dataset: "medevidence",
    taskKind: "synthesis",
    model: "extractive:mmr",
    workflow: "standard-rag",
    params: { k: 5, reranker: CE },
    repeat: 0,
    status: "ok",
    output: "one two three",
    reference: "one two four",
    itemMeta: {},
    intermediate: { retriever: "bm25", reranker: ran },
    metrics: { rougeL_fmeasure: 0.5 },
    generator: { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 1, cached: false },
    startedAt: "",
    finishedAt: "",
  };
}

describe("reranker labels say what ran", () => {
  it("labels a run without its unavailable reranker as such, and one with it as configured", async () => {
    expect(variantLabel(rec("a", null))).toBe(`standard-rag k=5 reranker=none (${CE} unavailable)`);
    expect(variantLabel(rec("a", CE))).toBe(`standard-rag k=5 reranker=${CE}`);
    expect(variantLabel(rec("a", null), { configured: true })).toBe(`standard-rag k=5 reranker=${CE}`);
    const sections = await buildSections([rec("a", null), rec("b", null)], {});
    const status = sections.flatMap((s) => s.tables).find((t) => t.id === "status")!;
    expect(status.rows.map((r) => r[1])).toEqual([`standard-rag k=5 reranker=none (${CE} unavailable)`]);
    const text = JSON.stringify(sections.flatMap((s) => s.tables.map((t) => t.rows)));
    expect(text).not.toContain(`reranker=${CE}"`);
  });
});
