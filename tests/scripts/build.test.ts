/**
 * scripts/build.mjs builds into a temporary folder and swaps it in: a build that is killed or
 * fails never leaves dist/ missing. Run on a scratch copy of the script with a stand-in `tsc`
 * (node_modules/typescript/bin/tsc) that writes one file into its --outDir, then waits or fails.
 */
import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BUILD = fileURLToPath(new URL("../../scripts/build.mjs", import.meta.url));

/** A scratch root: scripts/build.mjs, an old dist/ and a stand-in tsc behaving as `mode` says. */
function scratch(mode: "hang" | "ok" | "fail"): string {
  const root = mkdtempSync(join(tmpdir(), "medsynth-build-"));
  mkdirSync(join(root, "scripts"));
  cpSync(BUILD, join(root, "scripts", "build.mjs"));
  writeFileSync(join(root, "package.json"), '{"type":"module"}\n');
  mkdirSync(join(root, "dist", "experiments", "cli"), { recursive: true });
  writeFileSync(join(root, "dist", "experiments", "cli", "main.js"), "// old build\n");
  mkdirSync(join(root, "corpus"));
  writeFileSync(join(root, "corpus", "prompt.md"), "asset\n");
  mkdirSync(join(root, "node_modules", "typescript", "bin"), { recursive: true });
  writeFileSync(
    join(root, "node_modules", "typescript", "bin", "tsc"),
    `const fs = require("node:fs"), path = require("node:path");
const out = process.argv[process.argv.indexOf("--outDir") + 1] || ${JSON.stringify(join(root, "dist"))};
fs.mkdirSync(path.join(out, "experiments", "cli"), { recursive: true });
fs.writeFileSync(path.join(out, "experiments", "cli", "main.js"), "// new build\\n");
${mode === "hang" ? "setTimeout(() => {}, 60000);" : mode === "fail" ? "process.exit(2);" : ""}
`,
  );
  writeFileSync(join(root, "node_modules", "typescript", "package.json"), '{"type":"commonjs"}\n');
  return root;
}

const mainJs = (root: string) => readFileSync(join(root, "dist", "experiments", "cli", "main.js"), "utf8");
const leftovers = (root: string) => readdirSync(root).filter((n) => n.startsWith(".dist-"));

describe("scripts/build.mjs never leaves dist/ missing", () => {
  it("a build killed while compiling leaves the previous dist/ in place; the next build cleans its folder", async () => {
    const root = scratch("hang");
    const child = spawn(process.execPath, [join(root, "scripts", "build.mjs")], { detached: true, stdio: "ignore" });
    // Wait until the stand-in tsc has written its file (the build is under way), then kill the group.
    const deadline = Date.now() + 20_000;
    const started = () => readdirSync(root).some((n) => n.startsWith(".dist-build-") && existsSync(join(root, n, "experiments", "cli", "main.js"))) || !existsSync(join(root, "dist"));
    while (!started() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, "SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(join(root, "dist"))).toBe(true);
    expect(mainJs(root)).toBe("// old build\n");

    // A completed build replaces dist/ and removes the killed build's folder.
    writeFileSync(join(root, "node_modules", "typescript", "bin", "tsc"), readFileSync(join(scratch("ok"), "node_modules", "typescript", "bin", "tsc")));
    const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("build: dist/ compiled, 1 asset files copied\n");
    expect(mainJs(root)).toBe("// new build\n");
    expect(readFileSync(join(root, "dist", "corpus", "prompt.md"), "utf8")).toBe("asset\n");
    expect(leftovers(root)).toEqual([]);
  }, 60_000);

  it("a failing compile keeps the previous dist/ and says so", () => {
    const root = scratch("fail");
    const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("build: tsc failed; the previous dist/ is kept");
    expect(mainJs(root)).toBe("// old build\n");
    expect(leftovers(root)).toEqual([]);
  });

  it("a build killed between its two renames is repaired by the next one: the set-aside dist/ comes back", () => {
    const root = scratch("fail");
    cpSync(join(root, "dist"), join(root, ".dist-old-999999999"), { recursive: true });
    spawnSync("rm", ["-rf", join(root, "dist")]);
    const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(mainJs(root)).toBe("// old build\n");
    expect(leftovers(root)).toEqual([]);
  });
});
