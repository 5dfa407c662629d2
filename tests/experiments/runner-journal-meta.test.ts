/** The runner copies an item's journal ISSN and title into the record's itemMeta (for the SJR join). */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseExperimentConfig } from "../../experiments/config.ts";
import { runExperiment } from "../../experiments/runner.ts";
import { readResults } from "../../results/results-file.ts";
import { fakeDeps } from "./fake-runner-deps.ts";

describe("runner item fields", () => {
  it("journal.issn and journal.title become itemMeta.issn and itemMeta.journal; meta fields win", async () => {
    const out = mkdtempSync(join(tmpdir(), "runner-journal-"));
    const cfg = parseExperimentConfig({ name: "t", output: out, datasets: [{ name: "fake" }], models: [{ id: "extractive:mmr" }], workflows: [{ id: "echo" }] });
    const base = fakeDeps(2, { calls: [], failOn: new Set(), delayMs: 0 });
    const items = [
      { id: "q1", question: "Q1", referenceConclusion: "A1", journal: { title: "Journal Alpha", isoAbbreviation: null, issn: "0007-9235", nlmUniqueId: null } },
      { id: "q2", question: "Q2", referenceConclusion: "A2", journal: { title: "X", isoAbbreviation: null, issn: "1111-1111", nlmUniqueId: null }, meta: { issn: "1234-5678" } },
    ];
    await runExperiment(cfg, { ...base, loadItems: async () => ({ dataset: "fake", taskKind: "synthesis", items, warnings: [] }) }, { log: () => {} });
    const recs = readResults(join(out, "results.jsonl")).records.sort((a, b) => a.itemId.localeCompare(b.itemId));
    expect(recs.map((r) => [r.itemMeta.issn, r.itemMeta.journal])).toEqual([
      ["0007-9235", "Journal Alpha"],
      ["1234-5678", "X"],
    ]);
  });
});
