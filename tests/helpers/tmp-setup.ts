/**
 * vitest global setup: every temporary folder the suite makes (`mkdtempSync(join(tmpdir(), …))`
 * in tests and in the CLI children they spawn) goes under one folder of this run, removed when
 * the run ends — a test that forgets its `rmSync` no longer leaves hundreds of MB in /tmp.
 * `os.tmpdir()` reads `TMPDIR` at each call; test workers and their children inherit it.
 * `MEDSYNTH_KEEP_TEST_TMP=1` keeps the folder (its path is printed) for a post-mortem.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Points TMPDIR at a fresh `medsynth-tests-*` folder; returns the teardown that removes it. */
export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), "medsynth-tests-"));
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (process.env.MEDSYNTH_KEEP_TEST_TMP === "1") console.log(`test temporary files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
