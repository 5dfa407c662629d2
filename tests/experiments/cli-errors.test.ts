/** Issue 13 item 9: OS errors name the file and the cause; empty configs and non-results files are refused. */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigValue } from "../../models/config-file.ts";
import { readResults } from "../../results/results-file.ts";
import { validateCommand } from "../../experiments/cli/validate-commands.ts";
import { runMetricsCommand } from "../../experiments/cli/judge-commands.ts";
import { loadExperimentConfig } from "../../experiments/config.ts";

const dir = mkdtempSync(join(tmpdir(), "medsynth-cli-errors-"));

describe("errors that name the file and the cause", () => {
  it("a folder given as a config or results file: EISDIR with the path", () => {
    expect(() => readConfigValue(dir, "panel")).toThrow(`panel ${dir}: cannot read file (EISDIR: it is a folder, not a file)`);
    expect(() => readResults(dir)).toThrow(`results file ${dir}: cannot read (EISDIR: it is a folder, not a file)`);
  });

  it("an empty config (or only comments) is refused by validate and run", async () => {
    const empty = join(dir, "empty.yaml");
    writeFileSync(empty, "# nothing here yet\n");
    await expect(validateCommand(empty, {}, () => {})).rejects.toThrow(/empty\.yaml: the file is empty/);
    expect(() => loadExperimentConfig(empty)).toThrow(/the file is empty/);
  });

  it("metrics refuses a file that is not a results file", async () => {
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "just some notes\nmore notes\n");
    await expect(runMetricsCommand(notes, { metrics: ["rouge"], log: () => {} })).rejects.toThrow(`metrics: ${notes} is not a results file: none of its 2 non-empty line(s) is a run record`);
    const blank = join(dir, "blank.jsonl");
    writeFileSync(blank, "\n");
    await expect(runMetricsCommand(blank, { metrics: ["rouge"], log: () => {} })).rejects.toThrow(/it holds no records/);
  });
});
