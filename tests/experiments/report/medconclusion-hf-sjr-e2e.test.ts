/**
 * End to end: `medsynth run` on the published-format MedConclusion fixture (dataset
 * `medconclusion-hf`) with the offline extractive baseline and `report.scimago` pointing at the
 * SCImago-format test file: the report carries the journal-subgroup section, joined by ISSN.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { runCommand } from "../../../experiments/cli/run-commands.ts";

const fixtures = resolve(import.meta.dirname, "../../fixtures");

describe("MedConclusion run with SCImago subgroups", () => {
  it("joins each item's ISSN to the SCImago file and reports SJR association and categories", async () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-sjr-e2e-"));
    const file = join(dir, "exp.yaml");
    writeFileSync(
      file,
      YAML.stringify({
        name: "sjr-e2e",
        output: "run",
        datasets: [{ name: "medconclusion-hf", options: { path: join(fixtures, "medconclusion-hf/sample.jsonl") } }],
        models: [{ id: "extractive:mmr" }],
        workflows: [{ id: "conclusion-a" }],
        metrics: ["rouge"],
        report: { scimago: join(fixtures, "scimago/scimagojr-sample.csv") },
      }),
    );
    const summary = await runCommand(file, { progress: false }, () => {});
    expect(summary.ran).toBe(3);
    expect(summary.failed).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "run", "report.json"), "utf8"));
    const section = report.sections.find((s: { heading: string }) => s.heading.startsWith("Journal subgroups"));
    const md = readFileSync(join(dir, "run", "report.md"), "utf8");
    expect(md).toContain("3 of 3 items joined to a journal");
    const items = section.tables.find((t: { id: string }) => t.id === "sjr-items").values;
    // SJR from the SCImago file (0.5), not the dataset's own column (3.2): the file wins when it has the ISSN.
    expect(items.find((v: { itemId: string }) => v.itemId === "medconclusion-hf:30000001")).toMatchObject({ sjr: 0.5, quartile: "Q3", source: "scimago" });
    const assoc = section.tables.find((t: { id: string }) => t.id === "sjr-association").values;
    expect(assoc.find((v: { metric: string }) => v.metric === "rouge1_fmeasure").journals).toBe(3);
    expect(md).toContain("Top and bottom subject categories by each metric");
  });
});
