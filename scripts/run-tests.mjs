#!/usr/bin/env node
// Runs vitest with its JSON reporter and prints the plain line CI reads:
//   "N passed, N failed"
// A run that executed no test exits non-zero; when vitest itself failed (e.g. its global set-up
// threw) it counts as "0 passed, 1 failed".
// Every temporary folder the tests make (mkdtemp under os.tmpdir()) goes into one folder of this
// run (TMPDIR for vitest and everything it spawns), removed when the run ends — repeated runs
// leave nothing behind in /tmp. MEDSYNTH_KEEP_TEST_TMP=1 keeps it (its path is printed).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The CLI runs compiled JavaScript (dist/); build it from the current sources first so CLI tests
// and the package test never see a stale build.
const build = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
if (build.status !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "medsynth-vitest-"));
const out = join(dir, "report.json");
const testTmp = mkdtempSync(join(dir, "tmp-"));
const args = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...process.argv.slice(2)];
const res = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, NO_COLOR: "1", TMPDIR: testTmp } });
let passed = 0;
let failed = 0;
if (existsSync(out)) {
  const report = JSON.parse(readFileSync(out, "utf8"));
  passed = report.numPassedTests ?? 0;
  failed = (report.numFailedTests ?? 0) + ((report.numRuntimeErrorTestSuites ?? 0) ? 0 : 0);
  const failedSuites = (report.testResults ?? []).filter((r) => r.status === "failed" && (r.assertionResults ?? []).length === 0).length;
  failed += failedSuites;
}
if (res.status !== 0 && passed + failed === 0) {
  // vitest stopped before any test ran (its global set-up threw, e.g. datasets missing; it then
  // says "No test files found"): a failure, never "0 failed".
  console.log("no test ran: vitest stopped before the first test — its message above says why (e.g. the datasets the suite reads)");
  failed = 1;
}
if (process.env.MEDSYNTH_KEEP_TEST_TMP === "1") console.log(`test temporary files kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(res.status === 0 && passed > 0 && failed === 0 ? 0 : 1);
