/** Project-wide checks: strict typecheck and no import cycles (STYLE.md "Layout"). */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";

describe("project", () => {
  it("has no import cycles (dpdm)", () => {
    const r = spawnSync("npm", ["run", "-s", "check:cycles"], { encoding: "utf8" });
    expect(r.stdout + r.stderr).not.toMatch(/Circular Dependencies[\s\S]*\d+\)/);
    expect(r.status).toBe(0);
  }, 120_000);

  it("typechecks under strict tsc", () => {
    const r = spawnSync("npx", ["tsc", "--noEmit", "-p", "tsconfig.json"], { encoding: "utf8" });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 300_000);
});
