/** `medsynth validate --human <study>` through the CLI, the files it writes, and the report section. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { medsynthCommand } from "../../corpus/paths.ts";
import { buildProgram } from "../../experiments/cli/main.ts";
import { writeReport } from "../../experiments/report/build.ts";
import { RatingStore } from "../../viewer/study/store.ts";
import { createStudy } from "../../viewer/study/study.ts";
import { changeCell, makeStudyRun } from "./study-fixtures.ts";

const DIM = "medmeta-semantic-equivalence.semantic_equivalence";

describe("validate --human", () => {
  it("aligns the study's ratings with the panel, writes json/md, and the report shows them", async () => {
    const runDir = makeStudyRun();
    const dir = join(runDir, "studies", "s1");
    const { study } = createStudy(runDir, { rubric: "medmeta", raters: 2, items: 6, seed: 1, name: "s1" });
    expect(existsSync(join(dir, "study.json"))).toBe(true);
    // both raters give the panel's value; rater2 one point higher on every other task
    const store = new RatingStore(dir);
    const records = new Map<string, number>();
    for (const line of readFileSync(join(runDir, "results.jsonl"), "utf8").trim().split("\n")) {
      const r = JSON.parse(line);
      records.set(r.key, r.panel.scores["medmeta-semantic-equivalence"].semantic_equivalence.value);
    }
    study.tasks.forEach((t, i) => {
      const panel = records.get(t.keys[0])!;
      store.submit("rater1", t.id, { scores: { [DIM]: panel }, preference: null, comment: "" }, 0);
      store.submit("rater2", t.id, { scores: { [DIM]: Math.min(5, panel + (i % 2)) }, preference: null, comment: "" }, 0);
    });
    store.close();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await buildProgram().parseAsync(["node", "medsynth", "validate", "--human", dir]);
    } finally {
      log.mockRestore();
    }
    const rep = JSON.parse(readFileSync(join(dir, "human-alignment.json"), "utf8"));
    expect(rep.ratings).toBe(36);
    expect(rep.agreement[0].tasks).toBe(18);
    const all = rep.humanVsPanel.find((h: { group: string }) => h.group === "all").result;
    expect(all.n).toBe(18);
    // human mean − panel = 0 or 0.5 (0 where the +1 was capped at 5): bias is panel − human < 0
    expect(all.blandAltman.bias).toBeLessThan(0);
    expect(all.blandAltman.bias).toBeGreaterThan(-0.5);
    expect(rep.humanVsPanel.map((h: { group: string }) => h.group)).toEqual(["all", "model-x | golden-rag", "model-x | pzs", "model-x | standard-rag | k=5"]);
    expect(readFileSync(join(dir, "human-alignment.md"), "utf8")).toContain("### Human (mean of raters) vs LLM panel");
    const files = await writeReport(runDir);
    const md = readFileSync(files.markdown, "utf8");
    expect(md).toContain('Human ratings: study "s1"');
    expect(md).toContain(`\`${medsynthCommand()} view ${runDir}\``);
    expect(md).toContain(`\`${medsynthCommand()} validate --human ${dir}\`; rate more with \`${medsynthCommand()} annotate serve ${dir}\``);
  });

  it("refuses a study whose run changed, naming the cell", async () => {
    const runDir = makeStudyRun();
    const out = join(mkdtempSync(join(tmpdir(), "medsynth-vh-")), "s");
    createStudy(runDir, { rubric: "medmeta", raters: 2, items: 6, seed: 1, out });
    changeCell(runDir, 0, 0);
    await expect(buildProgram().parseAsync(["node", "medsynth", "validate", "--human", out])).rejects.toThrow(/refused: 1 of its 18 cells changed.*cell-a1-0/);
  });

  it("still asks for a config without --human", async () => {
    await expect(buildProgram().parseAsync(["node", "medsynth", "validate"])).rejects.toThrow("give a validation config, or --human <study-dir>");
  });
});
