/**
 * Tested documentation: every fenced code block marked `tested` in README.md, CONTRIBUTING.md and
 * docs/*.md (an info string such as ```` ```bash tested ````) is run as a bash script
 * (`set -euo pipefail`) through the built CLI, offline, in a fresh temporary folder, with a time
 * limit. A failing block fails the test named `<file>:<line>` (the line of its opening fence),
 * with the block's output. Only mark blocks that run offline in a few seconds.
 *
 * The script sees `medsynth` on PATH (a shim running this checkout's bin/medsynth.js, i.e. the
 * compiled dist/: run `node scripts/build.mjs` first, as `npm test` does) and runs in a temporary
 * folder that holds `experiments/configs` (a link to the checkout's), so examples can use the same
 * config paths as from the repository root while anything they write lands in the temporary folder.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Time limit of one block (the CLI starts in ~1 s; the slowest marked example is a dry run). */
const BLOCK_TIMEOUT_MS = 30_000;

/** One fenced block marked `tested`. */
interface TestedBlock {
  /** Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text (without the fences). */
  code: string;
}

/**
 * The fenced blocks of `markdown` whose info string has the word `tested` (```` ```bash tested ````,
 * `~~~sh tested`); other blocks are ignored. A fence closes with the same character, at least as
 * long, and nothing after it (CommonMark).
 * @throws Error naming the file and line of a tested block that is never closed.
 */
function extractTestedBlocks(markdown: string, file: string): TestedBlock[] {
  const lines = markdown.split(/\r?\n/);
  const out: TestedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const info = open[2].trim().split(/\s+/);
    let j = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    while (j < lines.length && !close.test(lines[j])) j++;
    if (info.includes("tested")) {
      if (j >= lines.length) throw new Error(`${file}:${i + 1}: tested code block is never closed`);
      out.push({ file, line: i + 1, code: lines.slice(i + 1, j).join("\n") });
    }
    i = j;
  }
  return out;
}

/** Markdown files whose tested blocks run: README.md, CONTRIBUTING.md, docs/*.md. */
function docFiles(): string[] {
  const files = ["README.md", "CONTRIBUTING.md"].filter((f) => existsSync(join(ROOT, f)));
  const docs = join(ROOT, "docs");
  if (existsSync(docs)) for (const f of readdirSync(docs).sort()) if (f.endsWith(".md")) files.push(`docs/${f}`);
  return files;
}

const blocks = docFiles().flatMap((f) => extractTestedBlocks(readFileSync(join(ROOT, f), "utf8"), f));

describe("tested documentation blocks", () => {
  it("extracts only blocks marked tested, with the line of their opening fence", () => {
    const md = ["# t", "```bash", "echo untested", "```", "", "```bash tested", "medsynth --help", "```", "~~~~sh tested", "echo a", "```", "echo b", "~~~~", "```"].join("\n");
    expect(extractTestedBlocks(md, "x.md")).toEqual([
      { file: "x.md", line: 6, code: "medsynth --help" },
      { file: "x.md", line: 9, code: "echo a\n```\necho b" },
    ]);
    expect(() => extractTestedBlocks("```bash tested\necho never closed\n", "y.md")).toThrow("y.md:1: tested code block is never closed");
  });

  it("docs/ has tested examples (the harness is not running on nothing)", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  let work: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist/experiments/cli/main.js"))) throw new Error("dist/ is missing: run `node scripts/build.mjs` (npm test does) before the tested documentation blocks");
    work = mkdtempSync(join(tmpdir(), "medsynth-doc-examples-"));
    const bin = join(work, ".bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "medsynth"), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin/medsynth.js")}" "$@"\n`);
    chmodSync(join(bin, "medsynth"), 0o755);
    env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}`, NO_COLOR: "1", FORCE_COLOR: "0" };
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const b of blocks) {
    it(
      `${b.file}:${b.line}`,
      () => {
        const cwd = mkdtempSync(join(work, "block-"));
        mkdirSync(join(cwd, "experiments"));
        symlinkSync(join(ROOT, "experiments/configs"), join(cwd, "experiments/configs"));
        const script = join(cwd, ".block.sh");
        writeFileSync(script, `set -euo pipefail\n${b.code}\n`);
        const r = spawnSync("bash", [script], { cwd, env, encoding: "utf8", timeout: BLOCK_TIMEOUT_MS });
        const output = `${r.stdout ?? ""}${r.stderr ?? ""}`.split("\n").slice(-30).join("\n");
        const why = r.error ? `did not finish (${r.error.message}; limit ${BLOCK_TIMEOUT_MS / 1000} s)` : `exited with ${r.status ?? r.signal}`;
        if (r.status !== 0) expect.fail(`${b.file}:${b.line}: the tested block ${why}\n--- block:\n${b.code}\n--- last output:\n${output}`);
      },
      BLOCK_TIMEOUT_MS + 10_000,
    );
  }
});
