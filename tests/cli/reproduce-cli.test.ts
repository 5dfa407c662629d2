/**
 * Issue 28.2: `medsynth reproduce --list-published [--json]` through the real CLI (dist/ when
 * built): every published value, one JSON object per line, the count per table on stderr; and
 * the errors for a bad invocation.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.ts";
import { ALL_PUBLISHED } from "../../experiments/report/published/index.ts";

describe("medsynth reproduce", () => {
  it("--list-published --json prints all 492 values, one object per line, and the counts per table", () => {
    const r = runCli(["reproduce", "--list-published", "--json"]);
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(492);
    expect(lines).toEqual(JSON.parse(JSON.stringify(ALL_PUBLISHED)));
    for (const l of lines) expect(Object.keys(l).filter((k) => !["paper", "table", "row", "column", "value", "printed", "pm", "pmKind", "interval"].includes(k))).toEqual([]);
    expect(lines.find((l) => l.paper === "medmeta" && l.table === "Table 3" && l.column === "Mean Bias")).toEqual({
      paper: "medmeta",
      table: "Table 3",
      row: { model: "MedGemma 27B", workflow: "Golden-RAG" },
      column: "Mean Bias",
      value: 0.14,
      printed: "+0.14",
      interval: [-1.18, 1.46],
      pmKind: "loa95",
    });
    expect(r.stderr.trim()).toBe(
      "492 published values (MedMeta Table 2: 42; MedMeta Table 3: 8; MedMeta Table 4: 48; MedMeta Table 5: 21; MedConclusion Table 2: 75; MedConclusion Table 3: 135; MedConclusion Table 4: 40; MedConclusion Table 5: 30; RWESummary Table 1: 36; RWESummary Figure 2: 57)",
    );
  }, 60_000);

  it("--paper narrows the list; an unknown paper or a missing run folder is an error naming it", () => {
    const one = runCli(["reproduce", "--list-published", "--paper", "medconclusion"]);
    expect(one.status).toBe(0);
    expect(one.stdout.trim().split("\n").at(-1)).toBe("280 published values (MedConclusion Table 2: 75; MedConclusion Table 3: 135; MedConclusion Table 4: 40; MedConclusion Table 5: 30)");
    expect(one.stdout).toContain("MedConclusion  Table 4  Prompt with Length and Writing Style Restriction · C · conclusion · GPT-5.4 · GPT-5.4-mini  Numeric Consistency: 91.36");
    const bad = runCli(["reproduce", "--list-published", "--paper", "medqa"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('reproduce: unknown paper "medqa" (papers: medmeta, medconclusion, rwesummary)');
    const none = runCli(["reproduce", "/nonexistent/run"]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("/nonexistent/run: no such folder");
  }, 60_000);
});
