/**
 * The npm package as a user gets it (issue 19): `npm pack`, install the tarball into a fresh
 * project from the registry/npm cache only, import every entry point under plain Node (no
 * TypeScript loader), call one function from each, and run the installed `medsynth --help`.
 * Needs `dist/` (`npm test` builds it first).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../helpers/scripted-openai-server.ts";
import { runRecorded } from "../helpers/module-loads.ts";

const ROOT = resolve(__dirname, "../..");
let dir: string;
let server: ScriptedServer;

describe("the packed npm package", () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist", "experiments", "cli", "main.js"))) throw new Error("dist/ is missing: run `npm run build` (npm test does)");
    dir = mkdtempSync(join(tmpdir(), "medsynth-consumer-"));
    execFileSync("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, npm_config_ignore_scripts: "true" } });
    const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    const install = spawnSync("npm", ["install", `./${tgz}`, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
    if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
    copyFileSync(join(ROOT, "tests", "meta", "consumer.mjs"), join(dir, "consumer.mjs"));
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships compiled JavaScript, declarations and assets, and no tests, benches or TypeScript sources", () => {
    const files = execFileSync("tar", ["-tzf", join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz"))!)], { encoding: "utf8" }).split("\n");
    expect(files).toContain("package/dist/judges/index.js");
    expect(files).toContain("package/dist/judges/index.d.ts");
    expect(files).toContain("package/dist/graphs/prompts/rag-synthesize.md");
    expect(files).toContain("package/dist/judges/rubrics/medmeta-semantic-equivalence.yaml");
    expect(files.filter((f) => f.startsWith("package/tests/") || f.includes("/bench/") || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toEqual([]);
  });

  it("imports every entry point under plain Node and calls one function of each", async () => {
    server = await startScriptedServer([{ content: "Aspirin probably reduces stroke." }]);
    // asynchronously: the scripted server lives in this process and must keep answering
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, ["consumer.mjs"], { cwd: dir, env: { ...process.env, SCRIPTED_BASE_URL: server.baseURL, CONSUMER_CACHE: join(dir, "cache"), NODE_OPTIONS: "" } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (b) => (stdout += b));
      child.stderr.on("data", (b) => (stderr += b));
      child.on("close", (status) => done({ status, stdout, stderr }));
    });
    if (r.status !== 0) throw new Error(r.stderr);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(out.corpus).toEqual([["123", "A title."]]);
    expect(out.judges).toBeCloseTo(0.8333333, 6); // rouge-score: LCS 5 of 6 tokens each side
    expect(out.retrieval[0]).toBe("1");
    expect(out.models).toBe("extractive:mmr");
    expect(out.graphs).toEqual(["ok", "Aspirin probably reduces stroke."]);
    expect(out.experiments).toBe(2);
    expect(out.viewer).toBe('id,text\n1,"a, b"\n');
    expect(server.chatRequests()).toHaveLength(1);
  }, 120_000);

  it("the installed bin answers --help with compiled JavaScript", () => {
    const r = spawnSync(join(dir, "node_modules", ".bin", "medsynth"), ["--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: medsynth/);
    expect(existsSync(join(dir, "node_modules", "medsynth", "experiments"))).toBe(false);
  }, 60_000);

  it("the installed bin's --help and --version load no heavy module (LanceDB, LangChain, transformers.js, Vega, …)", () => {
    for (const args of [["--help"], ["--version"], ["run", "--help"]]) {
      const r = runRecorded([join(dir, "node_modules", "medsynth", "bin", "medsynth.js"), ...args], { cwd: dir });
      expect(r.status).toBe(0);
      expect(r.loaded.some((l) => l.includes("/node_modules/medsynth/dist/experiments/cli/main.js"))).toBe(true);
      expect(r.heavy).toEqual([]);
    }
  }, 60_000);
});
