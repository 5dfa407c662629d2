import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadJsonlTasks } from "../../../corpus/datasets/jsonl.ts";
import { loadMedEvidence } from "../../../corpus/datasets/medevidence.ts";
import { loadRweGlp1 } from "../../../corpus/datasets/rwe-glp1.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "medsynth-jsonl-"));

describe("jsonl task loader", async () => {
  const synth = (await loadMedEvidence({ limit: 2 })).items;
  const rwe = (await loadRweGlp1()).items[0];

  it("round-trips real tasks and skips malformed lines with file:line", async () => {
    const path = join(tmp(), "tasks.jsonl");
    const lines = [
      JSON.stringify({ kind: "synthesis", ...synth[0] }),
      "{not json",
      JSON.stringify({ kind: "synthesis", ...synth[1], question: "" }),
      "",
      JSON.stringify({ kind: "rwe", ...rwe }),
      JSON.stringify({ kind: "essay", id: "x" }),
      JSON.stringify({ ...synth[0] }),
    ];
    writeFileSync(path, lines.join("\n"));
    const d = await loadJsonlTasks({ path });
    expect(d.items.map((t) => [t.kind, t.id])).toEqual([
      ["synthesis", "medevidence:0"],
      ["rwe", "glp1-vs-sglt2i-respiratory"],
    ]);
    expect(d.items[0]).toEqual({ kind: "synthesis", ...synth[0] });
    expect(d.skipped).toEqual({ count: 4, reasons: { "invalid JSON": 1, "invalid question": 1, "unknown kind": 1, "missing kind": 1 } });
    expect(d.warnings[0]).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:2: invalid JSON`));
    expect(d.warnings[1]).toMatch(/:3: question: /);
    expect(d.taskKind).toBe("conclusion"); // mixed file, no kind option
  });

  it("uses the kind option for lines without kind and rejects disagreeing lines", async () => {
    const path = join(tmp(), "synth.jsonl");
    writeFileSync(path, [JSON.stringify(synth[0]), JSON.stringify({ kind: "rwe", ...rwe })].join("\n") + "\n");
    const d = await loadJsonlTasks({ path, kind: "synthesis" });
    expect(d.items).toHaveLength(1);
    expect(d.taskKind).toBe("synthesis");
    expect(d.skipped.reasons).toEqual({ "kind mismatch": 1 });
  });

  it("throws naming a missing file", async () => {
    await expect(loadJsonlTasks({ path: "/nonexistent/x.jsonl" })).rejects.toThrow(/file not found: \/nonexistent\/x\.jsonl/);
  });
});
