/**
 * Reading a corpus store never creates one: every read command pointed at a mistyped local store
 * folder says there is no store there, exits 1 and leaves nothing behind (LanceDB's connect would
 * write a `__manifest` folder; the folder is checked before connecting). An empty `lance:` names
 * `--corpus` and the expected form.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./run-cli.ts";

describe("read commands at a path with no store", () => {
  it("search, index build, retrieval eval, corpus export and rag-export exit 1 naming the path and create nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "medsynth-store-read-"));
    try {
      const missing = join(dir, "x", "ns");
      const runs: [string[], string][] = [
        [["search", "foo", "--corpus", `lance:${missing}`], missing],
        [["index", "build", "--corpus", `lance:${missing}`, "--mode", "bm25"], missing],
        [["retrieval", "eval", "--corpus", `lance:${missing}`, "--mode", "bm25"], missing],
        [["corpus", "export", "--store", missing, "--out", join(dir, "out.jsonl")], missing],
        [["corpus", "rag-export", "--store", missing, "--no-table", "--out", join(dir, "rag.jsonl")], missing],
      ];
      for (const [args, path] of runs) {
        const r = runCli(args);
        expect(r.status, args.join(" ")).toBe(1);
        expect(r.stderr, args.join(" ")).toContain(`medsynth: ${path}: no medsynth corpus store here`);
      }
      expect(existsSync(join(dir, "x"))).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("an empty lance: is an error naming --corpus and the expected form", () => {
    const r = runCli(["search", "foo", "--corpus", "lance:"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('medsynth: --corpus "lance:": no store folder after "lance:"; expected lance:<store folder>');
    expect(r.stderr).not.toMatch(/uri is required/);
  });
});
