/**
 * `medsynth report` and `medsynth compare` on the real CLI (bin/medsynth.js; build first): lines
 * of results.jsonl they leave out are warned about on stderr, naming the file and the lines; a
 * folder that does not exist is named as such.
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

  it("report names a folder that does not exist, a file, and a folder without results.jsonl", () => {
    const root = mkdtempSync(join(tmpdir(), "report-cli-none-"));
    const missing = runCli(["report", join(root, "nope")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`${join(root, "nope")}: no such folder`);
    writeFileSync(join(root, "file.txt"), "x");
    expect(runCli(["report", join(root, "file.txt")]).stderr).toContain(`${join(root, "file.txt")}: not a folder (give the run folder that holds results.jsonl)`);
    expect(runCli(["report", root]).stderr).toContain(`${root}: no results.jsonl (is this a run folder?)`);
    expect(runCli(["compare", join(root, "nope"), root]).stderr).toContain(`${join(root, "nope")}: no such folder`);
  });
});
