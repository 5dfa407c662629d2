/**
 * The `jsonl` dataset format (docs/datasets.md#your-own-tasks-jsonl): a line that does not fit
 * names every missing or invalid field at once with file and line; a synthesis line needs only
 * `id` and `question` (P-ZS reads nothing else), the rest defaulting to null / [].
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadJsonlTasks } from "../../../corpus/datasets/jsonl.ts";

const file = (lines: string[]) => {
  const path = join(mkdtempSync(join(tmpdir(), "medsynth-jsonl-fields-")), "tasks.jsonl");
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
};

describe("jsonl task lines", () => {
  it("a synthesis line with only id and question loads; omitted fields are null or empty", async () => {
    const path = file([JSON.stringify({ kind: "synthesis", id: "q1", question: "Does drug A reduce mortality?" })]);
    const d = await loadJsonlTasks({ path });
    expect(d.warnings).toEqual([]);
    expect(d.items).toEqual([
      {
        kind: "synthesis",
        id: "q1",
        dataset: "jsonl",
        question: "Does drug A reduce mortality?",
        referenceConclusion: null,
        referenceAnswer: null,
        evidenceCertainty: null,
        goldenPmids: [],
        goldenDocs: [],
      },
    ]);
  });

  it("given fields are kept as written", async () => {
    const line = {
      kind: "synthesis",
      id: "q2",
      dataset: "mine",
      question: "Q?",
      referenceConclusion: "C.",
      referenceAnswer: "lower",
      evidenceCertainty: "high",
      goldenPmids: ["1"],
      goldenDocs: [{ id: "1", title: "T", text: "x" }],
    };
    const d = await loadJsonlTasks({ path: file([JSON.stringify(line)]) });
    expect(d.items).toEqual([line]);
  });

  it("every missing or invalid field of a line is named in one warning with file and line", async () => {
    const bad = { kind: "synthesis", question: "", referenceAnswer: "better", goldenDocs: [{ id: "1" }] }; // no id, empty question, bad answer, doc without title/text
    const path = file([JSON.stringify({ kind: "synthesis", id: "ok", question: "Q?" }), JSON.stringify(bad)]);
    const d = await loadJsonlTasks({ path });
    expect(d.items.map((t) => t.id)).toEqual(["ok"]);
    expect(d.warnings).toHaveLength(1);
    const w = d.warnings[0];
    expect(w.startsWith(`${path}:2: `)).toBe(true);
    for (const field of ["id: ", "question: ", "referenceAnswer: ", "goldenDocs.0.title: ", "goldenDocs.0.text: "]) expect(w).toContain(field);
    expect(w.endsWith("; skipped")).toBe(true);
    expect(d.skipped.count).toBe(1);
  });
});
