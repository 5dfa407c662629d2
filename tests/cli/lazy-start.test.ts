/**
 * Issue 13.10 / 19: `medsynth --help`, `<command> --help`, `--version`, `datasets list` and
 * `validate` of a bad config start without loading LanceDB, LangChain, transformers.js, Vega,
 * Playwright, SQLite, apache-arrow or wink's language model. Structural, not timed: a preload
 * records every module the child process resolves (tests/helpers/load-recorder.mjs).
 * Runs bin/medsynth.js as a user does (dist/ when built — `npm test` builds it — else tsx).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { heavyPackages, runRecorded } from "../helpers/module-loads.ts";

const ROOT = resolve(__dirname, "../..");
const BIN = join(ROOT, "bin", "medsynth.js");
const tmp = mkdtempSync(join(tmpdir(), "medsynth-lazy-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the CLI starts light", () => {
  it("the recorder sees what a process loads (control: importing vega-lite is caught)", () => {
    const r = runRecorded(["--input-type=module", "-e", "await import('vega-lite'); await import('commander');"], { cwd: ROOT });
    expect(r.status).toBe(0);
    expect(r.heavy).toContain("vega-lite");
    expect(r.loaded.some((l) => l.includes("/node_modules/commander/"))).toBe(true);
  }, 60_000);

  it("heavyPackages picks scoped, prefixed and exact names only", () => {
    expect(
      heavyPackages([
        "/x/node_modules/@langchain/core/dist/a.js",
        "file:///x/node_modules/vega-scale/b.js",
        "/x/node_modules/openai/c.js",
        "/x/node_modules/openai-extra/d.js",
        "/x/node_modules/zod/e.js",
        "/x/node_modules/@lancedb/lancedb/f.js",
      ]),
    ).toEqual(["@lancedb/lancedb", "@langchain/core", "openai", "vega-scale"]);
  });

  const cases: [string, string[]][] = [
    ["--help", ["--help"]],
    ["--version", ["--version"]],
    ["run --help", ["run", "--help"]],
    ["search --help", ["search", "--help"]],
    ["generate --help", ["generate", "--help"]],
    ["corpus ingest --help", ["corpus", "ingest", "--help"]],
    ["annotate create --help", ["annotate", "create", "--help"]],
    ["datasets list --no-counts", ["datasets", "list", "--no-counts"]],
    ["reproduce --help", ["reproduce", "--help"]],
  ];
  for (const [name, args] of cases) {
    it(`${name} loads no heavy module`, () => {
      const r = runRecorded([BIN, ...args], { cwd: tmp });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.loaded.length).toBeGreaterThan(3); // the recorder ran
      expect(r.heavy).toEqual([]);
    }, 60_000);
  }

  it("--help lists every command", () => {
    const r = runRecorded([BIN, "--help"], { cwd: tmp });
    for (const c of ["corpus", "datasets", "index", "search", "retrieval", "generate", "judge", "metrics", "run", "merge", "report", "compare", "validate", "view", "annotate", "reproduce"])
      expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, "m"));
  }, 60_000);

  it("validate of an empty config fails naming the file, without loading heavy modules", () => {
    const cfg = join(tmp, "empty.yaml");
    writeFileSync(cfg, "");
    const r = runRecorded([BIN, "validate", cfg], { cwd: tmp });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(cfg);
    expect(r.heavy).toEqual([]);
  }, 60_000);
});
