/** `medsynth view`'s startup lines: each run's cells and the lines of results.jsonl left out, with their numbers. */
import { describe, expect, it } from "vitest";
import { viewCommand } from "../../../experiments/cli/viewer-commands.ts";
import { makeRunDir } from "../../viewer/fixtures.ts";

describe("viewCommand", () => {
  it("names the malformed lines it skipped", async () => {
    const lines: string[] = [];
    const srv = await viewCommand([makeRunDir()], { port: 0 }, (l) => lines.push(l));
    try {
      expect(lines[0]).toMatch(/^run 0: fixture-run — 17 cells \(index built in [0-9.]+ s\), 2 malformed line\(s\) skipped \(lines 4, 19\)$/);
    } finally {
      await srv.close();
    }
  });
});
