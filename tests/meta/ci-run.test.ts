/**
 * `.ci/run` builds the API docs after the tests (`npm run docs`, TypeDoc with warnings as errors):
 * a docs failure is shown, counted in the final "N passed, N failed" line and fails the script.
 * Run with a stand-in `npm` on PATH (no install, no test run, no TypeDoc) and a stand-in Chromium.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CI_RUN = fileURLToPath(new URL("../../.ci/run", import.meta.url));

/** Run .ci/run with an `npm` that answers `ci`, `test` (printing `testLine`, exit `testStatus`), `run docs` (exit `docsStatus`) and `run -s lint` (Biome lint rules + format) (exit `lintStatus`). */
function ciRun(testLine: string, testStatus: number, docsStatus: number, lintStatus = 0): { status: number | null; out: string } {
  const bin = mkdtempSync(join(tmpdir(), "medsynth-ci-bin-"));
  writeFileSync(
    join(bin, "npm"),
    `#!/usr/bin/env bash
case "$1" in
  ci) exit 0 ;;
  test) echo "${testLine}"; exit ${testStatus} ;;
  run) if [ "$2" = -s ] && [ "$3" = lint ]; then echo "lint/correctness/noUnusedImports x.ts"; exit ${lintStatus}; fi
       [ "$2" = docs ] || exit 9; echo "[warning] Failed to resolve link to \\"./x.ts\\""; exit ${docsStatus} ;;
esac
exit 9
`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  const r = spawnSync("bash", [CI_RUN], { encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CHROMIUM_PATH: "/bin/sh" } });
  return { status: r.status, out: r.stdout };
}

const lastLine = (s: string) => s.trimEnd().split("\n").at(-1);

describe(".ci/run runs npm run docs", () => {
  it("docs ok, tests ok: exit 0, the tests' line last", () => {
    const r = ciRun("12 passed, 0 failed", 0, 0);
    expect(r.out).toContain("docs: `npm run docs` ok (no TypeDoc warning)\n");
    expect(lastLine(r.out)).toBe("12 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("docs failing: TypeDoc's output shown, one more failed in the final line, exit 1", () => {
    const r = ciRun("12 passed, 0 failed", 0, 4);
    expect(r.out).toContain('[warning] Failed to resolve link to "./x.ts"\n');
    expect(r.out).toContain("docs: `npm run docs` failed (exit 4; TypeDoc warnings count as errors) — see above\n");
    expect(lastLine(r.out)).toBe("12 passed, 1 failed");
    expect(r.status).toBe(1);
  });

  it("tests failing and docs failing: both counted; tests failing alone keep their status", () => {
    expect(lastLine(ciRun("10 passed, 2 failed", 1, 4).out)).toBe("10 passed, 3 failed");
    const t = ciRun("10 passed, 2 failed", 1, 0);
    expect(lastLine(t.out)).toBe("10 passed, 2 failed");
    expect(t.status).toBe(1);
  });
});

describe(".ci/run runs lint + format (npm run lint)", () => {
  it("lint failing: Biome's findings shown, one more failed, exit 1; with docs failing too, two more", () => {
    const r = ciRun("12 passed, 0 failed", 0, 0, 1);
    expect(r.out).toContain("lint/correctness/noUnusedImports x.ts\n");
    expect(r.out).toContain("lint: `npm run lint` (Biome lint rules + format) failed (exit 1) — see above; `npm run format` applies the format\n");
    expect(lastLine(r.out)).toBe("12 passed, 1 failed");
    expect(r.status).toBe(1);
    expect(lastLine(ciRun("12 passed, 0 failed", 0, 4, 1).out)).toBe("12 passed, 2 failed");
    expect(ciRun("12 passed, 0 failed", 0, 0, 0).out).toContain("lint: `npm run lint` ok (lint rules and format)\n");
  });
});

describe(".ci/run when the tests print no summary", () => {
  it("prints 0 passed and counts the docs failure too", () => {
    const r = ciRun("crashed", 1, 4);
    expect(lastLine(r.out)).toBe("0 passed, 2 failed");
    expect(r.status).toBe(1);
    expect(lastLine(ciRun("crashed", 1, 0).out)).toBe("0 passed, 1 failed");
  });
});
