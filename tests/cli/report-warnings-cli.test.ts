/**
 * `medsynth report` and `medsynth compare` on the real CLI (bin/medsynth.js; build first): lines
 * of results.jsonl they leave out are warned about on stderr, naming the file and the lines.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.ts";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "viewer", "results.jsonl");
const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);

function runDir(text: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "report-cli-")), "run");
  mkdirSync(dir);
  writeFileSync(join(dir, "results.jsonl"), text);
  return dir;
}

// Line 4 is not JSON; the 17th line is torn.
const damaged = [...lines.slice(0, 3), "{oops", ...lines.slice(3, 15)].join("\n") + "\n" + lines[1].slice(0, 30);

describe("report / compare warnings", () => {
  it("report warns on stderr naming the file and the lines, and exits 0", () => {
    const dir = runDir(damaged);
    const r = runCli(["report", dir]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`warning: ${join(dir, "results.jsonl")}: 1 malformed line(s) skipped (line 4), torn last line 17 left out`);
  });

  it("compare warns on stderr for the damaged run only", () => {
    const a = runDir(damaged);
    const b = runDir(lines.join("\n") + "\n");
    const r = runCli(["compare", a, b]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`warning: ${join(a, "results.jsonl")}: 1 malformed line(s) skipped (line 4), torn last line 17 left out`);
    expect(r.stderr).not.toContain(join(b, "results.jsonl"));
  });
});
