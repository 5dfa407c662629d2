/**
 * Which modules a child process loads: runs a command under `node --import load-recorder.mjs`
 * (ESM resolve hook + CommonJS require.cache) and names the heavy packages it pulled in. For
 * structural start-up tests (issue 13.10 / 19): no timing, only "was LanceDB loaded?".
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Absolute path of the preload that records module loads into $MEDSYNTH_LOAD_LOG. */
export const LOAD_RECORDER = resolve(__dirname, "load-recorder.mjs");

/**
 * Packages `--help` and other light commands must not load: the native vector store, LangChain
 * (and the OpenAI client under it), transformers.js, Vega, Playwright, SQLite, apache-arrow and
 * wink's English language model (~2 s of start-up on its own).
 */
export const HEAVY_PACKAGES = ["@lancedb/lancedb", "@langchain/", "openai", "@xenova/transformers", "vega", "playwright-core", "better-sqlite3", "apache-arrow", "wink-eng-lite-web-model"] as const;

/** Package name of a resolved module path or file URL inside node_modules ("@scope/name" or "name"), else null. */
export function packageOf(pathOrUrl: string): string | null {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(pathOrUrl.split("\\").join("/"));
  return m ? m[1] : null;
}

/** The heavy packages among loaded module paths, sorted, once each (`vega` matches vega, vega-lite, vega-*; `@langchain/` any LangChain package). */
export function heavyPackages(loaded: readonly string[]): string[] {
  const out = new Set<string>();
  for (const l of loaded) {
    const p = packageOf(l);
    if (!p) continue;
    if (HEAVY_PACKAGES.some((h) => (h.endsWith("/") ? p.startsWith(h) : h === "vega" ? p === "vega" || p.startsWith("vega-") : p === h))) out.add(p);
  }
  return [...out].sort();
}

/** What {@link runRecorded} returns. */
export interface RecordedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Every module path/URL the process resolved or required. */
  loaded: string[];
  /** {@link heavyPackages} of `loaded`. */
  heavy: string[];
}

/**
 * Run `node --import <recorder> <args…>` and collect the modules it loaded.
 * @param args node arguments after the preload (script and its arguments, or `-e …`).
 * @param opts cwd, extra environment, timeout (ms, default 60 s).
 */
export function runRecorded(args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): RecordedRun {
  const dir = mkdtempSync(join(tmpdir(), "medsynth-loads-"));
  const log = join(dir, "loads.txt");
  try {
    const r = spawnSync(process.execPath, ["--import", LOAD_RECORDER, ...args], {
      cwd: opts.cwd,
      encoding: "utf8",
      timeout: opts.timeout ?? 60_000,
      env: { ...process.env, NODE_OPTIONS: "", ...opts.env, MEDSYNTH_LOAD_LOG: log },
    });
    let loaded: string[] = [];
    try {
      loaded = readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => l.replace(/^(esm|cjs) /, ""));
    } catch {
      loaded = [];
    }
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", loaded, heavy: heavyPackages(loaded) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
