/**
 * The README's first command runs the already-built CLI at once: not `npx medsynth`, which inside
 * the checkout installs the checkout into npx's cache and builds it a second time (docs/first-run.md).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const firstCommand = (): string => {
  const block = /```bash\n([\s\S]*?)```/.exec(readFileSync(new URL("README.md", `file://${ROOT}`), "utf8"));
  return (block?.[1].split("\n")[0] ?? "").replace(/\s+#.*$/, "");
};

describe("README first command", () => {
  it("is `npm ci && node bin/medsynth.js run <demo config>`, never npx inside the checkout", () => {
    const cmd = firstCommand();
    expect(cmd).toBe("npm ci && node bin/medsynth.js run experiments/configs/demo.yaml");
    expect(readFileSync(new URL("README.md", `file://${ROOT}`), "utf8")).not.toMatch(/time npx medsynth run/);
  });

  it("its CLI part starts the built CLI at once (no install, no build): --version in the checkout", () => {
    const cli = firstCommand()
      .replace(/^npm ci && /, "")
      .split(" ");
    expect(cli.slice(0, 2)).toEqual(["node", "bin/medsynth.js"]);
    const t = performance.now();
    const r = spawnSync(process.execPath, [cli[1], "--version"], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(new URL("package.json", `file://${ROOT}`), "utf8")).version);
    expect(performance.now() - t).toBeLessThan(30_000);
  });
});
