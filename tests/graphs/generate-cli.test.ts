/** `medsynth generate` offline with the extractive baseline (real MedEvidence data). */
import { describe, expect, it } from "vitest";
import { runGenerate } from "../../experiments/cli/generate-commands.ts";

const base = { dataset: "medevidence", model: "extractive:mmr", limit: "2", repeat: "0", retrieval: "bm25" };

describe("medsynth generate", () => {
  it("runs negated-rag on 2 items and prints outputs, intermediate steps and usage", async () => {
    const lines: string[] = [];
    const results = await runGenerate({ ...base, workflow: "negated-rag" }, (l) => lines.push(l));
    expect(results.map((r) => r.result.status)).toEqual(["ok", "ok"]);
    expect(results[0].result.intermediate.negatedIds).toEqual(["17466514"]);
    const text = lines.join("\n");
    expect(text).toContain("intermediate:");
    expect(text).toContain("usage: ");
    expect(lines[lines.length - 1]).toMatch(/^--- 2 items: 2 ok, 0 failed, 0 skipped/);
  });

  it("rejects an unknown workflow and a task-kind mismatch", async () => {
    await expect(runGenerate({ ...base, workflow: "nope" })).rejects.toThrow(/valid ids: pzs/);
    await expect(runGenerate({ ...base, workflow: "rwe-summary" })).rejects.toThrow(/needs rwe items but dataset 'medevidence' has synthesis items/);
  });
});
